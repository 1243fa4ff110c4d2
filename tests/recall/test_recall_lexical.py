"""The in-memory lexical leg is FTS5's bm25: the same terms as FTS5's tokenizer, the same
documents and scores as the FTS5 query (bit for bit), kept so through appends, context
changes, deletions and compaction; a phrase-like query word falls back to FTS5."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import daemon.recall.lexical as lexical_module
import daemon.recall.lexical_leg as lexical_leg_module
from daemon.backend import Backend
from daemon.recall.lexical import Fts5Terms, LexicalDoc, LexicalIndex
from daemon.recall.query import Filters, SearchRequest
from events.types import ConversationDeleted, Event, FactForgotten, FactPurged
from projections.search import FTS_TOKENIZER
from tests.recall.test_recall_engine import NS, T0, Env, fact, msg, recall_env

_FTS5 = sqlite3.connect(":memory:")
_FTS5.execute(f"CREATE VIRTUAL TABLE t USING fts5(x, tokenize='{FTS_TOKENIZER}')")
_FTS5.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")


def fts5_terms(text: str) -> list[str]:
    """Return FTS5's own terms of ``text``, in order."""
    _FTS5.execute("DELETE FROM t")
    _FTS5.execute("INSERT INTO t(rowid, x) VALUES (1, ?)", (text,))
    return [t for t, _ in sorted(_FTS5.execute("SELECT term, offset FROM v"), key=lambda r: r[1])]


_ALPHABET = st.sampled_from(
    list("abcXYZ019 _-'.,!?\t\n/:@[`{~") + list("éÉüßøŒıİﬁΣσςΩ東京한😀\u0301\u00a0\u2014\u2019")
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(_ALPHABET, max_size=40), min_size=1, max_size=4))
def test_terms_are_fts5s_own(texts: list[str]) -> None:
    terms = Fts5Terms()
    terms.learn(texts)
    names = {i: t for t, i in terms.ids.items()}
    for text in texts:
        assert [names[i] for i in terms.terms(text)] == fts5_terms(text), text


def test_ascii_words_are_stemmed_like_fts5() -> None:
    words = "running runs ran easily relational conditional hopping 2023 May08 généralement"
    terms = Fts5Terms()
    terms.learn([words])
    names = {i: t for t, i in terms.ids.items()}
    assert [names[i] for i in terms.terms(words)] == fts5_terms(words)


def test_an_ascii_piece_fts5_reads_as_several_tokens_keeps_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Not seen from SQLite's unicode61, but the cache must not assume one token per piece.
    terms = Fts5Terms()
    asked = terms._ask_fts5

    def doubled(pieces: list[str]) -> list[tuple[int, ...]]:
        return [t + t if p == "abc" else t for p, t in zip(pieces, asked(pieces), strict=True)]

    monkeypatch.setattr(terms, "_ask_fts5", doubled)
    found = terms.terms("xyz abc, Abc")
    xyz, abc = terms.ids["xyz"], terms.ids["abc"]
    assert found == [xyz, abc, abc, abc, abc]
    assert terms.terms("Abc déjà") == [abc, abc, terms.ids["deja"]]


WORDS = [f"w{i}x" for i in range(30)] + ["alpha", "running", "runs", "Zoë"]


def _message_events(rng: random.Random, start: int, count: int) -> list[Event]:
    """Messages in a few conversations (neighbours become each other's context), some
    minutes apart and some hours (another session: no context), and facts between them."""
    events: list[Event] = []
    for i in range(start, start + count):
        words = rng.sample(WORDS, rng.randint(1, 6))
        if rng.random() < 0.4:
            words.append("alpha")
        text = " ".join(words)
        if i % 3:
            created = T0 + timedelta(minutes=i if rng.random() < 0.8 else 600 * i)
            events.append(msg(f"c{i % 4}", f"m{i}", text, name="Ann", created_at=created))
        else:
            events.append(fact(f"f{i}", text, tags=["t1"] if i % 2 else []))
    return events


FILTERS = [
    Filters(namespace=NS),
    Filters(namespace=NS, scope=("facts",)),
    Filters(namespace=NS, scope=("messages",)),
    Filters(namespace=NS, conversation_id="c1"),
    Filters(namespace=NS, tags=("t1",)),
    Filters(namespace=NS, include_superseded=True, include_quarantined=True),
]


