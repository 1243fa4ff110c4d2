"""Fixtures for the inspector's tests: the daemon's app with the inspector, and a way in.

``inspector_app`` runs the app (TCP with bearer tokens, as the daemon serves it) behind
aiohttp's test client; ``Inspector.login`` asks for a login URL with a token, as
``memoryd inspect`` does, and visits it so the client holds the session cookie.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import orjson
from aiohttp import ClientResponse, web
from aiohttp.test_utils import TestClient, TestServer

from daemon.api.keys import STATE
from daemon.api.state import AppSettings
from daemon.app import build_app
from daemon.auth import Grant, TokenSet
from daemon.backend import Backend
from daemon.inspector import install_inspector
from events.clock import ManualClock
from tests.api_fixtures import T0

ADMIN_TOKEN = "admin-token-for-the-inspector-tests"
LIMITED_TOKEN = "limited-token-for-namespace-a-only"


class Inspector:
    """A browser-like client (it keeps cookies) plus the API beside it."""

    def __init__(
        self, client: TestClient[Any, Any], app: web.Application, clock: ManualClock
    ) -> None:
        self.client = client
        self.app = app
        self.clock = clock

    async def api(
        self, method: str, path: str, body: Any = None, *, namespace: str = "default"
    ) -> tuple[int, Any]:
        """Call the JSON API with the admin token; return (status, body)."""
        headers = {"Authorization": f"Bearer {ADMIN_TOKEN}", "X-Memoryd-Namespace": namespace}
        data = orjson.dumps(body) if body is not None else None
        if data is not None:
            headers["Content-Type"] = "application/json"
        resp = await self.client.request(method, path, data=data, headers=headers)
        return resp.status, orjson.loads(await resp.read())

    async def login_url(self, token: str = ADMIN_TOKEN) -> str:
        """Ask for a one-time login URL with a bearer token; return its path and query."""
        resp = await self.client.post(
            "/inspect/session", headers={"Authorization": f"Bearer {token}"}
        )
        assert resp.status == 201, await resp.text()
        url = str((await resp.json())["url"])
        return url[url.index("/inspect/") :]

    async def login(self, token: str = ADMIN_TOKEN) -> None:
        """Log in: the client then holds the session cookie."""
        resp = await self.client.get(await self.login_url(token), allow_redirects=False)
        assert resp.status == 303, await resp.text()

    async def get(self, path: str, **params: str) -> tuple[int, str]:
        """Fetch a page; return (status, HTML)."""
        resp = await self.client.get(path, params=params)
        return resp.status, await resp.text()

    async def post(
        self, path: str, form: Mapping[str, str], headers: Mapping[str, str] | None = None
    ) -> ClientResponse:
        """Submit a form (without following the redirect)."""
        return await self.client.post(
            path, data=dict(form), headers=dict(headers or {}), allow_redirects=False
        )

    async def csrf(self, path: str = "/inspect/review") -> str:
        """Return the session's CSRF token, read from a page's form."""
        _, html = await self.get(path)
        found = re.search(r'name="csrf" value="([^"]+)"', html)
        assert found is not None, html
        return found.group(1)


def test_tokens() -> TokenSet:
    """The admin token (every namespace) and one limited to namespace ``a``."""
    tokens = TokenSet()
    tokens.add(ADMIN_TOKEN, Grant(name="admin", namespaces=None))
    tokens.add(LIMITED_TOKEN, Grant(name="limited", namespaces=frozenset({"a"})))
    return tokens


@asynccontextmanager
async def inspector_app(data_dir: Path, **settings: Any) -> AsyncIterator[Inspector]:
    """Run the app with the inspector on ``data_dir`` behind a test client on 127.0.0.1."""
    clock = ManualClock(T0)
    app = build_app(
        AppSettings(backend=Backend(data_dir=data_dir), **settings),
        clock=clock,
        tokens=test_tokens(),
    )
    install_inspector(app)
    async with TestClient(TestServer(app, host="127.0.0.1")) as client:
        await asyncio.wait_for(app[STATE].ready.wait(), 10)
        yield Inspector(client, app, clock)
