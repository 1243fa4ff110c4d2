"""Every error has the JSON error body; a table of bad inputs with their status and field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.api_fixtures import api_client

MSG = "/v1/conversations/c1/messages"
BATCH = "/v1/conversations/c1/messages:batch"

# (method, path, body (or raw bytes), headers, status, error code, field)
BAD_INPUTS: list[tuple[str, str, Any, dict[str, str], int, str, str | None]] = [
    ("POST", MSG, b"{not json", {}, 400, "invalid_json", "body"),
    ("POST", MSG, b"", {}, 400, "invalid_json", None),
    ("POST", MSG, [1, 2], {}, 400, "invalid_request", "body"),
    ("POST", MSG, {"content": "x"}, {}, 400, "invalid_request", "role"),
    ("POST", MSG, {"role": "user"}, {}, 400, "invalid_request", "content"),
    ("POST", MSG, {"role": "robot", "content": "x"}, {}, 400, "invalid_request", "role"),
    ("POST", MSG, {"role": "user", "content": 5}, {}, 400, "invalid_request", "content"),
    (
        "POST",
        MSG,
        {"role": "user", "content": [{"text": "no type"}]},
        {},
        400,
        "invalid_request",
        "content[0]",
    ),
    (
        "POST",
        MSG,
        {"role": "user", "content": "x", "colour": 1},
        {},
        400,
        "invalid_request",
        "colour",
    ),
    ("POST", MSG, {"role": 1, "content": "x"}, {}, 400, "invalid_request", "role"),
    (
        "POST",
        MSG,
        {"role": "user", "content": "x", "created_at": "yesterday"},
        {},
        400,
        "invalid_request",
        "created_at",
    ),
    (
        "POST",
        MSG,
        {"role": "user", "content": "x", "metadata": []},
        {},
        400,
        "invalid_request",
        "metadata",
    ),
    (
        "POST",
        MSG,
        {"role": "user", "content": "x", "name": "n" * 201},
        {},
        400,
        "invalid_request",
        "name",
    ),
    (
        "POST",
        MSG,
        {"role": "user", "content": "x", "idempotency_key": ""},
        {},
        400,
        "invalid_request",
        "idempotency_key",
    ),
    (
        "POST",
        MSG,
        {"role": "user", "content": "x"},
        {"Idempotency-Key": "k" * 201},
        400,
        "invalid_request",
        "Idempotency-Key",
    ),
    (
        "POST",
        MSG,
        {"role": "user", "content": "x"},
        {"X-Memoryd-Namespace": "bad ns"},
        400,
        "invalid_namespace",
        "X-Memoryd-Namespace",
    ),
    (
        "POST",
        MSG,
        {"role": "user", "content": "x"},
        {"X-Memoryd-Namespace": "n" * 65},
        400,
        "invalid_namespace",
        "X-Memoryd-Namespace",
    ),
    ("POST", BATCH, {"messages": []}, {}, 400, "invalid_request", "messages"),
    ("POST", BATCH, {"messages": "x"}, {}, 400, "invalid_request", "messages"),
    (
        "POST",
        BATCH,
        {"messages": [{"role": "user"}]},
        {},
        400,
        "invalid_request",
        "messages[0].content",
    ),
    (
        "POST",
        "/v1/conversations/c%20d/messages",
        {"role": "user", "content": "x"},
        {},
        400,
        "invalid_request",
        "cid",
    ),
    ("GET", "/v1/nothing-here", None, {}, 404, "not_found", None),
    ("DELETE", MSG, None, {}, 405, "method_not_allowed", None),
    ("POST", MSG, b"x" * (64 * 1024 + 1), {}, 413, "body_too_large", None),
]


@pytest.mark.parametrize(
    ("method", "path", "body", "headers", "status", "code", "field"),
    BAD_INPUTS,
    ids=[f"{i}-{case[5]}-{case[6]}" for i, case in enumerate(BAD_INPUTS)],
)
async def test_bad_input_is_refused_and_writes_nothing(
    tmp_path: Path,
    method: str,
    path: str,
    body: Any,
    headers: dict[str, str],
    status: int,
    code: str,
    field: str | None,
) -> None:
    async with api_client(tmp_path, max_body_bytes=64 * 1024) as api:
        raw = body if isinstance(body, bytes) else None
        got_status, got = await api.call(
            method, path, None if raw is not None else body, headers=headers, raw=raw
        )
        assert got_status == status, got
        assert set(got) == {"error"}
        assert set(got["error"]) == {"code", "message", "details"}
        assert got["error"]["code"] == code
        assert got["error"]["message"]
        if field is not None:
            assert got["error"]["details"]["field"] == field
        _, health = await api.call("GET", "/v1/health")
        assert health["last_position"] == 0
