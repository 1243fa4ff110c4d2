"""The recall legs' shortcuts give the exact results of the plain computation: the pruned FTS5
lexical leg equals the full bm25 query (scores bit for bit), the sparse vector scan equals the
dense product, and a cached filter mask follows the rows it was computed from."""

from __future__ import annotations

import random
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from sqlalchemy.ext.asyncio import create_async_engine

import daemon.recall.doc_columns as doc_columns_module
import daemon.recall.lexical_leg as lexical_leg_module
from daemon.backend import Backend
from daemon.recall import fts5
from daemon.recall.documents import load_rows, raw_cursor
from daemon.recall.embedding_cache import EmbeddingCache
from daemon.recall.lexical_leg import lexical_leg
from daemon.recall.query import Filters, SearchRequest
from daemon.recall.vectors import VectorIndex
from events.types import Event, FactForgotten, FactValidated
from plugins.embedders.hashed import HashedNgramEmbedder
from tests.recall.test_recall_engine import NS, fact, ids, msg, recall_env

WORDS = [f"w{i}x" for i in range(40)]


def _corpus(rng: random.Random) -> list[Event]:
    """Facts and messages where ``alpha`` is in about 40% of the documents and each other
    word in a few percent (so queries mix frequent and rare terms)."""
    events: list[Event] = []
    for i in range(160):
        words = rng.sample(WORDS, rng.randint(2, 5))
        if rng.random() < 0.4:
            words.insert(rng.randrange(len(words) + 1), "alpha")
        text = " ".join(words)
        if i % 2:
            events.append(msg(f"c{i % 5}", f"m{i}", text, name="Ann"))
        else:
            events.append(fact(f"f{i}", text))
    return events


@pytest.mark.parametrize("split", [False, True])
async def test_pruned_lexical_leg_equals_the_full_query(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, split: bool
) -> None:
    if split:  # the essential-only query in two rowid ranges, even for a small index
        monkeypatch.setattr(doc_columns_module, "SPLIT_MIN_DOCS", 1)
    rng = random.Random(5)
    async with recall_env(Backend(tmp_path)) as env:
        await env.add(*_corpus(rng))
        engine = env.service.engine
        # The FTS5 queries themselves, not the in-memory postings that answer first.
        monkeypatch.setattr(engine.index, "lexical", None)
        sync = engine._sync_engine()
        assert sync is not None
        pruned_ran = 0
        original = lexical_leg_module._pruned

        def spy(*args: Any) -> list[tuple[int, float]] | None:
            nonlocal pruned_ran
            found = original(*args)
            pruned_ran += found is not None
            return found

        monkeypatch.setattr(lexical_leg_module, "_pruned", spy)

        def lexical(conn: Any, req: SearchRequest) -> list[tuple[int, float]]:
            return lexical_leg(conn, req, engine.index, engine._submit_query)

        filters = [
            Filters(namespace=NS),
            Filters(namespace=NS, scope=("facts",)),
            Filters(namespace=NS, conversation_id="c1"),
            Filters(namespace=NS, scope=("messages",), conversation_id="c3"),
        ]
        with sync.connect() as conn:
            for _ in range(60):
                query = " ".join(["alpha", *rng.sample(WORDS, rng.randint(1, 3))])
                for f in filters:
                    req = SearchRequest(query=query, filters=f, candidate_top_k=rng.choice((3, 8)))
                    got = lexical(conn, req)
                    with monkeypatch.context() as m:
                        # The full query, its phrases in the same order: the same floats.
                        m.setattr(lexical_leg_module, "_pruned", lambda *_: None)
                        assert got == lexical(conn, req), (query, f)
                        # In the query's own order: the same ranking (sums may differ in ulps).
                        m.setattr(lexical_leg_module, "split_terms", lambda *_: None)
                        plain = lexical(conn, req)
                    assert [d for d, _ in got] == [d for d, _ in plain], (query, f)
                    assert [s for _, s in got] == pytest.approx([s for _, s in plain])
            rows = conn.exec_driver_sql("SELECT count(*) FROM search_fts").scalar()
            cursor = raw_cursor(conn)
            assert fts5.fts5_row_count(cursor) == rows
            cursor.close()
        assert pruned_ran > 20  # the shortcut was taken, not only the fallback
        assert (engine.index.halfway_doc() is not None) == split


