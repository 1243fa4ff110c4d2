"""The ``conversations`` and ``messages`` projection, with fork lineage.

Fold rules (each a plain consequence of the log, no clock):

- ``MessageAppended`` creates its conversation on first use. A repeat of a ``message_id`` in
  the same conversation is an *update* (content, role, name, created_at, metadata, finalized
  are replaced, e.g. a streamed reply being finalized); the message keeps its place, which is
  the position of the event that first appended it. Appends to a deleted conversation are
  ignored.
- ``ConversationForked`` creates ``fork_id`` (ignored if ``fork_id`` already names a
  conversation, deleted or not). Its *through position* is the position of
  ``through_message_id`` among the parent's visible messages at fold time, or the fork event's
  own position when ``through_message_id`` is None (everything the parent had then). A
  ``through_message_id`` the parent does not show resolves to 0: the fork inherits nothing.

  * ``reference``: the fork stores only its own messages and reads its parent's visible
    messages with ``position <= through position``, recursively: each ancestor is cut at the
    tightest bound on the way up. A message id present in a nearer conversation hides the
    same id further up (appending an inherited message id to a fork stores the fork's own
    version *at the inherited message's position*). The walk stops after
    :data:`MAX_FORK_DEPTH` ancestors or when it meets a conversation twice (a cycle, possible
    only when forks name parents that do not exist yet); ``lineage_truncated`` says so.
  * ``cloning``: the parent's visible messages up to the through position are copied into the
    fork at fold time (with their positions); later changes to the parent do not show.

- ``ConversationDeleted`` removes the conversation's own messages and marks it deleted
  (deleting an unknown conversation is ignored). **A reference fork of a deleted (or
  never-existing) parent stays readable with its own messages only and reports
  ``orphaned=True``**: the deleted parent's messages are gone for every reader, which is what
  deleting them means. A cloning fork holds its copies and is never orphaned.

Read functions take an :class:`AsyncConnection` on the projection database.
"""

from __future__ import annotations

import operator
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from events.clock import from_micros, to_micros
from events.store.base import StoredEvent
from events.types import (
    Content,
    ConversationDeleted,
    ConversationForked,
    MessageAppended,
)
from projections.base import (
    BulkStatement,
    Carried,
    Projection,
    chunks,
    clean,
    clean_opt,
    dumps,
    execute_many,
    loads,
    upsert,
)

MAX_FORK_DEPTH = 32
"""Most ancestors a reference fork reads through."""
CONVERSATIONS_CARRIED = 100_000
"""Conversations whose row a fold keeps for the next batch."""

metadata = sa.MetaData()

conversations_table = sa.Table(
    "conversations",
    metadata,
    sa.Column("namespace", sa.String(200), primary_key=True),
    sa.Column("conversation_id", sa.String(300), primary_key=True),
    sa.Column("parent_conversation_id", sa.String(300)),
    sa.Column("through_message_id", sa.String(300)),
    sa.Column("through_position", sa.BigInteger),
    sa.Column("strategy", sa.String(20)),
    sa.Column("deleted", sa.Boolean, nullable=False),
    # The position of the event that created the conversation: unique, so it doubles as the
    # compact key its messages are stored under.
    sa.Column("created_position", sa.BigInteger, nullable=False, unique=True),
    sa.Column("deleted_position", sa.BigInteger),
)

messages_table = sa.Table(
    "messages",
    metadata,
    # The conversation's created_position (an integer key is far cheaper to index than
    # namespace + conversation id, which matters for a rebuild's millions of inserts).
    sa.Column("conversation_key", sa.BigInteger, primary_key=True),
    sa.Column("message_id", sa.String(300), primary_key=True),
    # The position of the event that first put this message in the conversation (its place).
    sa.Column("position", sa.BigInteger, nullable=False),
    sa.Column("role", sa.String(20), nullable=False),
    sa.Column("name", sa.String(300)),
    sa.Column("content_json", sa.Text, nullable=False),
    sa.Column("created_at", sa.BigInteger, nullable=False),
    sa.Column("metadata_json", sa.Text, nullable=False),
    sa.Column("finalized", sa.Boolean, nullable=False),
    # The position of the event that last changed it.
    sa.Column("updated_position", sa.BigInteger, nullable=False),
)
sa.Index("ix_messages_order", messages_table.c.conversation_key, messages_table.c.position)

