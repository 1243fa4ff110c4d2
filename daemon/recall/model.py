"""The model iterative recall asks (issue 18), when ``[llm]`` names one.

:class:`RecallModel` holds the provider built from ``[llm]`` (wrapped in a budget tracker of
the ``[llm.budget]`` ceilings) and follows configuration reloads; with ``provider = "none"``
it holds nothing and iterative recall stays offline. :meth:`RecallModel.grader` gives the
loop its grader: one bounded call per graded pass (see :mod:`daemon.recall.grader`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from daemon.config import Config, LlmConfig
from daemon.logging import get_logger
from daemon.recall.engine import Hit
from daemon.recall.grader import GRADER_TIMEOUT, Verdict, grade
from daemon.recall.iterative import Grader
from plugins.llm.budget import BudgetedProvider, BudgetTracker
from plugins.llm.settings import LLMSettings
from plugins.llm.types import LLMProvider
from plugins.registry import load_plugins

log = get_logger("memoryd.recall")


class RecallModel:
    """The provider iterative recall grades with (None: offline)."""

    def __init__(self, now: Callable[[], datetime]) -> None:
        self._now = now
        self.provider: LLMProvider | None = None
        self.budget: BudgetTracker | None = None
        self.timeout = GRADER_TIMEOUT

    async def apply(self, llm: LlmConfig) -> None:
        """Build the provider ``[llm]`` names (close the one before); a bad section leaves
        recall offline and is logged."""
        old = self.provider
        self.provider, self.budget = None, None
        mapping = llm.provider_settings()
        if mapping is not None:
            try:
                settings = LLMSettings.from_mapping(mapping)
                inner: LLMProvider = load_plugins().create("llm_provider", llm.provider, mapping)
            except Exception as exc:  # a bad plugin or section must not take search down
                log.error("recall.llm_failed", error=str(exc))
            else:
                self.budget = BudgetTracker(settings.budget)
                self.provider = BudgetedProvider(inner, self.budget, self._now)
                self.timeout = min(GRADER_TIMEOUT, settings.timeout)
        if old is not None:
            await _close(old)

    async def on_reload(self, old: Config, new: Config) -> None:
        """Follow a configuration reload of ``[llm]``."""
        if new.llm != old.llm:
            await self.apply(new.llm)

    def grader(self) -> Grader | None:
        """The grader for one search (None without a model)."""
        provider = self.provider
        if provider is None:
            return None
        timeout = self.timeout

        async def judge(question: str, hits: Sequence[Hit]) -> Verdict:
            return await grade(provider, question, hits, timeout)

        return judge

    async def close(self) -> None:
        """Close the provider."""
        if self.provider is not None:
            await _close(self.provider)
            self.provider = None


async def _close(provider: Any) -> None:
    close = getattr(provider, "aclose", None)
    if close is not None:
        await close()
