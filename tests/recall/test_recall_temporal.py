"""The recall filter's two forms select the same documents: SQL over ``search_docs`` (the
lexical and entity legs) and the numpy mask over the vector index's columns (the vector leg).

Times are drawn from a few small values so that ties (``valid_from == as_of``, a fact
superseded exactly at ``known_at``) and NULLs come up often.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import numpy as np
import orjson
import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from daemon.recall.doc_columns import DocColumns
from daemon.recall.query import SCOPES, Filters
from daemon.recall.temporal import NULL, TimeColumns, time_conditions, time_mask
from projections.search import docs_table, metadata, tags_table

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

times = st.integers(0, 6)
maybe_times = st.none() | times


@st.composite
def time_rows(draw: st.DrawFn) -> dict[str, Any]:
    """One document's time columns, as ``search_docs`` may hold them."""
    return {
        "known_from": draw(times),
        "forgotten_tx": draw(maybe_times),
        "superseded_tx": draw(maybe_times),
        "superseded_valid_to": draw(maybe_times),
        "valid_from": draw(times),
        "valid_to": draw(maybe_times),
        "validated_tx": draw(maybe_times),
        "status": draw(st.sampled_from(("active", "quarantined"))),
    }


@st.composite
def time_filters(draw: st.DrawFn) -> Filters:
    """The time fields of a request."""
    return Filters(
        namespace="n",
        as_of=draw(maybe_times),
        known_at=draw(maybe_times),
        include_superseded=draw(st.booleans()),
        include_quarantined=draw(st.booleans()),
    )


time_table = sa.Table(
    "time_rows",
    sa.MetaData(),
    sa.Column("doc_id", sa.Integer, primary_key=True),
    *(
        sa.Column(name, sa.BigInteger)
        for name in (
            "known_from",
            "forgotten_tx",
            "superseded_tx",
            "superseded_valid_to",
            "valid_from",
            "valid_to",
            "validated_tx",
        )
    ),
    sa.Column("status", sa.String(20)),
)


@pytest.fixture(scope="module")
def sqlite() -> Iterator[sa.Engine]:
    engine = sa.create_engine("sqlite://")
    time_table.metadata.create_all(engine)
    metadata.create_all(engine)
    yield engine
    engine.dispose()


def _column(rows: list[dict[str, Any]], name: str) -> Any:
    return np.array([NULL if r[name] is None else r[name] for r in rows], dtype=np.int64)


@SETTINGS
@given(rows=st.lists(time_rows(), max_size=12), filters=time_filters())
def test_the_sql_and_numpy_time_filters_select_the_same_rows(
    sqlite: sa.Engine, rows: list[dict[str, Any]], filters: Filters
) -> None:
    with sqlite.begin() as conn:
        conn.execute(time_table.delete())
        if rows:
            conn.execute(time_table.insert(), [{"doc_id": i, **r} for i, r in enumerate(rows)])
        c = time_table.c
        query = sa.select(c.doc_id).where(sa.and_(sa.true(), *time_conditions(filters, c)))
        by_sql = {int(r[0]) for r in conn.execute(query)}
    columns = TimeColumns(
        known_from=_column(rows, "known_from"),
        forgotten_tx=_column(rows, "forgotten_tx"),
        superseded_tx=_column(rows, "superseded_tx"),
        superseded_valid_to=_column(rows, "superseded_valid_to"),
        valid_from=_column(rows, "valid_from"),
        valid_to=_column(rows, "valid_to"),
        validated_tx=_column(rows, "validated_tx"),
        quarantined=np.array([r["status"] == "quarantined" for r in rows], dtype=np.bool_),
    )
    by_numpy = set(np.flatnonzero(time_mask(filters, columns)).tolist())
    assert by_sql == by_numpy


