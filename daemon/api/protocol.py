"""The API's connections: a cap on how many are open, a deadline for a request's head, and
JSON bodies for the errors aiohttp's parser answers before any handler runs.

aiohttp closes a connection that stays idle (no request under way) for its keep-alive timeout,
which also covers a connection that never sends a byte. It does not bound how long a request's
head (request line and headers) may take to arrive: a client trickling a byte every few seconds
held its connection for ever, and 1,100 such connections used up the daemon's file descriptors.
Here a head must arrive whole within ``header_timeout`` of its first byte, and connections
beyond ``max_connections`` are answered ``503 too_many_connections`` and closed at once.

aiohttp has no public hook for either, so :class:`ApiSite` serves with
:class:`ApiRequestHandler`, a subclass of aiohttp's protocol built with the runner's own
settings; ``tests/api/test_connections.py`` covers what it relies on.
"""

from __future__ import annotations

import asyncio
import socket
from dataclasses import dataclass
from typing import Any

import orjson
from aiohttp import web
from aiohttp.http_exceptions import BadHttpMethod, LineTooLong
from aiohttp.web_protocol import RequestHandler
from aiohttp.web_request import BaseRequest
from aiohttp.web_server import Server

from daemon.api.errors import JSON_CONTENT_TYPE, error_response
from daemon.logging import get_logger

log = get_logger("memoryd.api")


@dataclass(frozen=True, slots=True)
class ConnectionLimits:
    """``server.max_connections``, ``server.header_timeout`` and ``server.idle_timeout``."""

    max_connections: int = 1000
    header_timeout: float = 10.0
    idle_timeout: float = 60.0


def _canned(status: int, reason: str, code: str, message: str, details: dict[str, Any]) -> bytes:
    """A complete HTTP response with the API's error body, for a connection no handler serves."""
    body = orjson.dumps({"error": {"code": code, "message": message, "details": details}})
    head = (
        f"HTTP/1.1 {status} {reason}\r\n"
        f"Content-Type: {JSON_CONTENT_TYPE}\r\n"
        f"Content-Length: {len(body)}\r\n"
        "Connection: close\r\n" + ("Retry-After: 1\r\n" if status == 503 else "") + "\r\n"
    )
    return head.encode("ascii") + body


class ApiRequestHandler(RequestHandler):
    """aiohttp's connection protocol with a connection cap, a head deadline and JSON errors."""

    __slots__ = ("_head_deadline", "_limits", "_refused")

    REFUSED_LINGER = 1.0
    """Seconds a refused connection stays open after its answer: closing a socket with unread
    input resets it, and the client would lose the answer."""

    def __init__(self, manager: Server, limits: ConnectionLimits, **kwargs: Any) -> None:
        kwargs["keepalive_timeout"] = limits.idle_timeout
        super().__init__(manager, **kwargs)
        self._limits = limits
        self._head_deadline: asyncio.TimerHandle | None = None
        self._refused = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        limits = self._limits
        manager = self._manager
        if manager is not None and len(manager.connections) >= limits.max_connections:
            note_refused_connection(limits.max_connections)
            assert isinstance(transport, asyncio.WriteTransport)
            transport.write(
                _canned(
                    503,
                    "Service Unavailable",
                    "too_many_connections",
                    f"memoryd holds {limits.max_connections} connections already "
                    "(server.max_connections, or less under a low open-file limit); retry "
                    "shortly",
                    {"max_connections": limits.max_connections},
                )
            )
            self._refused = True
            if transport.can_write_eof():
                transport.write_eof()
            self._loop.call_later(self.REFUSED_LINGER, transport.close)
            return
        super().connection_made(transport)

    def connection_lost(self, exc: BaseException | None) -> None:
        self._cancel_head_deadline()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        super().data_received(data)
        if self._messages or self._request_in_progress:
            self._cancel_head_deadline()  # the head arrived whole
        elif data and self._head_deadline is None and not self._force_close:
            self._head_deadline = self._loop.call_later(
                self._limits.header_timeout, self._head_overdue
            )

    def _cancel_head_deadline(self) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None

    def _head_overdue(self) -> None:
        self._head_deadline = None
        if self._messages or self._request_in_progress or self.transport is None:
            return
        timeout = self._limits.header_timeout
        self.transport.write(
            _canned(
                408,
                "Request Timeout",
                "request_timeout",
                f"the request's head did not arrive within {timeout:g} s (server.header_timeout)",
                {"header_timeout_seconds": timeout},
            )
        )
        self.force_close()

    def handle_error(
        self,
        request: BaseRequest,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        """Answer what the parser refused (or a crash outside the app) with the error body."""
        if request.writer.output_size > 0:
            raise ConnectionError("the response has begun; cannot send an error instead")
        if status >= 500:
            log.error("error outside the request handlers", error=repr(exc))
            code, text = "internal_error", "internal error; see the daemon's log"
        else:
            code = (
                "invalid_method"
                if isinstance(exc, BadHttpMethod)
                else "line_too_long"
                if isinstance(exc, LineTooLong)
                else "malformed_request"
            )
            text = f"malformed HTTP request: {_describe(exc, message)}"
            log.info("malformed request refused", reason=code)
        response = error_response(status, code, text)
        response.force_close()
        return response


def _describe(exc: BaseException | None, message: str | None) -> str:
    text = message or (str(exc) if exc is not None else "") or "cannot parse the request"
    # The parser quotes what it refused; keep the message short and printable.
    text = text.splitlines()[0] if text.splitlines() else text
    return "".join(c if c.isprintable() else "?" for c in text[:200])


_refused_since_log = 0
_last_refusal_log = 0.0
REFUSAL_LOG_INTERVAL = 10.0


def note_refused_connection(cap: int) -> None:
    """Log refused connections at most once per REFUSAL_LOG_INTERVAL seconds, with a count."""
    global _refused_since_log, _last_refusal_log
    _refused_since_log += 1
    now = asyncio.get_running_loop().time()
    if now - _last_refusal_log >= REFUSAL_LOG_INTERVAL:
        log.warning(
            "connections refused: server.max_connections reached",
            max_connections=cap,
            refused=_refused_since_log,
        )
        _refused_since_log = 0
        _last_refusal_log = now


class ApiSite(web.SockSite):
    """A listening socket served by :class:`ApiRequestHandler`."""

    __slots__ = ("_limits",)

    def __init__(
        self,
        runner: web.BaseRunner,
        sock: socket.socket,
        limits: ConnectionLimits,
        *,
        backlog: int = 128,
    ) -> None:
        super().__init__(runner, sock, backlog=backlog)
        self._limits = limits

    async def start(self) -> None:
        """Register with the runner and serve the socket."""
        await web.BaseSite.start(self)
        server = self._runner.server
        assert server is not None
        loop = asyncio.get_running_loop()
        limits = self._limits
        # The runner's own handler settings (access log, debug, ...): what Server() passes.
        settings: dict[str, Any] = dict(server._kwargs)

        def protocol() -> ApiRequestHandler:
            return ApiRequestHandler(server, limits, loop=loop, **settings)

        self._server = await loop.create_server(protocol, sock=self._sock, backlog=self._backlog)
