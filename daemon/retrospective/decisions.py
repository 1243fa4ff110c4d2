"""What to append, decided: pure functions of (config, folded state, now) -> events.

:mod:`daemon.retrospective.triggers` says *whether* a run happens; this module turns that
into the events the log records, and says what a ready run does when its turn comes (skip,
defer, wait, or review which messages). Nothing here reads a clock, the store or a model.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from daemon.config import RetrospectiveConfig
from daemon.retrospective import triggers
from events.retrospective_events import (
    RetrospectiveDeferred,
    RetrospectiveScheduled,
    RetrospectiveSkipped,
)
from events.types import Event
from plugins.llm.budget import BudgetCheck
from projections.retrospective import ConversationRetro, RunState


class RetrospectiveError(Exception):
    """A request the service cannot honour; ``code`` is a stable machine-readable reason."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class RequestResult:
    """The answer to a manual run or replay request."""

    action: str
    run_id: str | None
    reason: str
    not_before: datetime | None = None

    def to_json(self) -> dict[str, Any]:
        """Return the API view."""
        return {
            "action": self.action,
            "run_id": self.run_id,
            "reason": self.reason,
            "not_before": None if self.not_before is None else self.not_before.isoformat(),
        }


def new_run_id() -> str:
    """Return a fresh run id."""
    return uuid.uuid4().hex


def fork_id_for(run_id: str, attempt: int) -> str:
    """Return the reading fork's conversation id for one attempt of a run."""
    return f"retro~{run_id}~{attempt}"


def decision_events(
    conv: ConversationRetro, decision: triggers.Decision, now: datetime
) -> tuple[str, list[Event]]:
    """Return the run id and the events that record a schedule, merge or skip decision."""
    trigger: Any = decision.trigger
    if decision.action == "merge":
        run_id = decision.run_id or ""
        merged = RetrospectiveScheduled(
            conversation_id=conv.conversation_id,
            run_id=run_id,
            at=now,
            trigger=trigger,
            inputs=decision.inputs,
            not_before=decision.not_before,
            merged=True,
        )
        return run_id, [merged]
    run_id = new_run_id()
    events: list[Event] = [
        RetrospectiveScheduled(
            conversation_id=conv.conversation_id,
            run_id=run_id,
            at=now,
            trigger=trigger,
            inputs=decision.inputs,
            not_before=decision.not_before,
        )
    ]
    if decision.action == "skip":
        events.append(
            RetrospectiveSkipped(
                conversation_id=conv.conversation_id,
                run_id=run_id,
                at=now,
                reason=decision.reason,
                inputs=decision.inputs,
            )
        )
    return run_id, events


def replay_event(
    config: RetrospectiveConfig, conv: ConversationRetro, run: RunState, now: datetime
) -> tuple[str, RetrospectiveScheduled]:
    """Return the event scheduling a re-run of an abandoned run's slice, or raise."""
    if run.status != "abandoned":
        raise RetrospectiveError(
            "not_abandoned", f"run {run.run_id!r} is {run.status}; only abandoned runs replay"
        )
    if conv.pending is not None:
        raise RetrospectiveError(
            "pending", f"run {conv.pending_run_id} is pending for this conversation"
        )
    new_id = new_run_id()
    inputs = {**triggers.base_inputs(config, conv, now), "replay_of": run.run_id}
    return new_id, RetrospectiveScheduled(
        conversation_id=conv.conversation_id,
        run_id=new_id,
        at=now,
        trigger="replay",
        inputs=inputs,
        not_before=now,
        replay_of=run.run_id,
        message_ids=list(run.message_ids),
    )


def slice_of(conv: ConversationRetro, run: RunState) -> list[tuple[str, int]]:
    """Return ``(message id, position)`` of the messages an attempt of ``run`` reviews."""
    if run.replay_of is not None:
        return [(m, 0) for m in run.message_ids]
    return [(m.message_id, m.position) for m in conv.reviewable()]


def dispatchable(
    cfg: RetrospectiveConfig, conv: ConversationRetro, run: RunState, now: datetime
) -> bool:
    """Return False when a ready run would only wait again (mid-turn, or a budget pause
    recorded until later): not worth a task."""
    if not cfg.enabled and not triggers.asked_by_operator(run):
        return True  # it starts to be ended as skipped
    wait = triggers.mid_turn(cfg, conv, run, now)
    if wait.wait and not wait.record:
        return False
    return not (
        run.deferred_reason == "budget"
        and run.deferred_until is not None
        and run.deferred_until > now
    )


GateAction = Literal["skip", "defer", "wait", "attempt"]


@dataclass(frozen=True, slots=True)
class Gate:
    """What a ready run does when its turn comes."""

    action: GateAction
    event: RetrospectiveSkipped | RetrospectiveDeferred | None = None
    """The skip or deferral to record (none: wait without recording anything again)."""
    chosen: tuple[tuple[str, int], ...] = ()
    """The slice to review, for ``attempt``."""


def before_run(
    cfg: RetrospectiveConfig,
    conv: ConversationRetro,
    run: RunState,
    now: datetime,
    budget: BudgetCheck | None,
) -> Gate:
    """Decide whether a ready run skips, defers, waits or is attempted on its slice.

    ``budget`` is the model budget's check when the budget pauses runs (None: it does not).
    """

    def skip(reason: str, inputs: dict[str, Any] | None = None) -> Gate:
        event = RetrospectiveSkipped(
            conversation_id=conv.conversation_id,
            run_id=run.run_id,
            at=now,
            reason=reason,
            inputs=inputs or {},
        )
        return Gate("skip", event)

    def defer(reason: str, until: datetime | None, waiting_on: str | None) -> Gate:
        event = RetrospectiveDeferred(
            conversation_id=conv.conversation_id,
            run_id=run.run_id,
            at=now,
            reason=reason,
            until=until,
            waiting_on=waiting_on,
        )
        return Gate("defer", event)

    if conv.deleted:
        return skip("conversation_deleted")
    if not cfg.enabled and not triggers.asked_by_operator(run):
        return skip("disabled")
    dormant = triggers.dormant_sweep(cfg, conv, run, now)
    if dormant is not None:
        return skip("source_dormant", dormant)
    wait = triggers.mid_turn(cfg, conv, run, now)
    if wait.wait:
        if not wait.record:
            return Gate("wait")
        return defer("mid_turn", wait.until, wait.waiting_on)
    chosen = slice_of(conv, run)
    if not chosen:
        return skip("nothing_unreviewed")
    if run.replay_of is None and cfg.require_user_activity and not triggers.user_activity(conv):
        return skip("no_user_activity")
    if budget is not None and budget.exceeded:
        if run.deferred_reason == "budget" and run.deferred_until == budget.resume_at:
            return Gate("wait")
        return defer("budget", budget.resume_at, None)
    return Gate("attempt", chosen=tuple(chosen))