_C = conversations_table.c
_M = messages_table.c
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


class UnknownMessage(LookupError):
    """A message id named in a read is not visible in that conversation."""


@dataclass(frozen=True, slots=True)
class MessageRow:
    """One visible message. ``conversation_id`` is the conversation that holds the row (an
    ancestor's id for a message a reference fork inherits)."""

    conversation_id: str
    message_id: str
    role: str
    name: str | None
    content: Content
    created_at: datetime
    metadata: dict[str, Any]
    finalized: bool
    position: int
    updated_position: int = 0
    namespace: str = ""


@dataclass(frozen=True, slots=True)
class ConversationRow:
    """One conversation with its lineage, counted over its visible messages."""

    conversation_id: str
    parent_conversation_id: str | None
    through_message_id: str | None
    strategy: str | None
    """``reference`` or ``cloning`` for a fork, None for a conversation started by a message."""
    deleted: bool
    orphaned: bool
    """A reference fork whose lineage meets a deleted or missing conversation."""
    message_count: int
    last_message_at: datetime | None
    created_position: int
    through_position: int | None = None
    deleted_position: int | None = None
    lineage_truncated: bool = False
    """The walk up the lineage stopped at the depth bound or at a cycle."""
    namespace: str = ""


@dataclass(frozen=True, slots=True)
class _Segment:
    """One conversation on a lineage and the highest position readable from it."""

    conversation_id: str
    key: int
    upto: int | None


@dataclass(frozen=True, slots=True)
class _Lineage:
    row: sa.Row[Any]
    segments: list[_Segment]
    orphaned: bool
    truncated: bool


# -- lineage -------------------------------------------------------------------------------

LINEAGE_CHAIN = sa.text(
    """
    WITH RECURSIVE chain(conversation_id, parent_conversation_id, through_position, strategy,
                         deleted, created_position, depth)
    AS (
        SELECT conversation_id, parent_conversation_id, through_position, strategy, deleted,
               created_position, 0
        FROM conversations WHERE namespace = :ns AND conversation_id = :cid
        UNION ALL
        SELECT c.conversation_id, c.parent_conversation_id, c.through_position, c.strategy,
               c.deleted, c.created_position, chain.depth + 1
        FROM chain JOIN conversations c
          ON c.namespace = :ns AND c.conversation_id = chain.parent_conversation_id
        WHERE chain.strategy IN ('reference', 'cloning') AND chain.depth <= :max_depth
    )
    SELECT conversation_id, parent_conversation_id, through_position, strategy, deleted,
           created_position
    FROM chain ORDER BY depth
    """
)
"""A conversation and the ancestors its fork links reach, nearest first, in one query (a
cycle repeats until the depth bound); binds ``ns``, ``cid`` and ``max_depth``."""

_MESSAGES_FOLLOW = frozenset({"reference"})
"""The forks whose parents the messages projection reads (a cloning fork holds copies)."""


@dataclass(frozen=True, slots=True)
class Ancestry:
    """The ancestors a conversation reads through, nearest first."""

    ancestors: list[tuple[Any, int]]
    """Each ancestor's chain row and the last position inherited from it."""
    orphaned: bool
    """The walk met a deleted or unknown parent."""
    truncated: bool
    """The walk stopped at :data:`MAX_FORK_DEPTH` ancestors or at a conversation met twice."""


