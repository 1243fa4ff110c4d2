"""The model iterative recall asks, when ``[llm]`` names one.

:class:`RecallModel` holds the provider built from ``[llm]`` and follows configuration
reloads; with ``provider = "none"`` it holds nothing and iterative recall stays offline. Its
calls count against the daemon's ``[llm.budget]``: while the retrospective service runs with
the model, recall calls through *its* budgeted provider (one daily count for both, the one
``memoryd_llm_budget_*`` shows); otherwise through its own, wrapped in a tracker of the same
ceilings. :meth:`RecallModel.grader` gives the loop its grader: one bounded call per graded
pass (see :mod:`daemon.recall.grader`).
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
from plugins.registry import default_plugins

log = get_logger("memoryd.recall")


Shared = Callable[[], tuple[LLMProvider, BudgetTracker] | None]
"""Another budgeted provider of the same ``[llm]`` to call through, when there is one."""


class RecallModel:
    """The provider iterative recall grades with (None: offline)."""

    def __init__(self, now: Callable[[], datetime], shared: Shared | None = None) -> None:
        self._now = now
        self._shared = shared
        self._own: LLMProvider | None = None
        self._own_budget: BudgetTracker | None = None
        self.timeout = GRADER_TIMEOUT

    def _current(self) -> tuple[LLMProvider, BudgetTracker | None] | None:
        if self._own is None:
            return None  # [llm] provider = "none" (or a section that would not build)
        found = self._shared() if self._shared is not None else None
        return found if found is not None else (self._own, self._own_budget)

    @property
    def provider(self) -> LLMProvider | None:
        """Return the provider a call goes through now (None: offline)."""
        current = self._current()
        return None if current is None else current[0]

    @property
    def budget(self) -> BudgetTracker | None:
        """Return the budget tracker that counts recall's calls now."""
        current = self._current()
        return None if current is None else current[1]

    async def apply(self, llm: LlmConfig) -> None:
        """Build the provider ``[llm]`` names (close the one before); a bad section leaves
        recall offline and is logged."""
        old = self._own
        self._own, self._own_budget = None, None
        mapping = llm.provider_settings()
        if mapping is not None:
            try:
                settings = LLMSettings.from_mapping(mapping)
                inner = default_plugins().llm_provider(llm.provider, mapping)
            except Exception as exc:  # a bad plugin or section must not take search down
                log.error("recall.llm_failed", error=str(exc))
            else:
                self._own_budget = BudgetTracker(settings.budget)
                self._own = BudgetedProvider(inner, self._own_budget, self._now)
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
        """Close the provider recall built (a shared one belongs to its owner)."""
        if self._own is not None:
            await _close(self._own)
            self._own = None


async def _close(provider: Any) -> None:
    close = getattr(provider, "aclose", None)
    if close is not None:
        await close()
