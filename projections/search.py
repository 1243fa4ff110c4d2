"""The search projection: one searchable document per message and per fact, with filters,
a full-text index, entity mentions and the content hash the embedding cache is keyed by.

Fold rules (pure: time comes from the events, no plugin is called):

- ``MessageAppended`` adds a message document (``doc_id`` = the position of the event that
  first appended it). Its indexed ``body`` is ``"<name>: <text> <date>"`` and its ``near``
  column holds the text (each cut to :data:`NEAR_TURN_CHARS`) of up to :data:`CONTEXT_WINDOW`
  turns on each side in the same
  conversation, as long as they are within :data:`CONTEXT_GAP_MICROS` of it (a later session
  is not context), so a reply like "Yes, last Tuesday" is found by what it answers. A new
  message refreshes the ``near`` column of the turns before it. A repeated ``message_id`` in
  the same conversation replaces the document's text and metadata. Appends to a deleted
  conversation are ignored.
- ``ConversationDeleted`` tombstones the conversation's documents (``live`` false; text, name,
  metadata and content hash removed; index rows and mentions deleted).
- ``FactWritten`` adds a fact document (text, subject/predicate/object and tags indexed).
  ``FactSuperseded``, ``FactValidated`` and ``FactForgotten`` record *when* (transaction time)
  the fact changed, so search can answer ``known_at`` questions; ``FactPurged`` tombstones it.
- Entities (see :mod:`projections.entities`) of each live document's own text are stored as
  mentions, and ``search_entities`` counts the documents that mention each canonical key.

Every change bumps the row's ``updated_position``, which the daemon's vector indexer follows.

The full-text index is dialect-specific: a contentless FTS5 table ``search_fts`` (``porter
unicode61 remove_diacritics 2``; columns body, near and an unranked ``scope`` of namespace,
kind and conversation tokens; it keeps the postings of every live document and no copy of
their text, so a document is removed by naming the values it was indexed with, read from
``search_docs`` before the row changes) on SQLite, a weighted ``tsvector`` column generated
from body and near
(PostgreSQL keeps it in step with every insert and update) with a GIN index on PostgreSQL.
Both are created and dropped with ``search_docs``.
"""

from __future__ import annotations

import functools
import hashlib
import operator
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, ClassVar

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from events.clock import from_micros, to_micros
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
    content_text,
)
from projections.base import (
    BulkStatement,
    Carried,
    Projection,
    chunks,
    clean,
    clean_opt,
    cooperate,
    dumps,
    execute_many,
    upsert,
)
from projections.entities import extract_entities

CONTEXT_WINDOW = 2
"""Turns on each side of a message that are indexed with it."""
CONTEXT_GAP_MICROS = 3 * 3600 * 1_000_000
"""A neighbouring turn further away in time than this is not context (another session)."""
NEAR_TURN_CHARS = 512
"""Characters of one neighbouring turn kept in ``near``, cut at a word boundary (a message's
own text, in ``body``, is never cut). Uncut, four 4 KB neighbours made ``near`` 3.3x the event
log, plus their postings. 512 keeps a paragraph, which is what a short reply usually answers,
and every LoCoMo turn whole (the longest, with speaker and image caption, is 487): what is
lost on long turns is not measured by any benchmark here."""
INDEX_DATES = True
"""Index a message's date as words with it (benchmarks switch this off for the ablation)."""
FTS_TOKENIZER = "porter unicode61 remove_diacritics 2"
PG_TS_CONFIG = "english"

metadata = sa.MetaData()

