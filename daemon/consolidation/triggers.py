"""When a consolidation run is due: a pure function of the projected activity, the last run
and ``[consolidation]``, so every trigger is decided from inputs the run records.

``retry`` re-runs a failed run after an exponential backoff (``retry_base_delay`` doubled per
attempt, at most ``retry_max_delay``), up to ``max_retries`` attempts; ``retrospectives``
after N successful retrospectives, ``turns`` after ``after_turns`` user and assistant messages,
``cron`` at the times of the ``cron`` expression (read on ``cron_timezone``'s clocks),
``idle`` once nothing arrived for ``idle_after``, ``schedule`` every ``schedule_interval``
(``cron``, when set, replaces these two), all but ``retry`` only when something arrived since
the last run. No triggered run starts within ``cooldown`` of the last run's start.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from daemon.config import ConsolidationConfig
from daemon.cron import latest_fire
from events.clock import from_micros, to_micros


def to_micros_delta(delta: timedelta) -> int:
    return delta // timedelta(microseconds=1)


def retry_delay(attempt: int, config: ConsolidationConfig) -> int:
    """Return the wait (micros) before retry ``attempt`` (1 for the first) of a failed run."""
    base = to_micros_delta(config.retry_base_delay)
    return min(base << (attempt - 1), to_micros_delta(config.retry_max_delay))


def due_trigger(
    now: int,
    current: dict[str, Any] | None,
    last_run: dict[str, Any] | None,
    config: ConsolidationConfig,
) -> tuple[str, dict[str, Any]] | None:
    """Return the trigger that makes a run due now (and its inputs), or None.

    ``current`` is the namespace's activity row, ``last_run`` the latest run (its ``inputs``
    hold the activity it saw and, for a retry, its attempt).
    """
    if current is None:
        return None
    seen = (last_run or {}).get("inputs") or {}
    inputs = {
        "activity_position": int(current["last_position"]),
        "last_activity_at": int(current["last_at"]),
        "retrospectives": int(current["retrospectives_succeeded"]),
        "importance_sum": float(current["importance_sum"]),
        "turns": int(current.get("turns") or 0),
    }
    if last_run is not None:
        since = now - int(last_run["started_at"])
        if since < to_micros_delta(config.cooldown):
            return None
        retry = _retry(now, last_run, config)
        if retry is not None:
            return "retry", {**inputs, **retry}
    if int(current["last_position"]) <= int(seen.get("activity_position", 0)):
        return None
    new_retros = inputs["retrospectives"] - int(seen.get("retrospectives", 0))
    if new_retros >= config.after_retrospectives:
        return "retrospectives", {**inputs, "new_retrospectives": new_retros}
    new_turns = inputs["turns"] - int(seen.get("turns", 0))
    if config.after_turns and new_turns >= config.after_turns:
        return "turns", {**inputs, "new_turns": new_turns, "after_turns": config.after_turns}
    if config.cron is not None:
        return _cron(now, last_run, config, inputs)
    idle = now - int(current["last_at"])
    if idle >= to_micros_delta(config.idle_after):
        return "idle", {**inputs, "idle_micros": idle}
    if last_run is not None and since >= to_micros_delta(config.schedule_interval):
        return "schedule", {**inputs, "since_last_run_micros": since}
    return None


def _retry(
    now: int, last_run: dict[str, Any], config: ConsolidationConfig
) -> dict[str, Any] | None:
    """The inputs of a retry of ``last_run`` when it failed and its backoff is over."""
    if last_run.get("outcome") != "failed":
        return None
    attempt = int((last_run.get("inputs") or {}).get("attempt", 0)) + 1
    if attempt > config.max_retries:
        return None
    delay = retry_delay(attempt, config)
    ended = int(last_run.get("completed_at") or last_run["started_at"])
    if now - ended < delay:
        return None
    return {"attempt": attempt, "retry_of": last_run["run_id"], "retry_delay_micros": delay}


def _cron(
    now: int, last_run: dict[str, Any] | None, config: ConsolidationConfig, inputs: dict[str, Any]
) -> tuple[str, dict[str, Any]] | None:
    """``cron`` when the expression fired after the last run started (or ever, before any)."""
    assert config.cron is not None
    fired = to_micros(latest_fire(config.cron, config.cron_timezone, from_micros(now)))
    if last_run is not None and fired <= int(last_run["started_at"]):
        return None
    if fired <= 0:
        return None
    return "cron", {
        **inputs,
        "cron": config.cron,
        "cron_timezone": config.cron_timezone,
        "fired_at": fired,
    }
