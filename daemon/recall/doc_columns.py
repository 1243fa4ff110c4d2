"""The documents the vector index holds, as filter columns: one numpy array per column, one
row (slot) per document, and the filters of :class:`daemon.recall.query.Filters` as masks
over them (the same rules as the SQL form; the time rules are in :mod:`daemon.recall.temporal`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson

from daemon.recall.query import Filters
from daemon.recall.temporal import NULL, BoolArray, TimeColumns, time_mask
from projections.search import CONTEXT_WINDOW

MASKS_KEPT = 8
SPLIT_MIN_DOCS = 20_000
"""Below this many documents a full-text query is split no further (each part costs a few
fixed lookups)."""


class _Codes:
    """Interned strings -> small integers (for vectorised comparisons)."""

    def __init__(self) -> None:
        self.codes: dict[str, int] = {}
        self.values: list[str] = []
        """``code -> value``."""

    def code(self, value: str) -> int:
        found = self.codes.get(value)
        if found is None:
            found = self.codes[value] = len(self.codes)
            self.values.append(value)
        return found

    def find(self, value: str) -> int:
        return self.codes.get(value, -1)


def _t(value: int | None) -> int:
    return NULL if value is None else int(value)


class DocColumns:
    """Every held document's filter columns, by slot, and the masks filters make of them."""

    def __init__(self, capacity: int) -> None:
        self.size = 0
        self.capacity = 0
        self.slot_of: npt.NDArray[np.int64] = np.full(capacity, -1, dtype=np.int64)
        """``doc_id -> slot`` (-1: not held), read for whole arrays of ids at once; replaced,
        never resized in place, so a search thread holding the old one reads a consistent
        array."""
        self._namespaces = _Codes()
        self._conversations = _Codes()
        self._owners = _Codes()
        self._statuses = _Codes()
        self._provenances = _Codes()
        self._tags = _Codes()
        self._tag_slots: dict[int, set[int]] = {}
        self._slot_tags: dict[int, tuple[int, ...]] = {}
        self._masks: dict[Filters, tuple[int, BoolArray]] = {}
        self._quarantine_seen: dict[str, tuple[int, bool]] = {}
        self.changes = 0
        """Bumped after every change of the filter columns: a kept mask is valid while it
        has not moved (searches read masks in worker threads while a refresh writes rows)."""
        self._halfway: tuple[int, int] | None = None
        self.alloc(capacity)

    # -- storage --------------------------------------------------------------------------

    def alloc(self, capacity: int) -> None:
        """Make room for ``capacity`` documents (the columns are replaced, not resized)."""

        def grow(old: npt.NDArray[Any] | None, dtype: Any, fill: Any) -> Any:
            new = np.full(capacity, fill, dtype=dtype)
            if old is not None:
                new[: old.shape[0]] = old
            return new

        get = self.__dict__.get
        self.doc_id: npt.NDArray[np.int64] = grow(get("doc_id"), np.int64, -1)
        self.ns = grow(get("ns"), np.int32, -1)
        self.is_message = grow(get("is_message"), np.bool_, False)
        self.conv = grow(get("conv"), np.int32, -1)
        self.live = grow(get("live"), np.bool_, False)
        self.known_from = grow(get("known_from"), np.int64, NULL)
        self.forgotten_tx = grow(get("forgotten_tx"), np.int64, NULL)
        self.superseded_tx = grow(get("superseded_tx"), np.int64, NULL)
        self.superseded_valid_to = grow(get("superseded_valid_to"), np.int64, NULL)
        self.valid_from = grow(get("valid_from"), np.int64, NULL)
        self.valid_to = grow(get("valid_to"), np.int64, NULL)
        self.validated_tx = grow(get("validated_tx"), np.int64, NULL)
        self.quarantined = grow(get("quarantined"), np.bool_, False)
        self.owner = grow(get("owner"), np.int32, -1)
        self.status = grow(get("status"), np.int32, -1)
        self.provenance = grow(get("provenance"), np.int32, -1)
        self.importance = grow(get("importance"), np.float64, 0.0)
        self.created_at = grow(get("created_at"), np.int64, 0)
        self.capacity = capacity
        self.changes += 1

    def slot(self, doc_id: int) -> int:
        """Return the document's slot, giving it the next one if it has none (and making
        room when full)."""
        if doc_id < self.slot_of.shape[0] and (slot := int(self.slot_of[doc_id])) >= 0:
            return slot
        if self.size == self.capacity:
            self.alloc(self.capacity * 2)
        slot = self.size
        if doc_id >= self.slot_of.shape[0]:
            grown = np.full(max(doc_id + 1, 2 * self.slot_of.shape[0]), -1, dtype=np.int64)
            grown[: self.slot_of.shape[0]] = self.slot_of
            self.slot_of = grown
        self.slot_of[doc_id] = slot
        self.size += 1
        return slot

    def store(self, row: Any) -> int:
        """Store one ``search_docs`` row's filter columns; return its slot."""
        try:
            return self._store(row)
        finally:
            self.changes += 1  # after the change: a mask computed during it is not kept

    def _store(self, row: Any) -> int:
        slot = self.slot(int(row.doc_id))
        self.doc_id[slot] = row.doc_id
        self.ns[slot] = self._namespaces.code(row.namespace)
        self.is_message[slot] = row.kind == "message"
        self.conv[slot] = self._conversations.code(row.conversation_id)
        self.live[slot] = bool(row.live)
        self.known_from[slot] = row.known_from
        self.forgotten_tx[slot] = _t(row.forgotten_tx)
        self.superseded_tx[slot] = _t(row.superseded_tx)
        self.superseded_valid_to[slot] = _t(row.superseded_valid_to)
        self.valid_from[slot] = row.valid_from
        self.valid_to[slot] = _t(row.valid_to)
        self.validated_tx[slot] = _t(row.validated_tx)
        self.quarantined[slot] = row.status == "quarantined"
        self.owner[slot] = self._owners.code(row.owner)
        self.status[slot] = self._statuses.code(row.status)
        self.provenance[slot] = self._provenances.code(row.provenance)
        self.importance[slot] = row.importance
        self.created_at[slot] = row.created_at
        tags = tuple(sorted({self._tags.code(str(t)) for t in orjson.loads(row.tags_json)}))
        for old in self._slot_tags.get(slot, ()):
            self._tag_slots.get(old, set()).discard(slot)
        for tag in tags:
            self._tag_slots.setdefault(tag, set()).add(slot)
        self._slot_tags[slot] = tags
        return slot

    def reset(self) -> None:
        """Forget every document."""
        self.size = 0
        self.changes += 1
        self._halfway = None
        self.slot_of = np.full(self.slot_of.shape[0], -1, dtype=np.int64)
        self._tag_slots.clear()
        self._slot_tags.clear()
        self.live[:] = False

    # -- filters --------------------------------------------------------------------------

    def mask(self, filters: Filters) -> BoolArray:
        """Return which rows pass ``filters`` (the same rules as :meth:`Filters.where`).

        The last few masks are kept until a row changes (the legs of one search, and the
        searches of one conversation, ask for the same one); treat the result as read-only.
        """
        changes = self.changes
        found = self._masks.get(filters)
        if found is not None and found[0] == changes:
            return found[1]
        m = self._compute_mask(filters)
        if self.changes == changes:  # no row changed while it was computed
            if len(self._masks) >= MASKS_KEPT:
                self._masks.clear()
            self._masks[filters] = (changes, m)
        return m

    def time_columns(self, n: int) -> TimeColumns:
        """Return the time columns of the first ``n`` rows."""
        return TimeColumns(
            known_from=self.known_from[:n],
            forgotten_tx=self.forgotten_tx[:n],
            superseded_tx=self.superseded_tx[:n],
            superseded_valid_to=self.superseded_valid_to[:n],
            valid_from=self.valid_from[:n],
            valid_to=self.valid_to[:n],
            validated_tx=self.validated_tx[:n],
            quarantined=self.quarantined[:n],
        )

    def _compute_mask(self, filters: Filters) -> BoolArray:
        n = self.size
        ns = self._namespaces.find(filters.namespace)
        m: BoolArray = self.live[:n] & (self.ns[:n] == ns)
        kinds = set(filters.kinds)
        if kinds == {"message"}:
            m &= self.is_message[:n]
        elif kinds == {"fact"}:
            m &= ~self.is_message[:n]
        elif not kinds:
            m &= False
        if filters.conversation_id is not None:
            conv = self._conversations.find(filters.conversation_id)
            in_scope = self.conv[:n] == conv
            for cid, last in filters.inherited:
                code = self._conversations.find(cid)
                in_scope |= (self.conv[:n] == code) & (self.doc_id[:n] <= last)
            m &= ~self.is_message[:n] | in_scope
        if filters.hidden:
            m &= ~np.isin(self.doc_id[:n], np.asarray(filters.hidden, dtype=np.int64))
        if filters.said_between is not None:
            start, end = filters.said_between
            m &= (self.created_at[:n] >= start) & (self.created_at[:n] < end)
        m &= time_mask(filters, self.time_columns(n))
        if filters.tags is not None:
            allowed = np.zeros(n, dtype=np.bool_)
            for tag in set(filters.tags):
                slots = self._tag_slots.get(self._tags.find(tag))
                if slots:
                    allowed[np.fromiter(slots, dtype=np.int64, count=len(slots))] = True
            m &= allowed
        owners = filters.owners
        if owners is not None:
            codes = [self._owners.find(owner) for owner in set(owners)]
            m &= np.isin(self.owner[:n], [c for c in codes if c >= 0])
        return m

    def halfway_doc(self) -> int | None:
        """Return a doc id that splits the full-text index's work about in half (None below
        :data:`SPLIT_MIN_DOCS` documents): a message weighs its own turn plus its
        neighbours', a fact one. Recomputed when the index has grown or shrunk by a tenth."""
        n = self.size
        if n < SPLIT_MIN_DOCS:
            return None
        if self._halfway is not None and abs(n - self._halfway[0]) * 10 < n:
            return self._halfway[1]
        turns = 1 + 2 * CONTEXT_WINDOW
        weights = np.where(self.is_message[:n], turns, 1) * self.live[:n]
        by_id = np.argsort(self.doc_id[:n])
        total = np.cumsum(weights[by_id])
        middle = int(self.doc_id[by_id[np.searchsorted(total, total[-1] / 2)]])
        self._halfway = (n, middle)
        return middle

    def namespace_size(self, namespace: str) -> int:
        """Return how many live documents a namespace has (at the last refresh)."""
        n = self.size
        code = self._namespaces.find(namespace)
        return int(np.count_nonzero(self.live[:n] & (self.ns[:n] == code)))

    def has_quarantined(self, namespace: str) -> bool:
        """Return True if the namespace holds a live, unvalidated quarantined fact (a default
        search may then have passed one over). Kept until a row changes."""
        changes = self.changes
        found = self._quarantine_seen.get(namespace)
        if found is not None and found[0] == changes:
            return found[1]
        n = self.size
        code = self._namespaces.find(namespace)
        m = self.live[:n] & (self.ns[:n] == code) & self.quarantined[:n]
        m &= (self.validated_tx[:n] == NULL) & (self.forgotten_tx[:n] == NULL)
        answer = bool(m.any())
        if self.changes == changes:
            if len(self._quarantine_seen) >= MASKS_KEPT:
                self._quarantine_seen.clear()
            self._quarantine_seen[namespace] = (changes, answer)
        return answer

    def live_count(self) -> int:
        """Return how many live documents are held (every namespace)."""
        return int(np.count_nonzero(self.live[: self.size]))

    def slots(self, doc_ids: Sequence[int]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Return ``doc_ids`` as an array and each one's slot (-1: not held)."""
        # Whole arrays, not a dict lookup per id: the pruned lexical leg admits thousands.
        slot_of = self.slot_of
        ids = np.fromiter(doc_ids, dtype=np.int64, count=len(doc_ids))
        inside = (ids >= 0) & (ids < slot_of.shape[0])
        slots = np.full(ids.shape[0], -1, dtype=np.int64)
        slots[inside] = slot_of[ids[inside]]
        return ids, slots

    def passing(self, doc_ids: Sequence[int], filters: Filters) -> tuple[set[int], list[int]]:
        """Return which of ``doc_ids`` are held and ``filters`` admit, and which of them are
        not held (folded since the last refresh: the caller asks the table)."""
        if not doc_ids:
            return set(), []
        ids, slots = self.slots(doc_ids)
        held = slots >= 0
        admitted = np.zeros(ids.shape[0], dtype=np.bool_)
        if held.any():
            m = self.mask(filters)
            # A slot added by a refresh after the mask was made is left to the table.
            held &= slots < m.shape[0]
            admitted[held] = m[slots[held]]
        return set(ids[admitted].tolist()), ids[~held].tolist()

    def weigh_rows(self, doc_ids: Sequence[int]) -> tuple[list[tuple[Any, ...]], list[int]]:
        """Return ``(doc_id, status, validated_tx, provenance, importance, created_at)`` of
        the live documents among ``doc_ids`` that are held (what trust and decay weigh, as
        the table has it at the last refresh), and the ids this cannot answer for."""
        if not doc_ids:
            return [], []
        ids, slots = self.slots(doc_ids)
        held = (slots >= 0) & (slots < self.size)
        held[held] = self.live[slots[held]]
        statuses, provenances = self._statuses.values, self._provenances.values
        found = slots[held]
        rows = [
            (
                doc_id,
                statuses[status],
                None if validated == NULL else validated,
                provenances[p],
                w,
                t,
            )
            for doc_id, status, validated, p, w, t in zip(
                ids[held].tolist(),
                self.status[found].tolist(),
                self.validated_tx[found].tolist(),
                self.provenance[found].tolist(),
                self.importance[found].tolist(),
                self.created_at[found].tolist(),
                strict=True,
            )
        ]
        return rows, ids[~held].tolist()