docs_table = sa.Table(
    "search_docs",
    metadata,
    sa.Column("doc_id", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("namespace", sa.String(200), nullable=False),
    sa.Column("kind", sa.String(10), nullable=False),
    sa.Column("ref_id", sa.String(300), nullable=False),
    sa.Column("conversation_id", sa.String(300), nullable=False),
    sa.Column("role", sa.String(20)),
    sa.Column("name", sa.String(300)),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("body", sa.Text, nullable=False),
    sa.Column("near", sa.Text, nullable=False),
    sa.Column("created_at", sa.BigInteger, nullable=False),
    sa.Column("valid_from", sa.BigInteger, nullable=False),
    sa.Column("valid_to", sa.BigInteger),
    sa.Column("superseded_valid_to", sa.BigInteger),
    sa.Column("known_from", sa.BigInteger, nullable=False),
    sa.Column("superseded_tx", sa.BigInteger),
    sa.Column("superseded_by", sa.String(300)),
    sa.Column("forgotten_tx", sa.BigInteger),
    sa.Column("validated_tx", sa.BigInteger),
    sa.Column("status", sa.String(20), nullable=False),
    sa.Column("owner", sa.String(20), nullable=False),
    sa.Column("provenance", sa.String(20), nullable=False),
    sa.Column("importance", sa.Float, nullable=False),
    sa.Column("confidence", sa.Float, nullable=False),
    sa.Column("tags_json", sa.Text, nullable=False),
    sa.Column("metadata_json", sa.Text, nullable=False),
    sa.Column("content_hash", sa.String(64), nullable=False),
    sa.Column("live", sa.Boolean, nullable=False),
    sa.Column("updated_position", sa.BigInteger, nullable=False),
    sa.UniqueConstraint("namespace", "kind", "conversation_id", "ref_id", name="uq_search_ref"),
)
sa.Index("ix_search_docs_updated", docs_table.c.updated_position)
sa.Index(
    "ix_search_docs_conv",
    docs_table.c.namespace,
    docs_table.c.conversation_id,
    docs_table.c.doc_id,
)

tags_table = sa.Table(
    "search_tags",
    metadata,
    sa.Column("doc_id", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("tag", sa.String(300), primary_key=True),
)
sa.Index("ix_search_tags_tag", tags_table.c.tag, tags_table.c.doc_id)

mentions_table = sa.Table(
    "search_mentions",
    metadata,
    sa.Column("doc_id", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("entity_key", sa.String(300), primary_key=True),
)
sa.Index("ix_search_mentions_key", mentions_table.c.entity_key, mentions_table.c.doc_id)

entities_table = sa.Table(
    "search_entities",
    metadata,
    sa.Column("namespace", sa.String(200), primary_key=True),
    sa.Column("entity_key", sa.String(300), primary_key=True),
    sa.Column("display", sa.String(300), nullable=False),
    sa.Column("doc_count", sa.Integer, nullable=False),
)

deleted_conversations_table = sa.Table(
    "search_deleted_conversations",
    metadata,
    sa.Column("namespace", sa.String(200), primary_key=True),
    sa.Column("conversation_id", sa.String(300), primary_key=True),
)


def _ddl_statement(statement: str) -> Any:
    return sa.DDL(statement)  # type: ignore[no-untyped-call]


for _ddl in (
    f"CREATE VIRTUAL TABLE IF NOT EXISTS search_fts USING fts5(body, near, scope, "
    f"content='', tokenize='{FTS_TOKENIZER}')",
):
    sa.event.listen(docs_table, "after_create", _ddl_statement(_ddl).execute_if(dialect="sqlite"))
sa.event.listen(
    docs_table,
    "before_drop",
    _ddl_statement("DROP TABLE IF EXISTS search_fts").execute_if(dialect="sqlite"),
)
PG_TSV = (
    f"setweight(to_tsvector('{PG_TS_CONFIG}', body), 'A') || "
    f"setweight(to_tsvector('{PG_TS_CONFIG}', near), 'B')"
)
for _ddl in (
    f"ALTER TABLE search_docs ADD COLUMN IF NOT EXISTS tsv tsvector "
    f"GENERATED ALWAYS AS ({PG_TSV}) STORED",
    "CREATE INDEX IF NOT EXISTS ix_search_docs_tsv ON search_docs USING GIN (tsv)",
):
    sa.event.listen(
        docs_table, "after_create", _ddl_statement(_ddl).execute_if(dialect="postgresql")
    )

_D = docs_table.c


def scope_token(prefix: str, *parts: str) -> str:
    """Return one opaque index token for a namespace or conversation (letters and digits)."""
    digest = hashlib.sha1("\x1f".join(parts).encode("utf-8")).hexdigest()[:20]
    return f"{prefix}{digest}x"


@functools.lru_cache(maxsize=4096)
def scope_tokens(namespace: str, kind: str, conversation_id: str) -> str:
    """Return the FTS5 ``scope`` column: namespace, kind and conversation tokens.

    Filtering by these inside the MATCH lets FTS5 intersect posting lists instead of scoring
    every match of the whole database and discarding most of them afterwards.
    """
    return " ".join(
        (
            scope_token("n", namespace),
            scope_token("k", kind),
            scope_token("c", namespace, conversation_id),
        )
    )


def content_hash(text: str) -> str:
    """Return the sha256 of the text that is embedded for a document."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def embed_text(name: str | None, text: str) -> str:
    """Return what the embedder sees for a document: ``"<name>: <text>"`` or the text."""
    return f"{name}: {text}" if name else text


def date_words(micros: int) -> str:
    """Return a document's date as words ("8 May 2023"), so dates in a query match it."""
    return _day_words(micros // _DAY_MICROS)


_DAY_MICROS = 86_400_000_000


@functools.lru_cache(maxsize=1024)
def _day_words(day: int) -> str:
    # Consecutive messages mostly share a day: formatting once per day is the fold's saving.
    when: datetime = from_micros(day * _DAY_MICROS)
    return f"{when.day} {when.strftime('%B %Y')}"


def message_owner(role: str) -> str:
    """Return the owner a message counts as: the user's own words or the agent's."""
    return "user" if role == "user" else "agent"


def message_provenance(role: str) -> str:
    """Return a message's provenance: tool output is foreign, everything else first-hand."""
    return "tool" if role == "tool" else "user"


def message_tags(meta: dict[str, Any]) -> list[str]:
    """Return a message's tags: ``metadata.tags`` when it is a list of strings."""
    tags = meta.get("tags")
    if isinstance(tags, list):
        return sorted({clean(t) for t in tags if isinstance(t, str)})
    return []


class SearchProjection(Projection):
    """Folds messages and facts into searchable documents (see the module docstring)."""

    name: ClassVar[str] = "search"
    # 3: text and identifiers with NUL are stored with U+FFFD (PostgreSQL cannot store NUL).
    # 4: PostgreSQL's tsv is a generated column.
    # 5: SQLite's index is contentless (search_docs holds the text once; it held it twice).
    # 6: each neighbouring turn in near is cut to NEAR_TURN_CHARS.
    version: ClassVar[int] = 6
    metadata: ClassVar[sa.MetaData] = metadata
    # The fold reads documents by reference, conversation and doc_id, never by these.
    deferred_indexes: ClassVar[tuple[str, ...]] = (
        "ix_search_docs_updated",
        "ix_search_tags_tag",
        "ix_search_mentions_key",
    )

    def __init__(self) -> None:
        # Each conversation's last turns, from one batch to the next: a batch of a busy log
        # touches the same conversations as the one before, and reading their tails back
        # was a tenth of a rebuild.
        self._tails: Carried[_ConvKey, list[dict[str, Any]]] = Carried(TAILS_CARRIED)

    async def apply(self, conn: AsyncConnection, events: Sequence[StoredEvent]) -> None:
        """Fold one batch."""
        fold = _SearchFold(conn, self._tails.take(events))
        await fold.preload(events)
        for i, stored in enumerate(events):
            await cooperate(i)
            await fold.apply(stored)
        await fold.flush()
        self._tails.keep(fold.tails, events)


_ConvKey = tuple[str, str]
_RefKey = tuple[str, str, str, str]


class _SearchFold:
    """One batch. New documents and changed columns are buffered and written at the end;
    each conversation's last turns are kept in memory so neighbours cost no query."""

    def __init__(
        self, conn: AsyncConnection, tails: dict[_ConvKey, list[dict[str, Any]]] | None = None
    ) -> None:
        self.conn = conn
        self.new_rows: dict[int, dict[str, Any]] = {}
        self.changes: dict[int, dict[str, Any]] = {}
        self.tails: dict[_ConvKey, list[dict[str, Any]]] = {} if tails is None else tails
        self.deleted: dict[_ConvKey, bool] = {}
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
                found.update(await _existing_refs(self.conn, ns, kind, part))
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
            for part in chunks(live, _TAIL_CHUNK):
                tails: dict[str, list[dict[str, Any]]] = {cid: [] for cid in part}
                for row in await _tails(self.conn, ns, part):
                    tails[row["conversation_id"]].append(row)
                for cid, tail in tails.items():
                    tail.sort(key=_doc_id)
                    self.tails[(ns, cid)] = tail

    def _set(self, row: dict[str, Any], position: int, **values: Any) -> None:
        row.update(values, updated_position=position)
        doc_id = row["doc_id"]
        if doc_id not in self.new_rows:
            self.changes.setdefault(doc_id, {}).update(values, updated_position=position)

    async def _is_deleted(self, key: _ConvKey) -> bool:
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

    async def _tail(self, key: _ConvKey) -> list[dict[str, Any]]:
        tail = self.tails.get(key)
        if tail is None:
            result = await self.conn.execute(
                sa.select(docs_table)
                .where(
                    _D.namespace == key[0],
                    _D.conversation_id == key[1],
                    _D.kind == "message",
                    _D.live.is_(True),
                )
                .order_by(_D.doc_id.desc())
                .limit(2 * CONTEXT_WINDOW + 1)
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
        text = clean(content_text(event.content))
        name = clean_opt(event.name)
        message_id = clean(event.message_id)
        created = to_micros(event.created_at)
        role = event.role
        existing = await self._load_doc(ns, "message", cid, message_id)
        # One dict literal per new document: this is the fold's hottest line.
        row = {
            "doc_id": stored.position,
            "namespace": ns,
            "kind": "message",
            "ref_id": message_id,
            "conversation_id": cid,
            "role": role,
            "name": name,
            "text": text,
            "body": _message_body(name, text, created),
            "near": "",
            "created_at": created,
            "valid_from": created,
            "valid_to": None,
            "superseded_valid_to": None,
            "known_from": to_micros(stored.recorded_at),
            "superseded_tx": None,
            "superseded_by": None,
            "forgotten_tx": None,
            "validated_tx": None,
            "status": "active",
            "owner": message_owner(role),
            "provenance": message_provenance(role),
            "importance": 0.5,
            "confidence": 1.0,
            "tags_json": dumps(message_tags(event.metadata)),
            "metadata_json": dumps(event.metadata),
            "content_hash": content_hash(embed_text(name, text)),
            "live": True,
            "updated_position": stored.position,
        }
        if existing:
            # An update in place (a streamed reply finalised): same document, new text.
            self._set(existing, stored.position, **{k: row[k] for k in _MESSAGE_UPDATED})
            self.index_dirty.add(existing["doc_id"])
            self.entity_dirty.add(existing["doc_id"])
            await self.flush()
            await self._refresh_around(key, existing["doc_id"], stored.position)
            return
        self._add(row)
        tail = await self._tail(key)
        tail.append(row)
        del tail[: max(0, len(tail) - (2 * CONTEXT_WINDOW + 1))]
        # The new turn and the CONTEXT_WINDOW turns before it have a new neighbourhood. For
        # those before it the new turn is the last neighbour, so a context this fold built
        # (it knows how many parts it holds) grows by one part instead of being rebuilt.
        last = len(tail) - 1
        added = near_turn_text(name, text)
        for i in range(max(0, last - CONTEXT_WINDOW), last):
            turn = tail[i]
            parts = turn.get(_NEAR_PARTS)
            if parts is None:
                self._update_near(tail, i, stored.position)
            elif abs(created - turn["created_at"]) <= CONTEXT_GAP_MICROS:
                near = f"{turn['near']}\n{added}" if parts else added
                turn[_NEAR_PARTS] = parts + 1
                if near != turn["near"]:
                    self._set(turn, stored.position, near=near)
                    self.index_dirty.add(turn["doc_id"])
        self._update_near(tail, last, stored.position)

    def _update_near(self, turns: list[dict[str, Any]], i: int, position: int) -> None:
        near, parts = _near_text(turns, i)
        row = turns[i]
        row[_NEAR_PARTS] = parts
        if row["near"] != near:
            self._set(row, position, near=near)
            self.index_dirty.add(row["doc_id"])

    async def _refresh_around(self, key: _ConvKey, doc_id: int, position: int) -> None:
        """Recompute ``near`` for the turns around an updated message (reads the table)."""
        before = await self.conn.execute(
            sa.select(docs_table)
            .where(
                _D.namespace == key[0],
                _D.conversation_id == key[1],
                _D.kind == "message",
                _D.live.is_(True),
                _D.doc_id <= doc_id,
            )
            .order_by(_D.doc_id.desc())
            .limit(2 * CONTEXT_WINDOW + 1)
        )
        after = await self.conn.execute(
            sa.select(docs_table)
            .where(
                _D.namespace == key[0],
                _D.conversation_id == key[1],
                _D.kind == "message",
                _D.live.is_(True),
                _D.doc_id > doc_id,
            )
            .order_by(_D.doc_id)
            .limit(2 * CONTEXT_WINDOW)
        )
        turns = [dict(r._mapping) for r in reversed(before.all())]
        turns += [dict(r._mapping) for r in after.all()]
        centre = next(i for i, t in enumerate(turns) if t["doc_id"] == doc_id)
        for i in range(
            max(0, centre - CONTEXT_WINDOW), min(len(turns), centre + CONTEXT_WINDOW + 1)
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
        await _unindex(self.conn, doc_ids)  # before the rows lose what the index was given
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
        await self._set_mentions(doc_ids, {})

    async def _fact(self, stored: StoredEvent, event: FactWritten) -> None:
        ns = stored.namespace
        fact_id, text = clean(event.fact_id), clean(event.text)
        if await self._load_doc(ns, "fact", "", fact_id):
            return
        tags = sorted({clean(t) for t in event.tags})
        spo = [clean_opt(event.subject), clean_opt(event.predicate), clean_opt(event.object)]
        parts = [text, *spo, " ".join(tags)]
        body = " ".join(p for p in parts if p)
        valid_from = to_micros(event.valid_from)
        row = {
            "doc_id": stored.position,
            "namespace": ns,
            "kind": "fact",
            "ref_id": fact_id,
            "conversation_id": "",
            "role": None,
            "name": None,
            "text": text,
            "body": body,
            "near": "",
            "created_at": valid_from,
            "valid_from": valid_from,
            "valid_to": None if event.valid_to is None else to_micros(event.valid_to),
            "superseded_valid_to": None,
            "known_from": to_micros(stored.recorded_at),
            "superseded_tx": None,
            "superseded_by": None,
            "forgotten_tx": None,
            "validated_tx": None,
            "status": event.status,
            "owner": event.owner,
            "provenance": event.provenance,
            "importance": float(event.importance),
            "confidence": float(event.confidence),
            "tags_json": dumps(tags),
            "metadata_json": dumps(
                {
                    "subject": event.subject,
                    "predicate": event.predicate,
                    "object": event.object,
                    "source_message_ids": event.source_message_ids,
                }
            ),
            "content_hash": content_hash(text),
            "live": True,
            "updated_position": stored.position,
        }
        self._add(row)

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
        conn = self.conn
        # The index forgets the stored documents that change while they still hold what it
        # was given (a contentless index can only be told what to remove).
        await _unindex(conn, sorted(d for d in self.index_dirty if d not in self.new_rows))
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
        await self._write_index(sorted(self.index_dirty))
        await self._write_entities(sorted(self.entity_dirty))
        self.new_rows.clear()
        self.changes.clear()
        self.index_dirty.clear()
        self.entity_dirty.clear()
        # Rows in the tails are now stored; later changes to them are updates.

    async def _write_index(self, doc_ids: list[int]) -> None:
        # PostgreSQL's tsv is generated from body and near by the insert or update itself.
        if not doc_ids or self.conn.dialect.name != "sqlite":
            return
        conn = self.conn
        # A document first written by this flush has no index row yet and is in memory.
        rows = [
            (d, r["body"], r["near"], scope_tokens(r["namespace"], r["kind"], r["conversation_id"]))
            for d in doc_ids
            if (r := self.new_rows.get(d)) is not None
        ]
        stored = [d for d in doc_ids if d not in self.new_rows]
        rows.extend(await _indexed(conn, stored))
        if rows:
            await conn.exec_driver_sql(
                "INSERT INTO search_fts(rowid, body, near, scope) VALUES (?, ?, ?, ?)", rows
            )

    async def _write_entities(self, doc_ids: list[int]) -> None:
        if not doc_ids:
            return
        wanted: dict[int, dict[str, str]] = {}
        fresh: dict[int, str] = {}
        for i, doc_id in enumerate(doc_ids):
            await cooperate(i)
            row = self.new_rows.get(doc_id)
            if row is not None:
                wanted[doc_id] = {e.key: e.display for e in extract_entities(row["text"])}
                fresh[doc_id] = row["namespace"]
        for part in chunks([d for d in doc_ids if d not in fresh]):
            result = await self.conn.execute(
                sa.select(_D.doc_id, _D.text, _D.live).where(_D.doc_id.in_(part))
            )
            for doc_id, text, live in result:
                wanted[int(doc_id)] = (
                    {e.key: e.display for e in extract_entities(text)} if live else {}
                )
        await self._set_mentions(doc_ids, wanted, fresh)

    async def _set_mentions(
        self,
        doc_ids: Iterable[int],
        wanted: dict[int, dict[str, str]],
        fresh: dict[int, str] | None = None,
    ) -> None:
        """Make the mentions of ``doc_ids`` equal ``wanted`` and keep the entity counts.

        ``fresh`` maps documents first written by this flush (no mentions yet) to their
        namespace, which spares reading them back."""
        conn = self.conn
        ids = sorted(set(doc_ids))
        if not ids:
            return
        old: dict[int, set[str]] = {}
        namespaces: dict[int, str] = dict(fresh or {})
        for part in chunks([d for d in ids if d not in namespaces]):
            result = await conn.execute(
                sa.select(mentions_table.c.doc_id, mentions_table.c.entity_key).where(
                    mentions_table.c.doc_id.in_(part)
                )
            )
            for doc_id, key in result:
                old.setdefault(int(doc_id), set()).add(key)
            result = await conn.execute(
                sa.select(_D.doc_id, _D.namespace).where(_D.doc_id.in_(part))
            )
            namespaces.update({int(d): ns for d, ns in result})
        delta: dict[tuple[str, str], int] = {}
        displays: dict[tuple[str, str], str] = {}
        removes: list[dict[str, Any]] = []
        adds: list[dict[str, Any]] = []
        for doc_id in ids:
            ns = namespaces.get(doc_id)
            if ns is None:
                continue
            before = old.get(doc_id, set())
            after = wanted.get(doc_id, {})
            for key in sorted(before - set(after)):
                removes.append({"d": doc_id, "k": key})
                delta[(ns, key)] = delta.get((ns, key), 0) - 1
            for key in sorted(set(after) - before):
                adds.append({"doc_id": doc_id, "entity_key": key})
                delta[(ns, key)] = delta.get((ns, key), 0) + 1
                displays.setdefault((ns, key), after[key])
        if removes:
            await conn.execute(
                mentions_table.delete().where(
                    mentions_table.c.doc_id == sa.bindparam("d"),
                    mentions_table.c.entity_key == sa.bindparam("k"),
                ),
                removes,
            )
        if adds:
            await conn.execute(mentions_table.insert(), adds)
        # One upsert that adds each key's change to its count, then one delete of the keys
        # whose count fell to zero: two statements per flush instead of a read and a write
        # per entity key, which was most of a fold with many named entities.
        changed = [(k, c) for k, c in sorted(delta.items()) if c != 0]
        await _add_entity_counts.execute(
            conn, [(ns, key, displays.get((ns, key), key)[:300], c) for (ns, key), c in changed]
        )
        gone = [{"n": ns, "k": key} for (ns, key), c in changed if c < 0]
        if gone:
            e = entities_table.c
            await conn.execute(
                entities_table.delete().where(
                    e.namespace == sa.bindparam("n"),
                    e.entity_key == sa.bindparam("k"),
                    e.doc_count <= 0,
                ),
                gone,
            )


def _message_body(name: str | None, text: str, created: int) -> str:
    head = f"{name}: {text}" if name else text
    return f"{head} {date_words(created)}" if INDEX_DATES else head


def _near_text(turns: list[dict[str, Any]], i: int) -> tuple[str, int]:
    """Return the context of ``turns[i]`` and how many neighbouring turns it holds."""
    centre = turns[i]["created_at"]
    parts = []
    for j in range(max(0, i - CONTEXT_WINDOW), min(len(turns), i + CONTEXT_WINDOW + 1)):
        if j == i:
            continue
        other = turns[j]
        if abs(other["created_at"] - centre) > CONTEXT_GAP_MICROS:
            continue
        parts.append(near_turn_text(other["name"], other["text"]))
    return "\n".join(parts), len(parts)


def near_turn_text(name: str | None, text: str) -> str:
    """Return what a neighbouring turn adds to ``near``: its :func:`embed_text`, cut at the
    last whitespace within :data:`NEAR_TURN_CHARS` characters (at the limit itself when the
    second half holds none, say a long URL)."""
    part = embed_text(name, text)
    if len(part) <= NEAR_TURN_CHARS:
        return part
    end = NEAR_TURN_CHARS  # part[end] is the first character left out
    while end > NEAR_TURN_CHARS // 2 and not part[end].isspace():
        end -= 1
    if end <= NEAR_TURN_CHARS // 2:
        end = NEAR_TURN_CHARS
    return part[:end].rstrip()


def _loads_list(text: str) -> list[str]:
    import orjson

    value = orjson.loads(text)
    return [str(v) for v in value] if isinstance(value, list) else []


_MESSAGE_UPDATED = (
    "role",
    "name",
    "text",
    "body",
    "created_at",
    "valid_from",
    "owner",
    "provenance",
    "tags_json",
    "metadata_json",
    "content_hash",
)
"""The columns a repeated ``message_id`` replaces (the rest keep the first append's values)."""
_NEAR_PARTS = "_near_parts"
"""Key (not a column) of an in-memory row: how many turns its ``near`` holds."""
TAILS_CARRIED = 2048
"""Conversations whose last turns a fold keeps for the next batch."""
_TAIL_CHUNK = 200
"""Conversations whose last turns are read in one statement (a UNION ALL of that many)."""
_DOC_NAMES = tuple(c.name for c in docs_table.columns)
_DOC_COLUMNS = ", ".join(_DOC_NAMES)
_doc_values = operator.itemgetter(*_DOC_NAMES)
_insert_docs = BulkStatement(_DOC_NAMES, lambda _conn: docs_table.insert())


# A new key is inserted with its change (deleted right after when that is negative); a known
# key keeps its display and adds the change to its count.
_add_entity_counts = BulkStatement(
    ("namespace", "entity_key", "display", "doc_count"),
    lambda conn: upsert(conn, entities_table, ("namespace", "entity_key"), add=("doc_count",)),
)


async def _indexed(conn: AsyncConnection, doc_ids: Sequence[int]) -> list[tuple[Any, ...]]:
    """Return ``(doc_id, body, near, scope)`` of the live documents among ``doc_ids``: what
    the SQLite index holds of them (it holds every live document, as stored)."""
    rows: list[tuple[Any, ...]] = []
    for part in chunks(doc_ids):
        result = await conn.execute(
            sa.select(_D.doc_id, _D.body, _D.near, _D.namespace, _D.kind, _D.conversation_id)
            .where(_D.doc_id.in_(part), _D.live.is_(True))
            .order_by(_D.doc_id)
        )
        rows.extend((int(r[0]), r[1], r[2], scope_tokens(r[3], r[4], r[5])) for r in result)
    return rows


async def _unindex(conn: AsyncConnection, doc_ids: Sequence[int]) -> None:
    """Remove documents from the SQLite index, while their rows still hold what it was given.

    The index is contentless (it keeps no copy of the text, only the postings), so a removal
    names the exact values that were indexed; a document that is not live is not indexed.
    """
    if not doc_ids or conn.dialect.name != "sqlite":
        return
    rows = await _indexed(conn, doc_ids)
    if rows:
        await conn.exec_driver_sql(
            "INSERT INTO search_fts(search_fts, rowid, body, near, scope) "
            "VALUES ('delete', ?, ?, ?, ?)",
            rows,
        )


def _doc_id(row: dict[str, Any]) -> int:
    return int(row["doc_id"])


async def _existing_refs(
    conn: AsyncConnection, namespace: str, kind: str, pairs: Sequence[tuple[str, str]]
) -> set[tuple[str, str]]:
    """Return which ``(conversation_id, ref_id)`` pairs have a document (one query)."""
    if conn.dialect.name == "sqlite":
        # Plain driver SQL: the same string for every full chunk (sqlite3 caches its plan)
        # and no per-parameter processing.
        marks = ", ".join(["(?, ?)"] * len(pairs))
        flat: list[str] = []
        for pair in pairs:
            flat.extend(pair)
        found: Any = await conn.exec_driver_sql(
            f"WITH wanted(c, r) AS (VALUES {marks}) "
            "SELECT d.conversation_id, d.ref_id FROM wanted JOIN search_docs d "
            "ON d.namespace = ? AND d.kind = ? AND d.conversation_id = wanted.c "
            "AND d.ref_id = wanted.r",
            (*flat, namespace, kind),
        )
        return {(str(r[0]), str(r[1])) for r in found}
    # A lateral probe per pair: each is one index lookup on uq_search_ref whatever the
    # planner believes of the table (during a rebuild its statistics say "empty", and a plain
    # join then scans the whole index once per wanted pair). LIMIT 1 (a pair is unique) keeps
    # the planner from flattening the probe back into that join.
    result = await conn.execute(
        sa.text(
            "SELECT d.conversation_id, d.ref_id "
            "FROM unnest(CAST(:cids AS varchar[]), CAST(:refs AS varchar[])) AS wanted(c, r) "
            "CROSS JOIN LATERAL (SELECT conversation_id, ref_id FROM search_docs "
            "WHERE namespace = :ns AND kind = :kind AND conversation_id = wanted.c "
            "AND ref_id = wanted.r LIMIT 1) AS d"
        ),
        {
            "ns": namespace,
            "kind": kind,
            "cids": [c for c, _ in pairs],
            "refs": [r for _, r in pairs],
        },
    )
    return {(r[0], r[1]) for r in result}


async def _tails(
    conn: AsyncConnection, namespace: str, cids: Sequence[str]
) -> list[dict[str, Any]]:
    """Return the last live turns of each conversation in ``cids`` (one query)."""
    if conn.dialect.name == "sqlite":
        one = (
            f"SELECT * FROM (SELECT {_DOC_COLUMNS} FROM search_docs WHERE namespace = ?1 "
            "AND conversation_id = ? AND kind = 'message' AND live = 1 "
            f"ORDER BY doc_id DESC LIMIT {2 * CONTEXT_WINDOW + 1})"
        )
        found = await conn.exec_driver_sql(
            " UNION ALL ".join([one] * len(cids)), (namespace, *cids)
        )
        rows = [dict(zip(_DOC_NAMES, r, strict=True)) for r in found]
        for row in rows:
            row["live"] = bool(row["live"])
        return rows
    params: dict[str, Any] = {"ns": namespace, "kind": "message", "live": True}
    parts = []
    for i, cid in enumerate(cids):
        params[f"c{i}"] = cid
        parts.append(
            f"SELECT * FROM (SELECT {_DOC_COLUMNS} FROM search_docs WHERE namespace = :ns "
            f"AND conversation_id = :c{i} AND kind = :kind AND live = :live "
            f"ORDER BY doc_id DESC LIMIT {2 * CONTEXT_WINDOW + 1}) AS t{i}"
        )
    statement = sa.text(" UNION ALL ".join(parts)).columns(*docs_table.columns)
    result = await conn.execute(statement, params)
    return [dict(r._mapping) for r in result]
