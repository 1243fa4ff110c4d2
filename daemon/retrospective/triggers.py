"""When a retrospective runs: pure functions of (config, projected state, now) -> decision.

Nothing here reads a clock, the store or a model; the scheduler calls these and appends what
they decide, with the ``inputs`` they report, so the log shows why each run happened.

- After each appended message: ``interval`` (time since the last attempt >= time_threshold;
  a conversation never attempted fires on its first eligible message) or ``message_count``
  (unreviewed messages >= message_threshold), gated by ``min_cooldown`` since the last
  attempt. "Eligible": something unreviewed and, with ``require_user_activity``, a user
  message with real content in it. A pending run absorbs further message triggers.
- ``pre_compaction`` bypasses the cooldown and pulls a pending run forward.
- ``manual`` schedules at once, or when the cooldown ends; pulls a pending run forward. It
  (and a replay) works with the switch off: a person asked for it.
- ``sweep``: conversations active within ``sweep_lookback`` (clamped up to 2 x
  sweep_interval), not attempted within ``sweep_interval``, with something reviewable; at most
  ``sweep_max_per_pass``, most recently active first; a conversation with a run pending or
  running is skipped without using up the cap. The first pass after a start only seeds. A
  queued sweep run whose conversation went quiet beyond the lookback before its turn came is
  skipped then as ``source_dormant``.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal

from daemon.config import RetrospectiveConfig
from projections.retrospective import ConversationRetro, RunState

Action = Literal["schedule", "merge", "skip", "none"]


@dataclass(frozen=True, slots=True)
class Decision:
    """What to do about one trigger, and the inputs that decided it."""

    action: Action
    trigger: str | None = None
    reason: str = ""
    inputs: dict[str, Any] = field(default_factory=dict)
    not_before: datetime | None = None
    run_id: str | None = None
    """The pending run a ``merge`` targets."""


def _seconds(delta: timedelta | None) -> float | None:
    return None if delta is None else delta.total_seconds()


def _iso(when: datetime | None) -> str | None:
    return None if when is None else when.isoformat()


def user_activity(conv: ConversationRetro) -> bool:
    """Return True if the reviewable tail holds a user message with real content."""
    return conv.reviewable_user_activity()


def base_inputs(cfg: RetrospectiveConfig, conv: ConversationRetro, now: datetime) -> dict[str, Any]:
    """Return the facts every decision records."""
    since = None if conv.last_attempt_at is None else now - conv.last_attempt_at
    return {
        "now": now.isoformat(),
        "last_attempt_at": _iso(conv.last_attempt_at),
        "last_success_at": _iso(conv.last_success_at),
        "since_last_attempt_s": _seconds(since),
        "unreviewed": len(conv.tail),
        "reviewable": conv.reviewable_count(),
        "user_activity": user_activity(conv),
        "cursor": conv.cursor_message_id,
    }


def _none(reason: str, inputs: dict[str, Any]) -> Decision:
    return Decision("none", reason=reason, inputs=inputs)


def after_message(cfg: RetrospectiveConfig, conv: ConversationRetro, now: datetime) -> Decision:
    """Evaluate the ``interval`` and ``message_count`` triggers after an appended message."""
    inputs = base_inputs(cfg, conv, now)
    inputs.update(
        time_threshold_s=cfg.time_threshold.total_seconds(),
        message_threshold=cfg.message_threshold,
        min_cooldown_s=cfg.min_cooldown.total_seconds(),
    )
    if not cfg.enabled:
        return _none("disabled", inputs)
    if conv.deleted:
        return _none("deleted", inputs)
    if conv.pending is not None:
        return _none("pending", inputs)
    if not conv.tail:
        return _none("nothing_unreviewed", inputs)
    if cfg.require_user_activity and not inputs["user_activity"]:
        return _none("no_user_activity", inputs)
    last = conv.last_attempt_at
    if last is None:
        return Decision("schedule", "interval", "never_reviewed", inputs, not_before=now)
    if now - last < cfg.min_cooldown:
        return _none("cooldown", inputs)
    if now - last >= cfg.time_threshold:
        return Decision("schedule", "interval", "time_threshold", inputs, not_before=now)
    if len(conv.tail) >= cfg.message_threshold:
        return Decision("schedule", "message_count", "message_threshold", inputs, not_before=now)
    return _none("below_thresholds", inputs)


OPERATOR_TRIGGERS = frozenset({"manual", "replay"})
"""Runs a person asked for: they run with the retrospective switch off too (the switch stops
what memoryd starts by itself)."""


def asked_by_operator(run: RunState) -> bool:
    """Return True when a person asked for this run (alone or merged into it)."""
    return run.replay_of is not None or bool(OPERATOR_TRIGGERS & {run.trigger, *run.triggers})


def dormant_sweep(
    cfg: RetrospectiveConfig, conv: ConversationRetro, run: RunState, now: datetime
) -> dict[str, Any] | None:
    """Return what shows a run only a sweep asked for found its conversation quiet for longer
    than the sweep looks back (active when queued, no longer now); None when it did not."""
    if {run.trigger, *run.triggers} != {"sweep"} or conv.last_message_at is None:
        return None
    lookback = effective_lookback(cfg)[0]
    if now - conv.last_message_at <= lookback:
        return None
    return {
        "now": now.isoformat(),
        "last_message_at": conv.last_message_at.isoformat(),
        "sweep_lookback_s": lookback.total_seconds(),
    }


def _explicit(
    trigger: str,
    cfg: RetrospectiveConfig,
    conv: ConversationRetro,
    now: datetime,
    not_before: datetime,
) -> Decision:
    inputs = base_inputs(cfg, conv, now)
    if not cfg.enabled:
        if trigger not in OPERATOR_TRIGGERS:
            return _none("disabled", inputs)
        inputs["retrospectives_disabled"] = True
    if conv.deleted:
        return _none("deleted", inputs)
    pending = conv.pending
    if pending is not None:
        return Decision(
            "merge", trigger, "merged_into_pending", inputs, not_before, run_id=pending.run_id
        )
    if not conv.tail:
        return Decision("skip", trigger, "nothing_unreviewed", inputs, not_before)
    if cfg.require_user_activity and not inputs["user_activity"]:
        return Decision("skip", trigger, "no_user_activity", inputs, not_before)
    return Decision("schedule", trigger, trigger, inputs, not_before)


def pre_compaction(cfg: RetrospectiveConfig, conv: ConversationRetro, now: datetime) -> Decision:
    """Evaluate the ``pre_compaction`` trigger: no cooldown, due now."""
    return _explicit("pre_compaction", cfg, conv, now, now)


def manual(
    cfg: RetrospectiveConfig, conv: ConversationRetro, now: datetime, *, immediate: bool = False
) -> Decision:
    """Evaluate a ``manual`` request: due now, or when the cooldown since the last attempt ends.

    ``immediate`` (a person or app that runs one now and waits for it) skips the cooldown, which
    is there to space out automatic runs, and says so in the decision's inputs.
    """
    not_before = now
    if conv.last_attempt_at is not None and not immediate:
        not_before = max(now, conv.last_attempt_at + cfg.min_cooldown)
    decision = _explicit("manual", cfg, conv, now, not_before)
    decision.inputs["min_cooldown_s"] = cfg.min_cooldown.total_seconds()
    if immediate:
        decision.inputs["immediate"] = True
    return decision


def effective_lookback(cfg: RetrospectiveConfig) -> tuple[timedelta, bool]:
    """Return the sweep lookback after the clamp to 2 x sweep_interval, and whether it clamped."""
    floor = 2 * cfg.sweep_interval
    if cfg.sweep_lookback < floor:
        return floor, True
    return cfg.sweep_lookback, False


@dataclass(frozen=True, slots=True)
class SweepPlan:
    """One sweep pass: the conversations to enqueue and what was left out."""

    seeded: bool
    enqueue: list[tuple[ConversationRetro, dict[str, Any]]]
    skipped_pending: int
    over_cap: int
    inputs: dict[str, Any]


def sweep_due(cfg: RetrospectiveConfig, last_sweep_at: datetime | None, now: datetime) -> bool:
    """Return True when a sweep pass is due (the first one of a process always is)."""
    return last_sweep_at is None or now - last_sweep_at >= cfg.sweep_interval


def plan_sweep(
    cfg: RetrospectiveConfig,
    conversations: Iterable[ConversationRetro],
    now: datetime,
    *,
    seeding: bool,
) -> SweepPlan:
    """Choose the conversations one sweep pass enqueues."""
    lookback, clamped = effective_lookback(cfg)
    inputs: dict[str, Any] = {
        "now": now.isoformat(),
        "sweep_interval_s": cfg.sweep_interval.total_seconds(),
        "sweep_lookback_s": lookback.total_seconds(),
        "lookback_clamped": clamped,
        "sweep_max_per_pass": cfg.sweep_max_per_pass,
    }
    if seeding or not cfg.enabled:
        inputs["reason"] = "seeding" if seeding else "disabled"
        return SweepPlan(seeded=seeding, enqueue=[], skipped_pending=0, over_cap=0, inputs=inputs)
    eligible: list[ConversationRetro] = []
    skipped_pending = 0
    for conv in conversations:
        if conv.deleted or conv.last_message_at is None:
            continue
        if now - conv.last_message_at > lookback:
            continue
        if conv.last_attempt_at is not None and now - conv.last_attempt_at < cfg.sweep_interval:
            continue
        if not conv.reviewable_count():
            continue
        if cfg.require_user_activity and not user_activity(conv):
            continue
        if conv.pending is not None or conv.running is not None:
            skipped_pending += 1
            continue
        eligible.append(conv)
    eligible.sort(key=lambda c: (-(c.last_message_at or now).timestamp(), c.key))
    chosen = eligible[: cfg.sweep_max_per_pass]
    inputs["eligible"] = len(eligible)
    enqueue = [(conv, {**base_inputs(cfg, conv, now), **inputs}) for conv in chosen]
    return SweepPlan(
        seeded=False,
        enqueue=enqueue,
        skipped_pending=skipped_pending,
        over_cap=len(eligible) - len(chosen),
        inputs=inputs,
    )


def ready_run(conv: ConversationRetro, now: datetime) -> RunState | None:
    """Return the pending run that may start now: none running, its time has come.

    A pending run of a deleted conversation is returned at once (the worker skips it).
    """
    run = conv.pending
    if run is None or conv.running is not None:
        return None
    if conv.deleted:
        return run  # to be ended as skipped
    if run.not_before is not None and run.not_before > now:
        return None
    return run


@dataclass(frozen=True, slots=True)
class Deferral:
    """Whether a ready run must wait because the conversation is mid-turn."""

    wait: bool
    record: bool
    """Append a ``RetrospectiveDeferred`` (the first time it waits on this message)."""
    until: datetime | None = None
    waiting_on: str | None = None


def mid_turn(
    cfg: RetrospectiveConfig, conv: ConversationRetro, run: RunState, now: datetime
) -> Deferral:
    """Decide whether a run waits for an unfinalized message.

    It waits until the message is finalized, at most ``time_threshold`` from the first
    deferral; then it reviews the finalized messages before it (the cursor never passes an
    unfinalized message). A replay run never waits (its slice is fixed).
    """
    if run.replay_of is not None:
        return Deferral(wait=False, record=False)
    unfinalized = conv.first_unfinalized()
    if unfinalized is None:
        return Deferral(wait=False, record=False)
    if run.deferred_reason == "mid_turn" and run.deferred_on == unfinalized.message_id:
        if run.deferred_until is not None and now >= run.deferred_until:
            return Deferral(wait=False, record=False)
        return Deferral(wait=True, record=False, until=run.deferred_until)
    return Deferral(
        wait=True,
        record=True,
        until=now + cfg.time_threshold,
        waiting_on=unfinalized.message_id,
    )


def retry_delay(
    cfg: RetrospectiveConfig,
    attempt: int,
    rng: random.Random,
    retry_after: float | None = None,
) -> timedelta:
    """Full-jitter exponential backoff after failed attempt ``attempt`` (1-based).

    Uniform in ``[0, min(retry_max_delay, retry_base_delay * 2**attempt))``, floored at
    ``retry_base_delay``; a server's Retry-After, if longer, wins.
    """
    base = cfg.retry_base_delay.total_seconds()
    cap = min(cfg.retry_max_delay.total_seconds(), base * 2 ** min(attempt, 60))
    seconds = max(base, rng.uniform(0.0, cap))
    seconds = min(seconds, max(cfg.retry_max_delay.total_seconds(), base))
    if retry_after is not None and retry_after > seconds:
        seconds = retry_after
    return timedelta(seconds=seconds)


def should_abandon(cfg: RetrospectiveConfig, attempt: int) -> bool:
    """Return True when failed attempt ``attempt`` is past ``max_retries`` retries."""
    return attempt > cfg.max_retries
