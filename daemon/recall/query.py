"""A search request and its filters, as SQL over ``search_docs`` (the numpy form is
:meth:`daemon.recall.doc_columns.DocColumns.mask`; the time rules of both forms stand side by
side in :mod:`daemon.recall.temporal`).

Both forms implement the same rules, so every leg (lexical in SQL, vector in memory, entity in
SQL) filters identically *before* ranking:

- namespace, ``scope`` (facts, messages), ``live`` (not deleted or purged);
- ``conversation_id`` restricts messages to that conversation (facts belong to no
  conversation and are not restricted by it); for a fork, also to the ancestors' messages it
  shows (``inherited``: each ancestor with the last position it shows, and ``hidden``: the
  inherited documents a nearer message of the same id replaces; see
  :mod:`daemon.recall.lineage`);
- ``known_at`` (transaction time K): the document was recorded at or before K, and a fact
  forgotten / superseded / validated after K is seen as it was before;
- ``as_of`` (valid time A): valid_from <= A < valid_to, where a fact superseded (as known at
  K) ends at the supersession time; a message is valid from its ``created_at``;
- ``include_superseded`` (default false) drops facts superseded as known at K, unless
  ``as_of`` is given (then the valid-time window decides);
- ``include_quarantined`` (default false) drops facts quarantined as known at K;
- ``tags`` (any of), ``owner`` (one, or any of a list).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import sqlalchemy as sa

from daemon.config import RecallConfig, key_default
from daemon.recall.temporal import time_conditions
from projections.search import docs_table, scope_token, tags_table

Kind = Literal["fact", "message"]
SCOPES: tuple[str, ...] = ("facts", "messages")
LEGS: tuple[str, ...] = ("lexical", "vector", "entity", "about")
_D = docs_table.c

STOPWORDS = frozenset(
    """
    a an the and or but if of to in on at by for with about as into from up down over under is
    are was were be been being am do does did has have had having i you he she it we they me him
    her us them my your his its our their what which who whom whose when where why how this that
    these those there here than then so too very can could would should will shall may might
    must just also not no any some all each both few more most other such only own same s t
    don doesn didn won wouldn ever
    """.split()  # noqa: SIM905
)
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True, slots=True)
class Filters:
    """The filters of a request (times in microseconds since the epoch)."""

    namespace: str
    scope: tuple[str, ...] = SCOPES
    conversation_id: str | None = None
    inherited: tuple[tuple[str, int], ...] = ()
    hidden: tuple[int, ...] = ()
    as_of: int | None = None
    known_at: int | None = None
    include_superseded: bool = False
    include_quarantined: bool = False
    tags: tuple[str, ...] | None = None
    owner: str | tuple[str, ...] | None = None
    said_between: tuple[int, int] | None = None
    """``[start, end)`` of ``created_at``: documents said (or written) in that span."""

    @property
    def owners(self) -> tuple[str, ...] | None:
        """Return the owners a document may have (None: any)."""
        if self.owner is None:
            return None
        return (self.owner,) if isinstance(self.owner, str) else tuple(self.owner)

    @property
    def kinds(self) -> tuple[str, ...]:
        """Return the document kinds in scope (``fact``, ``message``)."""
        return tuple(s.removesuffix("s") for s in self.scope)

    def where(self, d: Any = _D) -> sa.ColumnElement[bool]:
        """Return the filter as a SQL condition on ``search_docs`` columns ``d``."""
        conds: list[sa.ColumnElement[bool]] = [
            d.namespace == self.namespace,
            d.live.is_(True),
            d.kind.in_(self.kinds),
        ]
        if self.conversation_id is not None:
            conds.append(
                sa.or_(
                    d.kind != "message",
                    d.conversation_id == self.conversation_id,
                    *(
                        sa.and_(d.conversation_id == cid, d.doc_id <= last)
                        for cid, last in self.inherited
                    ),
                )
            )
        if self.hidden:
            conds.append(d.doc_id.not_in(self.hidden))
        if self.said_between is not None:
            start, end = self.said_between
            conds.append(sa.and_(d.created_at >= start, d.created_at < end))
        conds.extend(time_conditions(self, d))
        if self.tags is not None:
            t = tags_table.c
            conds.append(sa.exists().where(t.doc_id == d.doc_id, t.tag.in_(sorted(set(self.tags)))))
        owners = self.owners
        if owners is not None:
            conds.append(d.owner.in_(sorted(set(owners))))
        return sa.and_(*conds)


@dataclass(frozen=True, slots=True)
class Fusion:
    """``rrf`` (every leg weighs 1) or ``weighted`` (RRF with a weight per leg; legs not named
    take the default weights: lexical 1, entity 1, vector the embedder's ``fusion_weight``)."""

    strategy: Literal["rrf", "weighted"] = "weighted"
    weights: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class SearchRequest:
    """A validated search request (the fields are documented in docs/api.md)."""

    query: str
    filters: Filters
    top_k: int = key_default(RecallConfig, "top_k")
    candidate_top_k: int = key_default(RecallConfig, "candidate_top_k")
    decay_tau_days: float | None = None
    trust_weighting: bool = True
    expand_hops: int = 0
    graph_scoring: Literal["flat", "ppr"] = "flat"
    entity_match: bool = False
    fusion: Fusion = field(default_factory=Fusion)
    explain: bool = False
    legs: tuple[str, ...] = ("lexical", "vector")
    """Legs to run (``entity`` is added by ``entity_match``); benchmarks switch legs off."""


def query_terms(query: str) -> list[str]:
    """Return the distinct lower-case words of a query, stopwords dropped (all if none left)."""
    words = [w.lower() for w in _WORD.findall(query)]
    kept = [w for w in words if w not in STOPWORDS]
    return list(dict.fromkeys(kept or words))


def fts5_match(terms: Sequence[str]) -> str:
    """Return an FTS5 MATCH expression: any of the terms, each quoted."""
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


def fts5_scope(filters: Filters, *, namespace_token: bool = True) -> str:
    """Return the FTS5 condition on the ``scope`` column that narrows the match to the
    namespace and conversation early ("" when there is nothing selective to say).

    The full filter still applies afterwards; this only spares FTS5 scoring documents that
    would be dropped. The namespace token is worth it only when the namespace is a small
    part of the index (intersecting with a posting list of every document costs more than
    it saves), so the caller says whether to use it.
    """
    parts = []
    if namespace_token:
        parts.append(f"scope:{scope_token('n', filters.namespace)}")
    kinds = filters.kinds
    if filters.conversation_id is not None and "message" in kinds:
        convs = [filters.conversation_id, *(cid for cid, _ in filters.inherited)]
        tokens = [f"scope:{scope_token('c', filters.namespace, cid)}" for cid in convs]
        if "fact" in kinds:
            tokens.insert(0, f"scope:{scope_token('k', 'fact')}")
        parts.append(tokens[0] if len(tokens) == 1 else f"({' OR '.join(tokens)})")
    return " AND ".join(parts)


def tsquery(terms: Sequence[str]) -> str:
    """Return a PostgreSQL ``to_tsquery`` text: any of the terms (letters and digits only)."""
    safe = [re.sub(r"\W", "", t) for t in terms]
    return " | ".join(t for t in safe if t)
