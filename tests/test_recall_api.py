"""POST /v1/search through the app: hits, metadata as stored, explain, validation, namespaces,
and the RecallRecorded events a search leaves in the log."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from daemon.backend import Backend
from events.recall_events import RecallRecorded
from tests.api_fixtures import Api, api_client


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