def test_split_terms_keeps_an_essential_term_and_bounds_the_rest() -> None:
    assert fts5.split_terms(["a"], [900], 1000) is None
    assert fts5.split_terms(["a", "b"], [5, 6], 1000) is None  # nothing frequent
    split = fts5.split_terms(["rare", "common"], [3, 600], 1000)
    assert split is not None
    essential, frequent, bound = split
    assert (essential, frequent) == (["rare"], ["common"])
    assert bound == pytest.approx(fts5.phrase_bound(1000, 600))
    # Both frequent: the rarer of them stays essential.
    split = fts5.split_terms(["x", "y"], [700, 600], 1000)
    assert split is not None
    assert split[0] == ["y"]
    assert fts5.phrase_bound(1000, 900) == pytest.approx(2.2e-6)  # idf clamped, as FTS5


def test_sparse_vector_scan_equals_the_dense_product() -> None:
    embedder = HashedNgramEmbedder()
    index = VectorIndex(embedder, EmbeddingCache(create_async_engine("sqlite+aiosqlite://")))
    rng = np.random.default_rng(1)
    n = 5000
    index._alloc(8192)
    index.columns.size = n
    index.by_dim[:, :n] = rng.standard_normal((index.embedder.dim, n), dtype=np.float32)
    sparse = np.zeros(index.embedder.dim, dtype=np.float32)
    sparse[rng.choice(index.embedder.dim, 40, replace=False)] = rng.standard_normal(40)
    dense = rng.standard_normal(index.embedder.dim).astype(np.float32)
    for q in (sparse, dense, embedder.embed_sync(["Alice met Bob in Paris"])[0]):
        expected = q.astype(np.float64) @ index.by_dim[:, :n].astype(np.float64)
        np.testing.assert_allclose(
            index.scan.scores(index.by_dim, q, np.flatnonzero(q), n),
            expected,
            rtol=1e-4,
            atol=1e-4,
        )


async def test_a_cached_mask_follows_a_changed_row(tmp_path: Path) -> None:
    async with recall_env(Backend(tmp_path)) as env:
        await env.add(fact("tea", "Alice likes green tea"), fact("tee", "Alice likes a tee"))
        assert ids(await env.search("Alice tea", ("vector",))) == {"tea", "tee"}
        await env.add(FactForgotten(fact_id="tea"))
        assert ids(await env.search("Alice tea", ("vector",))) == {"tee"}
        assert ids(await env.search("Alice tea", ("lexical",))) == {"tee"}


def _message_row(i: int, text: str, *, live: bool = True) -> SimpleNamespace:
    """The search projection's row of message ``i`` (doc id ``i + 1``, conversation
    ``c<i % 100>``)."""
    return SimpleNamespace(
        doc_id=i + 1,
        namespace="ns",
        kind="message",
        conversation_id=f"c{i % 100}",
        name=None,
        text=text,
        live=live,
        known_from=0,
        forgotten_tx=None,
        superseded_tx=None,
        superseded_valid_to=None,
        valid_from=0,
        valid_to=None,
        validated_tx=None,
        status="active",
        owner="user",
        tags_json="[]",
        content_hash=str(i),
        updated_position=i + 1,
        provenance="user",
        importance=0.5,
        created_at=0,
    )


def _index_with(texts: list[str]) -> tuple[VectorIndex, HashedNgramEmbedder]:
    """Return an index holding one live message per text (conversation ``c<i % 100>``)."""
    embedder = HashedNgramEmbedder()
    index = VectorIndex(embedder, EmbeddingCache(create_async_engine("sqlite+aiosqlite://")))
    for i, text in enumerate(texts):
        index._set_row(_message_row(i, text))
    index.by_dim[:, : len(texts)] = embedder.embed_sync(texts).T
    index.has_vec[: len(texts)] = True
    return index, embedder


