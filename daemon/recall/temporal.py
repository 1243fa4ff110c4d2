"""The bi-temporal part of a recall filter, in its two forms side by side.

The lexical and entity legs filter in SQL over ``search_docs``; the vector leg filters a numpy
mask over the same columns held in memory (:mod:`daemon.recall.doc_columns`). Both must select
the same documents, so both forms live here, rule for rule (a property test holds them to it):

- ``known_at`` (transaction time K): the document was recorded at or before K and not
  forgotten by K (without K: not forgotten at all);
- a fact counts as superseded when it was superseded at or before K (without K: at all);
- ``as_of`` (valid time A): ``valid_from <= A < effective valid_to``, where a superseded fact
  ends at its supersession's ``superseded_valid_to``; without A, superseded facts are dropped
  unless ``include_superseded``;
- quarantined facts are dropped unless validated at or before K, or ``include_quarantined``.

In memory, SQL NULL in a time column is :data:`NULL` (the largest int64: never before any
time), which is what makes ``x > t`` hold for a NULL ``x`` in both forms.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt
import sqlalchemy as sa

NULL = np.iinfo(np.int64).max
"""Stands for SQL NULL in the time columns (never before any time)."""

BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.int64]


class TimeSelection(Protocol):
    """The time fields of a request's filters (times in microseconds since the epoch)."""

    @property
    def as_of(self) -> int | None:
        """Valid time: what was true then."""
        ...

    @property
    def known_at(self) -> int | None:
        """Transaction time: as the memory knew it then."""
        ...

    @property
    def include_superseded(self) -> bool:
        """Keep superseded facts (without ``as_of``)."""
        ...

    @property
    def include_quarantined(self) -> bool:
        """Keep quarantined facts that were not validated."""
        ...


def time_conditions(t: TimeSelection, d: Any) -> list[sa.ColumnElement[bool]]:
    """Return the time filter as SQL conditions on ``search_docs`` columns ``d``."""
    k, a = t.known_at, t.as_of
    conds: list[sa.ColumnElement[bool]] = []
    if k is not None:
        conds.append(d.known_from <= k)
        conds.append(sa.or_(d.forgotten_tx.is_(None), d.forgotten_tx > k))
    else:
        conds.append(d.forgotten_tx.is_(None))
    superseded = d.superseded_tx.is_not(None)
    if k is not None:
        superseded = sa.and_(superseded, d.superseded_tx <= k)
    if a is not None:
        effective_to = sa.case((superseded, d.superseded_valid_to), else_=d.valid_to)
        conds.append(d.valid_from <= a)
        conds.append(sa.or_(effective_to.is_(None), effective_to > a))
    elif not t.include_superseded:
        conds.append(sa.not_(superseded))
    if not t.include_quarantined:
        validated = d.validated_tx.is_not(None)
        if k is not None:
            validated = sa.and_(validated, d.validated_tx <= k)
        conds.append(sa.or_(d.status != "quarantined", validated))
    return conds


@dataclass(frozen=True, slots=True)
class TimeColumns:
    """The time columns of the documents held in memory, one entry per document (NULL as
    :data:`NULL`), and whether each is quarantined."""

    known_from: IntArray
    forgotten_tx: IntArray
    superseded_tx: IntArray
    superseded_valid_to: IntArray
    valid_from: IntArray
    valid_to: IntArray
    validated_tx: IntArray
    quarantined: BoolArray


def time_mask(t: TimeSelection, c: TimeColumns) -> BoolArray:
    """Return which documents the time filter admits (the rules of :func:`time_conditions`)."""
    k, a = t.known_at, t.as_of
    if k is not None:
        m: BoolArray = (c.known_from <= k) & (c.forgotten_tx > k)
    else:
        m = c.forgotten_tx == NULL
    superseded = c.superseded_tx != NULL
    if k is not None:
        superseded &= c.superseded_tx <= k
    if a is not None:
        effective_to = np.where(superseded, c.superseded_valid_to, c.valid_to)
        m &= c.valid_from <= a
        m &= effective_to > a
    elif not t.include_superseded:
        m &= ~superseded
    if not t.include_quarantined:
        validated = c.validated_tx != NULL
        if k is not None:
            validated &= c.validated_tx <= k
        m &= ~c.quarantined | validated
    return m
