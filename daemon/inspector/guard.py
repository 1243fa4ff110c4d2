"""The inspector's gate: loopback only, a session for every page, a CSRF token for every form.

Runs inside the inspector's sub-application, after the daemon's own middlewares (which let
``/inspect/`` through without a bearer token). Refuses:

- a peer that is not on loopback (or the unix socket), and a ``Host`` that does not name
  loopback: a web page elsewhere that rebinds its DNS name to 127.0.0.1 reaches the port but
  not the pages;
- a page without a live session cookie (401, saying how to get one);
- a namespace the session may not see (403);
- a POST whose form does not carry the session's CSRF token, or that the browser says another
  site sent (``Sec-Fetch-Site``, else ``Origin``) (403).

Every answer says not to cache it, not to be framed and to send a referrer only to itself (the
login URL carries its token), with a content security policy that allows only the package's own
files.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Awaitable, Callable

from aiohttp import web
from aiohttp.typedefs import Middleware
from yarl import URL

from daemon.api.errors import ApiError
from daemon.api.keys import GRANT, NAMESPACE
from daemon.api.middleware import DEFAULT_NAMESPACE, NAMESPACE_RE
from daemon.inspector.session import COOKIE_NAME, SESSION, Sessions

SESSIONS: web.AppKey[Sessions] = web.AppKey("memoryd_inspector_sessions", Sessions)
OPEN_ROUTES = frozenset({"login", "static"})
"""Route names served without a session: the login exchange and the package's CSS and script."""
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    # Not no-referrer: with it Chromium sends "Origin: null" on the pages' own forms.
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}

PageHandler = Callable[[web.Request], Awaitable[web.StreamResponse]]
ErrorPage = Callable[[web.Request, int, str], web.Response]


def is_unix(request: web.Request) -> bool:
    """Return True for a request over the daemon's (owner-only) unix socket."""
    transport = request.transport
    sock = transport.get_extra_info("socket") if transport is not None else None
    return sock is not None and sock.family == socket.AF_UNIX


def peer_is_local(request: web.Request) -> bool:
    """Return True for a request over the unix socket or from a loopback address."""
    if is_unix(request):
        return True
    transport = request.transport
    peer = transport.get_extra_info("peername") if transport is not None else None
    if not peer:
        return False
    try:
        return ipaddress.ip_address(str(peer[0]).split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def host_is_loopback(host: str | None) -> bool:
    """Return True if a ``Host`` header names loopback (any port)."""
    if not host:
        return False
    name = URL(f"http://{host}").host or ""
    if name.strip("[]") in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name.strip("[]")).is_loopback
    except ValueError:
        return False


def _route_name(request: web.Request) -> str | None:
    route = request.match_info.route
    return route.name if route is not None else None


def _same_origin(request: web.Request) -> bool:
    """Return False for a form another site made the browser send (the CSRF token aside)."""
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None:
        return site in ("same-origin", "none")
    origin = request.headers.get("Origin")
    if origin is None:
        return True  # an older browser: the CSRF token still has to match
    ours = URL(f"http://{request.host}").host_port_subcomponent
    return origin != "null" and URL(origin).host_port_subcomponent == ours


def _namespace(request: web.Request, given: str | None) -> str:
    session = request[SESSION]
    namespace = given or session.default_namespace(DEFAULT_NAMESPACE)
    if NAMESPACE_RE.fullmatch(namespace) is None:
        raise ApiError(400, "invalid_namespace", "a namespace is 1-64 of [A-Za-z0-9._-]")
    if not session.allows(namespace):
        raise ApiError(403, "forbidden", f"this session may not see namespace {namespace!r}")
    return namespace


def guard_middleware(error_page: ErrorPage) -> Middleware:
    """Return the middleware; ``error_page`` renders a refusal for a person."""

    @web.middleware
    async def guard(request: web.Request, handler: PageHandler) -> web.StreamResponse:
        if _route_name(request) == "session":
            return await handler(request)  # the CLI's JSON call: it checks its caller itself
        try:
            response = await _checked(request, handler)
        except ApiError as exc:
            response = error_page(request, exc.status, exc.message)
        response.headers.update(SECURITY_HEADERS)
        return response

    return guard


async def _checked(request: web.Request, handler: PageHandler) -> web.StreamResponse:
    local = is_unix(request) or (peer_is_local(request) and host_is_loopback(request.host))
    if not local:
        raise ApiError(403, "forbidden", "the inspector is served to this machine only")
    if _route_name(request) in OPEN_ROUTES:
        return await handler(request)
    session = request.app[SESSIONS].find(request.cookies.get(COOKIE_NAME))
    if session is None:
        raise ApiError(
            401,
            "unauthorized",
            "no session: run `memoryd inspect` and open the URL it prints",
        )
    request[SESSION] = session
    request[GRANT] = "inspector"  # who the log says acted: api:inspector
    form = await request.post() if request.method == "POST" else None
    if form is not None:
        token = form.get("csrf")
        if not _same_origin(request) or not session.csrf_matches(
            token if isinstance(token, str) else None
        ):
            raise ApiError(403, "forbidden", "the form is not from this session (CSRF check)")
    given = form.get("ns") if form is not None else request.query.get("ns")
    request[NAMESPACE] = _namespace(request, given if isinstance(given, str) else None)
    return await handler(request)
