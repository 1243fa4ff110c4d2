"""Leadership on one lease table (SQLite here; PostgreSQL in test_multi_daemon.py): one leader
at a time, a clean stop hands over at once, and a leader whose database stalls steps down."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import timedelta
from pathlib import Path

import aiohttp
import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

import daemon.leadership as leadership_module
from daemon.leadership import Leadership
from events.leases import Lease, LeaseManager
from events.store.sqlite import sqlite_engine
from tests.api_fixtures import make_config, running

TTL = timedelta(milliseconds=600)
BOUND = 10.0
"""Seconds any expected change may take (it should take about one ttl)."""


class Recorder:
    """A leader-only service that records its transitions and how many lead at once."""

    name = "recorder"

    def __init__(self, who: str, active: list[str], history: list[str]) -> None:
        self.who = who
        self.active = active
        self.history = history

    async def lead(self) -> None:
        self.active.append(self.who)
        self.history.append(f"{self.who}+")

    async def step_down(self) -> None:
        if self.who in self.active:
            self.active.remove(self.who)
            self.history.append(f"{self.who}-")


class StallingLeases(LeaseManager):
    """Every call hangs while ``answering`` is clear (a database that stopped answering)."""

    def __init__(self, engine: AsyncEngine) -> None:
        super().__init__(engine)
        self.answering = asyncio.Event()
        self.answering.set()

    async def acquire(self, name: str, holder: str, ttl: timedelta) -> Lease | None:
        await self.answering.wait()
        return await super().acquire(name, holder, ttl)

    async def renew(self, lease: Lease, ttl: timedelta) -> Lease | None:
        await self.answering.wait()
        return await super().renew(lease, ttl)

    async def is_current(self, lease: Lease) -> bool:
        await self.answering.wait()
        return await super().is_current(lease)


async def until(what: str, check: object) -> None:
    assert callable(check)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + BOUND
    while not check():
        if loop.time() > deadline:
            raise AssertionError(f"not within {BOUND} s: {what}")
        await asyncio.sleep(0.02)


async def test_one_leader_and_a_clean_stop_hands_over(tmp_path: Path) -> None:
    engines = [sqlite_engine(tmp_path / "leases.sqlite3", write=True) for _ in range(2)]
    active: list[str] = []
    history: list[str] = []
    first, second = (
        Leadership(LeaseManager(e), [Recorder(w, active, history)], holder=w, ttl=TTL)
        for e, w in zip(engines, ("a", "b"), strict=True)
    )
    try:
        await first.start()
        await until("a leads", lambda: active == ["a"])
        await second.start()
        await asyncio.sleep(TTL.total_seconds() * 2)  # b campaigns meanwhile, in vain
        assert active == ["a"]
        assert await first.fence()
        assert not await second.fence()
        token = first.active.token if first.active else None
        await first.stop()
        assert "a" not in active
        await until("b leads after a's release", lambda: active == ["b"])
        assert second.active is not None
        assert token is not None
        assert second.active.token > token
        assert history == ["a+", "a-", "b+"]
    finally:
        await first.stop()
        await second.stop()
        for engine in engines:
            await engine.dispose()


async def test_a_leader_whose_database_stalls_steps_down(tmp_path: Path) -> None:
    engines = [sqlite_engine(tmp_path / "leases.sqlite3", write=True) for _ in range(2)]
    active: list[str] = []
    history: list[str] = []
    stalling = StallingLeases(engines[0])
    first = Leadership(stalling, [Recorder("a", active, history)], holder="a", ttl=TTL)
    second = Leadership(
        LeaseManager(engines[1]), [Recorder("b", active, history)], holder="b", ttl=TTL
    )
    try:
        await first.start()
        await until("a leads", lambda: active == ["a"])
        await second.start()
        stalling.answering.clear()
        # a's renewal times out after one pace: it stops its work before its lease expires,
        # and b takes over once it has.
        await until("a steps down", lambda: "a" not in active)
        assert not await first.fence()
        await until("b leads", lambda: active == ["b"])
        assert history.index("a-") < history.index("b+")
        stalling.answering.set()
        await asyncio.sleep(TTL.total_seconds())
        assert active == ["b"]
    finally:
        stalling.answering.set()
        await first.stop()
        await second.stop()
        for engine in engines:
            await engine.dispose()


async def test_a_single_sqlite_daemon_leads_and_runs_retrospectives(tmp_path: Path) -> None:
    """``memoryd serve`` on SQLite: the one daemon takes the lease and runs the work."""
    config = make_config(
        tmp_path,
        **{"retrospective.enabled": True, "retrospective.min_cooldown": "0s"},
    )
    async with running(config) as (server, _lines):
        connector = aiohttp.UnixConnector(path=str(config.server.socket))
        async with aiohttp.ClientSession(connector=connector) as http:
            resp = await http.post(
                "http://m/v1/conversations/c/messages",
                json={"role": "user", "content": "I live in Lisbon."},
            )
            assert resp.status == 201
            message_id = (await resp.json())["message_id"]
            loop = asyncio.get_running_loop()
            deadline = loop.time() + BOUND
            while True:
                resp = await http.get("http://m/v1/conversations/c/retrospective")
                view = await resp.json()
                if view["cursor"] == message_id:
                    break
                assert loop.time() < deadline, f"no retrospective ran: {view}"
                await asyncio.sleep(0.05)
            assert [r["status"] for r in view["runs"]] == ["succeeded"]
            resp = await http.get("http://m/v1/retrospective")
            assert (await resp.json())["leading"] is True
            resp = await http.get("http://m/metrics")
            assert "memoryd_leader 1" in await resp.text()
    assert server.exit_status == 0


class Swallowing(Recorder):
    """Leads by waiting for something, and swallows the cancellation that arrives meanwhile
    (Python 3.11's ``asyncio.wait_for`` does when its inner wait ends at the same moment)."""

    def __init__(self, who: str, active: list[str], history: list[str]) -> None:
        super().__init__(who, active, history)
        self.leading = asyncio.Event()

    async def lead(self) -> None:
        await super().lead()
        self.leading.set()
        with contextlib.suppress(asyncio.CancelledError):  # the bug this stands for
            await asyncio.Event().wait()


async def test_stopping_is_bounded_when_a_service_swallowed_the_cancellation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(leadership_module, "STOP_SECONDS", 0.3)
    engine = sqlite_engine(tmp_path / "leases.sqlite3", write=True)
    active: list[str] = []
    history: list[str] = []
    service = Swallowing("a", active, history)
    leadership = Leadership(LeaseManager(engine), [service], holder="a", ttl=TTL)
    try:
        await leadership.start()
        await asyncio.wait_for(service.leading.wait(), BOUND)
        async with asyncio.timeout(BOUND):
            await leadership.stop()  # hung for good before the bound
        assert active == []
        assert history == ["a+", "a-"]
    finally:
        await engine.dispose()
