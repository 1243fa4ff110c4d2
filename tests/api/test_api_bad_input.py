"""Input that once answered 500 (or was stored and then broke every read): each is a 400
naming what is wrong, and nothing is written."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import orjson
import pytest

from daemon.api.validation import MAX_DEPTH, Field, check_value
from tests.api_fixtures import Api, api_client

MSG = "/v1/conversations/c1/messages"


def nested(depth: int) -> dict[str, Any]:
    """Return an object that nests ``depth`` levels deep."""
    value: dict[str, Any] = {}
    for _ in range(depth - 1):
        value = {"a": value}
    return value


async def assert_refused(api: Api, status: int, body: Any, field: str) -> None:
    assert status == 400, body
    assert body["error"]["code"] == "invalid_request"
    assert body["error"]["details"]["field"] == field
    _, health = await api.call("GET", "/v1/health")
    assert health["last_position"] == 0, "bad input must write nothing"


def nested_text(depth: int) -> bytes:
    """Return JSON text nesting ``depth`` objects (orjson cannot encode more than 254)."""
    return b'{"a":' * (depth - 1) + b"{}" + b"}" * (depth - 1)


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 252, 300])
async def test_metadata_nested_past_the_limit_is_refused(tmp_path: Path, depth: int) -> None:
    body_text = b'{"role": "user", "content": "x", "metadata": ' + nested_text(depth) + b"}"
    async with api_client(tmp_path) as api:
        status, body = await api.call("POST", MSG, raw=body_text)
        await assert_refused(api, status, body, "metadata")
        assert body["error"]["details"]["max_depth"] == MAX_DEPTH


async def test_metadata_at_the_limit_is_stored_and_read_back_everywhere(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        deep = nested(MAX_DEPTH)
        status, _ = await api.call("POST", MSG, {"role": "user", "content": "x", "metadata": deep})
        assert status == 201
        status, listed = await api.call("GET", MSG)
        assert status == 200
        assert listed["messages"][0]["metadata"] == deep
        status, _ = await api.call("GET", "/v1/events")
        assert status == 200
        status, _ = await api.call("POST", "/v1/search", {"query": "x"})
        assert status == 200


async def test_deep_content_blocks_are_refused(tmp_path: Path) -> None:
    block = {"type": "tool", "input": nested(MAX_DEPTH + 5)}
    async with api_client(tmp_path) as api:
        status, body = await api.call("POST", MSG, {"role": "user", "content": [block]})
        await assert_refused(api, status, body, "content")


@pytest.mark.parametrize(
    "stamp",
    [
        "0001-01-01T00:00:00+01:00",  # overflowed converting to UTC
        "9999-12-31T23:59:59-01:00",
        "0001-01-01T00:00:00Z",
        "9999-12-31T23:00:00Z",
    ],
)
async def test_timestamps_at_the_ends_of_time_are_refused(tmp_path: Path, stamp: str) -> None:
    async with api_client(tmp_path) as api:
        status, body = await api.call(
            "POST", MSG, {"role": "user", "content": "x", "created_at": stamp}
        )
        await assert_refused(api, status, body, "created_at")
        assert "out of range" in body["error"]["message"]
        status, body = await api.call("POST", "/v1/facts", {"text": "x", "valid_from": stamp})
        await assert_refused(api, status, body, "valid_from")
        status, body = await api.call("GET", f"/v1/facts?as_of={stamp.replace('+', '%2B')}")
        assert (status, body["error"]["details"]["field"]) == (400, "as_of")


@pytest.mark.parametrize(
    "path",
    [
        "/v1/events?after=123456789012345678901234567890",
        "/v1/events?after=9223372036854775808",
        "/v1/consolidation/log?after=99999999999999999999",
        "/v1/events/stream?after=123456789012345678901234567890",
        "/v1/events?after=%C2%B2",  # "²": a digit to str.isdigit(), not to int()
        "/v1/events?limit=1_0",
    ],
)
async def test_integers_beyond_64_bits_or_not_ascii_are_refused(tmp_path: Path, path: str) -> None:
    async with api_client(tmp_path) as api:
        status, body = await api.call("GET", path)
        assert status == 400, body
        assert body["error"]["details"]["field"] in ("after", "limit")


@pytest.mark.parametrize("last_id", ["²", "123456789012345678901234567890", "-1", "1.0"])
async def test_a_bad_last_event_id_is_refused_at_once(tmp_path: Path, last_id: str) -> None:
    async with api_client(tmp_path) as api:
        status, body = await api.call(
            "GET", "/v1/events/stream", headers={"Last-Event-ID": last_id}
        )
        assert status == 400, body
        assert body["error"]["details"]["field"] == "Last-Event-ID"


async def raw_request(api: Api, head: bytes, body: bytes = b"") -> tuple[int, bytes, bytes]:
    """Send raw bytes (no client library cleans them up); return (status, headers, body)."""
    server = api.client.server
    reader, writer = await asyncio.open_connection(server.host, server.port)
    try:
        writer.write(head + b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body))
        writer.write(body)
        await writer.drain()
        answer = await reader.read()
    finally:
        writer.close()
    headers, _, rest = answer.partition(b"\r\n\r\n")
    return int(headers.split(b" ", 2)[1]), headers, rest


async def test_a_non_utf8_idempotency_key_is_refused(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        status, _, body = await raw_request(
            api,
            b"POST " + MSG.encode() + b" HTTP/1.1\r\nHost: x\r\n"
            b"Content-Type: application/json\r\nIdempotency-Key: k\xff\xfe\r\n",
            b'{"role": "user", "content": "x"}',
        )
        await assert_refused(api, status, orjson.loads(body), "Idempotency-Key")


async def test_a_non_utf8_request_id_or_token_is_not_an_error(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        status, headers, _ = await raw_request(
            api,
            b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Request-Id: r\xff\r\n"
            b"Authorization: Bearer \xff\xfe\r\n",
        )
        assert status == 200
        assert b"X-Request-Id: r" not in headers


async def test_whole_number_floats_count_as_integers(tmp_path: Path) -> None:
    assert check_value(Field("top_k", "integer", maximum=1000), 198.0, "top_k") == 198
    async with api_client(tmp_path) as api:
        status, body = await api.call("POST", "/v1/search", {"query": "x", "top_k": 198.0})
        assert status == 200, body
        status, body = await api.call("POST", "/v1/search", {"query": "x", "top_k": 1.5})
        assert (status, body["error"]["details"]["field"]) == (400, "top_k")


async def test_ids_the_daemon_makes_for_retrospective_forks_are_accepted(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        status, body = await api.call("GET", "/v1/conversations/retro~r1~1/messages")
        assert status == 404, body  # unknown, not malformed
        status, _ = await api.call("GET", "/v1/events?stream=conversation:retro~r1~1")
        assert status == 200


async def test_the_documented_patterns_are_anchored(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        _, doc = await api.call("GET", "/v1/openapi.json")

    def patterns(node: Any) -> list[str]:
        if isinstance(node, dict):
            found = [node["pattern"]] if isinstance(node.get("pattern"), str) else []
            return found + [p for v in node.values() for p in patterns(v)]
        if isinstance(node, list):
            return [p for v in node for p in patterns(v)]
        return []

    found = patterns(doc)
    assert found
    assert all(p.startswith("^") and p.endswith("$") for p in found), found


async def test_progress_says_how_far_the_fold_is(tmp_path: Path) -> None:
    batch = {"messages": [{"role": "user", "content": f"m{i}"} for i in range(50)]}
    async with api_client(tmp_path) as api:
        status, written = await api.call("POST", f"{MSG}:batch", batch)
        assert status == 201
        last = written["results"][-1]["position"]
        status, progress = await api.call("GET", f"/v1/progress?position={last}&wait=10")
        assert status == 200
        assert progress == {
            "position": last,
            "projection_position": last,
            "behind": 0,
            "done": True,
        }
        status, body = await api.call("GET", f"/v1/progress?position={last + 1}")
        assert (status, body["error"]["details"]["field"]) == (400, "position")
        status, body = await api.call("GET", "/v1/progress?position=1&wait=11")
        assert (status, body["error"]["details"]["field"]) == (400, "wait")
