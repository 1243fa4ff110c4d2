"""Read-your-writes through the API: messages with forks, facts, the event log and its stream."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

import orjson

from tests.api_fixtures import T0, api_client


async def test_list_messages_and_fork_lineage(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        ids = []
        for i in range(3):
            status, body = await api.call(
                "POST",
                "/v1/conversations/c1/messages",
                {"role": "user", "content": f"m{i}", "metadata": {"i": i}},
            )
            assert status == 201
            ids.append(body["message_id"])
        status, listed = await api.call("GET", "/v1/conversations/c1/messages")
        assert status == 200
        assert [m["message_id"] for m in listed["messages"]] == ids
        first = listed["messages"][0]
        assert first["content"] == "m0"
        assert first["metadata"] == {"i": 0}
        assert first["created_at"] == T0.isoformat()
        assert first["role"] == "user"
        assert first["name"] is None
        status, page = await api.call(
            "GET", f"/v1/conversations/c1/messages?after={ids[0]}&limit=1"
        )
        assert [m["message_id"] for m in page["messages"]] == [ids[1]]

        status, fork = await api.call(
            "POST", "/v1/conversations/c1/fork", {"through_message_id": ids[1]}
        )
        assert status == 201
        fork_id = fork["conversation_id"]
        status, _ = await api.call(
            "POST", f"/v1/conversations/{fork_id}/messages", {"role": "assistant", "content": "f"}
        )
        assert status == 201
        status, forked = await api.call("GET", f"/v1/conversations/{fork_id}/messages")
        assert [m["content"] for m in forked["messages"]] == ["m0", "m1", "f"]

        status, whole = await api.call("POST", "/v1/conversations/c1/fork", None)
        assert status == 201
        status, copy = await api.call(
            "GET", f"/v1/conversations/{whole['conversation_id']}/messages"
        )
        assert [m["content"] for m in copy["messages"]] == ["m0", "m1", "m2"]


async def test_fork_and_list_refuse_unknown_things(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        status, body = await api.call("GET", "/v1/conversations/nope/messages")
        assert (status, body["error"]["code"]) == (404, "not_found")
        status, body = await api.call("POST", "/v1/conversations/nope/fork", {})
        assert (status, body["error"]["code"]) == (404, "not_found")
        await api.call("POST", "/v1/conversations/c/messages", {"role": "user", "content": "x"})
        status, body = await api.call(
            "POST", "/v1/conversations/c/fork", {"through_message_id": "missing"}
        )
        assert (status, body["error"]["details"]["field"]) == (400, "through_message_id")
        status, body = await api.call("GET", "/v1/conversations/c/messages?after=missing")
        assert (status, body["error"]["details"]["field"]) == (400, "after")
        status, body = await api.call("POST", "/v1/conversations/c/fork", {"strategy": "copy"})
        assert (status, body["error"]["details"]["field"]) == (400, "strategy")
        status, body = await api.call("POST", "/v1/conversations/c/compaction", {})
        assert status == 201
        status, events = await api.call("GET", "/v1/events?stream=conversation:c")
        assert [e["event_type"] for e in events["events"]] == [
            "MessageAppended",
            "CompactionAnnounced",
        ]
        assert events["events"][1]["data"]["at"] == T0.isoformat()


async def test_fact_lifecycle(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        status, written = await api.call(
            "POST", "/v1/facts", {"text": "likes tea", "tags": ["drink"], "subject": "user"}
        )
        assert status == 201
        fid = written["fact_id"]
        status, fact = await api.call("GET", f"/v1/facts/{fid}")
        assert status == 200
        assert (fact["text"], fact["status"], fact["tags"]) == ("likes tea", "active", ["drink"])
        assert fact["valid_from"] == T0.isoformat()

        status, quarantined = await api.call(
            "POST", "/v1/facts", {"text": "maybe cats", "provenance": "extraction"}
        )
        qid = quarantined["fact_id"]
        _, listed = await api.call("GET", "/v1/facts")
        assert [f["fact_id"] for f in listed["facts"]] == [fid]
        _, listed = await api.call("GET", "/v1/facts?include_quarantined=true")
        assert [f["fact_id"] for f in listed["facts"]] == [fid, qid]
        status, _ = await api.call("POST", f"/v1/facts/{qid}/validate", {"note": "confirmed"})
        assert status == 200
        _, validated = await api.call("GET", f"/v1/facts/{qid}")
        assert (validated["status"], validated["validation_note"]) == ("active", "confirmed")

        api.clock.advance(timedelta(days=1))
        status, newer = await api.call(
            "POST", f"/v1/facts/{fid}/supersede", {"text": "likes coffee", "tags": ["drink"]}
        )
        assert status == 201
        nid = newer["fact_id"]
        _, listed = await api.call("GET", "/v1/facts?tag=drink")
        assert [f["fact_id"] for f in listed["facts"]] == [nid]
        _, then = await api.call(
            "GET", f"/v1/facts?as_of={(T0 + timedelta(hours=1)).isoformat()}".replace("+", "%2B")
        )
        assert fid in [f["fact_id"] for f in then["facts"]]
        status, body = await api.call("POST", f"/v1/facts/{fid}/supersede", {"text": "again"})
        assert (status, body["error"]["code"]) == (409, "fact_superseded")
        status, history = await api.call("GET", f"/v1/facts/{nid}/history")
        assert [f["fact_id"] for f in history["chain"]] == [fid, nid]

        status, forgotten = await api.call("DELETE", f"/v1/facts/{nid}?reason=wrong")
        assert status == 200
        status, again = await api.call("DELETE", f"/v1/facts/{nid}")
        assert (status, again) == (200, forgotten)
        status, _ = await api.call("GET", f"/v1/facts/{nid}")
        assert status == 404
        _, listed = await api.call("GET", "/v1/facts?tag=drink")
        assert listed["facts"] == []
        status, body = await api.call("POST", "/v1/facts/unknown/validate", {})
        assert (status, body["error"]["code"]) == (404, "not_found")


async def test_fact_idempotency_and_validation(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        hdr = {"Idempotency-Key": "f-1"}
        s1, a = await api.call("POST", "/v1/facts", {"text": "x"}, headers=hdr)
        s2, b = await api.call("POST", "/v1/facts", {"text": "x"}, headers=hdr)
        assert (s1, s2, a) == (201, 201, b)
        sup = {"Idempotency-Key": "s-1"}
        s1, c = await api.call(
            "POST", f"/v1/facts/{a['fact_id']}/supersede", {"text": "y"}, headers=sup
        )
        s2, d = await api.call(
            "POST", f"/v1/facts/{a['fact_id']}/supersede", {"text": "y"}, headers=sup
        )
        assert (s1, s2, c) == (201, 201, d)
        bad = [
            ({"text": ""}, "text"),
            ({"text": "x", "confidence": 2}, "confidence"),
            ({"text": "x", "owner": "bob"}, "owner"),
            ({"text": "x", "tags": ["a", 1]}, "tags[1]"),
            (
                {
                    "text": "x",
                    "valid_from": "2026-01-02T00:00:00Z",
                    "valid_to": "2026-01-01T00:00:00Z",
                },
                "valid_to",
            ),
            ({"text": "x", "status": "active"}, "status"),
        ]
        for body, field in bad:
            status, err = await api.call("POST", "/v1/facts", body)
            assert (status, err["error"]["details"]["field"]) == (400, field), body
        status, err = await api.call("GET", "/v1/facts?status=gone")
        assert (status, err["error"]["details"]["field"]) == (400, "status")
        status, err = await api.call("GET", "/v1/facts?limit=0")
        assert (status, err["error"]["details"]["field"]) == (400, "limit")
        status, err = await api.call("GET", "/v1/facts?colour=red")
        assert (status, err["error"]["details"]["field"]) == (400, "colour")


async def test_events_and_live_stream(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        await api.call("POST", "/v1/conversations/a/messages", {"role": "user", "content": "1"})
        await api.call(
            "POST",
            "/v1/conversations/a/messages",
            {"role": "user", "content": "other"},
            namespace="x",
        )
        status, body = await api.call("GET", "/v1/events?after=0&limit=10")
        assert status == 200
        assert [e["position"] for e in body["events"]] == [1]
        assert body["last_position"] == 1

        resp = await api.client.get("/v1/events/stream?after=0")
        assert resp.status == 200
        assert resp.headers["Content-Type"].startswith("text/event-stream")

        async def next_event() -> tuple[int, dict[str, object]]:
            ident = None
            while True:
                line = (await resp.content.readline()).decode().rstrip("\n")
                if line.startswith("id: "):
                    ident = int(line[4:])
                elif line.startswith("data: "):
                    assert ident is not None
                    return ident, orjson.loads(line[6:])

        first = await asyncio.wait_for(next_event(), 5)
        assert first[0] == 1
        await api.call(
            "POST", "/v1/conversations/a/messages", {"role": "user", "content": "x"}, namespace="x"
        )
        await api.call("POST", "/v1/conversations/a/messages", {"role": "user", "content": "2"})
        live = await asyncio.wait_for(next_event(), 5)
        assert live[0] == 4
        data = live[1]["data"]
        assert isinstance(data, dict)
        assert data["content"] == "2"
        resp.close()
