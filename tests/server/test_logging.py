"""Logging: JSON lines, the request id through contextvars, stdlib routing, secret redaction."""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from daemon.logging import (
    bind_request_id,
    clear_context,
    configure_logging,
    get_logger,
    redact_text,
    request_context,
    reset_logging,
    resolve_format,
)


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    yield
    reset_logging()


def _lines(buffer: io.BytesIO | io.StringIO) -> list[dict[str, Any]]:
    raw = buffer.getvalue()
    data = raw.encode() if isinstance(raw, str) else raw
    return [orjson.loads(line) for line in data.splitlines() if line.strip()]


def test_json_lines_to_a_byte_stream() -> None:
    out = io.BytesIO()
    configure_logging("info", "json", stream=out)
    get_logger("memoryd.test").info("thing.happened", count=3, path="/x")
    get_logger().debug("not.shown")
    [line] = _lines(out)
    assert line["event"] == "thing.happened"
    assert line["count"] == 3
    assert line["level"] == "info"
    assert line["logger"] == "memoryd.test"
    assert line["timestamp"].endswith("Z")
    assert "T" in line["timestamp"]


def test_json_through_a_text_stream_uses_its_buffer() -> None:
    raw = io.BytesIO()
    text = io.TextIOWrapper(raw, encoding="utf-8")
    configure_logging("debug", "json", stream=text)
    get_logger().debug("deep.detail", n=1)
    logging.getLogger("aiohttp.server").warning("stdlib %s", "too")
    text.flush()
    events = [line["event"] for line in _lines(raw)]
    assert events == ["deep.detail", "stdlib too"]


def test_json_to_a_string_stream() -> None:
    out = io.StringIO()
    configure_logging("info", "json", stream=out)
    get_logger().warning("careful", value=1.5)
    [line] = _lines(out)
    assert line == {**line, "event": "careful", "value": 1.5, "level": "warning"}


def test_auto_format_is_json_off_a_terminal() -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert resolve_format("auto", io.StringIO()) == "json"
    assert resolve_format("auto", Tty()) == "console"
    assert resolve_format("json", Tty()) == "json"
    with pytest.raises(ValueError, match="unknown log format"):
        resolve_format("xml", io.StringIO())


def test_console_format_is_readable_text() -> None:
    out = io.StringIO()
    configure_logging("info", "console", stream=out)
    get_logger().info("server.started", socket="/run/memoryd.sock")
    logging.getLogger("sqlalchemy.engine").warning("pool is tired")
    text = out.getvalue()
    assert "server.started" in text
    assert "socket=/run/memoryd.sock" in text
    assert "pool is tired" in text
    assert not text.lstrip().startswith("{")


def test_request_id_is_bound_through_contextvars() -> None:
    out = io.BytesIO()
    configure_logging("info", "json", stream=out)
    rid = bind_request_id()
    get_logger().info("inside")
    logging.getLogger("aiohttp.access").info("GET /v1/health 200")
    clear_context()
    get_logger().info("outside")
    inside, access, outside = _lines(out)
    assert len(rid) == 32
    assert inside["request_id"] == rid
    assert access["request_id"] == rid
    assert access["logger"] == "aiohttp.access"
    assert "request_id" not in outside


async def test_request_ids_do_not_leak_between_tasks() -> None:
    out = io.BytesIO()
    configure_logging("info", "json", stream=out)
    log = get_logger()

    async def handle(rid: str) -> None:
        with request_context(rid, route="/v1/facts"):
            await asyncio.sleep(0)
            log.info("handled")
            await asyncio.sleep(0)
            log.info("done")

    await asyncio.gather(handle("a" * 8), handle("b" * 8))
    log.info("after")
    lines = _lines(out)
    assert sorted(line.get("request_id", "-") for line in lines) == [
        "-",
        "aaaaaaaa",
        "aaaaaaaa",
        "bbbbbbbb",
        "bbbbbbbb",
    ]
    assert all(line["route"] == "/v1/facts" for line in lines if "request_id" in line)


def test_request_context_restores_what_was_bound_before() -> None:
    out = io.BytesIO()
    configure_logging("info", "json", stream=out)
    log = get_logger()
    bind_request_id("outer")
    with request_context("inner", route="/v1/facts"):
        log.info("inside")
        with request_context("nested"):
            log.info("nested")
        log.info("inside again")
    log.info("after")
    clear_context()
    inside, nested, again, after = _lines(out)
    assert (inside["request_id"], inside["route"]) == ("inner", "/v1/facts")
    assert (nested["request_id"], nested["route"]) == ("nested", "/v1/facts")
    assert (again["request_id"], again["route"]) == ("inner", "/v1/facts")
    assert after["request_id"] == "outer"
    assert "route" not in after


