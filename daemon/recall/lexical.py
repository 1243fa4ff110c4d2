"""The SQLite lexical leg in memory: FTS5's own bm25, computed over posting arrays.

FTS5 ranks an OR query by calling ``bm25()`` through its auxiliary-function API once for
every row that matches (about 2.5 us a row here), so a query with one term in a tenth of
200k documents spends most of its time there, pruned or not (see :mod:`daemon.recall.fts5`).
This index keeps, for every term, the documents that contain it and the term's weighted
frequency in each, and numpy computes the same formula for a whole posting list at once.

It is exact, so the leg stays FTS5's bm25 and tests compare it with the SQL query:

- The terms are FTS5's own. A text is cut at the ASCII characters that are neither letters
  nor digits (``unicode61`` always separates tokens there) and each piece is tokenized once
  by FTS5 itself, in a private in-memory table with the search table's tokenizer, then
  cached. Every FTS5 token lies inside one piece, so a text's terms are its pieces' terms in
  order. Pure-ASCII pieces, nearly all of them, are one token each.
- The score is FTS5's ``fts5Bm25Function`` operation for operation: for each phrase in query
  order ``idf = log((N - n + 0.5) / (n + 0.5))`` (1e-6 when not positive) with ``n`` the rows
  that contain it (one deliberate departure: when that idf is not positive, ``n`` counts the
  rows whose own text contains it, see :data:`OWN_TEXT_IDF`), its frequency ``f`` in the row
  summed over its instances with the column weights, ``D`` the row's tokens in all columns,
  ``avgdl`` the table's tokens over its rows, and
  ``score += idf * ((f * (k1 + 1)) / (f + k1 * (1 - b + b * D / avgdl)))``.
- A query term that FTS5 would turn into several tokens (a phrase, which needs positions) or
  none is not answered here: the caller runs the FTS5 query.

The index follows the search projection through :class:`daemon.recall.vectors.VectorIndex`
(same slots, same refresh). A changed document gets a new *version*; its old postings stay in
the lists, marked dead, until dead postings outnumber live ones and the lists are compacted.
A lock serialises changes and searches (searches run in worker threads).
"""

from __future__ import annotations

import itertools
import math
import re
import sqlite3
import threading
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from daemon.recall.temporal import BoolArray
from daemon.recall.topk import best_hits
from projections.search import FTS_TOKENIZER

LEXICAL_NEAR_WEIGHT = 0.5
"""bm25 weight of the neighbouring turns relative to the document's own text."""


def column_weights() -> tuple[float, float, float]:
    """Return the bm25 weights of the FTS5 columns body, near and scope (unranked)."""
    return (1.0, LEXICAL_NEAR_WEIGHT, 0.0)


OWN_TEXT_IDF = True
"""When bm25's idf of a term is not positive (FTS5 then weighs it 1e-6: the term is in more
than half the rows), take its rarity from the rows whose *own* text holds it. A word said
once is in the neighbouring-turns column of four more rows, so in a small or talkative
namespace "live" weighed nothing in the fact that says where the user lives. Only that
case departs from FTS5's bm25 (LoCoMo: the same hit@10); the tests that compare the two
exactly set this False."""
BM25_K1 = 1.2
BM25_B = 0.75
COMPACT_MIN = 1 << 20
"""Dead postings tolerated whatever the live count (compaction walks every list)."""
DEAD_PER_LIVE = 1.0
"""Dead postings tolerated per live one (each new turn rewrites its predecessors' context)."""
FREQUENT_SHARE = 4
"""A query term held by more than 1/this of the rows is scored only where it can matter."""
POST_TOKENS = 200_000
"""Tokens gathered before they are turned into postings (bounds the memory that takes)."""
PIECES_KEPT = 500_000
"""Cached piece tokenizations; past this the cache starts again (numbers make it grow)."""
KEPT_SCORES = 4
"""Score sums kept for the next search of the same terms (a search may add up two term sets:
the rare ones, then all; ~10 bytes a row each)."""

_ASCII_PIECE = re.compile(r"[a-z0-9]+")
_PIECE = re.compile(r"[^\x00-/:-@\[-`{-\x7f]+")
"""Runs of characters other than ASCII punctuation, space and controls."""


@dataclass(frozen=True, slots=True)
class LexicalDoc:
    """What the index needs of one search document (the FTS5 row's three columns)."""

    slot: int
    live: bool
    body: str
    near: str
    scope: str