def climb(chain: Sequence[Any], follow: Collection[str]) -> Ancestry:
    """Walk up from ``chain[0]`` through the rows of :data:`LINEAGE_CHAIN` by the lineage
    rules of this module's docstring, following forks whose strategy is in ``follow``.

    The one place these rules are written: the messages projection follows reference forks,
    search (:mod:`daemon.recall.lineage`) follows cloning forks too.
    """
    by_id = {row.conversation_id: row for row in chain[1:]}
    current = chain[0]
    seen = {current.conversation_id}
    ancestors: list[tuple[Any, int]] = []
    bound: int | None = None
    while current.strategy in follow and current.parent_conversation_id is not None:
        parent_id = current.parent_conversation_id
        if parent_id in seen or len(ancestors) >= MAX_FORK_DEPTH:
            return Ancestry(ancestors, orphaned=False, truncated=True)
        parent = by_id.get(parent_id)
        if parent is None or parent.deleted:
            return Ancestry(ancestors, orphaned=True, truncated=False)
        through = int(current.through_position or 0)
        bound = through if bound is None else min(bound, through)
        ancestors.append((parent, bound))
        seen.add(parent_id)
        current = parent
    return Ancestry(ancestors, orphaned=False, truncated=False)


# -- fold ----------------------------------------------------------------------------------


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
                lineage = await _lineage(self.conn, namespace, cid)
                if lineage is not None:
                    found = await _find_visible(self.conn, lineage.segments[1:], message_id)
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
        lineage = await _lineage(self.conn, namespace, parent)
        visible = lineage is not None and not lineage.row.deleted
        through = stored.position
        if through_id is not None:
            through = 0
            if visible and lineage is not None:
                found = await _find_visible(self.conn, lineage.segments, through_id)
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
            rows = await _fetch_visible(self.conn, lineage.segments, 0, through, None)
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


# -- lineage and reads -----------------------------------------------------------------------


async def _conversation(conn: AsyncConnection, namespace: str, cid: str) -> sa.Row[Any] | None:
    result = await conn.execute(
        sa.select(conversations_table).where(_C.namespace == namespace, _C.conversation_id == cid)
    )
    return result.first()


async def _lineage(conn: AsyncConnection, namespace: str, cid: str) -> _Lineage | None:
    """Walk a conversation's reference ancestry; None if the conversation is unknown."""
    row = await _conversation(conn, namespace, cid)
    if row is None:
        return None
    chain: Sequence[Any] = [row]
    if row.strategy in _MESSAGES_FOLLOW:
        params = {"ns": namespace, "cid": cid, "max_depth": MAX_FORK_DEPTH}
        chain = (await conn.execute(LINEAGE_CHAIN, params)).all()
    ancestry = climb(chain, _MESSAGES_FOLLOW)
    segments = [_Segment(cid, int(row.created_position), None)]
    segments += [
        _Segment(parent.conversation_id, int(parent.created_position), upto)
        for parent, upto in ancestry.ancestors
    ]
    return _Lineage(row, segments, ancestry.orphaned, ancestry.truncated)


def _in_segment(segment: _Segment) -> sa.ColumnElement[bool]:
    cond = _M.conversation_key == segment.key
    if segment.upto is not None:
        cond = sa.and_(cond, _M.position <= segment.upto)
    return cond


async def _find_visible(
    conn: AsyncConnection, segments: Sequence[_Segment], message_id: str
) -> sa.Row[Any] | None:
    """Return the row a lineage shows for ``message_id`` (nearest segment first)."""
    for segment in segments:
        row = (
            await conn.execute(
                sa.select(messages_table).where(_M.message_id == message_id, _in_segment(segment))
            )
        ).first()
        if row is not None:
            return row
    return None


