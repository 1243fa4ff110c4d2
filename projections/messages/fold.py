"""The fold of the messages projection (rules in :mod:`projections.messages`): conversation
rows carried from batch to batch, message upserts buffered until a structural event needs the
tables current."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from events.clock import to_micros
from events.store.base import StoredEvent
from events.types import ConversationDeleted, ConversationForked, MessageAppended
from projections.base import (
    BulkStatement,
    Carried,
    Projection,
    chunks,
    clean,
    clean_opt,
    dumps,
    execute_many,
    upsert,
)
from projections.messages.lineage import fetch_visible, find_visible, read_lineage
from projections.messages.tables import conversations_table, messages_table, metadata

_C = conversations_table.c
_M = messages_table.c

CONVERSATIONS_CARRIED = 100_000
"""Conversations whose row a fold keeps for the next batch."""


_MESSAGE_UPDATES = (
    "role",
    "name",
    "content_json",
    "created_at",
    "metadata_json",
    "finalized",
    "updated_position",
)


_message_key = operator.itemgetter(0, 1)
_upsert_messages = BulkStatement(
    [c.name for c in messages_table.columns],
    lambda conn: upsert(conn, messages_table, ("conversation_key", "message_id"), _MESSAGE_UPDATES),
)


@dataclass(slots=True)
class _Conv:
    key: int
    parent: str | None
    strategy: str | None
    deleted: bool


class MessagesProjection(Projection):
    """Folds message and conversation events into ``conversations`` and ``messages``."""

    name: ClassVar[str] = "messages"
    version: ClassVar[int] = 2
    metadata: ClassVar[sa.MetaData] = metadata
    deferred_indexes: ClassVar[tuple[str, ...]] = ("ix_messages_order",)

    def __init__(self) -> None:
        # Conversation rows from one batch to the next (each batch used to read back every
        # conversation it touched).
        self._convs: Carried[tuple[str, str], _Conv | None] = Carried(CONVERSATIONS_CARRIED)

    async def apply(self, conn: AsyncConnection, events: Sequence[StoredEvent]) -> None:
        """Fold one batch."""
        fold = _MessageFold(conn, self._convs.take(events))
        await fold.run(events)
        self._convs.keep(fold.convs, events)


class _MessageFold:
    """One batch: conversation state cached, message upserts buffered until a structural
    event needs the database to be current."""

    def __init__(
        self, conn: AsyncConnection, convs: dict[tuple[str, str], _Conv | None] | None = None
    ) -> None:
        self.conn = conn
        self.convs: dict[tuple[str, str], _Conv | None] = {} if convs is None else convs
        self.new_convs: list[dict[str, Any]] = []
        self.messages: list[tuple[Any, ...]] = []
        self.own: set[tuple[int, str]] = set()

    async def run(self, events: Sequence[StoredEvent]) -> None:
        await self._load(events)
        convs = self.convs
        messages = self.messages
        for stored in events:
            event = stored.event
            if type(event) is MessageAppended:
                conv = convs.get((stored.namespace, clean(event.conversation_id)))
                if conv is not None and conv.strategy != "reference" and not conv.deleted:
                    # The hot path of a rebuild: a message in a known plain conversation
                    # (what _append does for it, without the lookups a fork needs).
                    messages.append(
                        (
                            conv.key,
                            clean(event.message_id),
                            stored.position,
                            clean(event.role),
                            clean_opt(event.name),
                            dumps(event.content),
                            to_micros(event.created_at),
                            dumps(event.metadata) if event.metadata else "{}",
                            bool(event.finalized),
                            stored.position,
                        )
                    )
                else:
                    await self._append(stored, event)
            elif isinstance(event, MessageAppended):
                await self._append(stored, event)
            elif isinstance(event, ConversationForked):
                await self._fork(stored, event)
            elif isinstance(event, ConversationDeleted):
                await self._delete(stored, event)
        await self._flush()

    async def _load(self, events: Sequence[StoredEvent]) -> None:
        wanted: dict[str, set[str]] = {}
        for stored in events:
            event = stored.event
            if isinstance(event, MessageAppended | ConversationDeleted):
                cid = clean(event.conversation_id)
            elif isinstance(event, ConversationForked):
                cid = clean(event.fork_id)
            else:
                continue
            key = (stored.namespace, cid)
            if key in self.convs:
                self.convs[key] = self.convs.pop(key)  # last: the most recently used are kept
            else:
                wanted.setdefault(stored.namespace, set()).add(cid)
        for namespace, ids in wanted.items():
            for part in chunks(sorted(ids)):
                result = await self.conn.execute(
                    sa.select(
                        _C.conversation_id,
                        _C.created_position,
                        _C.parent_conversation_id,
                        _C.strategy,
                        _C.deleted,
                    ).where(_C.namespace == namespace, _C.conversation_id.in_(part))
                )
                found = {r[0]: _Conv(int(r[1]), r[2], r[3], bool(r[4])) for r in result}
                for cid in part:
                    self.convs[(namespace, cid)] = found.get(cid)

    async def _flush(self) -> None:
        if self.new_convs:
            await execute_many(self.conn, conversations_table.insert(), self.new_convs)
            self.new_convs = []
        if self.messages:
            # In key order: neighbouring inserts touch neighbouring index pages (a stable
            # sort, so two writes of one message keep their order).
            self.messages.sort(key=_message_key)
            await _upsert_messages.execute(self.conn, self.messages)
            self.messages.clear()  # in place: run() holds this list

    def _create(self, namespace: str, cid: str, position: int, **fields: Any) -> _Conv:
        row: dict[str, Any] = {
            "namespace": namespace,
            "conversation_id": cid,
            "parent_conversation_id": None,
            "through_message_id": None,
            "through_position": None,
            "strategy": None,
            "deleted": False,
            "created_position": position,
            "deleted_position": None,
        }
        row.update(fields)
        self.new_convs.append(row)
        conv = _Conv(position, row["parent_conversation_id"], row["strategy"], False)
        self.convs[(namespace, cid)] = conv
        return conv

    async def _append(self, stored: StoredEvent, event: MessageAppended) -> None:
        namespace = stored.namespace
        cid = clean(event.conversation_id)
        message_id = clean(event.message_id)
        conv = self.convs.get((namespace, cid))
        if conv is None:
            conv = self._create(namespace, cid, stored.position)
        elif conv.deleted:
            return
        place = stored.position
        key = (conv.key, message_id)
        if conv.strategy == "reference" and key not in self.own:
            # Appending an inherited message id shadows it at its inherited place.
            await self._flush()
            exists = await self.conn.scalar(
                sa.select(_M.position).where(
                    _M.conversation_key == conv.key, _M.message_id == message_id
                )
            )
            if exists is None:
                lineage = await read_lineage(self.conn, namespace, cid)
                if lineage is not None:
                    found = await find_visible(self.conn, lineage.segments[1:], message_id)
                    if found is not None:
                        place = int(found.position)
        self.own.add(key)
        self.messages.append(
            (
                conv.key,
                message_id,
                place,
                clean(event.role),
                clean_opt(event.name),
                dumps(event.content),
                to_micros(event.created_at),
                dumps(event.metadata),
                bool(event.finalized),
                stored.position,
            )
        )

    async def _fork(self, stored: StoredEvent, event: ConversationForked) -> None:
        namespace = stored.namespace
        fork_id = clean(event.fork_id)
        through_id = clean_opt(event.through_message_id)
        if self.convs.get((namespace, fork_id)) is not None:
            return
        await self._flush()
        parent = clean(event.parent_conversation_id)
        lineage = await read_lineage(self.conn, namespace, parent)
        visible = lineage is not None and not lineage.row.deleted
        through = stored.position
        if through_id is not None:
            through = 0
            if visible and lineage is not None:
                found = await find_visible(self.conn, lineage.segments, through_id)
                if found is not None:
                    through = int(found.position)
        fork = self._create(
            namespace,
            fork_id,
            stored.position,
            parent_conversation_id=parent,
            through_message_id=through_id,
            through_position=through,
            strategy=event.strategy,
        )
        if event.strategy == "cloning" and visible and lineage is not None:
            rows = await fetch_visible(self.conn, lineage.segments, 0, through, None)
            for row in rows:
                self.own.add((fork.key, row.message_id))
                self.messages.append(
                    (
                        fork.key,
                        row.message_id,
                        int(row.position),
                        row.role,
                        row.name,
                        row.content_json,
                        int(row.created_at),
                        row.metadata_json,
                        bool(row.finalized),
                        stored.position,
                    )
                )

    async def _delete(self, stored: StoredEvent, event: ConversationDeleted) -> None:
        namespace = stored.namespace
        cid = clean(event.conversation_id)
        conv = self.convs.get((namespace, cid))
        if conv is None or conv.deleted:
            return
        await self._flush()
        await self.conn.execute(messages_table.delete().where(_M.conversation_key == conv.key))
        await self.conn.execute(
            conversations_table.update()
            .where(_C.namespace == namespace, _C.conversation_id == cid)
            .values(deleted=True, deleted_position=stored.position)
        )
        conv.deleted = True
        self.own = {k for k in self.own if k[0] != conv.key}