class Fts5Terms:
    """Turns text into FTS5's terms, as interned ids, by asking FTS5 once per new piece."""

    def __init__(self, tokenizer: str = FTS_TOKENIZER) -> None:
        self.ids: dict[str, int] = {}
        self._ascii: dict[str, int] = {}
        self._other: dict[str, tuple[int, ...]] = {}
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        self._db.execute(f"CREATE VIRTUAL TABLE pieces USING fts5(x, tokenize='{tokenizer}')")
        self._db.execute("CREATE VIRTUAL TABLE piece_terms USING fts5vocab(pieces, 'instance')")

    def _intern(self, term: str) -> int:
        found = self.ids.get(term)
        if found is None:
            found = self.ids[term] = len(self.ids)
        return found

    def _ask_fts5(self, pieces: Sequence[str]) -> list[tuple[int, ...]]:
        """Return FTS5's terms of each piece, in order."""
        db = self._db
        db.execute("DELETE FROM pieces")
        db.executemany("INSERT INTO pieces(rowid, x) VALUES (?, ?)", enumerate(pieces))
        found: list[list[tuple[int, str]]] = [[] for _ in pieces]
        for doc, term, offset in db.execute("SELECT doc, term, offset FROM piece_terms"):
            found[doc].append((offset, term))
        return [tuple(self._intern(t) for _, t in sorted(terms)) for terms in found]

    def learn(self, texts: Iterable[str]) -> None:
        """Tokenize, in one FTS5 call, every piece of ``texts`` not seen before."""
        if len(self._ascii) + len(self._other) > PIECES_KEPT:
            self._ascii.clear()
            self._other.clear()
        new: set[str] = set()
        for text in texts:
            if text.isascii():
                new.update(_ASCII_PIECE.findall(text.lower()))
            else:
                new.update(_piece_key(p) for p in _PIECE.findall(text))
        unknown = [p for p in new if p not in self._ascii and p not in self._other]
        if not unknown:
            return
        for piece, terms in zip(unknown, self._ask_fts5(unknown), strict=True):
            if len(terms) == 1 and piece.isascii():
                self._ascii[piece] = terms[0]
            else:  # any other piece, and an ASCII one FTS5 did not read as one token
                self._other[piece] = terms

    def terms(self, text: str) -> list[int]:
        """Return the term ids of ``text`` in order (asking FTS5 about new pieces)."""
        try:
            return self._known_terms(text)
        except KeyError:
            self.learn([text])
            return self._known_terms(text)

    def _known_terms(self, text: str) -> list[int]:
        if text.isascii():
            known = self._ascii
            try:
                return [known[p] for p in _ASCII_PIECE.findall(text.lower())]
            except KeyError:
                pass  # a new piece, or one kept with the others: the general path says
        out: list[int] = []
        for piece in _PIECE.findall(text):
            key = _piece_key(piece)
            single = self._ascii.get(key)
            if single is not None:
                out.append(single)
            else:
                out.extend(self._other[key])
        return out


def _piece_key(piece: str) -> str:
    """Return the cache key of a piece: FTS5 folds ASCII case exactly like ``str.lower``."""
    return piece.lower() if piece.isascii() else piece


IntArray = npt.NDArray[np.int32]
Sums = tuple[npt.NDArray[np.float64], BoolArray]
"""Every slot's score over some query terms, and which slots hold any of them."""


@dataclass(slots=True)
class _Phrase:
    """One query term's posting list as a search reads it."""

    term: int
    versions: IntArray
    freqs: npt.NDArray[np.float32]
    alive: BoolArray | None
    """Which postings are live; None when all are."""
    hits: int
    """Live rows that hold the term (FTS5's ``n``)."""
    idf: float


def _bm25_terms(
    idf: float, f: npt.NDArray[np.float64], size: npt.NDArray[np.float64], avgdl: float
) -> npt.NDArray[np.float64]:
    """Return one phrase's bm25 term for rows holding it ``f`` times in ``size`` tokens: the
    operations of FTS5's fts5Bm25Function, in its order (see the module docstring)."""
    k1, b = BM25_K1, BM25_B
    return idf * ((f * (k1 + 1.0)) / (f + k1 * (1 - b + b * size / avgdl)))


def _grown(old: Any, size: int, fill: Any) -> Any:
    """Return ``old`` copied into a new array of at least ``size`` (doubling), ``fill`` after."""
    new = np.full(max(size, 2 * old.shape[0]), fill, dtype=old.dtype)
    new[: old.shape[0]] = old
    return new