async def _fetch_visible(
    conn: AsyncConnection,
    segments: Sequence[_Segment],
    after: int,
    upto: int | None,
    limit: int | None,
    *,
    last: bool = False,
) -> list[sa.Row[Any]]:
    """Return the visible rows with ``after < position <= upto`` in order, at most ``limit``
    (the first ones, or with ``last`` the last ones).

    Each segment contributes at most ``limit`` rows: a row hidden by a nearer segment is
    matched there by a row at the same position, so the first (or last) ``limit`` visible
    rows are always among them.
    """
    rows: list[tuple[int, int, sa.Row[Any]]] = []
    for depth, segment in enumerate(segments):
        query = sa.select(messages_table).where(_in_segment(segment), _M.position > after)
        if upto is not None:
            query = query.where(_M.position <= upto)
        query = query.order_by(_M.position.desc() if last else _M.position)
        if limit is not None:
            query = query.limit(limit)
        rows.extend((int(r.position), depth, r) for r in (await conn.execute(query)).all())
    if len(segments) == 1:
        found = [r for _, _, r in rows]
        return found[::-1] if last else found
    rows.sort(key=lambda item: (item[1], item[0]))
    seen: set[str] = set()
    out: list[sa.Row[Any]] = []
    for _, _, row in rows:
        if row.message_id not in seen:
            seen.add(row.message_id)
            out.append(row)
    out.sort(key=lambda r: int(r.position))
    if limit is None:
        return out
    return out[-limit:] if last else out[:limit]


def _message(row: sa.Row[Any], lineage: _Lineage) -> MessageRow:
    holder = next(s.conversation_id for s in lineage.segments if s.key == row.conversation_key)
    return MessageRow(
        conversation_id=holder,
        message_id=row.message_id,
        role=row.role,
        name=row.name,
        content=loads(row.content_json),
        created_at=from_micros(row.created_at),
        metadata=loads(row.metadata_json),
        finalized=bool(row.finalized),
        position=int(row.position),
        updated_position=int(row.updated_position),
        namespace=lineage.row.namespace,
    )


async def _count_visible(conn: AsyncConnection, segments: Sequence[_Segment]) -> int:
    total = 0
    for depth, segment in enumerate(segments):
        query = sa.select(sa.func.count()).select_from(messages_table).where(_in_segment(segment))
        if depth:
            nearer = messages_table.alias("nearer")
            hidden = (
                sa.select(sa.literal(1))
                .where(
                    nearer.c.message_id == _M.message_id,
                    sa.or_(
                        *(
                            sa.and_(
                                nearer.c.conversation_key == s.key,
                                sa.true() if s.upto is None else nearer.c.position <= s.upto,
                            )
                            for s in segments[:depth]
                        )
                    ),
                )
                .exists()
            )
            query = query.where(~hidden)
        total += int(await conn.scalar(query) or 0)
    return total


async def _last_visible(conn: AsyncConnection, segments: Sequence[_Segment]) -> sa.Row[Any] | None:
    best: sa.Row[Any] | None = None
    for segment in segments:
        row = (
            await conn.execute(
                sa.select(messages_table)
                .where(_in_segment(segment))
                .order_by(_M.position.desc())
                .limit(1)
            )
        ).first()
        if row is not None and (best is None or row.position > best.position):
            best = row
    return best


async def get_conversation(
    conn: AsyncConnection, namespace: str, conversation_id: str
) -> ConversationRow | None:
    """Return a conversation (also a deleted one, flagged), or None if it never existed."""
    lineage = await _lineage(conn, namespace, clean(conversation_id))
    if lineage is None:
        return None
    row = lineage.row
    deleted = bool(row.deleted)
    count = 0 if deleted else await _count_visible(conn, lineage.segments)
    last = None if deleted else await _last_visible(conn, lineage.segments)
    return ConversationRow(
        conversation_id=row.conversation_id,
        parent_conversation_id=row.parent_conversation_id,
        through_message_id=row.through_message_id,
        strategy=row.strategy,
        deleted=deleted,
        orphaned=lineage.orphaned,
        message_count=count,
        last_message_at=None if last is None else from_micros(last.created_at),
        created_position=int(row.created_position),
        through_position=None if row.through_position is None else int(row.through_position),
        deleted_position=None if row.deleted_position is None else int(row.deleted_position),
        lineage_truncated=lineage.truncated,
        namespace=row.namespace,
    )


