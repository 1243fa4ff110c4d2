"""An idempotency key protects one request: a retry gets the original answer, and the same key
with a different request is ``409 idempotency_conflict`` that writes nothing, on every route."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.api_fixtures import Api, api_client

MSG = "/v1/conversations/c1/messages"
KEY = {"Idempotency-Key": "k1"}


async def head(api: Api) -> int:
    _, health = await api.call("GET", "/v1/health")
    position: int = health["last_position"]
    return position


async def assert_conflict(api: Api, status: int, body: Any, before: int) -> None:
    assert status == 409, body
    assert body["error"]["code"] == "idempotency_conflict"
    assert await head(api) == before, "a conflicting retry must write nothing"


async def test_a_message_key_reused_with_other_content_is_a_conflict(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        first = {"role": "user", "content": "hello", "idempotency_key": "m1"}
        status, written = await api.call("POST", MSG, first)
        assert status == 201
        # The same request, its JSON spelled differently: the original answer.
        spelled = b'{"idempotency_key":"m1",  "content":"hello","role":"user"}'
        status, again = await api.call("POST", MSG, raw=spelled)
        assert (status, again) == (201, written)
        before = await head(api)
        status, body = await api.call("POST", MSG, {**first, "content": "something else"})
        await assert_conflict(api, status, body, before)
        status, listed = await api.call("GET", MSG)
        assert [m["content"] for m in listed["messages"]] == ["hello"]


async def test_a_header_key_reused_with_another_body_is_a_conflict(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        status, _ = await api.call("POST", MSG, {"role": "user", "content": "a"}, headers=KEY)
        assert status == 201
        before = await head(api)
        status, body = await api.call("POST", MSG, {"role": "user", "content": "b"}, headers=KEY)
        await assert_conflict(api, status, body, before)
        assert body["error"]["details"]["field"] == "Idempotency-Key"


async def test_a_batch_retried_with_other_messages_is_a_conflict(tmp_path: Path) -> None:
    batch = {"messages": [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]}
    async with api_client(tmp_path) as api:
        status, written = await api.call("POST", f"{MSG}:batch", batch, headers=KEY)
        assert status == 201
        status, again = await api.call("POST", f"{MSG}:batch", batch, headers=KEY)
        assert (status, again) == (201, written)
        before = await head(api)
        changed = {"messages": [{"role": "user", "content": "a"}, {"role": "user", "content": "c"}]}
        status, body = await api.call("POST", f"{MSG}:batch", changed, headers=KEY)
        await assert_conflict(api, status, body, before)


@pytest.mark.parametrize("route", ["facts", "supersede", "validate"])
async def test_fact_routes_refuse_a_key_reused_for_another_request(
    tmp_path: Path, route: str
) -> None:
    async with api_client(tmp_path) as api:
        status, old = await api.call(
            "POST", "/v1/facts", {"text": "old fact", "provenance": "tool", "dedupe": False}
        )
        assert status == 201
        path, first, second = {
            "facts": ("/v1/facts", {"text": "a cat"}, {"text": "a dog"}),
            "supersede": (
                f"/v1/facts/{old['fact_id']}/supersede",
                {"text": "a cat"},
                {"text": "a dog"},
            ),
            "validate": (f"/v1/facts/{old['fact_id']}/validate", {"note": "a"}, {"note": "b"}),
        }[route]
        status, written = await api.call("POST", path, first, headers=KEY)
        assert status in (200, 201), written
        status, again = await api.call("POST", path, first, headers=KEY)
        assert (status, again) == (status, written)
        before = await head(api)
        status, body = await api.call("POST", path, second, headers=KEY)
        await assert_conflict(api, status, body, before)


async def test_a_key_is_scoped_to_its_namespace(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        body = orjson.loads(b'{"role": "user", "content": "a"}')
        status, _ = await api.call("POST", MSG, body, headers=KEY, namespace="n1")
        assert status == 201
        status, _ = await api.call(
            "POST", MSG, {"role": "user", "content": "other"}, headers=KEY, namespace="n2"
        )
        assert status == 201
