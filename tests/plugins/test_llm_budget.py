"""Daily budgets of calls and tokens: reset modes, pause and log, counters."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from events.clock import ManualClock
from plugins.llm.budget import BudgetedProvider, BudgetTracker
from plugins.llm.settings import BudgetSettings
from plugins.llm.types import Completion, CompletionRequest, LLMError, Usage

REQUEST = CompletionRequest(system="s", messages=[])


class _CountingProvider:
    name = "counting"
    model = "count-1"

    def __init__(self, tokens: int) -> None:
        self.calls = 0
        self.tokens = tokens

    async def complete(self, request: CompletionRequest) -> Completion:
        self.calls += 1
        return Completion(text="ok", usage=Usage(self.tokens - 1, 1), model=self.model)

    async def aclose(self) -> None:
        return None


def _budgeted(
    clock: ManualClock, tokens: int = 10, **settings: object
) -> tuple[BudgetedProvider, _CountingProvider]:
    inner = _CountingProvider(tokens)
    tracker = BudgetTracker(
        BudgetSettings.from_mapping(settings), local_tz=timezone(timedelta(hours=2))
    )
    return BudgetedProvider(inner, tracker, clock.now), inner


async def test_calls_ceiling_pauses_until_utc_midnight() -> None:
    clock = ManualClock(datetime(2026, 5, 4, 22, 0, tzinfo=UTC))
    provider, inner = _budgeted(clock, calls_per_day=2)
    await provider.complete(REQUEST)
    await provider.complete(REQUEST)
    with pytest.raises(LLMError) as caught:
        await provider.complete(REQUEST)
    assert caught.value.kind == "budget"
    assert caught.value.retry_after == pytest.approx(2 * 3600)
    assert inner.calls == 2
    clock.advance(timedelta(hours=2))  # exactly midnight UTC: a new day
    await provider.complete(REQUEST)
    assert inner.calls == 3
    snap = provider.tracker.snapshot(clock.now())
    assert (snap["calls"], snap["tokens"], snap["paused_total"]) == (1, 10, 1)


async def test_tokens_ceiling_counts_usage_fields() -> None:
    clock = ManualClock(datetime(2026, 5, 4, 10, 0, tzinfo=UTC))
    provider, inner = _budgeted(clock, tokens=40, tokens_per_day=100)
    for _ in range(3):
        await provider.complete(REQUEST)
    with pytest.raises(LLMError, match="120 tokens"):
        await provider.complete(REQUEST)
    assert inner.calls == 3


async def test_local_reset_follows_the_local_midnight() -> None:
    # Local time is UTC+2: local midnight is 22:00 UTC.
    clock = ManualClock(datetime(2026, 5, 4, 21, 0, tzinfo=UTC))
    provider, _ = _budgeted(clock, calls_per_day=1, reset="local")
    await provider.complete(REQUEST)
    with pytest.raises(LLMError) as caught:
        await provider.complete(REQUEST)
    assert caught.value.retry_after == pytest.approx(3600)
    clock.advance(timedelta(hours=1))
    await provider.complete(REQUEST)


async def test_sliding_window_frees_up_as_old_calls_age_out() -> None:
    clock = ManualClock(datetime(2026, 5, 4, 0, 0, tzinfo=UTC))
    provider, _ = _budgeted(clock, calls_per_day=2, reset="sliding-24h")
    await provider.complete(REQUEST)
    clock.advance(timedelta(hours=6))
    await provider.complete(REQUEST)
    clock.advance(timedelta(hours=20))  # 26h after the first call, 20h after the second
    await provider.complete(REQUEST)
    with pytest.raises(LLMError) as caught:
        await provider.complete(REQUEST)
    # The second call (made at 06:00) leaves the window at 06:00 the next day, 4h from now.
    assert caught.value.retry_after == pytest.approx(4 * 3600)


async def test_on_exceed_log_lets_calls_through_and_counts() -> None:
    clock = ManualClock(datetime(2026, 5, 4, 10, 0, tzinfo=UTC))
    provider, inner = _budgeted(clock, calls_per_day=1, on_exceed="log")
    await provider.complete(REQUEST)
    await provider.complete(REQUEST)
    assert inner.calls == 2
    snap = provider.tracker.snapshot(clock.now())
    assert snap["exceeded"] is True
    assert snap["exceeded_total"] == 1
    assert snap["paused_total"] == 0


def test_seeded_usage_counts_in_the_window() -> None:
    tracker = BudgetTracker(BudgetSettings(calls_per_day=5, reset="utc"))
    day = datetime(2026, 5, 4, tzinfo=UTC)
    tracker.seed([(day - timedelta(hours=1), 50), (day + timedelta(hours=1), 30)])
    assert tracker.usage(day + timedelta(hours=2)) == (1, 30)
