"""Fixtures for the API tests: an app on a temporary data dir behind aiohttp's test client."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
from aiohttp import ClientResponse, ClientTimeout
from aiohttp.test_utils import TestClient, TestServer

from daemon.api.keys import RETROSPECTIVE, STATE
from daemon.api.state import AppSettings
from daemon.app import build_app
from daemon.backend import Backend
from daemon.config import Config, load_config
from daemon.logging import configure_logging, reset_logging
from daemon.server import ServeOptions, Server
from daemon.services.retrospective import install_retrospective
from events.clock import ManualClock
from plugins.registry import Plugins

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


class Api:
    """A test client that speaks the API's JSON, with a namespace per call."""

    def __init__(self, client: TestClient[Any, Any], clock: ManualClock) -> None:
        self.client = client
        self.clock = clock

    async def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        namespace: str | None = None,
        headers: Mapping[str, str] | None = None,
        raw: bytes | None = None,
    ) -> tuple[int, Any]:
        """Send one request; return (status, decoded JSON body or text)."""
        hdrs = dict(headers or {})
        if namespace is not None:
            hdrs["X-Memoryd-Namespace"] = namespace
        data = raw if raw is not None else (orjson.dumps(body) if body is not None else None)
        if data is not None:
            hdrs.setdefault("Content-Type", "application/json")
        resp = await self.client.request(
            method, path, data=data, headers=hdrs, timeout=ClientTimeout(total=60)
        )
        return resp.status, await decode(resp)


async def decode(resp: ClientResponse) -> Any:
    """Return a response's JSON body, or its text when it is not JSON."""
    text = await resp.read()
    if resp.content_type == "application/json":
        return orjson.loads(text)
    return text.decode()


@asynccontextmanager
async def api_client(
    data_dir: Path,
    *,
    clock: ManualClock | None = None,
    with_projections: bool = True,
    **settings: Any,
) -> AsyncIterator[Api]:
    """Run the app on ``data_dir`` behind a test client (no token: the tests use TCP)."""
    clock = clock or ManualClock(T0)
    app_settings = AppSettings(
        # On the test's own loop unless a test asks for the projection process.
        **{
            "backend": Backend(data_dir=data_dir),
            "tcp_requires_token": False,
            "projector": "inline",
            **settings,
        }
    )
    app = build_app(app_settings, clock=clock, with_projections=with_projections)
    async with TestClient(TestServer(app)) as client:
        await asyncio.wait_for(app[STATE].ready.wait(), 10)
        yield Api(client, clock)


def make_config(tmp_path: Path, **extra: object) -> Config:
    overrides: dict[str, object] = {
        "storage.data_dir": str(tmp_path / "data"),
        "server.socket": str(tmp_path / "run" / "memoryd.sock"),
        # Off unless a test is about them: a retrospective appends its own events to the log,
        # and most tests assert the log holds exactly what they wrote.
        "retrospective.enabled": False,
        **extra,
    }
    return load_config(None, env={}, overrides=overrides)


@asynccontextmanager
async def running(
    config: Config, options: ServeOptions | None = None, plugins: Plugins | None = None
) -> AsyncIterator[tuple[Server, list[str]]]:
    """Run a Server in this loop until the block ends; yield it and its status lines."""
    lines: list[str] = []
    # The daemon runs in this process: its log lines go to stderr, away from a CLI's stdout.
    configure_logging("warning", "console", stream=sys.stderr)
    server = Server(config, options, out=lines.append, plugins=plugins)
    task = asyncio.create_task(server.async_run())
    try:
        for _ in range(800):  # the projection process starts in about a second
            if any(line.startswith("memoryd: ready") for line in lines):
                break
            if task.done():
                await task
            await asyncio.sleep(0.025)
        else:
            raise AssertionError(f"daemon did not become ready: {lines}")
        yield server, lines
    finally:
        server.request_stop()
        try:
            assert await asyncio.wait_for(task, 20) == 0
        finally:
            reset_logging()


@contextmanager
def appends_failing(api: Api, error: Exception) -> Iterator[None]:
    """Make every append of the app's store raise ``error`` until the block ends."""
    app = api.client.app
    assert app is not None
    store = app[STATE].require_store()
    original = store.append

    async def failing(*args: object, **kwargs: object) -> list[int]:
        raise error

    store.append = failing
    try:
        yield
    finally:
        store.append = original


class ManualConfigSource:
    """A configuration source driven by the test: ``reload`` hands the services a new config."""

    def __init__(self, config: Config) -> None:
        self.current = config
        self.callbacks: list[Callable[[Config, Config], Any]] = []

    def subscribe(self, callback: Callable[[Config, Config], Any]) -> None:
        self.callbacks.append(callback)

    async def reload(self, new: Config) -> None:
        old, self.current = self.current, new
        for callback in self.callbacks:
            await callback(old, new)


@asynccontextmanager
async def retrospective_api(
    tmp_path: Path, overrides: Mapping[str, object] | None = None, plugins: Plugins | None = None
) -> AsyncIterator[Api]:
    """An API app with its retrospective service running (default config but ``overrides``,
    manual clock; ``plugins``, when given, instead of the process's)."""
    config = load_config(
        None,
        env={},
        overrides={"storage.data_dir": str(tmp_path), **(overrides or {})},
        plugins=plugins,
    )
    app = build_app(
        AppSettings(
            backend=Backend(data_dir=tmp_path), tcp_requires_token=False, projector="inline"
        ),
        clock=ManualClock(T0),
        plugins=plugins,
    )
    install_retrospective(app, ManualConfigSource(config))
    async with TestClient(TestServer(app)) as client:
        await asyncio.wait_for(app[STATE].ready.wait(), 10)
        for _ in range(500):
            if app[RETROSPECTIVE].service is not None:
                break
            await asyncio.sleep(0.01)
        assert app[RETROSPECTIVE].service is not None
        yield Api(client, app[STATE].clock)  # type: ignore[arg-type]
