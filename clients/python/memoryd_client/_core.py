"""What the sync and async clients share: where the daemon is, the request a method makes,
errors, the retry policy and the Server-Sent Events parser. No I/O happens here."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Generic, TypeVar, cast
from urllib.parse import quote

import httpx

from memoryd_client.types import Event

T = TypeVar("T")

NAMESPACE_HEADER = "X-Memoryd-Namespace"
IDEMPOTENCY_HEADER = "Idempotency-Key"
TOKEN_ENV = "MEMORYD_TOKEN"
UNIX_BASE_URL = "http://memoryd"

RETRYABLE_CODES = frozenset({"not_ready", "projection_lag", "too_many_connections"})
"""503 codes answered before the request did anything: always safe to send again."""


def default_data_dir(env: Mapping[str, str] | None = None) -> Path:
    """The daemon's data dir, resolved as ``daemon/paths.py`` does (a test keeps them equal):
    ``$STATE_DIRECTORY``, else ``$XDG_STATE_HOME/memoryd``, else ``~/.local/state/memoryd``."""
    env = os.environ if env is None else env
    if env.get("STATE_DIRECTORY"):
        return Path(env["STATE_DIRECTORY"].split(":")[0])
    return Path(env.get("XDG_STATE_HOME") or Path.home() / ".local" / "state") / "memoryd"


def default_socket_path(env: Mapping[str, str] | None = None) -> Path:
    """The daemon's default socket: ``$RUNTIME_DIRECTORY/memoryd.sock``, else
    ``$XDG_RUNTIME_DIR/memoryd.sock``, else ``<data dir>/memoryd.sock``."""
    env = os.environ if env is None else env
    for name in ("RUNTIME_DIRECTORY", "XDG_RUNTIME_DIR"):
        if env.get(name):
            return Path(env[name].split(":")[0]) / "memoryd.sock"
    return default_data_dir(env) / "memoryd.sock"


class MemorydError(Exception):
    """Base of the client's errors."""


class ApiError(MemorydError):
    """The daemon answered an error: ``{"error": {"code", "message", "details"}}``."""

    def __init__(self, status: int, code: str, message: str, details: dict[str, Any]) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details = details


class DaemonUnavailable(MemorydError):
    """No answer from the daemon (nothing listening, connection lost) after the retries."""

    def __init__(self, address: str, cause: Exception) -> None:
        super().__init__(f"memoryd at {address} did not answer: {cause!r}")
        self.address = address


@dataclass(frozen=True, slots=True)
class Call(Generic[T]):
    """One request a client method makes; ``T`` is the JSON answer's type."""

    method: str
    path: str
    query: dict[str, str] = field(default_factory=dict)
    body: Any = None
    key: str | None = None
    """The ``Idempotency-Key`` header: the same on every retry of this call."""
    timeout: float | None = None
    """Seconds to wait for the answer, instead of the client's timeout."""
    text: bool = False
    """The answer is text, not JSON (``/metrics``)."""

    @property
    def repeatable(self) -> bool:
        """Sending it twice does what sending it once does (so a lost answer may be retried)."""
        return self.method in ("GET", "DELETE") or self.key is not None


def segment(value: str) -> str:
    """Quote an id for a path."""
    return quote(value, safe=":@~")


def write_key(given: str | None) -> str:
    """The idempotency key of a write: the caller's, else a fresh random one."""
    return given if given is not None else f"mc-{uuid.uuid4().hex}"


def jsonable(value: Any) -> Any:
    """A datetime as ISO 8601 (naive ones are refused: the API's times are absolute)."""
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValueError(f"{value!r} has no time zone")
        return value.isoformat()
    return value


def fields(**values: Any) -> dict[str, Any]:
    """The keyword arguments that were given (not None), as JSON values."""
    return {name: jsonable(v) for name, v in values.items() if v is not None}


def query(**values: Any) -> dict[str, str]:
    """Query parameters from the keyword arguments that were given (booleans as true/false)."""
    out = {}
    for name, value in fields(**values).items():
        out[name] = ("true" if value else "false") if isinstance(value, bool) else str(value)
    return out


@dataclass(frozen=True, slots=True)
class Retry:
    """Bounded retry with exponential backoff, for what the daemon did not act on: a refused
    or failed connection (the daemon restarting) and ``503 not_ready`` / ``projection_lag``;
    and, for a repeatable call only, an answer lost on the way (a timeout)."""

    attempts: int = 8
    """Tries in all, the first included (1: never retry)."""
    backoff: float = 0.1
    """Seconds before the second try; doubles each time."""
    max_backoff: float = 2.0
    reconnect: bool = True
    """Try a refused or failed connection again (the daemon restarting). A command line that
    must say at once that no daemon is running turns it off."""

    def delay(self, call: Call[Any], attempt: int, outcome: httpx.Response | Exception) -> float:
        """Seconds to wait before trying ``call`` again after try ``attempt`` (0-based) ended
        with ``outcome``; a negative number when it must not be tried again."""
        if attempt + 1 >= self.attempts or not _retryable(call, outcome, self.reconnect):
            return -1.0
        delay = min(self.backoff * 2.0**attempt, self.max_backoff)
        if isinstance(outcome, httpx.Response):
            retry_after = outcome.headers.get("Retry-After", "")
            if retry_after.isdigit():
                delay = max(delay, min(float(retry_after), self.max_backoff))
        return delay


