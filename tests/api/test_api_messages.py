"""The messages endpoints through aiohttp's test client."""

from __future__ import annotations

from pathlib import Path

from tests.api_fixtures import api_client


async def test_post_message_returns_id_and_position(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        status, body = await api.call(
            "POST", "/v1/conversations/c1/messages", {"role": "user", "content": "hi"}
        )
        assert status == 201
        assert body["position"] == 1
        assert isinstance(body["message_id"], str)
        status, again = await api.call(
            "POST", "/v1/conversations/c1/messages", {"role": "assistant", "content": "hello"}
        )
        assert status == 201
        assert again["position"] == 2
        assert again["message_id"] != body["message_id"]


async def test_idempotency_key_retry_returns_original(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        msg = {"role": "user", "content": "once", "idempotency_key": "k-1"}
        s1, first = await api.call("POST", "/v1/conversations/c1/messages", msg)
        s2, second = await api.call("POST", "/v1/conversations/c1/messages", msg)
        assert (s1, s2) == (201, 201)
        assert first == second
        s3, via_header = await api.call(
            "POST",
            "/v1/conversations/c1/messages",
            {"role": "user", "content": "twice"},
            headers={"Idempotency-Key": "k-2"},
        )
        s4, retried = await api.call(
            "POST",
            "/v1/conversations/c1/messages",
            {"role": "user", "content": "twice"},
            headers={"Idempotency-Key": "k-2"},
        )
        assert (s3, s4) == (201, 201)
        assert via_header == retried
        assert via_header["position"] == first["position"] + 1


async def test_idempotency_key_reused_elsewhere_is_a_conflict(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        msg = {"role": "user", "content": "x", "idempotency_key": "k"}
        assert (await api.call("POST", "/v1/conversations/a/messages", msg))[0] == 201
        status, body = await api.call("POST", "/v1/conversations/b/messages", msg)
        assert status == 409
        assert body["error"]["code"] == "idempotency_conflict"


async def test_batch_is_all_or_nothing(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        batch = {
            "messages": [
                {"role": "user", "content": "one"},
                {"role": "assistant", "content": [{"type": "text", "text": "two"}]},
            ]
        }
        status, body = await api.call("POST", "/v1/conversations/c/messages:batch", batch)
        assert status == 201
        assert [r["position"] for r in body["results"]] == [1, 2]
        bad = {"messages": [{"role": "user", "content": "ok"}, {"role": "robot", "content": "x"}]}
        status, body = await api.call("POST", "/v1/conversations/c/messages:batch", bad)
        assert status == 400
        assert body["error"]["details"]["field"] == "messages[1].role"
        status, health = await api.call("GET", "/v1/health")
        assert status == 200
        assert health["last_position"] == 2
