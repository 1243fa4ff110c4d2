"""The API's middlewares, outermost first: request id and metrics, JSON errors, readiness,
bearer auth (TCP only) and namespace, and the idempotency-key check."""

from __future__ import annotations

import asyncio
import itertools
import os
import re
import socket
import time
from collections.abc import Awaitable, Callable

from aiohttp import web

from daemon.api.common import IDEMPOTENCY_HEADER, header_key, request_fingerprint
from daemon.api.errors import ApiError, error_response, from_http_exception
from daemon.api.keys import GRANT, NAMESPACE, STATE, namespace_of, state_of
from daemon.logging import get_logger, request_context

log = get_logger("memoryd.api")

NAMESPACE_HEADER = "X-Memoryd-Namespace"
DEFAULT_NAMESPACE = "default"
NAMESPACE_RE = re.compile(r"[A-Za-z0-9._-]{1,64}")
REQUEST_ID_HEADER = "X-Request-Id"
PROJECTION_POSITION_HEADER = "X-Memoryd-Projection-Position"
BEHIND_HEADER = "X-Memoryd-Behind"
REQUEST_ID_RE = re.compile(r"[A-Za-z0-9._:@/+=-]{1,200}")
"""A client's own request id is echoed and logged only when it is this plain."""

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

STREAMING_PATHS = frozenset({"/v1/events/stream"})
"""Paths exempt from the request timeout."""
SELF_BOUNDED_ROUTES = frozenset({"/v1/conversations/{cid}/retrospective:run"})
"""Routes whose request names its own bounded wait (``timeout``, up to 600 s), which the
request timeout (30 s by default) would otherwise cut short with a 503."""
OPEN_PATHS = frozenset({"/v1/health", "/metrics", "/v1/openapi.json"})
"""Paths served before the projections are ready and without a namespace."""
NO_TOKEN_PATHS = frozenset({"/v1/health"})
"""Paths a TCP client may call without a bearer token."""
OWN_SESSION_PREFIX = "/inspect/"
"""Pages that authenticate with their own session cookie (``daemon.inspector``), not a bearer
token."""
DAEMON_WIDE_PATHS = frozenset({"/metrics", "/v1/retrospective"})
"""Paths whose answer covers every namespace: only a token for all namespaces may read them."""


def _route_label(request: web.Request) -> str:
    info = request.match_info
    resource = info.route.resource if info.http_exception is None else None
    return resource.canonical if resource is not None else "unmatched"


_REQUEST_ID_PREFIX = f"{os.getpid():x}-{os.urandom(4).hex()}-"
_REQUEST_SEQ = itertools.count(1)
"""Request ids: unique per process start, without a system call per request."""


@web.middleware
async def observe_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Tag the request with an id and record its count and latency."""
    start = time.perf_counter()
    given = request.headers.get(REQUEST_ID_HEADER)
    if given is None or REQUEST_ID_RE.fullmatch(given) is None:
        given = None
    request_id = given or f"{_REQUEST_ID_PREFIX}{next(_REQUEST_SEQ):x}"
    status = 500
    state = request.app[STATE]
    state.in_flight += 1
    try:
        with request_context(request_id):
            limit = state.settings.request_timeout
            if (
                limit is None
                or request.path in STREAMING_PATHS
                or _route_label(request) in SELF_BOUNDED_ROUTES
            ):
                response = await handler(request)
            else:
                try:
                    async with asyncio.timeout(limit):
                        response = await handler(request)
                except TimeoutError:
                    # A write already handed to the store still commits (appends are shielded);
                    # a retry with the same idempotency key returns its result.
                    response = error_response(
                        503,
                        "timeout",
                        f"the request took longer than {limit:g} s",
                        {"timeout_seconds": limit},
                    )
        status = response.status
        if not response.prepared:
            response.headers[REQUEST_ID_HEADER] = request_id
            if request.path not in OPEN_PATHS:
                # How current the projections were when this answer was made: a read after a
                # bulk import is served, and says how far behind it is, instead of failing.
                response.headers[PROJECTION_POSITION_HEADER] = str(state.projection_position())
                response.headers[BEHIND_HEADER] = str(state.behind())
        return response
    finally:
        state.in_flight -= 1
        metrics = state.metrics
        route = _route_label(request)
        metrics.requests.inc(route, request.method, str(status))
        metrics.latency.observe(time.perf_counter() - start, route, request.method)


@web.middleware
async def error_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Turn every error into the API's JSON error body."""
    try:
        declared = request.content_length
        limit = request.app[STATE].settings.max_body_bytes
        if declared is not None and declared > limit:
            # Refused before reading a byte of it; the connection closes, so nothing lingers to
            # read the rest.
            response = _too_large(limit)
            response.force_close()
            return response
        return await handler(request)
    except ApiError as exc:
        return exc.response()
    except web.HTTPRequestEntityTooLarge:
        return _too_large(request.app[STATE].settings.max_body_bytes)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        return from_http_exception(exc)
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("unhandled error", method=request.method, path=request.path)
        return error_response(500, "internal_error", "internal error; see the daemon's log")


