"""POST /v1/search through the app: hits, metadata as stored, explain, validation, namespaces,
and the RecallRecorded events a search leaves in the log."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from daemon.api import search as search_api
from daemon.backend import Backend
from daemon.config import load_config
from daemon.recall import staleness
from daemon.recall.service import make_embedder
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
    store = Backend(tmp_path).open_store()
    await store.open()
    try:
        recorded = [e async for e in store.read() if isinstance(e.event, RecallRecorded)]
    finally:
        await store.close()
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


async def test_recall_settings_follow_a_config_reload(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``[recall]`` reaches the API settings; a reload changing ``embedder`` switches the
    recall service to it (re-embedding in the background) and ``top_k`` applies at once."""
    small = _CountingEmbedder()
    real_make = make_embedder

    def make(name: str = "hashed", config: Mapping[str, Any] | None = None) -> Any:
        return small if name == "small" else real_make(name, config)

    monkeypatch.setattr(search_api, "make_embedder", make)
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
        assert (settings.recall_embedder, settings.recall_top_k) == ("hashed", 2)
        assert settings.recall_candidate_top_k == 20
        assert len(await search()) == 2

        cfg.write_text('[recall]\nembedder = "small"\ntop_k = 1\n', encoding="utf-8")
        assert await server.async_reload() is True
        settings = state.settings
        assert (settings.recall_embedder, settings.recall_top_k) == ("small", 1)
        assert settings.recall_candidate_top_k == 60
        assert len(await search()) == 1
        # The embedder watcher picks the new name up and re-embeds the documents with it.
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
