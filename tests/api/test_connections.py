"""Connections are bounded: a cap with a clear refusal, a deadline for a request's head, an
idle timeout, JSON for what the HTTP parser refuses, and 413 before a large body is read."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import orjson
import pytest

from daemon.listeners import FILES_KEPT, RateLimitedLoopErrors, connection_limits, raise_file_limit
from daemon.server import Server
from tests.api_fixtures import make_config, running


async def _connect(path: Path) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_unix_connection(str(path))


def _parse(answer: bytes) -> tuple[int, dict[str, str], Any]:
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    decoded = (
        orjson.loads(body)
        if headers.get("content-type", "").startswith("application/json")
        else body
    )
    return int(lines[0].split(" ", 2)[1]), headers, decoded


async def _send(path: Path, raw: bytes) -> tuple[int, dict[str, str], Any]:
    """Send raw bytes, read until the daemon closes the connection, parse the answer.

    A daemon that kept a refused connection open would otherwise hang the test run: the
    deadline (far above any answer's time) turns that into a failure that says so.
    """
    reader, writer = await _connect(path)
    try:
        writer.write(raw)
        await writer.drain()
        async with asyncio.timeout(60):
            return _parse(await reader.read())
    finally:
        writer.close()


@asynccontextmanager
async def daemon(tmp_path: Path, **extra: object) -> AsyncIterator[Path]:
    config = make_config(tmp_path, **{"server.projector": "inline", **extra})
    async with running(config) as (server, _lines):
        assert isinstance(server, Server)
        yield config.server.socket


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        (
            b"GET /v1/health HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n",
            None,
        ),
        (b"POST /v1/search HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", None),
        (b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", "line_too_long"),
        (
            b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 9000 + b"\r\n\r\n",
            "line_too_long",
        ),
        (b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Nul: a\x00b\r\n\r\n", None),
        (b"G(T /v1/health HTTP/1.1\r\nHost: x\r\n\r\n", "invalid_method"),
        (b"GET /v1/health HTTP/1.1\r\n\r\n", None),  # no Host: refused for that alone
    ],
)
async def test_what_the_parser_refuses_gets_the_json_error_body(
    tmp_path: Path, raw: bytes, code: str | None
) -> None:
    async with daemon(tmp_path) as sock:
        status, headers, body = await _send(sock, raw)
    assert status == 400, body
    assert headers["content-type"].startswith("application/json")
    assert set(body["error"]) == {"code", "message", "details"}
    if code is not None:
        assert body["error"]["code"] == code
    # Each is refused for what is wrong with it, not for the missing Host header.
    assert ("Host" in body["error"]["message"]) == (b"Host:" not in raw)


async def test_an_oversized_content_length_is_refused_before_the_body_is_read(
    tmp_path: Path,
) -> None:
    async with daemon(tmp_path, **{"server.max_body_size": "1KiB"}) as sock:
        # No body follows the head: an answer at all shows the daemon did not wait for it.
        status, headers, body = await _send(
            sock,
            b"POST /v1/conversations/c1/messages HTTP/1.1\r\nHost: x\r\n"
            b"Content-Type: application/json\r\nContent-Length: 10000000000\r\n\r\n",
        )
    assert status == 413
    assert body["error"]["code"] == "body_too_large"
    assert headers["connection"] == "close"


async def test_a_head_that_trickles_in_is_cut_off(tmp_path: Path) -> None:
    async with daemon(tmp_path, **{"server.header_timeout": "200ms"}) as sock:
        # A raw socket, not a stream: when the daemon hangs up, the trickle's next send fails
        # with EPIPE, and a stream reader would then raise that instead of handing over the
        # answer it already received.
        loop = asyncio.get_running_loop()
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.setblocking(False)
        await loop.sock_connect(client, str(sock))
        await loop.sock_sendall(client, b"GET /v1/health HTTP/1.1\r\nHost: x\r\n")

        async def trickle() -> None:
            try:
                while True:
                    await loop.sock_sendall(client, b"X")
                    await asyncio.sleep(0.05)
            except OSError:
                return  # the daemon hung up, as it should

        feeder = asyncio.create_task(trickle())
        answer = b""
        try:
            while chunk := await loop.sock_recv(client, 65536):
                answer += chunk  # until the daemon closes the connection
        finally:
            feeder.cancel()
            client.close()
        status, _, body = _parse(answer)
        assert status == 408
        assert body["error"]["code"] == "request_timeout"
        # A complete request is still served.
        assert (await _send(sock, HEALTH))[0] == 200


async def test_an_idle_connection_is_closed(tmp_path: Path) -> None:
    async with daemon(tmp_path, **{"server.idle_timeout": "200ms"}) as sock:
        reader, writer = await _connect(sock)
        try:
            # Closed by the daemon, having sent nothing (bounded: a daemon that never closes
            # it fails the test instead of hanging it).
            assert await asyncio.wait_for(reader.read(), 10) == b""
        finally:
            writer.close()


HEALTH = b"GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"


async def _until_status(sock: Path, status: int) -> tuple[int, dict[str, str], Any]:
    """Ask for health until the answer has ``status`` (the daemon counts connections as it
    accepts them, a moment after the client's connect returns)."""
    for _ in range(500):
        answer = await _send(sock, HEALTH)
        if answer[0] == status:
            return answer
        await asyncio.sleep(0.01)
    raise AssertionError(f"never answered {status}: {answer}")


async def test_connections_past_the_cap_are_refused_and_the_rest_served(tmp_path: Path) -> None:
    async with daemon(tmp_path, **{"server.max_connections": 3}) as sock:
        held = [await _connect(sock) for _ in range(3)]
        try:
            _, headers, body = await _until_status(sock, 503)
            assert body["error"]["code"] == "too_many_connections"
            assert headers["retry-after"] == "1"
        finally:
            for _reader, writer in held:
                writer.close()
        await _until_status(sock, 200)


async def test_accept_errors_are_logged_once_per_interval(
    capsys: pytest.CaptureFixture[str],
) -> None:
    loop = asyncio.get_running_loop()
    handler = RateLimitedLoopErrors()
    context: dict[str, Any] = {
        "message": "socket.accept() out of system resource",
        "exception": OSError(24, "Too many open files"),
        "socket": socket.socket(),
    }
    try:
        for _ in range(1000):
            handler(loop, context)
    finally:
        context["socket"].close()
    assert handler.suppressed == 999
    assert capsys.readouterr().out.count("cannot accept connections") == 1


def test_the_file_limit_is_raised_to_the_hard_limit() -> None:
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(256, hard), hard))
        assert raise_file_limit() == (hard if hard != resource.RLIM_INFINITY else 65536)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_a_low_file_limit_caps_the_connections_below_it(tmp_path: Path) -> None:
    # Past the descriptors, accept() fails and a client waits for nothing; under the cap the
    # one too many is told 503 at once (bench/connections.py --nofile 1024:1024).
    config = make_config(tmp_path, **{"server.max_connections": 1000})
    assert connection_limits(config).max_connections == 1000
    assert connection_limits(config, 65536).max_connections == 1000
    assert connection_limits(config, 1024).max_connections == 1024 - FILES_KEPT
    assert connection_limits(config, 10).max_connections == 1