def _too_large(limit: int) -> web.Response:
    return error_response(
        413,
        "body_too_large",
        f"request body is larger than the limit of {limit} bytes",
        {"max_bytes": limit},
    )


def _is_unix(request: web.Request) -> bool:
    transport = request.transport
    sock = transport.get_extra_info("socket") if transport is not None else None
    return sock is not None and sock.family == socket.AF_UNIX


@web.middleware
async def gate_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Check readiness, the bearer token (TCP) and the namespace header."""
    state = request.app[STATE]
    path = request.path
    open_path = path in OPEN_PATHS
    if not open_path and not state.ready.is_set():
        raise ApiError(
            503,
            "not_ready",
            "memoryd is starting: the projections are catching up with the log",
            headers={"Retry-After": "1"},
        )
    grant = None
    bearer = path not in NO_TOKEN_PATHS and not path.startswith(OWN_SESSION_PREFIX)
    if state.tokens is not None and bearer and not _is_unix(request):
        grant = state.tokens.check(request.headers.get("Authorization"))
        if grant is None:
            raise ApiError(
                401,
                "unauthorized",
                "a valid bearer token is required on TCP (Authorization: Bearer <token>)",
                headers={"WWW-Authenticate": 'Bearer realm="memoryd"'},
            )
    namespace = request.headers.get(NAMESPACE_HEADER, DEFAULT_NAMESPACE)
    if NAMESPACE_RE.fullmatch(namespace) is None:
        raise ApiError(
            400,
            "invalid_namespace",
            f"{NAMESPACE_HEADER} must match [A-Za-z0-9._-]{{1,64}}",
            {"field": NAMESPACE_HEADER},
        )
    if grant is not None and grant.namespaces is not None and path in DAEMON_WIDE_PATHS:
        raise ApiError(
            403,
            "forbidden",
            f"{path} covers every namespace; it needs a token for all namespaces (*)",
            {"path": path},
        )
    if grant is not None and not grant.allows(namespace):
        raise ApiError(
            403,
            "forbidden",
            f"this token may not use namespace {namespace!r}",
            {"namespace": namespace},
        )
    request[NAMESPACE] = namespace
    if grant is not None:
        request[GRANT] = grant.name
    return await handler(request)


@web.middleware
async def idempotency_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Refuse a retry whose key was used by a different request, before the handler runs.

    Some handlers answer a retry from the log without appending (a supersede, a validation):
    the store's own comparison never runs for them, so the key is checked here for every
    keyed POST. Keys given in a body are compared by the store when it appends.
    """
    if request.method == "POST" and IDEMPOTENCY_HEADER in request.headers:
        key = header_key(request)
        store = state_of(request).store
        if key is not None and store is not None:
            stored = await store.request_hashes(namespace_of(request), key)
            if stored and stored != {await request_fingerprint(request)}:
                raise ApiError(
                    409,
                    "idempotency_conflict",
                    f"{IDEMPOTENCY_HEADER} {key!r} was used for a different request",
                    {"field": IDEMPOTENCY_HEADER},
                )
    return await handler(request)
