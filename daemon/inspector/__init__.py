"""The inspector: web pages, served by the daemon on loopback, showing what the memory
believes, since when, and why (facts, time travel, the event log, conversations, review,
consolidation plans, health). ``docs/inspector.md`` describes it for people.

The pages are a sub-application under ``/inspect/`` on the daemon's own app: the daemon's
middlewares (request ids, metrics, readiness) run first and let ``/inspect/`` through without
a bearer token; the inspector's guard (:mod:`daemon.inspector.guard`) then asks for its
session cookie. Pages read through the same projection queries and write through the same
domain functions as the API.
"""

from __future__ import annotations

from pathlib import Path

from aiohttp import web

from daemon.api.keys import PLUGINS, STATE
from daemon.inspector import (
    conversations,
    facts,
    health,
    login,
    plans,
    review,
    timeline,
    timetravel,
)
from daemon.inspector.guard import SESSIONS, guard_middleware
from daemon.inspector.listener import LoopbackListener
from daemon.inspector.render import page
from daemon.inspector.session import Sessions

PREFIX = "/inspect/"
STATIC = Path(__file__).parent / "static"


def _error_page(request: web.Request, status: int, message: str) -> web.Response:
    return page(request, "error.html", http_status=status, message=message)


async def _home(request: web.Request) -> web.Response:
    return web.Response(status=303, headers={"Location": f"{PREFIX}facts"})


def install_inspector(app: web.Application, listener: LoopbackListener | None = None) -> None:
    """Serve the inspector under ``/inspect/`` of ``app`` (before the app starts).

    ``listener`` finds or opens the loopback listener a login URL names; without it (tests
    behind aiohttp's test client) the URL names the address the request came to.
    """
    pages = web.Application(middlewares=[guard_middleware(_error_page)])
    pages[STATE] = app[STATE]
    pages[PLUGINS] = app[PLUGINS]
    pages[SESSIONS] = Sessions()
    pages[plans.DAEMON] = app
    if listener is not None:
        pages[login.LISTENER] = listener
    pages.router.add_get("/", _home, name="home", allow_head=False)
    for module in (login, facts, timetravel, timeline, conversations, review, plans, health):
        module.add_routes(pages)
    pages.router.add_static("/static/", STATIC, name="static", append_version=False)
    app.add_subapp(PREFIX, pages)