def _retryable(call: Call[Any], outcome: httpx.Response | Exception, reconnect: bool) -> bool:
    if isinstance(outcome, httpx.Response):
        return outcome.status_code == 503 and error_code(outcome) in RETRYABLE_CODES
    if isinstance(outcome, httpx.ConnectError | httpx.ConnectTimeout | httpx.PoolTimeout):
        return reconnect  # nothing was sent
    return reconnect and isinstance(outcome, httpx.TransportError) and call.repeatable


def error_code(response: httpx.Response) -> str | None:
    """The ``error.code`` of an error answer, if it has one."""
    body = _error_body(response)
    return None if body is None else str(body.get("code"))


def _error_body(response: httpx.Response) -> dict[str, Any] | None:
    try:
        decoded = response.json()
    except ValueError:
        return None
    error = decoded.get("error") if isinstance(decoded, dict) else None
    return error if isinstance(error, dict) else None


def decode(call: Call[T], response: httpx.Response) -> T:
    """The answer's body as ``T``; an :class:`ApiError` for a 4xx/5xx."""
    if response.status_code >= 400:
        raise api_error(response)
    if call.text:
        return cast(T, response.text)
    return cast(T, response.json())


def finish(call: Call[T], outcome: httpx.Response | Exception, address: str) -> T:
    """The answer of a call's last try: decoded, or the error it ended with."""
    if isinstance(outcome, Exception):
        raise DaemonUnavailable(address, outcome) from outcome
    return decode(call, outcome)


def api_error(response: httpx.Response) -> ApiError:
    """The error an answer carries (``http_error`` when its body is not the API's shape)."""
    body = _error_body(response)
    if body is None:
        return ApiError(response.status_code, "http_error", response.text[:500], {})
    details = body.get("details")
    return ApiError(
        response.status_code,
        str(body.get("code", "http_error")),
        str(body.get("message", "")),
        details if isinstance(details, dict) else {},
    )


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where and as whom a client talks to the daemon."""

    base_url: str
    headers: dict[str, str]
    uds: str | None
    address: str


def endpoint(
    socket: str | os.PathLike[str] | None, url: str | None, token: str | None, namespace: str
) -> Endpoint:
    """The unix socket (given, else the daemon's default), or ``url`` over TCP with a bearer
    token (given, else ``$MEMORYD_TOKEN``)."""
    headers = {NAMESPACE_HEADER: namespace}
    if url is not None:
        if socket is not None:
            raise ValueError("give a socket or a url, not both")
        token = token if token is not None else os.environ.get(TOKEN_ENV)
        if token:
            headers["Authorization"] = f"Bearer {token}"
        return Endpoint(url.rstrip("/"), headers, None, url)
    path = str(socket) if socket is not None else str(default_socket_path())
    return Endpoint(UNIX_BASE_URL, headers, path, f"unix:{path}")


@dataclass(slots=True)
class SSEParser:
    """Server-Sent Events, line by line: ``feed`` returns ``(id, data)`` at each blank line
    that ends an event with data (comments and keep-alives give nothing)."""

    last_id: str | None = None
    _data: list[str] = field(default_factory=list)

    def feed(self, line: str) -> tuple[str | None, str] | None:
        if not line:
            if not self._data:
                return None
            data, self._data = "\n".join(self._data), []
            return self.last_id, data
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            self._data.append(value)
        elif name == "id" and "\0" not in value:
            self.last_id = value
        return None


def event_of(data: str) -> Event:
    """An SSE ``data:`` field: the event as JSON."""
    return cast(Event, json.loads(data))


def stream_call(after: int | None, last_event_id: str | None) -> tuple[Call[Any], dict[str, str]]:
    """The request of the event tail: ``after`` the first time, then ``Last-Event-ID``."""
    headers = {"Accept": "text/event-stream"}
    if last_event_id is not None:
        headers["Last-Event-ID"] = last_event_id
        return Call("GET", "/v1/events/stream"), headers
    return Call("GET", "/v1/events/stream", query(after=after)), headers


H = TypeVar("H")


class ClientBase(Generic[H]):
    """Where and how a client talks to the daemon; ``H`` is its httpx client.

    Over the unix socket (``socket``, default: where the daemon puts it), or over TCP with
    ``url`` and a bearer ``token`` (default ``$MEMORYD_TOKEN``). Every request acts in
    ``namespace``; ``timeout`` bounds each answer (seconds); ``retry`` says what is tried
    again.
    """

    def __init__(
        self,
        socket: str | os.PathLike[str] | None = None,
        *,
        url: str | None = None,
        token: str | None = None,
        namespace: str = "default",
        timeout: float = 30.0,
        retry: Retry | None = None,
    ) -> None:
        self.endpoint = endpoint(socket, url, token, namespace)
        self.retry = retry or Retry()
        self.timeout = timeout
        self._http: H = self._connect()

    def _connect(self) -> H:
        raise NotImplementedError

    def http_options(self) -> dict[str, Any]:
        """What the httpx client is made with, besides its transport."""
        return {
            "base_url": self.endpoint.base_url,
            "headers": self.endpoint.headers,
            "timeout": self.timeout,
        }
