"""The recall engine over the search projection: every filter in every leg, trust weighting,
explain signals, graph expansion, entity matching, and identical results after a rebuild."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

import daemon.recall.vectors as vectors_module
from daemon.backend import Backend
from daemon.recall.engine import ASSISTANT_FACTOR, OTHER_SUBJECT_FACTOR, Hit
from daemon.recall.query import Filters, Fusion, SearchRequest
from daemon.recall.service import RecallService, cache_engine, make_embedder
from events.clock import ManualClock, to_micros
from events.store.base import EventStore, NewEvent
from events.types import (
    ConversationDeleted,
    ConversationForked,
    Event,
    FactForgotten,
    FactPurged,
    FactSuperseded,
    FactWritten,
    MessageAppended,
)
from projections.messages import MessagesProjection
from projections.runner import ProjectionRunner
from projections.search import SearchProjection, docs_table, mentions_table

T0 = datetime(2026, 1, 1, tzinfo=UTC)
NS = "ns"


@dataclass
class Env:
    store: EventStore
    clock: ManualClock
    runner: ProjectionRunner
    service: RecallService

    async def add(self, *events: Event, namespace: str = NS, step: float = 60.0) -> None:
        for event in events:
            self.clock.advance(timedelta(seconds=step))
            await self.store.append(namespace, [NewEvent(event)])
        await self.runner.catch_up()
        await self.service.engine.refresh()
        await self.service.index.embed_pending()

    async def search(self, query: str, legs: tuple[str, ...], **filters: Any) -> list[Hit]:
        options = {k: filters.pop(k) for k in list(filters) if k in _REQUEST_FIELDS}
        req = SearchRequest(
            query=query,
            filters=Filters(namespace=filters.pop("namespace", NS), **filters),
            top_k=50,
            legs=legs,
            fusion=Fusion("rrf"),
            entity_match="entity" in legs,
            **options,
        )
        return await self.service.engine.search(req)


_REQUEST_FIELDS = {f.name for f in dataclasses.fields(SearchRequest)} - {"query", "filters"}


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    """Each test runs on both backends (PostgreSQL as in tests/pg_fixtures.py)."""
    if request.param == "postgres":
        return Backend(tmp_path, database_url=request.getfixturevalue("pg_url"))
    return Backend(tmp_path)


@contextlib.asynccontextmanager
async def recall_env(backend: Backend) -> AsyncIterator[Env]:
    clock = ManualClock(T0)
    store = backend.open_store(clock=clock)
    await store.open()
    write = backend.projection_engine(write=True)
    read = backend.projection_engine(write=False)
    # The messages projection holds the fork lineage a conversation-scoped search follows.
    runner = ProjectionRunner(store, write, [MessagesProjection(), SearchProjection()])
    await runner.setup()
    service = RecallService(read, cache_engine(backend), make_embedder(), clock)
    await service.cache.setup()
    try:
        yield Env(store, clock, runner, service)
    finally:
        await service.stop()
        await read.dispose()
        await write.dispose()
        await store.close()


def fact(fact_id: str, text: str, **kw: Any) -> FactWritten:
    return FactWritten(fact_id=fact_id, text=text, valid_from=kw.pop("valid_from", T0), **kw)


def msg(cid: str, mid: str, text: str, **kw: Any) -> MessageAppended:
    return MessageAppended(
        conversation_id=cid,
        message_id=mid,
        role=kw.pop("role", "user"),
        content=text,
        created_at=kw.pop("created_at", T0),
        **kw,
    )


LEGS = [("lexical",), ("vector",), ("entity",)]


def ids(hits: list[Hit]) -> set[str]:
    return {h.id for h in hits}


async def _world(env: Env) -> dict[str, int]:
    marks: dict[str, int] = {}
    await env.add(
        fact("tea", "Alice Smith likes green tea", tags=["drink"]),
        fact(
            "coffee",
            "Alice Smith likes black coffee",
            provenance="tool",
            status="quarantined",
            owner="agent",
        ),
        fact("paris", "Alice Smith lives in Paris"),
        fact("berlin", "Alice Smith lives in Berlin", valid_from=T0 + timedelta(days=10)),
        FactSuperseded(old_fact_id="paris", new_fact_id="berlin", at=T0 + timedelta(days=10)),
        fact("hobby", "Alice Smith collects stamps"),
        msg("c1", "m1", "I met Alice Smith at the market", name="Bob"),
        msg(
            "c2",
            "m2",
            "Alice Smith called me today",
            name="Carol",
            metadata={"tags": ["call"], "k": {"nested": [1, 2]}},
        ),
    )
    marks["before_forget"] = to_micros(env.clock.now())
    await env.add(FactForgotten(fact_id="hobby"))
    await env.add(fact("other", "Alice Smith elsewhere"), namespace="other")
    return marks


@pytest.mark.parametrize("legs", LEGS)
async def test_every_filter_applies_inside_every_leg(
    backend: Backend, legs: tuple[str, ...]
) -> None:
    async with recall_env(backend) as env:
        marks = await _world(env)
        q = "Alice Smith"
        default = ids(await env.search(q, legs))
        assert default == {"tea", "berlin", "m1", "m2"}
        assert "coffee" in ids(await env.search(q, legs, include_quarantined=True))
        assert "paris" in ids(await env.search(q, legs, include_superseded=True))
        assert ids(await env.search(q, legs, tags=("drink",))) == {"tea"}
        assert ids(await env.search(q, legs, tags=("call", "drink"))) == {"tea", "m2"}
        agent = await env.search(q, legs, owner="agent", include_quarantined=True)
        assert ids(agent) == {"coffee"}
        assert ids(await env.search(q, legs, scope=("messages",), conversation_id="c1")) == {"m1"}
        assert ids(await env.search(q, legs, conversation_id="c1")) == {"tea", "berlin", "m1"}
        past = to_micros(T0 + timedelta(days=5))
        assert ids(await env.search(q, legs, as_of=past, scope=("facts",))) == {"tea", "paris"}
        known = ids(await env.search(q, legs, known_at=marks["before_forget"]))
        assert "hobby" in known
        assert ids(await env.search(q, legs, namespace="other")) == {"other"}
        assert ids(await env.search(q, legs, namespace="nobody")) == set()


async def test_trust_explain_and_metadata(backend: Backend) -> None:
    async with recall_env(backend) as env:
        await _world(env)
        hits = await env.search(
            "Alice Smith coffee", ("lexical", "vector"), include_quarantined=True, explain=True
        )
        coffee = next(h for h in hits if h.id == "coffee")
        assert coffee.signals is not None
        assert coffee.signals["multipliers"]["trust"] == pytest.approx(0.3 * 0.8)
        legs = coffee.signals["legs"]
        assert set(legs) == {"lexical", "vector"}
        fused = sum(1.0 / (60 + leg["rank"]) for leg in legs.values())
        assert coffee.signals["fused"] == pytest.approx(fused)
        assert coffee.score == pytest.approx(fused * 0.24)
        m2 = next(h for h in await env.search("called", ("lexical",)) if h.id == "m2")
        assert m2.metadata == {"tags": ["call"], "k": {"nested": [1, 2]}}
        untrusted = await env.search(
            "Alice Smith coffee", ("lexical",), include_quarantined=True, trust_weighting=False
        )
        assert next(h for h in untrusted if h.id == "coffee").signals is None


async def test_decay_prefers_recent(backend: Backend) -> None:
    async with recall_env(backend) as env:
        await env.add(
            fact("old", "the project deadline", valid_from=T0 - timedelta(days=300)),
            fact("new", "the project deadline moved", valid_from=T0),
        )
        plain = await env.search("project deadline", ("lexical",))
        decayed = await env.search("project deadline", ("lexical",), decay_tau_days=30.0)
        assert {h.id for h in plain} == {"old", "new"}
        assert decayed[0].id == "new"
        assert decayed[-1].score < plain[-1].score


async def test_graph_expansion_adds_facts_sharing_an_entity(backend: Backend) -> None:
    async with recall_env(backend) as env:
        await env.add(
            fact("a", "Zed Quill works at Acme Rockets"),
            fact("b", "Acme Rockets is based in Tucson"),
            fact("c", "Tucson has a dry climate"),
        )
        q = "Where does Zed Quill work"
        seed = ids(await env.search(q, ("lexical",)))
        assert seed == {"a"}
        one = await env.search(q, ("lexical",), expand_hops=1, explain=True)
        assert ids(one) == {"a", "b"}
        b = next(h for h in one if h.id == "b")
        assert b.signals is not None
        assert b.signals["graph"]["via"] == ["acme rockets"]
        assert ids(await env.search(q, ("lexical",), expand_hops=2)) == {"a", "b", "c"}
        ppr = await env.search(q, ("lexical",), expand_hops=2, graph_scoring="ppr")
        assert [h.id for h in ppr] == ["a", "b", "c"]


async def test_rebuild_gives_identical_results(backend: Backend) -> None:
    async with recall_env(backend) as env:
        await _world(env)
        await env.add(msg("c1", "m3", "Alice Smith again, about the market"))
        await env.add(ConversationDeleted(conversation_id="c2"))
        queries = ["Alice Smith", "market", "green tea", "stamps"]
        before = [await env.search(q, ("lexical", "vector", "entity")) for q in queries]
        digest = await env.runner.digest()
        await env.runner.rebuild()
        assert await env.runner.digest() == digest
        again = [await env.search(q, ("lexical", "vector", "entity")) for q in queries]
        assert [[(h.id, h.score) for h in r] for r in again] == [
            [(h.id, h.score) for h in r] for r in before
        ]
        fresh = RecallService(
            env.service.engine.engine, cache_engine(backend), make_embedder(), env.clock
        )
        await fresh.cache.setup()
        await fresh.engine.refresh()
        assert fresh.index.pending == 0  # every vector came from the cache
        after = [
            await fresh.engine.search(
                SearchRequest(
                    query=q,
                    filters=Filters(namespace=NS),
                    top_k=50,
                    legs=("lexical", "vector", "entity"),
                    fusion=Fusion("rrf"),
                    entity_match=True,
                )
            )
            for q in queries
        ]
        await fresh.stop()
        assert [[(h.id, h.score) for h in r] for r in after] == [
            [(h.id, h.score) for h in r] for r in before
        ]
        assert "m2" not in {h.id for r in after for h in r}


async def test_context_window_finds_a_reply_by_its_question(backend: Backend) -> None:
    async with recall_env(backend) as env:
        await env.add(
            msg("c", "q", "When did you adopt the greyhound?", name="Ann"),
            msg("c", "a", "Yes, last Tuesday!", name="Ben"),
            msg("c", "later", "Unrelated chatter", name="Ann", created_at=T0 + timedelta(days=9)),
        )
        hits = await env.search("greyhound adoption", ("lexical",))
        assert {"q", "a"} <= ids(hits)
        assert "later" not in ids(hits)


async def test_switching_embedder_reembeds_in_the_background(backend: Backend) -> None:
    async with recall_env(backend) as env:
        await _world(env)
        service = env.service
        first = service.progress
        assert first.done
        assert first.total == 8  # every document of every namespace (forgotten ones too)
        small = make_embedder("hashed", {"dim": 32})
        await service.switch_embedder(small)
        progress = service.progress
        assert progress.embedder_id == small.embedder_id
        assert progress.embedded == 0
        assert not progress.done
        # The vector leg ranks only what has a vector so far; nothing yet.
        assert await env.search("Alice Smith", ("vector",)) == []
        seen: list[int] = []
        await service.index.embed_pending(progress=lambda p: seen.append(p.embedded))
        assert service.progress.done
        assert seen[-1] == first.total
        assert ids(await env.search("Alice Smith", ("vector",))) == {"tea", "berlin", "m1", "m2"}
        # Switching back finds every vector in the cache: nothing to embed.
        await service.switch_embedder(make_embedder())
        assert service.index.pending == 0
        assert service.progress.done


async def test_a_fact_just_written_is_found_by_meaning_at_once(backend: Backend) -> None:
    async with recall_env(backend) as env:
        # Appended and folded, but the background indexer has not run: the search's own
        # refresh embeds the few new documents before the vector leg ranks.
        env.clock.advance(timedelta(seconds=60))
        await env.store.append(NS, [NewEvent(fact("tea", "Alice Smith drinks green tea"))])
        await env.runner.catch_up()
        assert ids(await env.search("Alice Smith", ("vector",))) == {"tea"}


async def test_purge_and_delete_leave_no_text_and_no_cached_vector(backend: Backend) -> None:
    async with recall_env(backend) as env:
        await env.add(
            fact("secret", "Dana Reyes hides the key under the mat"),
            msg("gone", "g1", "my bank pin is 4321", name="Eve"),
            fact("keep", "the mat is blue"),
        )
        cache = env.service.cache
        embedder_id = env.service.index.embedder.embedder_id
        assert await cache.count(embedder_id) == 3
        await env.add(FactPurged(fact_id="secret"), ConversationDeleted(conversation_id="gone"))
        assert ids(await env.search("mat key", ("lexical", "vector", "entity"))) == {"keep"}
        # (The vector leg's similarity floor leaves out "the mat is blue" as well.)
        assert ids(await env.search("bank pin", ("lexical", "vector"))) <= {"keep"}
        assert await cache.count(embedder_id) == 1
        async with env.service.engine.engine.connect() as conn:
            rows = (
                await conn.execute(
                    sa.select(docs_table).where(docs_table.c.ref_id.in_(["secret", "g1"]))
                )
            ).all()
            mentions = (await conn.execute(sa.select(mentions_table.c.entity_key))).all()
        assert len(rows) == 2
        for row in rows:
            assert not row.live
            assert (row.text, row.body, row.near, row.content_hash) == ("", "", "", "")
            assert row.name is None
        assert {m[0] for m in mentions} == set()


async def test_a_configured_embedder_change_is_picked_up(backend: Backend) -> None:
    """A reload naming another embedder switches the service to it; an unknown name keeps the
    embedder in use."""
    from aiohttp import web

    from daemon.api.keys import PLUGINS, RECALL
    from daemon.config import RecallConfig, load_config
    from daemon.services.recall import switch_embedder
    from plugins.embedders.hashed import HashedNgramEmbedder
    from plugins.registry import build_plugins

    small = HashedNgramEmbedder(dim=32)
    plugins = build_plugins(entry_points=False)
    plugins.add("embedder", "small", lambda _config: small)
    before = load_config(None, {}, {"storage.data_dir": "/tmp/memoryd-unused"})

    def naming(embedder: str) -> Any:
        return dataclasses.replace(before, recall=RecallConfig(embedder=embedder))

    async with recall_env(backend) as env:
        await _world(env)
        app = web.Application()
        app[PLUGINS] = plugins
        app[RECALL] = env.service
        await switch_embedder(app, before, naming("unknown"))
        assert env.service.progress.embedder_id.startswith("hashed-ngram-v1/384")
        await switch_embedder(app, before, naming("small"))
        assert env.service.index.embedder is small
        assert env.service.progress.embedder_id == small.embedder_id


@pytest.mark.parametrize("legs", [("lexical",), ("vector",)])
async def test_a_fork_searches_what_it_shows_of_its_ancestors(
    backend: Backend, legs: tuple[str, ...]
) -> None:
    async with recall_env(backend) as env:
        await env.add(
            msg("p", "m1", "the red kite nests in the old oak"),
            msg("p", "m2", "a red kite hunts over the field"),
            ConversationForked(fork_id="f", parent_conversation_id="p", through_message_id="m2"),
            ConversationForked(
                fork_id="c",
                parent_conversation_id="p",
                through_message_id="m1",
                strategy="cloning",
            ),
            ConversationForked(fork_id="ff", parent_conversation_id="f", through_message_id=None),
            ConversationForked(fork_id="fi", parent_conversation_id="f", through_message_id="m1"),
            msg("p", "m3", "the red kite came back after the fork"),
            msg("f", "f1", "my own red kite note in the fork"),
            msg("ff", "g1", "red kite in the grandchild"),
        )

        async def found(cid: str) -> list[str]:
            return sorted(h.id for h in await env.search("red kite", legs, conversation_id=cid))

        assert await found("p") == ["m1", "m2", "m3"]
        # Reference fork through m2: the parent's messages up to the fork point, and its own.
        assert await found("f") == ["f1", "m1", "m2"]
        # A fork of the fork (through everything f had): the tightest bound on the way up.
        assert await found("ff") == ["g1", "m1", "m2"]  # f1 came after ff forked
        # Through m1, which f shows as p's: the bound on p is m1, tighter than f's m2.
        assert await found("fi") == ["m1"]
        # A cloning fork through m1 shows its copy of m1.
        assert await found("c") == ["m1"]
        # The fork rewrites an inherited message: its own version hides the parent's.
        await env.add(msg("f", "m1", "the red kite nests in a new oak, rewritten"))
        hits = await env.search("red kite", legs, conversation_id="f")
        assert sorted(h.id for h in hits) == ["f1", "m1", "m2"]  # one m1: the fork's
        assert "rewritten" in {h.id: h.text for h in hits}["m1"]
        # ff forked before the rewrite: it still shows the parent's m1, as it was.
        hits = await env.search("red kite", legs, conversation_id="ff")
        assert {h.id: h.text for h in hits}["m1"] == "the red kite nests in the old oak"
        # The parent deleted: the fork is orphaned and keeps only its own messages.
        await env.add(ConversationDeleted(conversation_id="p"))
        assert await found("f") == ["f1", "m1"]
        assert await found("ff") == ["g1"]


async def test_tables_holding_less_than_the_index_saw_are_loaded_again(backend: Backend) -> None:
    # As after `memoryd replay` into the data dir, or a rebuild from a shorter log: the index
    # notices that the newest rows it saw are gone, and loads the tables afresh.
    async with recall_env(backend) as env:
        await env.add(msg("c1", "m1", "green tea in the morning"))
        await env.add(msg("c2", "m2", "green tea at night"))  # c2: m1's row stays as it was
        assert ids(await env.search("green tea", ("lexical", "vector"))) == {"m1", "m2"}
        d = docs_table.c
        async with env.runner.engine.begin() as conn:
            newest = await conn.scalar(sa.select(sa.func.max(d.updated_position)))
            await conn.execute(docs_table.delete().where(d.updated_position == newest))
        assert ids(await env.search("green tea", ("lexical", "vector"))) == {"m1"}
        assert env.service.index.live_count() == 1


async def test_a_refresh_reads_every_change_in_parts(
    backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Reads of three rows: a first load in several parts, and one event (a deleted
    # conversation) that changes more documents than a read takes.
    monkeypatch.setattr(vectors_module, "CHANGED_ROWS_READ", 3)
    async with recall_env(backend) as env:
        await env.add(*(msg(f"c{i % 2}", f"m{i}", f"green tea number {i}") for i in range(8)))
        assert env.service.index.live_count() == 8  # one refresh read them all
        assert len(await env.search("green tea", ("lexical", "vector"))) == 8
        await env.add(ConversationDeleted(conversation_id="c0"))
        assert ids(await env.search("green tea", ("lexical", "vector"))) == {
            "m1",
            "m3",
            "m5",
            "m7",
        }
        assert env.service.index.live_count() == 4


async def test_a_fact_is_found_by_its_attribute_and_the_asked_subject_ranks_first(
    backend: Backend,
) -> None:
    async with recall_env(backend) as env:
        await env.add(
            fact("zagreb", "The user moved to Zagreb.", subject="user", predicate="residence"),
            fact("erik", "Erik works as a dentist.", subject="Erik", predicate="job"),
            fact("ux", "The user works as a UX designer.", subject="user", predicate="job"),
            msg("c1", "m1", "my friend Erik is a dentist and never shuts up about flossing"),
        )
        where = await env.search("where do I live?", ("lexical", "vector"), explain=True)
        assert where[0].id == "zagreb"
        assert where[0].signals is not None
        assert "about" in where[0].signals["legs"]
        job = await env.search("what is my job?", ("lexical", "vector"), explain=True)
        ranked = [h.id for h in job]
        assert ranked.index("ux") < ranked.index("erik")
        erik = next(h for h in job if h.id == "erik")
        assert erik.signals is not None
        assert erik.signals["multipliers"]["subject"] == OTHER_SUBJECT_FACTOR
        theirs = [h.id for h in await env.search("what does Erik do?", ("lexical", "vector"))]
        assert theirs.index("erik") < theirs.index("ux")
        messages = await env.search("where do I live?", ("lexical",), scope=("messages",))
        assert all(h.kind == "message" for h in messages)


async def test_for_a_question_about_the_user_the_users_own_words_rank_above_the_assistants(
    backend: Backend,
) -> None:
    async with recall_env(backend) as env:
        await env.add(
            msg("c1", "m1", "I work as a barista in Manchester"),
            msg(
                "c1",
                "m2",
                "Lisbon has a lower cost of living, so working as a barista there pays less",
                role="assistant",
            ),
        )
        asked = await env.search("what do I do for a living?", ("lexical",), explain=True)
        ranked = [h.id for h in asked]
        assert ranked.index("m1") < ranked.index("m2")
        theirs = next(h for h in asked if h.id == "m2")
        assert theirs.signals is not None
        assert theirs.signals["multipliers"]["speaker"] == ASSISTANT_FACTOR
        # A question about no one in particular weighs the assistant's words like any.
        plain = await env.search("cost of living barista", ("lexical",), explain=True)
        assert all("speaker" not in (h.signals or {}).get("multipliers", {}) for h in plain)
