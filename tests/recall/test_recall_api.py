"""POST /v1/search through the app: hits, metadata as stored, explain, validation, namespaces,
and the RecallRecorded events a search leaves in the log."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from daemon.backend import Backend
from daemon.config import load_config
from daemon.recall import staleness
from daemon.server import ServeOptions
from events.recall_events import RecallRecorded
from plugins.embedders.base import Vectors
from plugins.embedders.hashed import HashedNgramEmbedder
from plugins.registry import build_plugins
from tests.api_fixtures import Api, api_client, running


async def _seed(api: Api, namespace: str | None = None) -> None:
    messages = [
        ("Caroline", "I went to a support group yesterday and it was powerful."),
        ("Melanie", "That sounds great! What happened there?"),
        ("Caroline", "Yes, they talked about adoption agencies in Sweden."),
        ("Melanie", "I painted a sunrise over the lake last week."),
    ]
    for i, (name, text) in enumerate(messages):
        status, _ = await api.call(
            "POST",
            "/v1/conversations/c1/messages",
            {"role": "user", "content": text, "name": name, "metadata": {"i": i, "x": [1, "a"]}},
            namespace=namespace,
        )
        assert status == 201
    status, _ = await api.call(
        "POST",
        "/v1/facts",
        {"text": "Melanie paints sunrises", "tags": ["art"], "subject": "Melanie"},
        namespace=namespace,
    )
    assert status == 201


async def _search(api: Api, body: dict[str, Any], namespace: str | None = None) -> Any:
    status, answer = await api.call("POST", "/v1/search", body, namespace=namespace)
    assert status == 200, answer
    return answer


async def _recorded(data_dir: Path) -> list[Any]:
    """The ``RecallRecorded`` events in the log of a stopped daemon."""
    store = Backend(data_dir).open_store()
    await store.open()
    try:
        return [e async for e in store.read() if isinstance(e.event, RecallRecorded)]
    finally:
        await store.close()


async def test_search_returns_messages_and_facts_with_metadata(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        await _seed(api)
        answer = await _search(api, {"query": "who painted a sunrise", "explain": True})
        hits = answer["hits"]
        kinds = {(h["kind"], h["text"]) for h in hits}
        assert ("fact", "Melanie paints sunrises") in kinds
        msg = next(h for h in hits if h["kind"] == "message" and "sunrise" in h["text"])
        assert msg["metadata"] == {"i": 3, "x": [1, "a"]}
        assert msg["conversation_id"] == "c1"
        assert msg["signals"]["legs"]["lexical"]["rank"] >= 1
        assert "trust" in msg["signals"]["multipliers"]
        assert hits == sorted(hits, key=lambda h: -h["score"])

        only = await _search(api, {"query": "sunrise", "scope": ["facts"]})
        assert {h["kind"] for h in only["hits"]} == {"fact"}
        tagged = await _search(api, {"query": "sunrise", "tags": ["nope"]})
        assert tagged["hits"] == []


async def test_search_validation_names_the_field(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        cases: list[tuple[dict[str, Any], str]] = [
            ({}, "query"),
            ({"query": "x", "bogus": 1}, "bogus"),
            ({"query": "x", "top_k": "ten"}, "top_k"),
            ({"query": "x", "scope": ["files"]}, "scope[0]"),
            ({"query": "x", "expand_hops": 3}, "expand_hops"),
            ({"query": "x", "decay": {}}, "decay.tau_days"),
            ({"query": "x", "fusion": {"weights": {"nope": 1}}}, "fusion.weights.nope"),
            ({"query": "x", "top_k": 50, "candidate_top_k": 10}, "candidate_top_k"),
            ({"query": "x", "as_of": "yesterday"}, "as_of"),
        ]
        for body, field in cases:
            status, answer = await api.call("POST", "/v1/search", body)
            assert status == 400, (body, answer)
            assert answer["error"]["details"]["field"] == field, answer


async def test_search_is_namespace_isolated_and_recorded(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        await _seed(api, namespace="alpha")
        inside = await _search(api, {"query": "adoption agencies"}, namespace="alpha")
        outside = await _search(api, {"query": "adoption agencies"}, namespace="beta")
        assert inside["hits"]
        assert outside["hits"] == []
        returned = [(h["kind"], h["id"]) for h in inside["hits"]]
    recorded = await _recorded(tmp_path)
    by_ns = {e.namespace: e.event for e in recorded}
    assert set(by_ns) == {"alpha", "beta"}
    alpha = by_ns["alpha"]
    assert isinstance(alpha, RecallRecorded)
    assert [(h["kind"], h["id"]) for h in alpha.recalls[0]["hits"]] == returned
    assert alpha.recalls[0]["query"] == "adoption agencies"


class _CountingEmbedder(HashedNgramEmbedder):
    """A second embedder (another id) that counts the texts it is asked to embed."""

    def __init__(self) -> None:
        super().__init__(dim=32)
        self.texts = 0

    async def embed(self, texts: Sequence[str]) -> Vectors:
        self.texts += len(texts)
        return await super().embed(texts)


async def test_recall_settings_follow_a_config_reload(tmp_path: Path) -> None:
    """``[recall]`` reaches the API settings; a reload changing ``embedder`` switches the
    recall service to it (re-embedding in the background) and ``top_k`` applies at once."""
    small = _CountingEmbedder()
    plugins = build_plugins(entry_points=False)  # the reload is validated against these names
    plugins.add("embedder", "small", lambda _config: small)
    cfg = tmp_path / "memoryd.toml"
    cfg.write_text("[recall]\ntop_k = 2\ncandidate_top_k = 20\n", encoding="utf-8")
    overrides = {
        "storage.data_dir": str(tmp_path / "data"),
        "server.socket": str(tmp_path / "run" / "memoryd.sock"),
        "retrospective.enabled": False,
    }
    config = load_config(cfg, {}, overrides)
    options = ServeOptions(config_path=cfg, overrides=overrides, env={})
    connector = aiohttp.UnixConnector(path=str(config.server.socket))
    async with (
        running(config, options, plugins) as (server, _),
        aiohttp.ClientSession(connector=connector) as http,
    ):

        async def search() -> list[Any]:
            resp = await http.post("http://memoryd/v1/search", json={"query": "support group"})
            assert resp.status == 200
            hits: list[Any] = (await resp.json())["hits"]
            return hits

        for i in range(4):
            resp = await http.post(
                "http://memoryd/v1/conversations/c1/messages",
                json={"role": "user", "content": f"the support group met, day {i}"},
            )
            assert resp.status == 201
        state = server._state
        assert state is not None
        settings = state.settings
        assert (settings.recall.embedder, settings.recall.top_k) == ("hashed", 2)
        assert settings.recall.candidate_top_k == 20
        assert len(await search()) == 2

        cfg.write_text('[recall]\nembedder = "small"\ntop_k = 1\n', encoding="utf-8")
        assert await server.async_reload() is True
        settings = state.settings
        assert (settings.recall.embedder, settings.recall.top_k) == ("small", 1)
        assert settings.recall.candidate_top_k == 60
        assert len(await search()) == 1
        # The reload switched the recall service to the new embedder, which re-embeds.
        for _ in range(1000):
            if small.texts >= 4:
                break
            await asyncio.sleep(0.01)
        assert small.texts >= 4


async def test_a_message_whose_facts_were_replaced_ranks_below_what_is_true_now(
    tmp_path: Path,
) -> None:
    async with api_client(tmp_path) as api:
        status, said = await api.call(
            "POST", "/v1/conversations/c1/messages", {"role": "user", "content": "my manager dana"}
        )
        assert status == 201
        dana = said["message_id"]
        status, _ = await api.call(
            "POST",
            "/v1/facts",
            {"text": "Dana is the user's manager.", "source_message_ids": [dana]},
        )
        assert status == 201

        async def scores(**extra: Any) -> dict[str, float]:
            body = {"query": "my manager dana", "top_k": 5, **extra}
            return {h["id"]: h["score"] for h in (await _search(api, body))["hits"]}

        # Its fact is current: the message ranks as it always did.
        assert (await scores())[dana] == pytest.approx(
            (await scores(as_of="2100-01-01T00:00:00Z"))[dana]
        )
        status, kevin = await api.call(
            "POST", "/v1/facts", {"text": "Kevin is the user's manager."}
        )
        assert (status, kevin["outcome"]) == (201, "updated")
        now, as_said = await scores(), await scores(as_of="2100-01-01T00:00:00Z")
        assert now[dana] == pytest.approx(as_said[dana] * staleness.REPLACED_FACTOR)
        assert now[kevin["fact_id"]] > now[dana]


async def test_iterative_search_explains_the_gate_and_each_pass_and_is_recorded(
    tmp_path: Path,
) -> None:
    async with api_client(tmp_path) as api:
        await _seed(api)
        question = "When did Caroline go to the support group and what did they talk about?"
        answer = await _search(
            api, {"query": question, "iterative": {"max_iterations": 3}, "explain": True}
        )
        explained = answer["iterative"]
        assert explained["gate"]["hard"] is True
        assert explained["gate"]["score"] >= 0.5
        assert explained["gate"]["signals"]["temporal"] == 1.0
        passes = explained["passes"]
        assert passes[0] == {
            "query": question,
            "source": "question",
            "found": passes[0]["found"],
            "added": passes[0]["added"],
        }
        assert len(passes) == 1  # no offline reformulation is on by default
        assert explained["authors"]["names"] == ["caroline"]
        said = {h["id"] for h in answer["hits"] if "support group" in h["text"]}
        assert said <= set(explained["authors"]["hits"])
        assert set(passes[0]["added"]) == {h["id"] for h in answer["hits"]}
        assert len(answer["hits"]) <= 10

        capped = await _search(
            api, {"query": question, "top_k": 2, "iterative": {"max_iterations": 99}}
        )
        assert len(capped["hits"]) == 2
        assert "iterative" not in capped  # explain not asked

        easy = await _search(
            api, {"query": "sunrise", "iterative": {"difficulty_threshold": 0.9}, "explain": True}
        )
        assert easy["iterative"]["gate"]["hard"] is False
        assert len(easy["iterative"]["passes"]) == 1
        single = await _search(api, {"query": "sunrise", "explain": True})
        assert [h["id"] for h in easy["hits"]] == [h["id"] for h in single["hits"]]

        forced = await _search(
            api, {"query": "sunrise", "iterative": {"force_hard": True}, "explain": True}
        )
        assert forced["iterative"]["gate"]["forced"] is True
    recorded = await _recorded(tmp_path)
    queries = [r["query"] for e in recorded for r in e.event.recalls]
    assert queries.count(question) == 2  # one entry per search, not one per pass


async def test_iterative_validation_names_the_field(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        cases: list[tuple[Any, str]] = [
            ("deep", "iterative"),
            ({"max_iterations": "3"}, "iterative.max_iterations"),
            ({"max_iterations": 2.5}, "iterative.max_iterations"),
            ({"difficulty_threshold": 1.5}, "iterative.difficulty_threshold"),
            ({"difficulty_threshold": -0.1}, "iterative.difficulty_threshold"),
            ({"force_hard": "yes"}, "iterative.force_hard"),
            ({"hops": 2}, "iterative.hops"),
        ]
        for value, field in cases:
            status, answer = await api.call(
                "POST", "/v1/search", {"query": "x", "iterative": value}
            )
            assert status == 400, (value, answer)
            assert answer["error"]["details"]["field"] == field, answer


async def test_owner_takes_a_list(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        for text, owner in (
            ("tea with lemon", "user"),
            ("tea with milk", "agent"),
            ("tea with honey", "shared"),
        ):
            status, _ = await api.call("POST", "/v1/facts", {"text": text, "owner": owner})
            assert status == 201

        async def owners(value: Any) -> set[str]:
            answer = await _search(api, {"query": "tea", "scope": ["facts"], "owner": value})
            return {h["metadata"]["owner"] for h in answer["hits"]}

        assert await owners("user") == {"user"}
        assert await owners(["user", "agent"]) == {"user", "agent"}
        assert await owners(["shared"]) == {"shared"}
        assert await owners(None) == {"user", "agent", "shared"}
        for value, field in ((["user", "boss"], "owner[1]"), ([], "owner"), (3, "owner")):
            status, answer = await api.call("POST", "/v1/search", {"query": "tea", "owner": value})
            assert status == 400, (value, answer)
            assert answer["error"]["details"]["field"] == field, answer


async def test_the_vector_leg_adds_no_hit_below_its_similarity_floor(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        await _seed(api)
        for text in ("The user lives in Lyon", "tea with milk", "We adopted a greyhound"):
            status, _ = await api.call("POST", "/v1/facts", {"text": text})
            assert status == 201
        answer = await _search(api, {"query": "Lyon", "explain": True})
        assert [h["text"] for h in answer["hits"]] == ["The user lives in Lyon"]
        vector_only = await _search(
            api, {"query": "Lyon", "fusion": {"weights": {"lexical": 0}}, "explain": True}
        )
        for hit in vector_only["hits"]:
            assert hit["signals"]["legs"]["vector"]["score"] >= 0.15


async def test_a_word_repeated_by_neighbouring_turns_keeps_its_weight(tmp_path: Path) -> None:
    # "live" is in most rows' neighbouring-turns text, which made bm25's idf of it
    # zero; the residence fact then scored like any fact about the user.
    async with api_client(tmp_path) as api:
        turns = [
            "hey, how are you?",
            "I live in Lyon now, moved last spring",
            "nice! do you like living there?",
            "yes, living in Lyon is great, we live near the river",
            "what do you do for work?",
            "I work at Acme as an engineer",
        ]
        for text in turns:
            status, _ = await api.call(
                "POST", "/v1/conversations/c1/messages", {"role": "user", "content": text}
            )
            assert status == 201
        for text in ("The user works at Acme", "The user has a cat", "The user lives in Lyon"):
            status, _ = await api.call("POST", "/v1/facts", {"text": text})
            assert status == 201
        answer = await _search(
            api,
            {
                "query": "where does the user live",
                "scope": ["facts"],
                "fusion": {"weights": {"vector": 0}},
                "explain": True,
            },
        )
        hits = answer["hits"]
        assert hits[0]["text"] == "The user lives in Lyon"
        lexical = [h["signals"]["legs"]["lexical"]["score"] for h in hits]
        assert lexical[0] > lexical[1] * 1.2


async def test_hyde_and_multi_query_without_a_model_are_no_ops(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        await _seed(api)
        plain = await _search(api, {"query": "who painted a sunrise"})
        answer = await _search(
            api, {"query": "who painted a sunrise", "hyde": True, "multi_query": 3, "explain": True}
        )
        assert [h["id"] for h in answer["hits"]] == [h["id"] for h in plain["hits"]]
        assert answer["model_passes"] == {
            "hyde": {"skipped": "no model"},
            "multi_query": {"skipped": "no model"},
        }
        for body, field in (
            ({"hyde": "yes"}, "hyde"),
            ({"multi_query": 0}, "multi_query"),
            ({"multi_query": 6}, "multi_query"),
            ({"multi_query": 2.5}, "multi_query"),
        ):
            status, error = await api.call("POST", "/v1/search", {"query": "x", **body})
            assert status == 400, (body, error)
            assert error["error"]["details"]["field"] == field


async def test_a_later_word_on_the_users_present_ranks_above_an_older_fact(
    tmp_path: Path,
) -> None:
    # The change was never read into a fact: "Tom is the user's manager." stays current, and
    # the later message that says otherwise answers "who is my manager?" first.
    async with api_client(tmp_path) as api:
        said = []
        for at, content in (
            ("2024-03-01T09:00:00Z", "my manager is Tom, he's fine"),
            ("2024-06-01T09:00:00Z", "my old manager left, the new one is Priya"),
        ):
            status, body = await api.call(
                "POST",
                "/v1/conversations/c1/messages",
                {"role": "user", "content": content, "created_at": at},
            )
            assert status == 201, body
            said.append(body["message_id"])
        status, tom = await api.call(
            "POST",
            "/v1/facts",
            {"text": "Tom is the user's manager.", "source_message_ids": [said[0]]},
        )
        assert status == 201, tom
        body = {"query": "who is my manager?", "top_k": 5}
        now = [h["id"] for h in (await _search(api, body))["hits"]]
        assert now.index(said[1]) < now.index(tom["fact_id"])
        # A read as of a time is no question about the present: the legs' ranking stands, and
        # in it the fact led.
        then = {**body, "as_of": "2100-01-01T00:00:00Z"}
        legs = [h["id"] for h in (await _search(api, then))["hits"]]
        assert legs.index(tom["fact_id"]) < legs.index(said[1])
