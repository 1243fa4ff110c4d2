"""Consolidation's daily model calls: when the day starts over, and what a run does at the
ceiling.

The calls already made are read from the log's projections (run summaries and explained
plans) each time a budget is opened, so a restart never forgets them. ``budget_reset`` says
where the day begins (:func:`window_start`); ``on_exceed`` what :meth:`CallBudget.take` does
once the calls are spent: ``pause`` refuses the call (the phase goes on by its rules and the
run keeps its work), ``log`` lets it through with a warning, ``throw`` ends the run with
:class:`BudgetExceeded`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from daemon.logging import get_logger

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


@dataclass(slots=True)
class CallBudget:
    """Model calls left today; :meth:`take` says whether one more may be made."""

    remaining: int
    on_exceed: str = "pause"
    used: int = 0
    refused: int = 0
    over: int = 0
    exceeded: str | None = None
    """Why the ceiling was met (None while calls are left)."""

    def take(self) -> bool:
        if self.remaining > 0:
            self.remaining -= 1
            self.used += 1
            return True
        self.exceeded = self.exceeded or "the day's consolidation calls are spent"
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