def test_vector_search_ranks_exactly_on_both_scan_paths() -> None:
    rng = random.Random(2)
    texts = [" ".join(rng.sample(WORDS, 4)) for _ in range(3000)]
    index, embedder = _index_with(texts)
    q = embedder.embed_sync([" ".join(WORDS[:3])])[0]
    for filters in (Filters(namespace="ns"), Filters(namespace="ns", conversation_id="c7")):
        # Every row (the dimension scan) and 1 row in 100 (the column gather).
        allowed = np.flatnonzero(index.mask(filters))
        scores = embedder.embed_sync([texts[s] for s in allowed]) @ q
        expected = sorted(zip(scores.tolist(), (allowed + 1).tolist(), strict=True))[::-1][:10]
        got = index.search(q, filters, 10)
        # Exact up to ties: each hit's true score is the expected score at its rank (documents
        # with equal scores may come in either order; float sums differ by numpy build).
        exact = dict(zip((allowed + 1).tolist(), scores.tolist(), strict=True))
        assert len({d for d, _ in got}) == len(got) == len(expected)
        assert [exact[d] for d, _ in got] == pytest.approx([s for s, _ in expected], abs=1e-5)
        assert [s for _, s in got] == pytest.approx([s for s, _ in expected], abs=1e-5)


def test_a_mask_computed_while_a_row_changes_is_not_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    index, _ = _index_with(["alpha w1x", "alpha w2x"])
    filters = Filters(namespace="ns")
    columns = index.columns
    compute = columns._compute_mask

    def racing(f: Filters) -> Any:
        found = compute(f)
        columns.changes += 1  # what a refresh writing a row meanwhile does
        return found

    monkeypatch.setattr(columns, "_compute_mask", racing)
    index.mask(filters)
    assert filters not in columns._masks
    monkeypatch.setattr(columns, "_compute_mask", compute)
    kept = index.mask(filters)
    assert index.mask(filters) is kept  # nothing changed: computed once


def test_passing_answers_for_whole_arrays_of_ids() -> None:
    index, _ = _index_with([f"w{i}x w{i + 1}x" for i in range(50)])  # doc ids 1..50
    everyone = Filters(namespace="ns")
    one_conversation = Filters(namespace="ns", conversation_id="c7")
    admitted, unknown = index.passing([3, 70, 12, -1, 50, 10_000], everyone)
    assert admitted == {3, 12, 50}
    assert unknown == [70, -1, 10_000]  # not held: the engine asks the table about these
    allowed = np.flatnonzero(index.mask(one_conversation)) + 1
    admitted, unknown = index.passing(list(range(1, 51)), one_conversation)
    assert admitted == set(allowed.tolist())
    assert unknown == []
    assert index.passing([], everyone) == (set(), [])


async def test_weigh_rows_from_the_index_equal_the_tables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with recall_env(Backend(tmp_path)) as env:
        await env.add(
            fact("q", "Alice quarantined", status="quarantined", provenance="tool"),
            fact("v", "Alice vouched", status="quarantined", importance=0.9),
            fact("i", "Alice imported", provenance="imported", importance=0.1),
            msg("c", "m1", "Alice says hi", role="tool"),
            msg("c", "m2", "Alice again"),
        )
        await env.add(FactValidated(fact_id="v", by="user"), FactForgotten(fact_id="i"))
        engine = env.service.engine
        sync = engine._sync_engine()
        assert sync is not None
        with sync.connect() as conn:
            doc_ids = [int(d) for (d,) in conn.exec_driver_sql("SELECT doc_id FROM search_docs")]
            from_index = load_rows(conn, engine.index, doc_ids)
            monkeypatch.setattr(engine.index, "weigh_rows", lambda ids: ([], list(ids)))
            from_table = load_rows(conn, engine.index, doc_ids)
        assert from_index == from_table
        assert len(from_table) == 5
        assert {r.provenance for r in from_index.values()} == {"tool", "user", "imported"}


def test_searches_of_one_query_share_one_scan_until_a_row_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = random.Random(3)
    texts = [" ".join(rng.sample(WORDS, 4)) for _ in range(3000)]
    index, embedder = _index_with(texts)
    scans = 0
    scan = index.scan.scores

    def counted(*args: Any) -> Any:
        nonlocal scans
        scans += 1
        return scan(*args)

    monkeypatch.setattr(index.scan, "scores", counted)
    q = embedder.embed_sync([" ".join(WORDS[:12])])[0]
    every, some = Filters(namespace="ns"), Filters(namespace="ns", hidden=(1, 2, 3))
    first = index.search(q, every, 20)
    assert index.search(q, some, 10) == [hit for hit in first if hit[0] > 3][:10]
    assert index.search(q, every, 20) == first  # the kept scores were not masked in place
    assert scans == 1
    best = first[0][0]
    index._set_row(_message_row(best - 1, texts[best - 1], live=False))
    assert index.search(q, every, 19) == first[1:]
    assert scans == 2
