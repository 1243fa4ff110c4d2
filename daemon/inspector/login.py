"""Getting in and out: ``POST /inspect/session`` (what ``memoryd inspect`` calls) hands out a
one-time login URL; ``GET /inspect/login?token=`` trades it for the session cookie;
``POST /inspect/logout`` ends the session.

The login URL is asked for over the unix socket (its owner sees every namespace) or over TCP
with a bearer token, whose namespaces the session keeps.
"""

from __future__ import annotations

from aiohttp import web
from yarl import URL

from daemon.api.errors import ApiError, json_response
from daemon.api.keys import STATE
from daemon.inspector.guard import SESSIONS, is_unix, peer_is_local
from daemon.inspector.listener import LoopbackListener
from daemon.inspector.render import page
from daemon.inspector.session import COOKIE_NAME, LOGIN_TTL, SESSION_TTL

LISTENER: web.AppKey[LoopbackListener] = web.AppKey("memoryd_inspector_listener", LoopbackListener)
COOKIE_PATH = "/inspect/"
HOME = "/inspect/facts"


async def post_session(request: web.Request) -> web.Response:
    """Return a one-time login URL for a session with the caller's namespaces."""
    state = request.app[STATE]
    namespaces: frozenset[str] | None = None
    if state.tokens is not None and not is_unix(request):
        grant = state.tokens.check(request.headers.get("Authorization"))
        if grant is None:
            raise ApiError(401, "unauthorized", "a login URL over TCP needs a bearer token")
        namespaces = grant.namespaces
    if not peer_is_local(request):
        raise ApiError(403, "forbidden", "the inspector is served to this machine only")
    listener = request.app.get(LISTENER)
    if listener is not None:
        base = await listener.async_base_url(state)
    else:
        base = f"{request.scheme}://{request.host}"
    token = request.app[SESSIONS].issue_login(namespaces)
    url = URL(base).with_path("/inspect/login").with_query(token=token)
    return json_response(
        {
            "url": str(url),
            "expires_in": LOGIN_TTL,
            "namespaces": None if namespaces is None else sorted(namespaces),
        },
        status=201,
    )


async def get_login(request: web.Request) -> web.Response:
    """Trade the login token for the session cookie and go to the Facts page."""
    found = request.app[SESSIONS].redeem(request.query.get("token", ""))
    if found is None:
        return page(
            request,
            "error.html",
            http_status=401,
            message="This login link was used already or has expired. Run `memoryd inspect` "
            "again for a new one.",
        )
    cookie, session = found
    home = URL(HOME).with_query(ns=session.default_namespace("default"))
    response = web.Response(status=303, headers={"Location": str(home)})
    response.set_cookie(
        COOKIE_NAME,
        cookie,
        path=COOKIE_PATH,
        max_age=int(SESSION_TTL),
        httponly=True,
        samesite="Strict",
    )
    return response


async def post_logout(request: web.Request) -> web.Response:
    """End this browser's session."""
    request.app[SESSIONS].end(request.cookies.get(COOKIE_NAME, ""))
    response = page(request, "error.html", message="Logged out.")
    response.del_cookie(COOKIE_NAME, path=COOKIE_PATH)
    return response


def add_routes(app: web.Application) -> None:
    """Register the login routes."""
    app.router.add_post("/session", post_session, name="session")
    app.router.add_get("/login", get_login, name="login", allow_head=False)
    app.router.add_post("/logout", post_logout, name="logout")
