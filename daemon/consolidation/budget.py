"""Consolidation's ceilings: model calls, tokens and estimated cost per day, and how long a
run may make calls; when the day starts over, and what a run does at a ceiling.

The calls and tokens already used are read from the log's projections (run summaries and
explained plans) each time a budget is opened, so a restart never forgets them.
``budget_reset`` says where the day begins (:func:`window_start`); the cost ceiling is a token
ceiling at ``cost_per_million_tokens`` (:func:`token_ceiling`). ``on_exceed`` says what
:meth:`CallBudget.take` does at a ceiling: ``pause`` refuses the call (the phase goes on by its
rules and the run keeps its work), ``log`` lets it through with a warning, ``throw`` ends the
run with :class:`BudgetExceeded`. :class:`MeteredProvider` counts each call's tokens.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from daemon.config import ConsolidationConfig
from daemon.logging import get_logger
from plugins.llm.budget import ProviderWrapper
from plugins.llm.types import Completion, CompletionRequest, LLMProvider

log = get_logger("memoryd.consolidation")

DAY = timedelta(days=1)


class BudgetExceeded(Exception):
    """The day's model calls are spent and ``on_exceed`` is ``throw``: the run fails."""


def window_start(now: datetime, reset: str) -> datetime:
    """Return when the current budget day began for ``reset`` (utc, local or sliding-24h)."""
    if reset == "sliding-24h":
        return now - DAY
    if reset == "local":
        local = now.astimezone()
        return local.replace(hour=0, minute=0, second=0, microsecond=0)
    return now.replace(hour=0, minute=0, second=0, microsecond=0)


def token_ceiling(config: ConsolidationConfig) -> int | None:
    """Return the day's token ceiling: ``daily_tokens`` or what ``daily_cost`` buys, the
    lower (None: no bound)."""
    bounds = [config.daily_tokens] if config.daily_tokens else []
    if config.daily_cost and config.cost_per_million_tokens:
        bounds.append(int(config.daily_cost / config.cost_per_million_tokens * 1_000_000))
    return min(bounds) if bounds else None


@dataclass(slots=True)
class CallBudget:
    """Model calls and tokens left today; :meth:`take` says whether one more call may go."""

    remaining: int
    on_exceed: str = "pause"
    tokens_left: int | None = None
    """Tokens left today (None: no bound); a call that starts under it may end past it."""
    past_deadline: Callable[[], bool] | None = None
    """Whether the run's ``max_run_duration`` is spent."""
    used: int = 0
    tokens: int = 0
    refused: int = 0
    over: int = 0
    exceeded: str | None = None
    """Why a ceiling was met (None while none is)."""
    by_model: dict[str, int] = field(default_factory=dict)
    """Calls made, by the model that answered (as the provider reported it)."""

    def _ceiling(self) -> str | None:
        if self.remaining <= 0:
            return "the day's consolidation calls are spent"
        if self.tokens_left is not None and self.tokens >= self.tokens_left:
            return "the day's consolidation tokens (or estimated cost) are spent"
        if self.past_deadline is not None and self.past_deadline():
            return "the run's max_run_duration is spent"
        return None

    def take(self) -> bool:
        reason = self._ceiling()
        if reason is None:
            self.remaining -= 1
            self.used += 1
            return True
        self.exceeded = self.exceeded or reason
        if self.on_exceed == "throw":
            raise BudgetExceeded(self.exceeded)
        if self.on_exceed == "log":
            self.used += 1
            self.over += 1
            log.warning("consolidation budget exceeded", over=self.over)
            return True
        self.refused += 1
        return False

    def spent(self, reason: str) -> None:
        """Close the budget for the rest of the run: the provider's own budget refused."""
        self.remaining = 0
        self.exceeded = reason
        self.refused += 1
        if self.on_exceed == "throw":
            raise BudgetExceeded(reason)


class MeteredProvider(ProviderWrapper):
    """Wrap a provider so each call's tokens count against a run's :class:`CallBudget`."""

    def __init__(self, inner: LLMProvider, budget: CallBudget) -> None:
        super().__init__(inner)
        self.budget = budget

    async def complete(self, request: CompletionRequest) -> Completion:
        """Call the wrapped provider and count the tokens it reports."""
        completion = await self.inner.complete(request)
        self.budget.tokens += completion.usage.total_tokens
        model = completion.model or request.model or self.inner.model
        self.budget.by_model[model] = self.budget.by_model.get(model, 0) + 1
        return completion
