"""A search inside a forked conversation: which ancestors' messages the fork shows.

A fork (``ConversationForked``) shows its parent's messages up to the fork point, and the
parent's own ancestors' up to the tightest point on the way up, under the rules of the
``messages`` projection, written once in :func:`projections.messages.climb`: the walk
follows the parent links, stops at a deleted or unknown parent (an orphaned fork keeps its
own messages only), at a conversation met twice, or after
:data:`~projections.messages.MAX_FORK_DEPTH` ancestors; a message id the fork (or a nearer
ancestor) shows hides the same id further up.

Search follows reference forks and, on the same terms, cloning forks: the search projection
does not copy a cloning fork's messages, so what it shows of them is the ancestor's document
as it is now (a message edited in the parent after the clone is found by its new text). And
a search document keeps the position of its own first append: a message a middle fork
rewrites *after* a grandchild forked from it is past the grandchild's fork point, so the
grandchild's search shows the original, where the ``messages`` projection (which files the
rewrite at the inherited message's position) shows the rewrite.

:func:`resolve_lineage` turns a request's ``conversation_id`` into the extra
``(conversation, last position)`` scopes and hidden documents of
:class:`~daemon.recall.query.Filters`; a conversation that is not a fork is left as it is.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import sqlalchemy as sa

from daemon.recall.query import Filters
from projections.messages import LINEAGE_CHAIN, MAX_FORK_DEPTH, climb
from projections.search import docs_table

_D = docs_table.c

_FOLLOW = frozenset({"reference", "cloning"})
"""Search does not copy a cloning fork's messages, so it reads through both kinds."""


def ancestors(conn: sa.Connection, namespace: str, conversation_id: str) -> list[tuple[str, int]]:
    """Return ``(ancestor, last inherited position)`` for each ancestor a search covers."""
    params = {"ns": namespace, "cid": conversation_id, "max_depth": MAX_FORK_DEPTH}
    chain = conn.execute(LINEAGE_CHAIN, params).all()
    if not chain or chain[0].deleted:
        return []  # a deleted conversation shows nothing, inherited or not
    return [(str(row.conversation_id), upto) for row, upto in climb(chain, _FOLLOW).ancestors]


def hidden_documents(
    conn: sa.Connection, namespace: str, scopes: list[tuple[str, int | None]]
) -> tuple[int, ...]:
    """Return the inherited message documents a nearer conversation's same message id hides."""
    hidden: list[int] = []
    nearer = sa.alias(docs_table, "nearer")
    n = nearer.c
    for depth in range(1, len(scopes)):
        conversation_id, bound = scopes[depth]
        query = (
            sa.select(_D.doc_id)
            .join(
                nearer,
                sa.and_(
                    n.namespace == _D.namespace,
                    n.kind == "message",
                    n.ref_id == _D.ref_id,
                    n.live.is_(True),
                    sa.or_(*(_in_scope(n, cid, last) for cid, last in scopes[:depth])),
                ),
            )
            .where(
                _D.namespace == namespace,
                _D.kind == "message",
                _D.conversation_id == conversation_id,
            )
        )
        if bound is not None:
            query = query.where(_D.doc_id <= bound)
        hidden.extend(int(d) for d in conn.execute(query).scalars())
    return tuple(sorted(set(hidden)))


def _in_scope(d: Any, conversation_id: str, last: int | None) -> sa.ColumnElement[bool]:
    cond = d.conversation_id == conversation_id
    return cond if last is None else sa.and_(cond, d.doc_id <= last)


def resolve_lineage(conn: sa.Connection, filters: Filters) -> Filters:
    """Return ``filters`` widened to the ancestors a forked ``conversation_id`` shows."""
    if filters.conversation_id is None or "message" not in filters.kinds:
        return filters
    inherited = ancestors(conn, filters.namespace, filters.conversation_id)
    if not inherited:
        return filters
    scopes: list[tuple[str, int | None]] = [(filters.conversation_id, None), *inherited]
    return dataclasses.replace(
        filters,
        inherited=tuple(inherited),
        hidden=hidden_documents(conn, filters.namespace, scopes),
    )