def _compare(env: Env, rng: random.Random, monkeypatch: pytest.MonkeyPatch, rounds: int) -> int:
    """Ask random queries both ways; return how many the in-memory index answered."""
    engine = env.service.engine
    index = engine.index
    lexical = index.lexical
    assert lexical is not None
    sync = engine._sync_engine()
    assert sync is not None
    answered = 0
    original = lexical.search

    def spy(*args: object, **kw: object) -> list[tuple[int, float]] | None:
        nonlocal answered
        found = original(*args, **kw)  # type: ignore[arg-type]
        answered += found is not None
        return found

    with sync.connect() as conn:
        for _ in range(rounds):
            query = " ".join(rng.sample(WORDS, rng.randint(1, 4)))
            for f in FILTERS:
                req = SearchRequest(query=query, filters=f, candidate_top_k=rng.choice((3, 10)))
                with monkeypatch.context() as m:
                    m.setattr(lexical, "search", spy)
                    got = lexical_leg_module.lexical_leg(conn, req, index, engine._submit_query)
                with monkeypatch.context() as m:
                    # The FTS5 query with its phrases in the query's order, as the index sums.
                    m.setattr(index, "lexical", None)
                    m.setattr(lexical_leg_module, "split_terms", lambda *_: None)
                    want = lexical_leg_module.lexical_leg(conn, req, index, engine._submit_query)
                assert got == want, (query, f)
    return answered


@pytest.mark.parametrize("frequent_share", [3, 4, 6])
async def test_scores_equal_the_fts5_query_through_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, frequent_share: int
) -> None:
    # "alpha" is in two fifths of the rows, each other word in about a tenth: the share
    # decides which are frequent, so which queries take the pruned path or fall back.
    monkeypatch.setattr(lexical_module, "FREQUENT_SHARE", frequent_share)
    monkeypatch.setattr(lexical_module, "OWN_TEXT_IDF", False)  # FTS5's bm25 exactly
    pruned = 0
    rng = random.Random(11)
    async with recall_env(Backend(tmp_path)) as env:
        lexical = env.service.index.lexical
        assert lexical is not None
        original = lexical._search_pruned

        def counting(*args: Any) -> list[tuple[int, float]] | None:
            nonlocal pruned
            found = original(*args)
            pruned += found is not None
            return found

        monkeypatch.setattr(lexical, "_search_pruned", counting)
        await env.add(*_message_events(rng, 0, 90), step=1.0)
        assert _compare(env, rng, monkeypatch, 25) == 25 * len(FILTERS)
        # New turns change their predecessors' context; forgets, purges, a deleted chat.
        await env.add(*_message_events(rng, 90, 30), step=1.0)
        await env.add(
            FactForgotten(fact_id="f3"),
            FactPurged(fact_id="f6"),
            ConversationDeleted(conversation_id="c2"),
            step=1.0,
        )
        assert _compare(env, rng, monkeypatch, 25) == 25 * len(FILTERS)
    assert pruned > 10  # the frequent terms' shortcut answered a good part of them


async def test_compaction_keeps_the_scores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lexical_module, "COMPACT_MIN", 0)
    monkeypatch.setattr(lexical_module, "DEAD_PER_LIVE", 0.0)
    monkeypatch.setattr(lexical_module, "OWN_TEXT_IDF", False)  # FTS5's bm25 exactly
    rng = random.Random(12)
    async with recall_env(Backend(tmp_path)) as env:
        lexical = env.service.index.lexical
        assert lexical is not None
        compactions = 0
        original: Callable[[], None] = lexical._compact

        def counting() -> None:
            nonlocal compactions
            compactions += 1
            original()

        monkeypatch.setattr(lexical, "_compact", counting)
        for start in range(0, 120, 20):
            await env.add(*_message_events(rng, start, 20), step=1.0)
        assert compactions > 0
        assert lexical._posted == lexical._live_posted
        _compare(env, rng, monkeypatch, 15)


async def test_a_phrase_like_word_falls_back_to_fts5(tmp_path: Path) -> None:
    async with recall_env(Backend(tmp_path)) as env:
        await env.add(msg("c", "m1", "snake_case words"), msg("c", "m2", "snake words"))
        lexical = env.service.index.lexical
        assert lexical is not None
        mask = env.service.index.mask(Filters(namespace=NS))
        # FTS5 reads "snake_case" as the phrase "snake case": positions decide, not postings.
        assert lexical.search(["snake_case"], mask, env.service.index.doc_id, 10) is None
        assert lexical.search(["snake"], mask, env.service.index.doc_id, 10) is not None
        hits = await env.search("snake_case", ("lexical",))
        assert [h.id for h in hits] == ["m1", "m2"]  # m2 has the phrase in its context