async def list_messages(
    conn: AsyncConnection,
    namespace: str,
    conversation_id: str,
    *,
    after_message_id: str | None = None,
    limit: int = 100,
) -> list[MessageRow]:
    """Return a conversation's visible messages in order, after ``after_message_id``.

    An unknown or deleted conversation has no messages (``[]``); an ``after_message_id`` the
    conversation does not show raises :class:`UnknownMessage`.
    """
    lineage = await _lineage(conn, namespace, clean(conversation_id))
    if lineage is None or lineage.row.deleted or limit <= 0:
        return []
    after = 0
    if after_message_id is not None:
        found = await _find_visible(conn, lineage.segments, clean(after_message_id))
        if found is None:
            raise UnknownMessage(
                f"message {after_message_id!r} is not in conversation {conversation_id!r}"
            )
        after = int(found.position)
    rows = await _fetch_visible(conn, lineage.segments, after, None, limit)
    return [_message(r, lineage) for r in rows]


async def recent_messages(
    conn: AsyncConnection, namespace: str, conversation_id: str, *, limit: int
) -> list[MessageRow]:
    """Return the last ``limit`` visible messages of a conversation, in order (``[]`` for an
    unknown or deleted one)."""
    lineage = await _lineage(conn, namespace, clean(conversation_id))
    if lineage is None or lineage.row.deleted or limit <= 0:
        return []
    rows = await _fetch_visible(conn, lineage.segments, 0, None, limit, last=True)
    return [_message(r, lineage) for r in rows]


async def list_messages_through(
    conn: AsyncConnection,
    namespace: str,
    conversation_id: str,
    message_id: str,
    *,
    limit: int,
) -> list[MessageRow]:
    """Return the last ``limit`` visible messages of a conversation up to and including
    ``message_id``, in order (what was said just before a point: a review's context).

    An unknown conversation or message has no messages before it (``[]``).
    """
    lineage = await _lineage(conn, namespace, clean(conversation_id))
    if lineage is None or lineage.row.deleted or limit <= 0:
        return []
    found = await _find_visible(conn, lineage.segments, clean(message_id))
    if found is None:
        return []
    rows = await _fetch_visible(conn, lineage.segments, 0, int(found.position), limit, last=True)
    return [_message(r, lineage) for r in rows]


async def get_message(
    conn: AsyncConnection, namespace: str, conversation_id: str, message_id: str
) -> MessageRow | None:
    """Return one visible message of a conversation, or None."""
    lineage = await _lineage(conn, namespace, clean(conversation_id))
    if lineage is None or lineage.row.deleted:
        return None
    row = await _find_visible(conn, lineage.segments, clean(message_id))
    return None if row is None else _message(row, lineage)


async def list_conversations(
    conn: AsyncConnection,
    namespace: str,
    *,
    after_conversation_id: str | None = None,
    limit: int = 100,
    include_deleted: bool = False,
) -> list[str]:
    """Return conversation ids of a namespace in id order (for paging)."""
    query = sa.select(_C.conversation_id).where(_C.namespace == namespace)
    if after_conversation_id is not None:
        query = query.where(_C.conversation_id > after_conversation_id)
    if not include_deleted:
        query = query.where(_C.deleted.is_(False))
    result = await conn.execute(query.order_by(_C.conversation_id).limit(limit))
    return [r[0] for r in result]


async def latest_said_at(
    conn: AsyncConnection, namespace: str, message_ids: Sequence[str]
) -> datetime | None:
    """Return the latest ``created_at`` of the namespace's messages among ``message_ids``
    (when the last of them was said), or None when none is known."""
    if not message_ids:
        return None
    c = conversations_table.c
    latest = (
        await conn.execute(
            sa.select(sa.func.max(_M.created_at))
            .select_from(
                messages_table.join(conversations_table, _M.conversation_key == c.created_position)
            )
            .where(c.namespace == namespace, _M.message_id.in_(list(message_ids)[:IN_LIMIT]))
        )
    ).scalar()
    return None if latest is None else from_micros(int(latest))


IN_LIMIT = 1000
"""Most message ids one lookup takes."""
