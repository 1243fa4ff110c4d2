"""Daily ceilings of calls and tokens, counted from the providers' usage fields.

A day is the UTC day (``reset = "utc"``), the local day (``"local"``), or the last 24 hours
(``"sliding-24h"``). When a ceiling is reached, ``on_exceed = "pause"`` refuses calls with a
``budget`` error whose ``retry_after`` is the time until the budget frees up, and ``"log"``
lets them through with a warning. The counters are visible through :meth:`snapshot`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from typing import Any

import structlog

from plugins.llm.settings import BudgetSettings
from plugins.llm.types import Completion, CompletionRequest, LLMError, LLMProvider, Usage

DAY = timedelta(days=1)
log = structlog.get_logger("memoryd.llm.budget")


@dataclass(frozen=True, slots=True)
class BudgetCheck:
    """Whether a call may go now and, if a ceiling is reached, when it frees up."""

    exceeded: bool
    resume_at: datetime | None = None
    reason: str | None = None


class BudgetTracker:
    """Count calls and tokens per budget day (or sliding 24 hours)."""

    def __init__(self, settings: BudgetSettings, *, local_tz: tzinfo | None = None) -> None:
        self.settings = settings
        self._local_tz = local_tz
        self._entries: deque[tuple[datetime, int]] = deque()
        self.exceeded_total = 0
        self.paused_total = 0

    def _day_start(self, now: datetime) -> datetime:
        if self.settings.reset == "utc":
            return now.replace(hour=0, minute=0, second=0, microsecond=0)
        local = now.astimezone(self._local_tz)
        midnight = local.replace(hour=0, minute=0, second=0, microsecond=0)
        if self._local_tz is None:
            midnight = midnight.replace(tzinfo=None).astimezone()
        return midnight

    def _next_reset(self, now: datetime) -> datetime:
        start = self._day_start(now)
        if self.settings.reset == "utc":
            return start + DAY
        local = start.astimezone(self._local_tz)
        nxt = (local + timedelta(days=1, hours=2)).replace(hour=0)  # safe across DST shifts
        if self._local_tz is None:
            nxt = nxt.replace(tzinfo=None).astimezone()
        return nxt

    def _counts(self, when: datetime, now: datetime) -> bool:
        if self._daily:
            return when >= self._day_start(now)
        return when > now - DAY

    def _in_window(self, now: datetime) -> list[tuple[datetime, int]]:
        while self._entries and not self._counts(self._entries[0][0], now):
            self._entries.popleft()
        return list(self._entries)

    @property
    def _daily(self) -> bool:
        return self.settings.reset != "sliding-24h"

    def record(self, when: datetime, usage: Usage | None) -> None:
        """Count one call made at ``when`` and the tokens it used."""
        self._entries.append((when, usage.total_tokens if usage else 0))

    def add_tokens(self, when: datetime, tokens: int) -> None:
        """Add tokens to the last call counted (usage known only after the answer)."""
        if self._entries:
            t, n = self._entries.pop()
            self._entries.append((t, n + tokens))
        else:
            self._entries.append((when, tokens))

    def seed(self, entries: Iterable[tuple[datetime, int]]) -> None:
        """Load earlier calls (time, tokens), for example rebuilt from the log at start-up."""
        for entry in sorted(entries):
            self._entries.append(entry)

    def usage(self, now: datetime) -> tuple[int, int]:
        """Return (calls, tokens) counted in the current window."""
        window = self._in_window(now)
        return len(window), sum(n for _, n in window)

    def check(self, now: datetime) -> BudgetCheck:
        """Say whether a ceiling is reached and when the budget frees up."""
        window = self._in_window(now)
        calls, tokens = len(window), sum(n for _, n in window)
        limit_calls, limit_tokens = self.settings.calls_per_day, self.settings.tokens_per_day
        reason: str | None = None
        if limit_calls is not None and calls >= limit_calls:
            reason = f"{calls} calls reached the daily ceiling of {limit_calls}"
        elif limit_tokens is not None and tokens >= limit_tokens:
            reason = f"{tokens} tokens reached the daily ceiling of {limit_tokens}"
        if reason is None:
            return BudgetCheck(exceeded=False)
        return BudgetCheck(exceeded=True, resume_at=self._resume_at(now, window), reason=reason)

    def _resume_at(self, now: datetime, window: list[tuple[datetime, int]]) -> datetime:
        if self._daily:
            return self._next_reset(now)
        # Sliding: the budget frees up when enough of the oldest calls leave the 24 hours.
        calls, tokens = len(window), sum(n for _, n in window)
        limit_calls, limit_tokens = self.settings.calls_per_day, self.settings.tokens_per_day
        for when, used in window:
            calls -= 1
            tokens -= used
            calls_ok = limit_calls is None or calls < limit_calls
            tokens_ok = limit_tokens is None or tokens < limit_tokens
            if calls_ok and tokens_ok:
                return when + DAY
        return now + DAY

    def snapshot(self, now: datetime) -> dict[str, Any]:
        """Return the counters for ``/metrics`` and ``memoryd status``."""
        calls, tokens = self.usage(now)
        check = self.check(now)
        return {
            "reset": self.settings.reset,
            "on_exceed": self.settings.on_exceed,
            "calls": calls,
            "tokens": tokens,
            "calls_per_day": self.settings.calls_per_day,
            "tokens_per_day": self.settings.tokens_per_day,
            "exceeded": check.exceeded,
            "resume_at": check.resume_at.isoformat() if check.resume_at else None,
            "exceeded_total": self.exceeded_total,
            "paused_total": self.paused_total,
        }


class ProviderWrapper:
    """A provider that passes its calls on to ``inner`` (subclasses add to :meth:`complete`)."""

    def __init__(self, inner: LLMProvider) -> None:
        self.inner = inner

    @property
    def name(self) -> str:
        """Return the wrapped provider's name."""
        return self.inner.name

    @property
    def model(self) -> str:
        """Return the wrapped provider's model."""
        return self.inner.model

    async def complete(self, request: CompletionRequest) -> Completion:
        """Call the wrapped provider."""
        return await self.inner.complete(request)

    async def aclose(self) -> None:
        """Close the wrapped provider."""
        await self.inner.aclose()


class BudgetedProvider(ProviderWrapper):
    """Wrap a provider so every call is counted against a :class:`BudgetTracker`."""

    def __init__(
        self, inner: LLMProvider, tracker: BudgetTracker, now: Callable[[], datetime]
    ) -> None:
        super().__init__(inner)
        self.tracker = tracker
        self._now = now

    async def complete(self, request: CompletionRequest) -> Completion:
        """Refuse (pause) or warn (log) past a ceiling, else call and count the usage."""
        now = self._now()
        check = self.tracker.check(now)
        if check.exceeded:
            self.tracker.exceeded_total += 1
            if self.tracker.settings.on_exceed == "pause":
                self.tracker.paused_total += 1
                wait = (check.resume_at - now).total_seconds() if check.resume_at else None
                raise LLMError("budget", check.reason or "budget exceeded", retry_after=wait)
            log.warning("llm budget exceeded", reason=check.reason, provider=self.inner.name)
        self.tracker.record(now, None)
        completion = await self.inner.complete(request)
        self.tracker.add_tokens(now, completion.usage.total_tokens)
        return completion
