"""The API's reader: the retrospective state the API shows (cursor, last attempt, last success,
remembered log, runs) in tables, folded through :func:`.state.apply_run_event`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, ClassVar

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from events.clock import from_micros, to_micros
from events.retrospective_events import RUN_EVENT_CLASSES
from events.store.base import StoredEvent
from projections.base import Projection, chunks, dumps, loads, upsert
from projections.retrospective.state import ConversationRetro, RunState, apply_run_event

metadata = sa.MetaData()

retro_conversations_table = sa.Table(
    "retrospective_conversations",
    metadata,
    sa.Column("namespace", sa.String(200), primary_key=True),
    sa.Column("conversation_id", sa.String(300), primary_key=True),
    sa.Column("cursor_message_id", sa.String(300)),
    sa.Column("cursor_position", sa.BigInteger, nullable=False),
    sa.Column("last_attempt_at", sa.BigInteger),
    sa.Column("last_success_at", sa.BigInteger),
    sa.Column("pending_run_id", sa.String(100)),
    sa.Column("running_run_id", sa.String(100)),
    sa.Column("remembered_json", sa.Text, nullable=False),
)

retro_runs_table = sa.Table(
    "retrospective_runs",
    metadata,
    sa.Column("namespace", sa.String(200), primary_key=True),
    sa.Column("run_id", sa.String(100), primary_key=True),
    sa.Column("conversation_id", sa.String(300), nullable=False),
    sa.Column("scheduled_position", sa.BigInteger, nullable=False),
    sa.Column("state_json", sa.Text, nullable=False),
)
sa.Index(
    "ix_retrospective_runs_conversation",
    retro_runs_table.c.namespace,
    retro_runs_table.c.conversation_id,
    retro_runs_table.c.scheduled_position,
)
_RC = retro_conversations_table.c
_RR = retro_runs_table.c


def _run_to_row(run: RunState) -> dict[str, Any]:
    return {
        "run_id": run.run_id,
        "trigger": run.trigger,
        "triggers": run.triggers,
        "scheduled_at": to_micros(run.scheduled_at),
        "status": run.status,
        "inputs": run.inputs,
        "not_before": None if run.not_before is None else to_micros(run.not_before),
        "attempt": run.attempt,
        "facts_written": run.facts_written,
        "fact_ids": run.fact_ids,
        "error": run.error,
        "error_message": run.error_message,
        "retry_at": None if run.retry_at is None else to_micros(run.retry_at),
        "fork_id": run.fork_id,
        "message_ids": run.message_ids,
        "replay_of": run.replay_of,
        "finished_at": None if run.finished_at is None else to_micros(run.finished_at),
        "skip_reason": run.skip_reason,
    }


def _run_from_row(data: dict[str, Any], position: int) -> RunState:
    def when(key: str) -> datetime | None:
        value = data.get(key)
        return None if value is None else from_micros(int(value))

    return RunState(
        run_id=data["run_id"],
        trigger=data["trigger"],
        triggers=list(data.get("triggers", [])),
        scheduled_at=from_micros(int(data["scheduled_at"])),
        scheduled_position=position,
        status=data["status"],
        inputs=dict(data.get("inputs", {})),
        not_before=when("not_before"),
        attempt=int(data.get("attempt", 0)),
        facts_written=int(data.get("facts_written", 0)),
        fact_ids=list(data.get("fact_ids", [])),
        error=data.get("error"),
        error_message=data.get("error_message"),
        retry_at=when("retry_at"),
        fork_id=data.get("fork_id"),
        message_ids=list(data.get("message_ids", [])),
        replay_of=data.get("replay_of"),
        finished_at=when("finished_at"),
        skip_reason=data.get("skip_reason"),
    )


class RetrospectiveProjection(Projection):
    """Folds run events into ``retrospective_conversations`` and ``retrospective_runs``."""

    name: ClassVar[str] = "retrospective"
    # 2: runs keep the ids of the facts they left current.
    version: ClassVar[int] = 2
    metadata: ClassVar[sa.MetaData] = metadata

    async def apply(self, conn: AsyncConnection, events: Sequence[StoredEvent]) -> None:
        """Fold one batch: load the touched conversations, apply, write them back."""
        touched: dict[tuple[str, str], ConversationRetro] = {}
        wanted: dict[tuple[str, str], set[str]] = {}
        for stored in events:
            if isinstance(stored.event, RUN_EVENT_CLASSES):
                key = (stored.namespace, stored.event.conversation_id)
                wanted.setdefault(key, set()).add(stored.event.run_id)
        for key in sorted(wanted):
            touched[key] = await _load_conversation(conn, *key, run_ids=wanted[key])
        for stored in events:
            event = stored.event
            if isinstance(event, RUN_EVENT_CLASSES):
                conv = touched[(stored.namespace, event.conversation_id)]
                apply_run_event(conv, event, stored.position, trim=False)
        conv_stmt = upsert(
            conn,
            retro_conversations_table,
            ("namespace", "conversation_id"),
            (
                "cursor_message_id",
                "cursor_position",
                "last_attempt_at",
                "last_success_at",
                "pending_run_id",
                "running_run_id",
                "remembered_json",
            ),
        )
        run_stmt = upsert(
            conn, retro_runs_table, ("namespace", "run_id"), ("state_json", "scheduled_position")
        )
        for conv in touched.values():
            await conn.execute(
                conv_stmt,
                {
                    "namespace": conv.namespace,
                    "conversation_id": conv.conversation_id,
                    "cursor_message_id": conv.cursor_message_id,
                    "cursor_position": conv.cursor_position,
                    "last_attempt_at": _micros(conv.last_attempt_at),
                    "last_success_at": _micros(conv.last_success_at),
                    "pending_run_id": conv.pending_run_id,
                    "running_run_id": conv.running_run_id,
                    "remembered_json": dumps(conv.remembered),
                },
            )
            rows = [
                {
                    "namespace": conv.namespace,
                    "run_id": run.run_id,
                    "conversation_id": conv.conversation_id,
                    "scheduled_position": run.scheduled_position,
                    "state_json": dumps(_run_to_row(run)),
                }
                for run in conv.runs.values()
            ]
            for part in chunks(rows):
                await conn.execute(run_stmt, list(part))


def _micros(when: datetime | None) -> int | None:
    return None if when is None else to_micros(when)


async def _load_conversation(
    conn: AsyncConnection,
    namespace: str,
    conversation_id: str,
    *,
    run_ids: Iterable[str] = (),
    runs_limit: int | None = None,
) -> ConversationRetro:
    """Load a conversation's row with its live runs and ``run_ids`` (or the newest runs)."""
    conv = ConversationRetro(namespace=namespace, conversation_id=conversation_id)
    row = (
        await conn.execute(
            sa.select(retro_conversations_table).where(
                _RC.namespace == namespace, _RC.conversation_id == conversation_id
            )
        )
    ).first()
    if row is None:
        return conv
    conv.cursor_message_id = row.cursor_message_id
    conv.cursor_position = int(row.cursor_position)
    conv.last_attempt_at = None if row.last_attempt_at is None else from_micros(row.last_attempt_at)
    conv.last_success_at = None if row.last_success_at is None else from_micros(row.last_success_at)
    conv.pending_run_id = row.pending_run_id
    conv.running_run_id = row.running_run_id
    conv.remembered = list(loads(row.remembered_json))
    query = sa.select(_RR.scheduled_position, _RR.state_json).where(
        _RR.namespace == namespace, _RR.conversation_id == conversation_id
    )
    if runs_limit is None:
        ids = set(run_ids or ()) | {r for r in (conv.pending_run_id, conv.running_run_id) if r}
        result = await conn.execute(query.where(_RR.run_id.in_(sorted(ids))))
    else:
        result = await conn.execute(query.order_by(_RR.scheduled_position.desc()).limit(runs_limit))
    runs = sorted((int(r[0]), loads(r[1])) for r in result)
    for position, data in runs:
        conv.runs[data["run_id"]] = _run_from_row(data, position)
    return conv


async def get_retrospective(
    conn: AsyncConnection, namespace: str, conversation_id: str, *, runs_limit: int = 50
) -> ConversationRetro | None:
    """Return a conversation's retrospective state as the table projection holds it.

    ``runs`` holds the newest ``runs_limit`` runs in schedule order. None when the log holds no
    retrospective decision for that conversation.
    """
    exists = await conn.scalar(
        sa.select(sa.func.count())
        .select_from(retro_conversations_table)
        .where(_RC.namespace == namespace, _RC.conversation_id == conversation_id)
    )
    if not exists:
        return None
    return await _load_conversation(conn, namespace, conversation_id, runs_limit=runs_limit)


async def get_run(conn: AsyncConnection, namespace: str, run_id: str) -> RunState | None:
    """Return one run by id."""
    row = (
        await conn.execute(
            sa.select(_RR.scheduled_position, _RR.state_json, _RR.conversation_id).where(
                _RR.namespace == namespace, _RR.run_id == run_id
            )
        )
    ).first()
    return None if row is None else _run_from_row(loads(row[1]), int(row[0]))
