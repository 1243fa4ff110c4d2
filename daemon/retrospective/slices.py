"""Reading a run's slice: the reviewed messages, and a few before them as context, as a
reading fork shows them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from sqlalchemy.ext.asyncio import AsyncEngine

from daemon.retrospective.review import SliceMessage
from events.types import content_text
from plugins.gates.base import GateMessage
from plugins.gates.injection import without_injected_blocks
from plugins.protocols import IngestGate
from projections.messages import UnknownMessage, list_messages, list_messages_through

READ_PAGE = 500
CONTEXT_MESSAGES = 6
"""Messages before a slice given to its review as context: enough for the turn that named
the person a "she" means, or the question a short answer answers."""


class SliceUnavailable(Exception):
    """None of the slice's messages could be read through the fork."""


class SliceReader(Protocol):
    """Read a slice's messages through a reading fork."""

    async def read(
        self,
        namespace: str,
        fork_id: str,
        after_message_id: str | None,
        message_ids: Sequence[str],
        position: int,
    ) -> list[SliceMessage]:
        """Return the named messages as the fork shows them, in order."""
        ...


class _RunnerLike(Protocol):
    async def wait_for(self, position: int, timeout: float | None = None) -> bool:
        """Wait until the projections hold ``position``."""
        ...


class ProjectionSliceReader:
    """Read through the ``messages`` projection (which resolves reference forks)."""

    def __init__(self, engine: AsyncEngine, runner: _RunnerLike, timeout: float = 30.0) -> None:
        self.engine = engine
        self.runner = runner
        self.timeout = timeout

    async def read(
        self,
        namespace: str,
        fork_id: str,
        after_message_id: str | None,
        message_ids: Sequence[str],
        position: int,
    ) -> list[SliceMessage]:
        """Page through the fork after ``after_message_id`` and keep the named messages."""
        if not await self.runner.wait_for(position, timeout=self.timeout):
            raise SliceUnavailable(f"the projections did not reach position {position}")
        wanted = set(message_ids)
        out: list[SliceMessage] = []
        async with self.engine.connect() as conn:
            after = after_message_id
            while len(out) < len(wanted):
                try:
                    rows = await list_messages(
                        conn, namespace, fork_id, after_message_id=after, limit=READ_PAGE
                    )
                except UnknownMessage:
                    after = None
                    continue
                out.extend(
                    SliceMessage(r.message_id, r.role, _readable(r.content), r.created_at)
                    for r in rows
                    if r.message_id in wanted
                )
                if len(rows) < READ_PAGE:
                    break
                after = rows[-1].message_id
            if out and after_message_id is not None:
                before = await list_messages_through(
                    conn, namespace, fork_id, after_message_id, limit=CONTEXT_MESSAGES
                )
                context = [
                    SliceMessage(
                        r.message_id, r.role, _readable(r.content), r.created_at, context=True
                    )
                    for r in before
                ]
                out = context + out
        return out


async def gate_messages(
    gate: IngestGate | None, messages: Sequence[SliceMessage]
) -> tuple[list[SliceMessage], list[dict[str, Any]]]:
    """Return the messages ``gate`` admits and, for each it refuses, its id and the reason
    (a refused message, of the slice or of its context, never reaches the extractor)."""
    if gate is None:
        return list(messages), []
    kept: list[SliceMessage] = []
    gated: list[dict[str, Any]] = []
    for message in messages:
        reason = await gate.refuse(GateMessage(message.message_id, message.role, message.text))
        if reason is None:
            kept.append(message)
        else:
            gated.append({"message_id": message.message_id, "reason": reason})
    return kept, gated


def _readable(content: Any) -> str:
    """A message's text as the retrospective reads it: a block an injection delimits
    ("[[MEMORY OVERRIDE]] ... [[END OVERRIDE]]") is left out, so neither an extractor nor the
    trust policy takes it for the person's words; the rest is judged on its own."""
    return without_injected_blocks(content_text(content))
