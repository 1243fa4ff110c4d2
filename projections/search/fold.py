"""The search fold: one batch of events into ``search_docs``, buffered and written at the
end (see :mod:`projections.search` for the rules)."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import orjson
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from events.clock import to_micros
from events.consolidation_events import FactArchived, FactRestored
from events.store.base import StoredEvent
from events.types import (
    ConversationDeleted,
    FactForgotten,
    FactPurged,
    FactSuperseded,
    FactValidated,
    FactWritten,
    MessageAppended,
)
from projections.base import BulkStatement, chunks, clean, execute_many
from projections.search import documents, lookups
from projections.search.documents import (
    MESSAGE_UPDATED,
    NEAR_PARTS,
    fact_row,
    message_row,
    near_text,
    near_turn_text,
)
from projections.search.index import unindex, write_index
from projections.search.lookups import DOC_NAMES, existing_refs
from projections.search.mentions import set_mentions, write_entities
from projections.search.schema import (
    deleted_conversations_table,
    docs_table,
    tags_table,
)

_D = docs_table.c

ConvKey = tuple[str, str]
_RefKey = tuple[str, str, str, str]

TAIL_CHUNK = 200
"""Conversations whose last turns are read in one statement (a UNION ALL of that many)."""
_doc_values = operator.itemgetter(*DOC_NAMES)
_insert_docs = BulkStatement(DOC_NAMES, lambda _conn: docs_table.insert())


class SearchFold:
    """One batch. New documents and changed columns are buffered and written at the end;
    each conversation's last turns are kept in memory so neighbours cost no query."""

    def __init__(
        self, conn: AsyncConnection, tails: dict[ConvKey, list[dict[str, Any]]] | None = None
    ) -> None:
        self.conn = conn
        self.new_rows: dict[int, dict[str, Any]] = {}
        self.changes: dict[int, dict[str, Any]] = {}
        self.tails: dict[ConvKey, list[dict[str, Any]]] = {} if tails is None else tails
        self.deleted: dict[ConvKey, bool] = {}
        self.facts: dict[tuple[str, str], dict[str, Any] | None] = {}
        self.index_dirty: set[int] = set()
        self.index_removed: set[int] = set()
        self.entity_dirty: set[int] = set()
        self.by_ref: dict[_RefKey, dict[str, Any]] = {}
        self.absent: set[_RefKey] = set()

    # -- helpers --------------------------------------------------------------------------

    async def preload(self, events: Sequence[StoredEvent]) -> None:
        """Load in a few queries what the batch will look up: which referenced documents
        exist already, which conversations are deleted, and each conversation's last turns."""
        wanted: dict[tuple[str, str], set[tuple[str, str]]] = {}
        convs: dict[str, set[str]] = {}
        for stored in events:
            event = stored.event
            if isinstance(event, MessageAppended):
                cid = clean(event.conversation_id)
                wanted.setdefault((stored.namespace, "message"), set()).add(
                    (cid, clean(event.message_id))
                )
                convs.setdefault(stored.namespace, set()).add(cid)
            elif isinstance(event, FactWritten):
                wanted.setdefault((stored.namespace, "fact"), set()).add(("", clean(event.fact_id)))
        for (ns, kind), pairs in wanted.items():
            found: set[tuple[str, str]] = set()
            for part in chunks(sorted(pairs)):
                found.update(await existing_refs(self.conn, ns, kind, part))
            self.absent.update((ns, kind, cid, ref) for cid, ref in pairs - found)
        for ns, cids in convs.items():
            ordered = sorted(cids)
            deleted: set[str] = set()
            for part in chunks(ordered):
                result = await self.conn.execute(
                    sa.select(deleted_conversations_table.c.conversation_id).where(
                        deleted_conversations_table.c.namespace == ns,
                        deleted_conversations_table.c.conversation_id.in_(part),
                    )
                )
                deleted.update(r[0] for r in result)
            live = []
            for cid in ordered:
                key = (ns, cid)
                self.deleted[key] = cid in deleted
                carried = self.tails.pop(key, None)
                if carried is not None:
                    self.tails[key] = carried  # last: the most recently used are kept
                elif cid not in deleted:
                    live.append(cid)
            for part in chunks(live, TAIL_CHUNK):
                tails: dict[str, list[dict[str, Any]]] = {cid: [] for cid in part}
                for row in await lookups.tails(self.conn, ns, part):
                    tails[row["conversation_id"]].append(row)
                for cid, tail in tails.items():
                    tail.sort(key=_doc_id)
                    self.tails[(ns, cid)] = tail

    def _set(self, row: dict[str, Any], position: int, **values: Any) -> None:
        row.update(values, updated_position=position)
        doc_id = row["doc_id"]
        if doc_id not in self.new_rows:
            self.changes.setdefault(doc_id, {}).update(values, updated_position=position)

    async def _is_deleted(self, key: ConvKey) -> bool:
        if key not in self.deleted:
            found = await self.conn.scalar(
                sa.select(sa.func.count())
                .select_from(deleted_conversations_table)
                .where(
                    deleted_conversations_table.c.namespace == key[0],
                    deleted_conversations_table.c.conversation_id == key[1],
                )
            )
            self.deleted[key] = bool(found)
        return self.deleted[key]

    async def _tail(self, key: ConvKey) -> list[dict[str, Any]]:
        tail = self.tails.get(key)
        if tail is None:
            result = await self.conn.execute(
                _live_turns(key).order_by(_D.doc_id.desc()).limit(2 * documents.CONTEXT_WINDOW + 1)
            )
            tail = [dict(r._mapping) for r in reversed(result.all())]
            self.tails[key] = tail
        return tail

    async def _load_doc(self, namespace: str, kind: str, cid: str, ref: str) -> dict[str, Any]:
        key = (namespace, kind, cid, ref)
        known = self.by_ref.get(key)
        if known is not None:
            return known
        if key in self.absent:
            return {}
        result = await self.conn.execute(
            sa.select(docs_table).where(
                _D.namespace == namespace,
                _D.kind == kind,
                _D.conversation_id == cid,
                _D.ref_id == ref,
            )
        )
        found = result.first()
        if found is None:
            return {}
        row = dict(found._mapping)
        row.update(self.changes.get(row["doc_id"], {}))
        self.by_ref[key] = row
        return row

    def _add(self, row: dict[str, Any]) -> None:
        self.new_rows[row["doc_id"]] = row
        key = (row["namespace"], row["kind"], row["conversation_id"], row["ref_id"])
        self.by_ref[key] = row
        self.absent.discard(key)
        self.index_dirty.add(row["doc_id"])
        self.entity_dirty.add(row["doc_id"])

    # -- events ---------------------------------------------------------------------------

    async def apply(self, stored: StoredEvent) -> None:
        """Fold one event."""
        event = stored.event
        if isinstance(event, MessageAppended):
            await self._message(stored, event)
        elif isinstance(event, ConversationDeleted):
            await self._delete_conversation(stored, event)
        elif isinstance(event, FactWritten):
            await self._fact(stored, event)
        elif isinstance(event, FactSuperseded | FactValidated | FactForgotten | FactPurged):
            await self._fact_change(stored, event)
        elif isinstance(event, FactArchived | FactRestored):
            await self._fact_archive(stored, event)

    async def _message(self, stored: StoredEvent, event: MessageAppended) -> None:
        ns, cid = stored.namespace, clean(event.conversation_id)
        key = (ns, cid)
        if await self._is_deleted(key):
            return
        row = message_row(stored, event)
        name, text, created = row["name"], row["text"], row["created_at"]
        existing = await self._load_doc(ns, "message", cid, row["ref_id"])
        if existing:
            # An update in place (a streamed reply finalised): same document, new text.
            self._set(existing, stored.position, **{k: row[k] for k in MESSAGE_UPDATED})
            self.index_dirty.add(existing["doc_id"])
            self.entity_dirty.add(existing["doc_id"])
            await self.flush()
            await self._refresh_around(key, existing["doc_id"], stored.position)
            return
        self._add(row)
        tail = await self._tail(key)
        tail.append(row)
        del tail[: max(0, len(tail) - (2 * documents.CONTEXT_WINDOW + 1))]
        # The new turn and the CONTEXT_WINDOW turns before it have a new neighbourhood. For
        # those before it the new turn is the last neighbour, so a context this fold built
        # (it knows how many parts it holds) grows by one part instead of being rebuilt.
        last = len(tail) - 1
        added = near_turn_text(name, text)
        for i in range(max(0, last - documents.CONTEXT_WINDOW), last):
            turn = tail[i]
            parts = turn.get(NEAR_PARTS)
            if parts is None:
                self._update_near(tail, i, stored.position)
            elif abs(created - turn["created_at"]) <= documents.CONTEXT_GAP_MICROS:
                near = f"{turn['near']}\n{added}" if parts else added
                turn[NEAR_PARTS] = parts + 1
                if near != turn["near"]:
                    self._set(turn, stored.position, near=near)
                    self.index_dirty.add(turn["doc_id"])
        self._update_near(tail, last, stored.position)

    def _update_near(self, turns: list[dict[str, Any]], i: int, position: int) -> None:
        near, parts = near_text(turns, i)
        row = turns[i]
        row[NEAR_PARTS] = parts
        if row["near"] != near:
            self._set(row, position, near=near)
            self.index_dirty.add(row["doc_id"])

    async def _refresh_around(self, key: ConvKey, doc_id: int, position: int) -> None:
        """Recompute ``near`` for the turns around an updated message (reads the table)."""
        window = documents.CONTEXT_WINDOW
        before = await self.conn.execute(
            _live_turns(key)
            .where(_D.doc_id <= doc_id)
            .order_by(_D.doc_id.desc())
            .limit(2 * window + 1)
        )
        after = await self.conn.execute(
            _live_turns(key).where(_D.doc_id > doc_id).order_by(_D.doc_id).limit(2 * window)
        )
        turns = [dict(r._mapping) for r in reversed(before.all())]
        turns += [dict(r._mapping) for r in after.all()]
        centre = next(i for i, t in enumerate(turns) if t["doc_id"] == doc_id)
        for i in range(
            max(0, centre - documents.CONTEXT_WINDOW),
            min(len(turns), centre + documents.CONTEXT_WINDOW + 1),
        ):
            self._update_near(turns, i, position)
        self.tails.pop(key, None)
        await self.flush()

    async def _delete_conversation(self, stored: StoredEvent, event: ConversationDeleted) -> None:
        ns, cid = stored.namespace, clean(event.conversation_id)
        if await self._is_deleted((ns, cid)):
            return  # deleted twice: nothing left to tombstone (and the marker exists)
        await self.flush()
        result = await self.conn.execute(
            sa.select(_D.doc_id).where(
                _D.namespace == ns, _D.conversation_id == cid, _D.kind == "message"
            )
        )
        doc_ids = [int(r[0]) for r in result]
        await self._tombstone(doc_ids, stored.position)
        await self.conn.execute(
            deleted_conversations_table.insert().values(namespace=ns, conversation_id=cid)
        )
        self.deleted[(ns, cid)] = True
        self.tails.pop((ns, cid), None)

    async def _tombstone(self, doc_ids: list[int], position: int) -> None:
        await unindex(self.conn, doc_ids)  # before the rows lose what the index was given
        gone = set(doc_ids)
        for row in self.by_ref.values():
            if row["doc_id"] in gone:
                row.update(
                    live=False, text="", body="", near="", name=None, updated_position=position
                )
        for part in chunks(doc_ids):
            await self.conn.execute(
                docs_table.update()
                .where(_D.doc_id.in_(part))
                .values(
                    live=False,
                    text="",
                    body="",
                    near="",
                    name=None,
                    tags_json="[]",
                    metadata_json="{}",
                    content_hash="",
                    updated_position=position,
                )
            )
            await self.conn.execute(tags_table.delete().where(tags_table.c.doc_id.in_(part)))
        await set_mentions(self.conn, doc_ids, {})

    async def _fact(self, stored: StoredEvent, event: FactWritten) -> None:
        if await self._load_doc(stored.namespace, "fact", "", clean(event.fact_id)):
            return
        self._add(fact_row(stored, event))

    async def _fact_change(
        self,
        stored: StoredEvent,
        event: FactSuperseded | FactValidated | FactForgotten | FactPurged,
    ) -> None:
        ns = stored.namespace
        fact_id = clean(event.old_fact_id if isinstance(event, FactSuperseded) else event.fact_id)
        row = await self._load_doc(ns, "fact", "", fact_id)
        if not row or not row["live"]:
            return
        tx = to_micros(stored.recorded_at)
        if isinstance(event, FactSuperseded):
            if event.old_fact_id == event.new_fact_id or row["superseded_tx"] is not None:
                return
            at = to_micros(event.at)
            valid_to = at if row["valid_to"] is None else min(row["valid_to"], at)
            self._set(
                row,
                stored.position,
                superseded_tx=tx,
                superseded_by=clean(event.new_fact_id),
                superseded_valid_to=valid_to,
            )
        elif isinstance(event, FactValidated):
            if row["status"] == "quarantined" and row["validated_tx"] is None:
                self._set(row, stored.position, validated_tx=tx)
        elif isinstance(event, FactForgotten):
            if row["forgotten_tx"] is None:
                self._set(row, stored.position, forgotten_tx=tx)
        else:
            await self.flush()
            await self._tombstone([row["doc_id"]], stored.position)

    async def _fact_archive(self, stored: StoredEvent, event: FactArchived | FactRestored) -> None:
        # Consolidation's archive hides a fact from search like a forget (the same column the
        # filters read); a restore clears it (the daemon never restores a forgotten fact).
        row = await self._load_doc(stored.namespace, "fact", "", clean(event.fact_id))
        if not row or not row["live"]:
            return
        tx = to_micros(stored.recorded_at)
        if isinstance(event, FactArchived) and row["forgotten_tx"] is None:
            self._set(row, stored.position, forgotten_tx=tx)
        elif isinstance(event, FactRestored) and row["forgotten_tx"] is not None:
            self._set(row, stored.position, forgotten_tx=None)

    # -- writes ---------------------------------------------------------------------------

    async def flush(self) -> None:
        """Write what the batch buffered: new documents, changed columns, index, mentions."""
        conn = self.conn
        # The index forgets the stored documents that change while they still hold what it
        # was given (a contentless index can only be told what to remove).
        await unindex(conn, sorted(d for d in self.index_dirty if d not in self.new_rows))
        new_rows = list(self.new_rows.values())
        if new_rows:
            await _insert_docs.execute(conn, [_doc_values(r) for r in new_rows])
            tag_rows = [
                {"doc_id": r["doc_id"], "tag": t}
                for r in new_rows
                for t in _loads_list(r["tags_json"])
            ]
            if tag_rows:
                await conn.execute(tags_table.insert(), tag_rows)
        # One executemany per set of changed columns (mostly ``near`` + ``updated_position``).
        groups: dict[tuple[str, ...], list[dict[str, Any]]] = {}
        for doc_id, values in sorted(self.changes.items()):
            groups.setdefault(tuple(sorted(values)), []).append({"b_doc_id": doc_id, **values})
        near_only = groups.pop(("near", "updated_position"), None)
        if near_only and conn.dialect.name == "sqlite":
            await conn.exec_driver_sql(
                "UPDATE search_docs SET near = ?, updated_position = ? WHERE doc_id = ?",
                [(p["near"], p["updated_position"], p["b_doc_id"]) for p in near_only],
            )
        elif near_only:
            groups[("near", "updated_position")] = near_only
        for names, params in groups.items():
            update = (
                docs_table.update()
                .where(_D.doc_id == sa.bindparam("b_doc_id"))
                .values({n: sa.bindparam(n) for n in names})
            )
            await execute_many(conn, update, params)
        for doc_id, values in sorted(self.changes.items()):
            if "tags_json" in values:
                await conn.execute(tags_table.delete().where(tags_table.c.doc_id == doc_id))
                tags = _loads_list(values["tags_json"])
                if tags:
                    await conn.execute(
                        tags_table.insert(), [{"doc_id": doc_id, "tag": t} for t in tags]
                    )
        await write_index(conn, sorted(self.index_dirty), self.new_rows)
        await write_entities(conn, sorted(self.entity_dirty), self.new_rows)
        self.new_rows.clear()
        self.changes.clear()
        self.index_dirty.clear()
        self.entity_dirty.clear()
        # Rows in the tails are now stored; later changes to them are updates.


def _live_turns(key: ConvKey) -> sa.Select[Any]:
    """Select the live message documents of one conversation."""
    return sa.select(docs_table).where(
        _D.namespace == key[0],
        _D.conversation_id == key[1],
        _D.kind == "message",
        _D.live.is_(True),
    )


def _loads_list(text: str) -> list[str]:
    value = orjson.loads(text)
    return [str(v) for v in value] if isinstance(value, list) else []


def _doc_id(row: dict[str, Any]) -> int:
    return int(row["doc_id"])
