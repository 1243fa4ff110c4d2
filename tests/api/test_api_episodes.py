"""``/v1/episodes``: listing, episodic recall ranked by recency x relevance x importance,
validation by a person, and a clear 4xx that writes nothing for bad input."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from daemon.api.keys import STATE
from daemon.recall.episodes import importance_factor, recency
from tests.api_fixtures import Api, api_client
from tests.consolidation_fixtures import an_episode, append_episodes

WEEK = timedelta(days=7)


async def _search(api: Api, **body: Any) -> list[dict[str, Any]]:
    status, answer = await api.call("POST", "/v1/episodes/search", body)
    assert status == 200, answer
    hits: list[dict[str, Any]] = answer["episodes"]
    return hits


async def test_search_ranks_by_recency_relevance_and_importance(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        now = api.clock.now()
        kayak = "Yara went kayaking on the river with Ana"
        fresh, old, dull, other = await append_episodes(
            api,
            an_episode(kayak, 0.8, now - timedelta(days=1)),
            an_episode(kayak, 0.8, now - 4 * WEEK),  # the same, four half-lives older
            an_episode(kayak, 0.0, now - timedelta(days=1)),  # the same age, no importance
            an_episode("Bob fixed the printer driver", 1.0, now),
        )
        for episode_id in (fresh, old, dull, other):
            status, body = await api.call("POST", f"/v1/episodes/{episode_id}/validate", {})
            assert status == 200, body
        hits = await _search(api, query="kayaking on the river")
        kayaks = [h["episode_id"] for h in hits if h["episode_id"] != other]
        assert kayaks == [fresh, dull, old]
        first = hits[0]
        factors = first["factors"]
        assert factors["recency"] == pytest.approx(recency(timedelta(days=1), WEEK), abs=1e-6)
        assert factors["importance"] == pytest.approx(importance_factor(0.8))
        assert first["score"] == pytest.approx(
            factors["relevance"] * factors["recency"] * factors["importance"], rel=1e-5
        )
        assert [h["score"] for h in hits] == sorted((h["score"] for h in hits), reverse=True)
        assert len(await _search(api, query="kayaking", top_k=1)) == 1
        assert recency(WEEK, WEEK) == 0.5  # a half-life halves


async def test_quarantined_episodes_are_left_out_unless_asked_for(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        [waiting] = await append_episodes(
            api, an_episode("Yara adopted a greyhound", 0.9, api.clock.now(), "chat-9")
        )
        assert await _search(api, query="greyhound") == []
        [hit] = await _search(api, query="greyhound", include_quarantined=True)
        assert (hit["episode_id"], hit["status"]) == (waiting, "quarantined")
        assert (
            await _search(api, query="greyhound", include_quarantined=True, conversation_id="x")
            == []
        )
        status, listed = await api.call(
            "GET", "/v1/episodes?status=quarantined&conversation_id=chat-9"
        )
        assert [e["episode_id"] for e in listed["episodes"]] == [waiting]
        status, body = await api.call(
            "POST", f"/v1/episodes/{waiting}/validate", {"note": "I was there"}
        )
        assert (status, body["status"]) == (200, "active")
        status, episode = await api.call("GET", f"/v1/episodes/{waiting}")
        assert (episode["status"], episode["validated_by"]) == ("active", "api")
        assert [h["episode_id"] for h in await _search(api, query="greyhound")] == [waiting]
        _, listed = await api.call("GET", "/v1/episodes?status=quarantined")
        assert listed["episodes"] == []


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "names"),
    [
        ("POST", "/v1/episodes/search", {}, 400, "query"),
        ("POST", "/v1/episodes/search", {"query": "   "}, 400, "query"),
        ("POST", "/v1/episodes/search", {"query": 3}, 400, "query"),
        ("POST", "/v1/episodes/search", {"query": "x", "top_k": 0}, 400, "top_k"),
        ("POST", "/v1/episodes/search", {"query": "x", "top_k": 101}, 400, "top_k"),
        (
            "POST",
            "/v1/episodes/search",
            {"query": "x", "include_quarantined": "yes"},
            400,
            "include_quarantined",
        ),
        ("POST", "/v1/episodes/search", {"query": "x", "colour": "red"}, 400, "colour"),
        ("GET", "/v1/episodes?status=lost", None, 400, "status"),
        ("GET", "/v1/episodes?limit=0", None, 400, "limit"),
        ("GET", "/v1/episodes/nope", None, 404, "nope"),
        ("POST", "/v1/episodes/nope/validate", {}, 404, "nope"),
        ("POST", "/v1/episodes/ep-1/validate", {"note": 5}, 400, "note"),
    ],
)
async def test_bad_input_is_a_clear_4xx_that_writes_nothing(
    tmp_path: Path, method: str, path: str, body: Any, status: int, names: str
) -> None:
    async with api_client(tmp_path) as api:
        store = api.client.app[STATE].require_store()
        head = await store.head()
        got, answer = await api.call(method, path, body)
        assert got == status, answer
        assert names in answer["error"]["message"] + str(answer["error"]["details"])
        assert await store.head() == head


async def test_validating_twice_is_a_conflict(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        [episode] = await append_episodes(
            api, an_episode("Yara sold her car", 0.7, api.clock.now())
        )
        status, _ = await api.call("POST", f"/v1/episodes/{episode}/validate")
        assert status == 200
        store = api.client.app[STATE].require_store()
        head = await store.head()
        status, body = await api.call("POST", f"/v1/episodes/{episode}/validate")
        assert (status, body["error"]["code"]) == (409, "already_active")
        assert await store.head() == head