def test_stdlib_loggers_route_through_the_pipeline() -> None:
    out = io.BytesIO()
    configure_logging("info", "json", stream=out)
    logging.getLogger("sqlalchemy.pool").warning("connection %d invalidated", 7)
    logging.getLogger("alembic.runtime.migration").info("Running upgrade", extra={"rev": "abc"})
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        logging.getLogger("aiohttp.server").exception("Error handling request")
    pool, alembic, server = _lines(out)
    assert pool["event"] == "connection 7 invalidated"
    assert pool["logger"] == "sqlalchemy.pool"
    assert pool["level"] == "warning"
    assert pool["timestamp"].endswith("Z")
    assert alembic["rev"] == "abc"
    assert server["level"] == "error"
    assert server["exception"][0]["exc_type"] == "RuntimeError"
    assert server["exception"][0]["exc_value"] == "boom"


def test_level_filters_both_pipelines() -> None:
    out = io.BytesIO()
    configure_logging("warning", "json", stream=out)
    get_logger().info("quiet")
    logging.getLogger("aiohttp.access").info("quiet too")
    get_logger().error("loud")
    logging.getLogger("watchfiles.main").info("1 change detected")
    assert [line["event"] for line in _lines(out)] == ["loud"]


def test_configure_is_idempotent_and_follows_reconfiguration() -> None:
    first, second = io.BytesIO(), io.BytesIO()
    log = get_logger("module.level")  # created before the reconfiguration
    configure_logging("info", "json", stream=first)
    configure_logging("info", "json", stream=first)
    logging.getLogger("x").warning("once")
    configure_logging("debug", "json", stream=second)
    log.debug("after.reload")
    logging.getLogger("x").warning("twice")
    assert [line["event"] for line in _lines(first)] == ["once"]
    assert [line["event"] for line in _lines(second)] == ["after.reload", "twice"]
    ours = [h for h in logging.getLogger().handlers if type(h).__name__ == "_SinkHandler"]
    assert len(ours) == 1


def test_unknown_level_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown log level"):
        configure_logging("loud", "json", stream=io.BytesIO())


def test_secrets_are_redacted() -> None:
    out = io.BytesIO()
    configure_logging("info", "json", stream=out)
    get_logger().info(
        "llm.request",
        api_key="sk-abcdefghijklmnop",
        openai_api_key="x1",
        token="t0k3n",
        authorization="Bearer abc.def",
        headers={"Authorization": "Bearer abc.def", "Accept": "application/json"},
        prompt_tokens=120,
        tokens_per_day=None,
        api_key_env="OPENAI_API_KEY",
        note="sent Bearer zzz999 to the server with sk-ant-abcdefghijkl",
        url="postgresql+asyncpg://memoryd:hunter2@db/memoryd",
        nested=[{"client_secret": "s"}],
    )
    logging.getLogger("aiohttp.client").warning("retry with Authorization: Bearer qqq.www")
    line, stdlib = _lines(out)
    assert line["api_key"] == "***"
    assert line["openai_api_key"] == "***"
    assert line["token"] == "***"
    assert line["authorization"] == "***"
    assert line["headers"] == {"Authorization": "***", "Accept": "application/json"}
    assert line["prompt_tokens"] == 120
    assert line["tokens_per_day"] is None
    assert line["api_key_env"] == "OPENAI_API_KEY"
    assert line["note"] == "sent Bearer *** to the server with sk-***"
    assert line["url"] == "postgresql+asyncpg://memoryd:***@db/memoryd"
    assert line["nested"] == [{"client_secret": "***"}]
    assert stdlib["event"] == "retry with Authorization: Bearer ***"
    dumped = out.getvalue()
    for secret in (b"abcdefghijklmnop", b"t0k3n", b"abc.def", b"zzz999", b"hunter2", b"qqq.www"):
        assert secret not in dumped


def test_redact_text_leaves_ordinary_text() -> None:
    assert redact_text("a basic idea, http://host/path and sk-8") == (
        "a basic idea, http://host/path and sk-8"
    )


def test_redact_text_masks_basic_credentials() -> None:
    assert redact_text("Authorization: Basic dXNlcjpwYXNzd29yZA==") == "Authorization: Basic ***"


def test_reset_restores_the_root_level() -> None:
    root = logging.getLogger()
    before = root.level
    configure_logging("debug", "json", stream=io.BytesIO())
    configure_logging("info", "json", stream=io.BytesIO())
    assert root.level == logging.INFO
    reset_logging()
    assert root.level == before
    assert not [h for h in root.handlers if type(h).__name__ == "_SinkHandler"]


def test_tracebacks_carry_no_locals_and_are_redacted() -> None:
    out = io.BytesIO()
    configure_logging("info", "json", stream=out)

    def call_provider() -> None:
        api_key = "sk-live-abcdefghijklmnopqrstuvwxyz"
        raise RuntimeError(f"401 from https://user:hunter2@api.example with Bearer {api_key}")

    try:
        call_provider()
    except RuntimeError:
        get_logger().exception("llm.failed")
    [line] = _lines(out)
    [exc] = line["exception"]
    assert exc["exc_type"] == "RuntimeError"
    assert exc["exc_value"] == "401 from https://user:***@api.example with Bearer ***"
    assert all("locals" not in frame for frame in exc["frames"])
    assert b"abcdefghijklmnop" not in out.getvalue()
    assert b"hunter2" not in out.getvalue()