@st.composite
def documents(draw: st.DrawFn) -> dict[str, Any]:
    """One whole ``search_docs`` row: its time columns and what the other filters read."""
    kind = draw(st.sampled_from(("fact", "message")))
    return {
        **draw(time_rows()),
        "namespace": draw(st.sampled_from(("n", "other"))),
        "kind": kind,
        "conversation_id": "" if kind == "fact" else draw(st.sampled_from(("c1", "c2"))),
        "live": draw(st.booleans()),
        "owner": draw(st.sampled_from(("user", "agent"))),
        "tags": draw(st.lists(st.sampled_from(("a", "b")), unique=True)),
        "created_at": draw(times),
    }


@st.composite
def request_filters(draw: st.DrawFn, doc_ids: int) -> Filters:
    """A request's filters: the time fields and every other filter."""
    timed = draw(time_filters())
    hidden = draw(st.lists(st.integers(1, max(1, doc_ids)), max_size=2, unique=True))
    return Filters(
        namespace="n",
        scope=tuple(draw(st.lists(st.sampled_from(SCOPES), unique=True))),
        conversation_id=draw(st.none() | st.sampled_from(("c1", "c2"))),
        inherited=tuple(draw(st.lists(st.tuples(st.just("c2"), st.integers(1, 12)), max_size=1))),
        hidden=tuple(hidden),
        as_of=timed.as_of,
        known_at=timed.known_at,
        include_superseded=timed.include_superseded,
        include_quarantined=timed.include_quarantined,
        tags=draw(st.none() | st.lists(st.sampled_from(("a", "b")), unique=True).map(tuple)),
        owner=draw(st.none() | st.sampled_from(("user", "agent"))),
        said_between=draw(st.none() | st.tuples(times, times)),
    )


def _doc_row(doc_id: int, d: dict[str, Any]) -> dict[str, Any]:
    return {
        "doc_id": doc_id,
        "namespace": d["namespace"],
        "kind": d["kind"],
        "ref_id": str(doc_id),
        "conversation_id": d["conversation_id"],
        "role": None,
        "name": None,
        "text": "",
        "body": "",
        "near": "",
        "created_at": d["created_at"],
        "valid_from": d["valid_from"],
        "valid_to": d["valid_to"],
        "superseded_valid_to": d["superseded_valid_to"],
        "known_from": d["known_from"],
        "superseded_tx": d["superseded_tx"],
        "superseded_by": None,
        "forgotten_tx": d["forgotten_tx"],
        "validated_tx": d["validated_tx"],
        "status": d["status"],
        "owner": d["owner"],
        "provenance": "user",
        "importance": 0.5,
        "confidence": 1.0,
        "tags_json": orjson.dumps(d["tags"]).decode(),
        "metadata_json": "{}",
        "content_hash": "",
        "live": d["live"],
        "updated_position": doc_id,
    }


@SETTINGS
@given(data=st.data(), docs=st.lists(documents(), max_size=12))
def test_the_sql_filter_and_the_vector_index_mask_select_the_same_documents(
    sqlite: sa.Engine, data: st.DataObject, docs: list[dict[str, Any]]
) -> None:
    filters = data.draw(request_filters(len(docs)))
    rows = [_doc_row(i + 1, d) for i, d in enumerate(docs)]
    with sqlite.begin() as conn:
        conn.execute(tags_table.delete())
        conn.execute(docs_table.delete())
        if rows:
            conn.execute(docs_table.insert(), rows)
            tags = [{"doc_id": i + 1, "tag": t} for i, d in enumerate(docs) for t in d["tags"]]
            if tags:
                conn.execute(tags_table.insert(), tags)
        query = sa.select(docs_table.c.doc_id).where(filters.where())
        by_sql = {int(r[0]) for r in conn.execute(query)}
    columns = DocColumns(4)
    for row in rows:
        columns.store(SimpleNamespace(**row))
    mask = columns.mask(filters)
    by_numpy = {int(d) for d in columns.doc_id[: columns.size][mask]}
    assert by_sql == by_numpy
