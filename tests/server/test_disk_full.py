"""A full disk: writes refused with a clear 507 (early, below the reserve), reads served, the
projections waiting and retrying instead of dying, no user text in the failure logs.

``bench/disk_full.py`` runs the same on a real, small filesystem (figures in
``docs/performance.md``)."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
import sqlalchemy as sa
from aiohttp.test_utils import TestClient, TestServer

from daemon import projector
from daemon.api import common
from daemon.api.common import MIB
from daemon.api.keys import STATE
from daemon.api.state import AppSettings
from daemon.app import build_app
from daemon.backend import Backend
from daemon.projection_hosting import async_drive_projector
from daemon.projector import ProjectorExited
from daemon.recall.engine import RecallEngine
from daemon.recall.service import cache_engine
from daemon.services.consolidation import lease_engine
from events.store.base import NewEvent, StorageFull
from events.store.db_errors import classify_database_error
from events.store.sqlite import SqliteEventStore, sqlite_engine
from projections.runner import ProjectionRunner
from tests.api_fixtures import api_client, appends_failing
from tests.projection_fixtures import message

MSG = "/v1/conversations/c1/messages"


async def test_writes_are_refused_below_the_reserve_and_reads_go_on(tmp_path: Path) -> None:
    async with api_client(tmp_path, reserved_space=2**60) as api:
        status, body = await api.call("POST", MSG, {"role": "user", "content": "x"})
        assert status == 507, body
        assert body["error"]["code"] == "insufficient_storage"
        assert "storage.reserved_space" in body["error"]["message"]
        status, health = await api.call("GET", "/v1/health")
        assert (status, health["status"]) == (200, "degraded")
        assert "reserved_space" in health["reason"]
        assert health["last_position"] == 0
        status, _ = await api.call("GET", "/v1/facts")
        assert status == 200


async def test_a_full_disk_during_an_append_is_a_507(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        with appends_failing(api, StorageFull("the disk holding the event log is full")):
            status, body = await api.call("POST", MSG, {"role": "user", "content": "x"})
            assert status == 507
            assert body["error"]["message"] == "the disk holding the event log is full"
        status, _ = await api.call("POST", MSG, {"role": "user", "content": "x"})
        assert status == 201
        _, health = await api.call("GET", "/v1/health")
        assert health["status"] == "ok"


def test_sqlite_full_is_classified() -> None:
    error = sqlite3.OperationalError("database or disk is full")
    error.sqlite_errorcode = 13
    assert isinstance(classify_database_error(error), StorageFull)
    assert isinstance(classify_database_error(OSError(28, "No space left on device")), StorageFull)


def _disk_full() -> sa.exc.OperationalError:
    error = sqlite3.OperationalError("database or disk is full")
    error.sqlite_errorcode = 13
    return sa.exc.OperationalError("INSERT ...", {}, error)


@pytest.fixture
def quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(projector, "RETRY_FIRST_DELAY", 0.001)
    monkeypatch.setattr(projector, "RETRY_MAX_DELAY", 0.01)


@pytest.mark.usefixtures("quick_retries")
async def test_the_projections_wait_and_retry_a_full_disk_in_smaller_batches() -> None:
    runner = SimpleNamespace(batch_size=5000)
    attempts: list[int] = []
    heard: list[str | None] = []

    async def fold() -> int:
        attempts.append(runner.batch_size)
        if len(attempts) < 4:
            raise _disk_full()
        return 42

    retrying = projector._Retrying(runner, heard.append)  # type: ignore[arg-type]
    assert await retrying.fold(fold) == 42
    # Each failure on a full disk tries again with a quarter of the batch (a transaction's
    # WAL must fit); success brings the batch size back.
    assert attempts == [5000, 1250, 312, 78]
    assert runner.batch_size == 5000
    assert len(heard) == 2
    assert heard[1] is None
    assert heard[0] is not None
    assert "full" in heard[0]
    assert "INSERT" not in heard[0]

    async def broken() -> int:
        raise ValueError("a bug is not retried")

    with pytest.raises(ValueError, match="not retried"):
        await retrying.fold(broken)


async def test_stopping_does_not_wait_for_room_to_fold() -> None:
    class Runner:
        position = 7

        async def catch_up(self, until: int | None = None) -> int:
            raise _disk_full()

    # What could not be folded is folded at the next start: the log holds it.
    assert await projector.async_last_fold(Runner(), 10) == 7  # type: ignore[arg-type]

    class Broken(Runner):
        async def catch_up(self, until: int | None = None) -> int:
            raise ValueError("a bug")

    with pytest.raises(ValueError, match="a bug"):
        await projector.async_last_fold(Broken(), 10)  # type: ignore[arg-type]


class _StoppingChild:
    """A projection process that was told to stop and then exited with a failure."""

    def __init__(self) -> None:
        self.set_up = asyncio.Event()
        self.set_up.set()
        self.ready = asyncio.Event()
        self.stopping = True
        self.starts = 0
        self.on_blocked: Any = None

    async def async_watch(self) -> None:
        raise ProjectorExited("the projection process exited with status 1")

    async def async_start(self) -> None:
        self.starts += 1

    def tell_head(self, head: int) -> None:
        pass

    def fold_now(self) -> None:
        pass


async def test_a_child_that_fails_while_being_stopped_is_not_restarted(tmp_path: Path) -> None:
    # The shutdown that hung: the child failed its last fold on a full disk, and the daemon
    # started another child instead of ending.
    async with api_client(tmp_path) as api:
        state = api.client.app[STATE]
        child = _StoppingChild()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(async_drive_projector(state, child), 10)  # type: ignore[arg-type]
        assert child.starts == 0


class _BlockedRunner(ProjectionRunner):
    """Folds only once ``blocked`` is cleared; until then every fold finds the disk full."""

    blocked = True

    async def catch_up(self, *args: Any, **kwargs: Any) -> int:
        if _BlockedRunner.blocked:
            raise _disk_full()
        return await super().catch_up(*args, **kwargs)


@pytest.fixture
def blocked_runner() -> Iterator[type[_BlockedRunner]]:
    _BlockedRunner.blocked = True
    yield _BlockedRunner
    _BlockedRunner.blocked = True


@pytest.mark.usefixtures("quick_retries")
async def test_a_fold_that_waits_for_room_at_start_serves_what_is_folded(
    tmp_path: Path, blocked_runner: type[_BlockedRunner]
) -> None:
    async with SqliteEventStore.in_data_dir(tmp_path) as store:
        await store.append(
            "default",
            [NewEvent(message("c1", f"m{i}", f"turn {i}")) for i in range(3)],
        )
    # A read would wait this long for the fold (read-your-writes) if it did not know the
    # fold cannot move.
    settings = AppSettings(
        backend=Backend(tmp_path),
        tcp_requires_token=False,
        read_your_writes_timeout=600,
        projector="inline",
    )
    app = build_app(settings, runner_factory=blocked_runner)
    async with TestClient(TestServer(app)) as client:
        state = app[STATE]
        await asyncio.wait_for(state.ready.wait(), 10)
        health = await (await client.get("/v1/health")).json()
        assert health["status"] == "degraded"
        assert "folding waits" in health["reason"]
        assert "full" in health["reason"]
        resp = await asyncio.wait_for(client.get("/v1/facts"), 10)
        assert resp.status == 200
        assert resp.headers["X-Memoryd-Behind"] == "3"
        blocked_runner.blocked = False
        assert state.runner is not None
        assert await state.runner.wait_for(3, timeout=10)
        resp = await client.get("/v1/conversations/c1/messages")
        assert resp.status == 200
        assert len((await resp.json())["messages"]) == 3
        assert resp.headers["X-Memoryd-Behind"] == "0"
        health = await (await client.get("/v1/health")).json()
        assert health["status"] == "ok", health


@pytest.mark.usefixtures("quick_retries")
async def test_writes_are_refused_while_what_is_not_folded_would_not_fit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, blocked_runner: type[_BlockedRunner]
) -> None:
    reserve = 4 * MIB
    # Each event is taken to need 1 MiB in the projections: 1 KiB in the log, 1024 times.
    monkeypatch.setattr(common, "PROJECTED_OVER_LOG_AT_FIRST", 1024)
    monkeypatch.setattr(
        shutil, "disk_usage", lambda _path: SimpleNamespace(free=reserve + 7 * MIB // 2)
    )
    settings = AppSettings(
        backend=Backend(tmp_path),
        tcp_requires_token=False,
        reserved_space=reserve,
        read_your_writes_timeout=0.01,
        projector="inline",
    )
    app = build_app(settings, runner_factory=blocked_runner)
    state = app[STATE]
    monkeypatch.setattr(common, "_file_bytes", lambda _dir, _name: 1024 * state.last_head - 1)
    async with TestClient(TestServer(app)) as client:
        await asyncio.wait_for(state.ready.wait(), 10)
        message = {"role": "user", "content": "x"}
        # Nothing folds: each write adds what its fold will need (1 MiB here) to the room
        # taken, and the fourth one leaves less than the reserve.
        statuses = [(await client.post(MSG, json=message)).status for _ in range(5)]
        assert statuses == [201, 201, 201, 201, 507]
        body = await (await client.post(MSG, json=message)).json()
        assert body["error"]["code"] == "insufficient_storage"
        assert "4 events not folded yet" in body["error"]["message"]
        blocked_runner.blocked = False
        assert state.runner is not None
        assert await state.runner.wait_for(4, timeout=10)
        assert (await client.post(MSG, json=message)).status == 201


def test_what_the_projections_need_is_measured_once_enough_is_folded(tmp_path: Path) -> None:
    def sized(name: str, size: int) -> None:
        with (tmp_path / name).open("wb") as f:
            f.truncate(size)

    state = SimpleNamespace(
        settings=SimpleNamespace(backend=Backend(tmp_path)),
        last_head=3000,
        behind=lambda: 1000,
        projection_position=lambda: 2000,
    )
    sized("events.sqlite3", 3000 * 500)
    sized("projections.sqlite3", 2000 * 3000)
    sized("projections.sqlite3-wal", 2000 * 900)
    sized("embeddings.sqlite3", 2000 * 100 - 1)
    # Folded 2,000 events into 4,000 bytes each (WAL and embedding cache included).
    assert common.pending_projection_bytes(state) == 1000 * 4000  # type: ignore[arg-type]
    # Before 1,000 are folded, a multiple of the log's bytes per event (500).
    state.projection_position = lambda: 10
    expected = 1000 * 501 * common.PROJECTED_OVER_LOG_AT_FIRST
    assert common.pending_projection_bytes(state) == expected  # type: ignore[arg-type]
    state.behind = lambda: 0
    assert common.pending_projection_bytes(state) == 0  # type: ignore[arg-type]


async def test_database_errors_do_not_carry_the_users_text(tmp_path: Path) -> None:
    engine = sqlite_engine(tmp_path / "x.sqlite3", write=True)
    try:
        async with engine.begin() as conn:
            await conn.exec_driver_sql("CREATE TABLE t (x TEXT NOT NULL UNIQUE)")
            await conn.execute(sa.text("INSERT INTO t VALUES (:x)"), {"x": "my secret diary"})
        with pytest.raises(sa.exc.IntegrityError) as caught:
            async with engine.begin() as conn:
                await conn.execute(sa.text("INSERT INTO t VALUES (:x)"), {"x": "my secret diary"})
        assert "my secret diary" not in str(caught.value)
    finally:
        await engine.dispose()


async def test_no_engine_puts_the_statements_values_in_its_errors(tmp_path: Path) -> None:
    # The recall engine's own SQLite connections (searches: the user's query)...
    engine = sqlite_engine(tmp_path / "x.sqlite3", write=False)
    recall = RecallEngine(engine, cast(Any, None), cast(Any, None))
    sync = recall._sync_engine()
    assert sync is not None
    try:
        with pytest.raises(sa.exc.OperationalError) as caught, sync.connect() as conn:
            conn.execute(sa.text("SELECT * FROM nowhere WHERE x = :x"), {"x": "my secret diary"})
        assert "my secret diary" not in str(caught.value)
    finally:
        sync.dispose()
        await recall.engine.dispose()
    # ...and the embedding cache's and the leases' engines on PostgreSQL (no server needed:
    # the setting is the engine's).
    postgres = Backend(tmp_path, "postgresql+asyncpg://memoryd@localhost/memoryd")
    for engine in (cache_engine(postgres), lease_engine(postgres)):
        assert engine.sync_engine.hide_parameters
        await engine.dispose()
