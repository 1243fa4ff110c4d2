"""Fixtures shared across test modules; pytest finds them here, so no test imports a fixture.

- ``pg_scratch`` / ``pg_url``: this session's PostgreSQL scratch databases (see
  ``tests/pg_fixtures.py`` for the server they live on and when the tests skip or fail).
- ``gated_light``: a consolidation run whose first light phase waits until released.
- ``openai_fake``: a scripted OpenAI-compatible server on loopback (``tests/llm_fakes.py``;
  ``openai_provider`` builds a provider that asks it).
- ``chromium`` / ``inspected``: one Chromium (Playwright) per session and one ``memoryd serve``
  per module for the inspector's browser tests (``tests/browser_fixtures.py``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import TYPE_CHECKING

import asyncpg
import pytest
import pytest_asyncio

from daemon.consolidation import phases
from daemon.consolidation.service import RunContext
from plugins.protocols import Agent
from tests.browser_fixtures import CHROMIUM, Daemon, require_chromium, start_daemon, stop_daemon
from tests.llm_fakes import FakeLLMServer
from tests.pg_fixtures import PG_ENV, PgScratch, require_pg_server

if TYPE_CHECKING:
    from playwright.async_api import Browser


@pytest.fixture(scope="session")
def pg_scratch() -> Iterator[PgScratch]:
    """This session's scratch databases, dropped at the end of the session."""
    scratch = PgScratch(require_pg_server())
    try:
        asyncio.run(scratch.drop_stale())
        asyncio.run(scratch.create("a"))
    except (OSError, asyncpg.PostgresError) as exc:
        pytest.fail(f"PostgreSQL at {PG_ENV} is unreachable or refuses CREATE DATABASE: {exc}")
    try:
        yield scratch
    finally:
        asyncio.run(scratch.drop_all())


@pytest.fixture
def pg_url(pg_scratch: PgScratch) -> str:
    """Return a scratch database's URL with an empty schema (no tables, no other sessions)."""
    return asyncio.run(pg_scratch.fresh())


@pytest.fixture
async def openai_fake() -> AsyncIterator[FakeLLMServer]:
    server = FakeLLMServer("openai")
    await server.start()
    try:
        yield server
    finally:
        await server.close()


@pytest.fixture
def gated_light(monkeypatch: pytest.MonkeyPatch) -> tuple[asyncio.Event, asyncio.Event]:
    """Make the first light phase wait until released (a stalled or slow worker)."""
    entered, release = asyncio.Event(), asyncio.Event()
    original = phases.PHASES["light"]
    calls = 0

    async def light(ctx: RunContext, agents: Sequence[Agent]) -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            entered.set()
            await release.wait()
        await original(ctx, agents)

    monkeypatch.setitem(phases.PHASES, "light", light)
    return entered, release


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def chromium() -> AsyncIterator[Browser]:
    """Debian's Chromium under Playwright, one for the whole session (on the session's loop:
    Playwright's sync API would leave a loop running under every later asyncio test)."""
    require_chromium()
    from playwright.async_api import async_playwright

    async with async_playwright() as driver:
        browser = await driver.chromium.launch(executable_path=str(CHROMIUM))
        try:
            yield browser
        finally:
            await browser.close()


@pytest.fixture(scope="module")
def inspected(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """A running ``memoryd serve`` with its inspector listener open (one per test module)."""
    require_chromium()
    daemon = start_daemon(tmp_path_factory.mktemp("inspected"))
    try:
        yield daemon
    finally:
        stop_daemon(daemon)