def _own_text_scores(index: LexicalIndex, words: list[str]) -> dict[int, float]:
    slots = np.arange(16, dtype=np.int64)
    found = index.search(words, np.ones(16, dtype=np.bool_), slots, 16)
    assert found is not None
    return dict(found)


def test_a_word_common_only_in_the_context_keeps_its_weight_in_the_own_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # "live" is said in two rows of six but, through the context column, held by five: bm25's
    # idf is negative there (FTS5 weighs it 1e-6), so "lives in Lyon" would score like any
    # other row with "user". Its rarity is taken from the rows that say it themselves.
    docs = [
        LexicalDoc(0, True, "the user lives in Lyon", "", "s"),
        LexicalDoc(1, True, "the user works at Acme", "", "s"),
        LexicalDoc(2, True, "I live near the river", "we live here", "s"),
        LexicalDoc(3, True, "nice", "I live near the river", "s"),
        LexicalDoc(4, True, "cool", "I live near the river", "s"),
        LexicalDoc(5, True, "ok", "", "s"),
    ]
    index = LexicalIndex()
    index.update(docs)
    scores = _own_text_scores(index, ["user", "live"])
    assert scores[0] > scores[1] + 0.5
    monkeypatch.setattr(lexical_module, "OWN_TEXT_IDF", False)
    exact = _own_text_scores(index, ["user", "live"])
    assert exact[0] == pytest.approx(exact[1], abs=1e-5)  # FTS5's bm25: "live" weighs nothing
    monkeypatch.setattr(lexical_module, "OWN_TEXT_IDF", True)
    # Through changes and compaction the own-text marks stay with their postings.
    monkeypatch.setattr(lexical_module, "COMPACT_MIN", 0)
    monkeypatch.setattr(lexical_module, "DEAD_PER_LIVE", 0.0)
    changed = [LexicalDoc(5, True, "we live in Lyon", "", "s"), LexicalDoc(4, False, "", "", "")]
    index.update(changed)
    assert index._posted == index._live_posted  # compacted
    fresh = LexicalIndex()
    fresh.update([*docs[:4], changed[0]])
    assert _own_text_scores(index, ["user", "live"]) == _own_text_scores(fresh, ["user", "live"])


def test_an_empty_index_and_unknown_words_find_nothing() -> None:
    index = LexicalIndex()
    mask = np.ones(4, dtype=np.bool_)
    doc_ids = np.arange(4, dtype=np.int64)
    assert index.search(["anything"], mask, doc_ids, 5) == []
    index.update([LexicalDoc(0, True, "Ann: hello there", "", "scope")])
    assert index.search(["unheard"], mask, doc_ids, 5) == []
    assert [d for d, _ in index.search(["hello"], mask, doc_ids, 5) or []] == [0]
    index.update([LexicalDoc(0, False, "", "", "")])
    assert index.search(["hello"], mask, doc_ids, 5) == []
    assert (index.rows, index.tokens) == (0, 0)


def test_searches_of_the_same_terms_add_up_once_until_the_index_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    docs = [
        LexicalDoc(i, True, f"tea number {i} with {'milk' if i % 3 else 'lemon'}", "", "s")
        for i in range(30)
    ]
    index = LexicalIndex()
    index.update(docs)
    sums = 0
    add_up = np.bincount

    def counted(*args: Any, **kwargs: Any) -> Any:
        nonlocal sums
        sums += 1
        return add_up(*args, **kwargs)

    monkeypatch.setattr(np, "bincount", counted)
    doc_ids = np.arange(32, dtype=np.int64)
    every, odd = np.ones(32, dtype=np.bool_), np.arange(32) % 2 == 1
    first = index.search(["tea", "lemon"], every, doc_ids, 30)
    assert first is not None
    assert index.search(["tea", "lemon"], odd, doc_ids, 30) == [h for h in first if h[0] % 2]
    assert index.search(["tea", "lemon"], every, doc_ids, 30) == first
    assert sums == 1
    fresh = LexicalIndex()
    fresh.update([d for d in docs if d.slot != 3])
    expected = fresh.search(["tea", "lemon"], every, doc_ids, 30)
    index.update([LexicalDoc(3, False, "", "", "")])
    sums = 0
    assert index.search(["tea", "lemon"], every, doc_ids, 30) == expected
    assert sums == 1  # added up again for the changed index