class LexicalIndex:
    """Postings of every live document's FTS5 row, and bm25 over them."""

    def __init__(self, tokenizer: str = FTS_TOKENIZER) -> None:
        self.lock = threading.Lock()
        self.weights = column_weights()
        self.terms = Fts5Terms(tokenizer)
        self._clear()

    def _clear(self) -> None:
        self._versions: list[array[int]] = []
        """Per term id: the document versions whose row holds it."""
        self._freqs: list[array[float]] = []
        """Per term id, aligned with ``_versions``: its weighted frequency in that row."""
        self._in_body: list[array[int]] = []
        """Per term id, aligned with ``_versions``: 1 when the row's own text holds it."""
        self._version_slot: IntArray = np.zeros(1024, dtype=np.int32)
        self._version_live = np.zeros(1024, dtype=np.bool_)
        self._version_terms: IntArray = np.zeros(1024, dtype=np.int32)
        self._versions_used = 0
        self._slot_version: IntArray = np.full(1024, -1, dtype=np.int32)
        self._slot_tokens = np.zeros(1024, dtype=np.float64)
        self.rows = 0
        """Live rows (FTS5's ``N``)."""
        self.tokens = 0
        """Tokens of all live rows in all columns (``avgdl = tokens / rows``)."""
        self._posted = 0
        self._live_posted = 0
        self._kept: dict[tuple[tuple[int, float], ...], Sums] = {}
        """The last few :meth:`_kept_scores`, by their terms and weights."""

    def reset(self) -> None:
        """Forget every document."""
        with self.lock:
            self._clear()

    # -- changes ----------------------------------------------------------------------------

    def update(self, docs: Sequence[LexicalDoc]) -> None:
        """Replace the rows of ``docs`` (a dead document leaves the index)."""
        if not docs:
            return
        with self.lock:
            self._kept = {}
            of = self.terms.terms
            # The batch's tokens in flat runs (term, column weight, version), in column order
            # within a row: the order FTS5 adds the weights in.
            token_terms: list[int] = []
            token_weights: list[float] = []
            token_versions: list[int] = []
            token_body: list[float] = []
            w_body, w_near, w_scope = self.weights
            for doc in docs:
                self._retire(doc.slot)
                if not doc.live:
                    continue
                body, near, scope = of(doc.body), of(doc.near), of(doc.scope)
                size = len(body) + len(near) + len(scope)
                version = self._new_version(doc.slot, size)
                token_terms += body
                token_terms += near
                token_terms += scope
                token_weights += [w_body] * len(body)
                token_weights += [w_near] * len(near)
                token_weights += [w_scope] * len(scope)
                token_versions += [version] * size
                token_body += [1.0] * len(body)
                token_body += [0.0] * (len(near) + len(scope))
                if len(token_terms) >= POST_TOKENS:
                    self._post(token_terms, token_weights, token_versions, token_body)
                    token_terms, token_weights, token_versions, token_body = [], [], [], []
            if token_terms:
                self._post(token_terms, token_weights, token_versions, token_body)
            dead = self._posted - self._live_posted
            if dead > max(self._live_posted * DEAD_PER_LIVE, COMPACT_MIN):
                self._compact()

    def _retire(self, slot: int) -> None:
        """Take a slot's current row out of the counts; its postings are dead from now."""
        if slot >= self._slot_version.shape[0]:
            self._slot_version = _grown(self._slot_version, slot + 1, -1)
            self._slot_tokens = _grown(self._slot_tokens, slot + 1, 0.0)
        old = int(self._slot_version[slot])
        if old < 0:
            return
        self._version_live[old] = False
        self._live_posted -= int(self._version_terms[old])
        self.rows -= 1
        self.tokens -= int(self._slot_tokens[slot])
        self._slot_version[slot] = -1

    def _new_version(self, slot: int, size: int) -> int:
        """Make a new live row of ``size`` tokens for ``slot``; return its version."""
        version = self._versions_used
        if version == self._version_slot.shape[0]:
            self._version_slot = _grown(self._version_slot, version + 1, 0)
            self._version_live = _grown(self._version_live, version + 1, False)
            self._version_terms = _grown(self._version_terms, version + 1, 0)
        self._versions_used += 1
        self._version_slot[version] = slot
        self._version_live[version] = True
        self._slot_version[slot] = version
        self._slot_tokens[slot] = size
        self.rows += 1
        self.tokens += size
        return version

    def _post(
        self,
        token_terms: list[int],
        weights: list[float],
        versions: list[int],
        body: list[float],
    ) -> None:
        """Append one posting per distinct (version, term) of the tokens to the term lists
        (``body``: 1.0 for a token of the row's own text, else 0.0)."""
        width = len(self.terms.ids)
        key = np.asarray(versions, dtype=np.int64) * width + np.asarray(token_terms)
        pairs, which = np.unique(key, return_inverse=True)
        # bincount adds each pair's weights in token order, the order FTS5 adds them in.
        freqs = np.bincount(which, weights=np.asarray(weights, dtype=np.float64))
        in_body = np.bincount(which, weights=np.asarray(body, dtype=np.float64)) > 0
        pair_versions, pair_terms = np.divmod(pairs, width)
        counted = np.unique(pair_versions, return_counts=True)
        self._version_terms[counted[0]] = counted[1]
        self._live_posted += int(np.count_nonzero(self._version_live[pair_versions]))
        self._posted += pairs.shape[0]
        by_term = np.argsort(pair_terms, kind="stable")
        pair_terms = pair_terms[by_term]
        grouped_versions = pair_versions[by_term].astype(np.int32)
        grouped_freqs = freqs[by_term].astype(np.float32)
        grouped_body = in_body[by_term].astype(np.int8)
        lists, freq_lists, body_lists = self._versions, self._freqs, self._in_body
        while len(lists) < width:
            lists.append(array("i"))
            freq_lists.append(array("f"))
            body_lists.append(array("b"))
        edges = [0, *(np.flatnonzero(np.diff(pair_terms)) + 1).tolist(), pair_terms.shape[0]]
        for lo, hi in itertools.pairwise(edges):
            term = int(pair_terms[lo])
            lists[term].frombytes(grouped_versions[lo:hi].tobytes())
            freq_lists[term].frombytes(grouped_freqs[lo:hi].tobytes())
            body_lists[term].frombytes(grouped_body[lo:hi].tobytes())

    def _compact(self) -> None:
        """Drop the postings of dead versions from every list."""
        live = self._version_live
        posted = 0
        for term, versions in enumerate(self._versions):
            if not versions:
                continue
            v = np.frombuffer(versions, dtype=np.int32)
            keep = live[v]
            kept = int(np.count_nonzero(keep))
            if kept < v.shape[0]:
                f = np.frombuffer(self._freqs[term], dtype=np.float32)
                b = np.frombuffer(self._in_body[term], dtype=np.int8)
                new_v, new_f = array("i", v[keep].tobytes()), array("f", f[keep].tobytes())
                new_b = array("b", b[keep].tobytes())
                del v, f, b  # release the buffers before the arrays are replaced
                self._versions[term], self._freqs[term] = new_v, new_f
                self._in_body[term] = new_b
            posted += kept
        self._posted = posted

    # -- search -----------------------------------------------------------------------------

    def search(
        self,
        words: Sequence[str],
        mask: BoolArray,
        doc_ids: npt.NDArray[np.int64],
        limit: int,
    ) -> list[tuple[int, float]] | None:
        """Return ``(doc_id, -bm25)`` of the best ``limit`` rows among those ``mask`` admits
        (by slot) that match any of ``words``, best first, ties by larger doc id first, as
        the FTS5 query gives them; None when the query needs FTS5 (a phrase)."""
        with self.lock:
            term_ids: list[int] = []
            for word in words:
                found = self.terms.terms(word)
                if len(found) != 1:
                    return None
                term_ids.append(found[0])
            if self.rows == 0 or limit <= 0:
                return []
            return self._search(term_ids, mask, doc_ids, limit)

    def _search(
        self,
        term_ids: list[int],
        mask: BoolArray,
        doc_ids: npt.NDArray[np.int64],
        limit: int,
    ) -> list[tuple[int, float]]:
        n_rows = self.rows
        all_live = self._posted == self._live_posted
        phrases: list[_Phrase] = []
        for term in term_ids:
            if term >= len(self._versions) or not self._versions[term]:
                continue  # no row holds it: FTS5 adds 0.0 for such a phrase
            # Views of the posting arrays, released when this call returns (under the lock).
            versions = np.frombuffer(self._versions[term], dtype=np.int32)
            alive = None if all_live else self._version_live[versions]
            hits = versions.shape[0] if alive is None else int(np.count_nonzero(alive))
            if hits == 0:
                continue
            idf = math.log((n_rows - hits + 0.5) / (hits + 0.5))
            if idf <= 0.0 and OWN_TEXT_IDF:
                # Common only because the neighbouring turns repeat it: its rarity is that of
                # the rows whose own text holds it.
                in_body = np.frombuffer(self._in_body[term], dtype=np.int8).astype(np.bool_)
                own = int(np.count_nonzero(in_body if alive is None else in_body & alive))
                idf = math.log((n_rows - own + 0.5) / (own + 0.5))
            if idf <= 0.0:
                idf = 1e-6
            freqs = np.frombuffer(self._freqs[term], dtype=np.float32)
            phrases.append(_Phrase(term, versions, freqs, alive, hits, idf))
        if not phrases:
            return []
        frequent = [p.hits * FREQUENT_SHARE > n_rows for p in phrases]
        if any(frequent) and not all(frequent):
            pruned = self._search_pruned(phrases, frequent, mask, doc_ids, limit)
            if pruned is not None:
                return pruned
        scores, candidates = self._accumulate(phrases, mask)
        return best_hits(scores[candidates], doc_ids[candidates], limit)

    def _accumulate(
        self, phrases: Sequence[_Phrase], mask: BoolArray
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
        """Return every slot's score over ``phrases``, and the slots ``mask`` admits that
        hold any of them."""
        scores, matched = self._kept_scores(phrases)
        admitted = min(matched.shape[0], mask.shape[0])
        return scores, np.flatnonzero(matched[:admitted] & mask[:admitted])

    def _kept_scores(self, phrases: Sequence[_Phrase]) -> Sums:
        """Every slot's score over ``phrases`` and which slots hold any of them, kept for the
        next search of the same terms until the index changes: the searches of one request
        that differ only in their filters (``POST /v1/context`` asks for facts, then for
        messages) add up the postings once. The arrays are shared: read them, never write."""
        key = tuple((p.term, p.idf) for p in phrases)
        kept = self._kept.get(key)
        if kept is not None:
            return kept
        width = self._slot_version.shape[0]
        avgdl = float(self.tokens) / float(self.rows)
        slot_parts: list[IntArray] = []
        score_parts: list[npt.NDArray[np.float64]] = []
        for p in phrases:
            if p.alive is None or p.hits == p.versions.shape[0]:
                slots = self._version_slot[p.versions]
                f = p.freqs.astype(np.float64)
            else:
                slots = self._version_slot[p.versions[p.alive]]
                f = p.freqs[p.alive].astype(np.float64)
            slot_parts.append(slots)
            score_parts.append(_bm25_terms(p.idf, f, self._slot_tokens[slots], avgdl))
        matched_slots = np.concatenate(slot_parts)
        # bincount adds each slot's terms in the order given, from 0.0: phrase by phrase in
        # query order, as FTS5's score does.
        scores: npt.NDArray[np.float64] = cast(
            Any, np.bincount(matched_slots, np.concatenate(score_parts), minlength=width)
        )
        matched = np.zeros(width, dtype=np.bool_)
        matched[matched_slots] = True
        if len(self._kept) >= KEPT_SCORES:
            self._kept.clear()
        self._kept[key] = (scores, matched)
        return scores, matched

    def _search_pruned(
        self,
        phrases: list[_Phrase],
        frequent: list[bool],
        mask: BoolArray,
        doc_ids: npt.NDArray[np.int64],
        limit: int,
    ) -> list[tuple[int, float]] | None:
        """The best rows without reading the frequent phrases' long posting lists, or None
        when that cannot be shown to give the same rows.

        A phrase adds at most ``idf * (k1 + 1)`` to a row (``f / (f + x) < 1``), so when the
        ``limit``-th best score of the other phrases alone beats what the frequent ones can
        add together, a row holding only frequent phrases cannot make the cut, and neither can
        one whose other phrases score less than that ``limit``-th best minus the frequent
        phrases' bound. The rows left get their exact score, phrase by phrase in query order,
        each frequent phrase's frequency found by binary search (a list's versions ascend).
        """
        rare = [p for p, common in zip(phrases, frequent, strict=True) if not common]
        bound = sum(
            p.idf * (BM25_K1 + 1.0) for p, common in zip(phrases, frequent, strict=True) if common
        )
        partial, candidates = self._accumulate(rare, mask)
        if candidates.shape[0] < limit:
            return None
        found = partial[candidates]
        floor = float(np.partition(found, found.shape[0] - limit)[found.shape[0] - limit])
        # The slack covers the rounding of two summation orders (a few ulps of the scores).
        slack = 1e-9 * max(1.0, abs(floor))
        if floor - slack <= bound:
            return None
        kept = candidates[found >= floor - bound - slack]
        kept_versions = self._slot_version[kept]
        size = self._slot_tokens[kept]
        avgdl = float(self.tokens) / float(self.rows)
        exact = np.zeros(kept.shape[0], dtype=np.float64)
        for p in phrases:
            at = np.minimum(np.searchsorted(p.versions, kept_versions), p.versions.shape[0] - 1)
            held = p.versions[at] == kept_versions
            f = p.freqs[at[held]].astype(np.float64)
            exact[held] += _bm25_terms(p.idf, f, size[held], avgdl)
        return best_hits(exact, doc_ids[kept], limit)
