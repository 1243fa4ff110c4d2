"""The trigger matrix: each trigger, each gate, cooldown edges, the sweep clamp and cap."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest

from daemon.retrospective import decisions, triggers
from events.retrospective_events import (
    RetrospectiveCursorAdvanced,
    RetrospectiveFailed,
    RetrospectiveScheduled,
    RetrospectiveSkipped,
    RetrospectiveStarted,
    RetrospectiveSucceeded,
    Trigger,
)
from projections.retrospective import ConversationRetro
from tests.retrospective_fixtures import T0, LogBuilder, config, minutes


def _attempted(log: LogBuilder, cid: str, run: str, at_minutes: float, *, succeed: bool) -> None:
    at = T0 + minutes(at_minutes)
    log.add(RetrospectiveScheduled(conversation_id=cid, run_id=run, at=at, trigger="manual"))
    log.add(
        RetrospectiveStarted(
            conversation_id=cid,
            run_id=run,
            at=at,
            attempt=1,
            fork_id=f"f-{run}",
            after_message_id=None,
            through_message_id="x",
        )
    )
    if succeed:
        log.add(RetrospectiveSucceeded(conversation_id=cid, run_id=run, at=at, attempt=1))
    else:
        log.add(
            RetrospectiveFailed(
                conversation_id=cid, run_id=run, at=at, attempt=1, error_class="server"
            )
        )


def _conv(log: LogBuilder, cid: str = "c") -> ConversationRetro:
    conv = log.fold.get("default", cid)
    assert conv is not None
    return conv


def test_never_reviewed_fires_on_first_eligible_message() -> None:
    log = LogBuilder()
    log.message("c", "m1", role="assistant", content="Hi, how can I help?")
    decision = triggers.after_message(config(), _conv(log), T0)
    assert (decision.action, decision.reason) == ("none", "no_user_activity")
    log.message("c", "m2", content="I live in Lyon.")
    decision = triggers.after_message(config(), _conv(log), T0)
    assert (decision.action, decision.trigger, decision.reason) == (
        "schedule",
        "interval",
        "never_reviewed",
    )
    assert decision.inputs["unreviewed"] == 2
    assert decision.inputs["last_attempt_at"] is None


def test_tool_result_on_a_user_row_is_not_user_activity() -> None:
    log = LogBuilder()
    log.message("c", "m1", content=[{"type": "tool_result", "tool_use_id": "t", "content": "42"}])
    assert triggers.after_message(config(), _conv(log), T0).reason == "no_user_activity"
    cfg = config(require_user_activity=False)
    assert triggers.after_message(cfg, _conv(log), T0).action == "schedule"


@pytest.mark.parametrize(
    ("elapsed", "expected"),
    [
        (minutes(4.99), "cooldown"),
        (minutes(5), "below_thresholds"),  # cooldown over exactly at min_cooldown
        (minutes(29.99), "below_thresholds"),
        (minutes(30), "time_threshold"),  # interval fires exactly at time_threshold
    ],
)
def test_interval_and_cooldown_edges(elapsed: timedelta, expected: str) -> None:
    log = LogBuilder()
    log.message("c", "m0")
    _attempted(log, "c", "r1", 0, succeed=False)
    log.message("c", "m1")
    decision = triggers.after_message(config(), _conv(log), T0 + elapsed)
    assert decision.reason == expected


def test_message_count_fires_at_threshold_but_not_inside_cooldown() -> None:
    log = LogBuilder()
    _attempted(log, "c", "r1", 0, succeed=True)
    for i in range(3):
        log.message("c", f"m{i}")
    cfg = config(message_threshold=3)
    inside = triggers.after_message(cfg, _conv(log), T0 + minutes(1))
    assert inside.reason == "cooldown"
    after = triggers.after_message(cfg, _conv(log), T0 + minutes(6))
    assert (after.action, after.trigger) == ("schedule", "message_count")
    log2 = LogBuilder()
    _attempted(log2, "c", "r1", 0, succeed=True)
    for i in range(2):
        log2.message("c", f"m{i}")
    assert triggers.after_message(cfg, _conv(log2), T0 + minutes(6)).reason == "below_thresholds"


def test_cooldown_counts_from_a_failed_attempt_too() -> None:
    log = LogBuilder()
    _attempted(log, "c", "r1", 0, succeed=False)
    for i in range(20):
        log.message("c", f"m{i}")
    assert triggers.after_message(config(), _conv(log), T0 + minutes(2)).reason == "cooldown"


def test_pending_run_absorbs_message_triggers() -> None:
    log = LogBuilder()
    log.message("c", "m1")
    log.add(RetrospectiveScheduled(conversation_id="c", run_id="r1", at=T0, trigger="interval"))
    log.message("c", "m2")
    assert triggers.after_message(config(), _conv(log), T0).reason == "pending"


def test_kill_switch_stops_every_trigger() -> None:
    log = LogBuilder()
    log.message("c", "m1")
    cfg = config(enabled=False)
    assert triggers.after_message(cfg, _conv(log), T0).reason == "disabled"
    assert triggers.pre_compaction(cfg, _conv(log), T0).reason == "disabled"
    # A person's request still runs: the switch stops what memoryd starts by itself.
    assert triggers.manual(cfg, _conv(log), T0).action == "schedule"
    plan = triggers.plan_sweep(cfg, [_conv(log)], T0 + timedelta(days=1), seeding=False)
    assert plan.enqueue == []


def test_pre_compaction_bypasses_the_cooldown_and_pulls_pending_forward() -> None:
    log = LogBuilder()
    log.message("c", "m0")
    _attempted(log, "c", "r1", 0, succeed=True)
    log.message("c", "m1")
    now = T0 + minutes(1)
    assert triggers.after_message(config(), _conv(log), now).reason == "cooldown"
    decision = triggers.pre_compaction(config(), _conv(log), now)
    assert (decision.action, decision.trigger, decision.not_before) == (
        "schedule",
        "pre_compaction",
        now,
    )
    log.add(
        RetrospectiveScheduled(
            conversation_id="c",
            run_id="r2",
            at=now,
            trigger="interval",
            not_before=now + minutes(60),
        )
    )
    merged = triggers.pre_compaction(config(), _conv(log), now)
    assert (merged.action, merged.run_id, merged.not_before) == ("merge", "r2", now)


def test_manual_waits_for_the_cooldown_and_skips_when_nothing_to_review() -> None:
    log = LogBuilder()
    m0 = log.message("c", "m0")
    _attempted(log, "c", "r1", 0, succeed=True)
    log.add(
        RetrospectiveCursorAdvanced(
            conversation_id="c",
            run_id="r1",
            message_id="m0",
            position=m0.position,
            reason="succeeded",
            at=T0,
        )
    )
    assert _conv(log).tail == []
    decision = triggers.manual(config(), _conv(log), T0 + minutes(1))
    assert (decision.action, decision.reason) == ("skip", "nothing_unreviewed")
    log.message("c", "m1")
    decision = triggers.manual(config(), _conv(log), T0 + minutes(1))
    assert decision.action == "schedule"
    assert decision.not_before == T0 + minutes(5)


def test_ready_run_respects_not_before_and_running() -> None:
    log = LogBuilder()
    log.message("c", "m1")
    log.add(
        RetrospectiveScheduled(
            conversation_id="c", run_id="r1", at=T0, trigger="manual", not_before=T0 + minutes(5)
        )
    )
    assert triggers.ready_run(_conv(log), T0 + minutes(4)) is None
    run = triggers.ready_run(_conv(log), T0 + minutes(5))
    assert run is not None
    assert run.run_id == "r1"


def _sweep_log(count: int) -> LogBuilder:
    log = LogBuilder()
    for i in range(count):
        log.message(f"c{i}", "m1", at=T0 + minutes(i))
    return log


def test_first_sweep_after_start_only_seeds() -> None:
    log = _sweep_log(3)
    plan = triggers.plan_sweep(
        config(), log.fold.conversations.values(), T0 + timedelta(hours=9), seeding=True
    )
    assert plan.seeded
    assert plan.enqueue == []


def test_sweep_caps_and_skips_pending_without_using_the_cap() -> None:
    log = _sweep_log(5)
    log.add(RetrospectiveScheduled(conversation_id="c4", run_id="p", at=T0, trigger="interval"))
    cfg = config(sweep_max_per_pass=2)
    plan = triggers.plan_sweep(
        cfg, log.fold.conversations.values(), T0 + timedelta(hours=9), seeding=False
    )
    # c4 is pending (most recent, skipped, not counted); c3 and c2 are the newest others.
    assert [c.conversation_id for c, _ in plan.enqueue] == ["c3", "c2"]
    assert (plan.skipped_pending, plan.over_cap) == (1, 2)


def test_sweep_lookback_and_recent_attempts() -> None:
    log = LogBuilder()
    log.message("old", "m1", at=T0 - timedelta(days=8))
    log.message("recent", "m1", at=T0)
    log.message("tried", "m1", at=T0)
    _attempted(log, "tried", "r1", 60, succeed=False)
    now = T0 + timedelta(hours=2)
    plan = triggers.plan_sweep(config(), log.fold.conversations.values(), now, seeding=False)
    assert [c.conversation_id for c, _ in plan.enqueue] == ["recent"]


def test_sweep_lookback_is_clamped_to_twice_the_interval() -> None:
    log = LogBuilder()
    log.message("c", "m1", at=T0)
    cfg = config(sweep_interval=timedelta(hours=8), sweep_lookback=timedelta(hours=1))
    assert triggers.effective_lookback(cfg) == (timedelta(hours=16), True)
    plan = triggers.plan_sweep(cfg, [_conv(log)], T0 + timedelta(hours=15), seeding=False)
    assert [c.conversation_id for c, _ in plan.enqueue] == ["c"]
    assert plan.inputs["lookback_clamped"] is True
    late = triggers.plan_sweep(cfg, [_conv(log)], T0 + timedelta(hours=17), seeding=False)
    assert late.enqueue == []


def test_sweep_due_every_interval() -> None:
    cfg = config(sweep_interval=timedelta(hours=8))
    assert triggers.sweep_due(cfg, None, T0)
    assert not triggers.sweep_due(cfg, T0, T0 + timedelta(hours=7, minutes=59))
    assert triggers.sweep_due(cfg, T0, T0 + timedelta(hours=8))


def test_mid_turn_defers_once_then_gives_up_waiting() -> None:
    log = LogBuilder()
    log.message("c", "m1")
    log.message("c", "m2", role="assistant", content="thinking", finalized=False)
    log.add(RetrospectiveScheduled(conversation_id="c", run_id="r1", at=T0, trigger="manual"))
    conv = _conv(log)
    run = conv.pending
    assert run is not None
    first = triggers.mid_turn(config(), conv, run, T0)
    assert (first.wait, first.record, first.waiting_on) == (True, True, "m2")
    from events.retrospective_events import RetrospectiveDeferred

    log.add(
        RetrospectiveDeferred(
            conversation_id="c",
            run_id="r1",
            at=T0,
            reason="mid_turn",
            until=first.until,
            waiting_on="m2",
        )
    )
    again = triggers.mid_turn(config(), conv, run, T0 + minutes(1))
    assert (again.wait, again.record) == (True, False)
    assert triggers.mid_turn(config(), conv, run, T0 + minutes(30)).wait is False
    assert [m.message_id for m in conv.reviewable()] == ["m1"]
    log.message("c", "m2", role="assistant", content="done", finalized=True)
    assert triggers.mid_turn(config(), conv, run, T0 + minutes(1)).wait is False


def test_backoff_is_full_jitter_within_bounds_and_honours_retry_after() -> None:
    cfg = config(retry_base_delay=timedelta(seconds=60), retry_max_delay=timedelta(hours=1))
    rng = random.Random(7)
    for attempt in range(1, 12):
        for _ in range(50):
            delay = triggers.retry_delay(cfg, attempt, rng).total_seconds()
            assert 60 <= delay <= min(3600, 60 * 2**attempt)
    assert triggers.retry_delay(cfg, 1, rng, retry_after=7200).total_seconds() == 7200
    assert triggers.should_abandon(config(max_retries=2), 3)
    assert not triggers.should_abandon(config(max_retries=2), 2)


@pytest.mark.parametrize(
    ("trigger", "quiet_hours", "action"),
    [("sweep", 3, "skip"), ("sweep", 1, "attempt"), ("manual", 3, "attempt")],
)
def test_a_sweep_run_whose_conversation_went_quiet_is_skipped_when_its_turn_comes(
    trigger: Trigger, quiet_hours: int, action: str
) -> None:
    log = LogBuilder()
    log.message("c", "m1")
    log.add(RetrospectiveScheduled(conversation_id="c", run_id="r1", at=T0, trigger=trigger))
    conv = _conv(log)
    cfg = config(sweep_interval=timedelta(hours=1), sweep_lookback=timedelta(hours=2))
    run = conv.runs["r1"]
    gate = decisions.before_run(cfg, conv, run, T0 + timedelta(hours=quiet_hours), None)
    assert gate.action == action
    if action == "skip":
        assert isinstance(gate.event, RetrospectiveSkipped)
        assert gate.event.reason == "source_dormant"
        assert gate.event.inputs["sweep_lookback_s"] == 7200
