"""The projections folded in a child process: reads see writes, stop checkpoints, death fails."""

from __future__ import annotations

import asyncio
import itertools
import os
import signal
from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest
import sqlalchemy as sa
from aiohttp.test_utils import TestClient, TestServer
from sqlalchemy.ext.asyncio import AsyncEngine

from daemon import projection_hosting as hosting
from daemon.api.keys import STATE
from daemon.api.state import AppSettings
from daemon.app import build_app
from daemon.backend import Backend
from daemon.projector import ProjectorExited, ProjectorProcess, _Reporter
from events.store.base import NewEvent
from events.store.sqlite import SqliteEventStore, sqlite_engine
from events.types import MessageAppended
from projections.runner import ProjectionRunner, checkpoints_table
from tests.api_fixtures import api_client


async def _checkpoints(data_dir: Path) -> dict[str, int]:
    engine = Backend(data_dir).projection_engine(write=False)
    try:
        async with engine.connect() as conn:
            rows = await conn.execute(
                sa.select(checkpoints_table.c.name, checkpoints_table.c.position)
            )
            return {name: int(position) for name, position in rows}
    finally:
        await engine.dispose()


async def test_reads_see_writes_folded_by_the_child(tmp_path: Path) -> None:
    async with api_client(tmp_path, projector="process") as api:
        state = api.client.app[STATE]
        assert isinstance(state.runner, ProjectorProcess)
        child = state.runner.pid
        assert child is not None
        assert child != os.getpid()
        written = []
        for i in range(30):
            status, body = await api.call(
                "POST", "/v1/conversations/c1/messages", {"role": "user", "content": f"turn {i}"}
            )
            assert status == 201, body
            written.append(body["message_id"])
        status, fact = await api.call("POST", "/v1/facts", {"text": "Ada likes tea"})
        assert status == 201, fact
        # Read-your-writes: the read waits for the child to fold what this daemon wrote.
        status, body = await api.call("GET", "/v1/conversations/c1/messages?limit=100")
        assert status == 200, body
        assert [m["message_id"] for m in body["messages"]] == written
        status, body = await api.call("GET", f"/v1/facts/{fact['fact_id']}")
        assert status == 200
        assert body["text"] == "Ada likes tea"
        status, body = await api.call("POST", "/v1/search", {"query": "tea", "scope": ["facts"]})
        assert status == 200
        assert [h["id"] for h in body["hits"]] == [fact["fact_id"]]
    # Stopping folded and checkpointed everything the log held (a recall record included),
    # and the child is gone.
    async with SqliteEventStore.in_data_dir(tmp_path) as store:
        last = await store.head()
    assert last > fact["position"]
    checkpoints = await _checkpoints(tmp_path)
    assert checkpoints
    assert set(checkpoints.values()) == {last}
    with pytest.raises(ProcessLookupError):
        os.kill(child, 0)


async def test_the_child_folds_what_the_inline_runner_folds(tmp_path: Path) -> None:
    async with api_client(tmp_path / "a", projector="process") as api:
        for i in range(12):
            cid = f"c{i % 3}"
            status, _ = await api.call(
                "POST", f"/v1/conversations/{cid}/messages", {"role": "user", "content": f"m{i}"}
            )
            assert status == 201
        status, _ = await api.call("POST", "/v1/conversations/c0/fork", {})
        assert status in (200, 201)
    # Fold the same log again, inline, into a fresh projections file: identical tables.
    data = tmp_path / "a"
    store = SqliteEventStore.in_data_dir(data)
    await store.open()
    try:
        by_child = await _digest(store, sqlite_engine(data / "projections.sqlite3", write=True))
        inline = await _digest(store, sqlite_engine(data / "inline.sqlite3", write=True))
    finally:
        await store.close()
    assert by_child == inline


async def _digest(store: SqliteEventStore, engine: AsyncEngine) -> dict[str, str]:
    try:
        runner = ProjectionRunner(store, engine)
        await runner.setup()
        await runner.catch_up()
        return await runner.digest()
    finally:
        await engine.dispose()


async def test_a_dead_child_is_restarted_and_writes_go_on(tmp_path: Path) -> None:
    settings = AppSettings(
        backend=Backend(tmp_path),
        tcp_requires_token=False,
        projector="process",
        read_your_writes_timeout=0.01,
    )
    app = build_app(settings)
    async with TestClient(TestServer(app)) as client:
        state = app[STATE]
        await asyncio.wait_for(state.ready.wait(), 20)
        projector = state.runner
        assert isinstance(projector, ProjectorProcess)
        first = projector.pid
        assert first is not None
        os.kill(first, signal.SIGKILL)
        # While it is down (or starting again), writes are acknowledged...
        message = {"role": "user", "content": "during the restart"}
        for _ in range(5):
            resp = await client.post("/v1/conversations/c1/messages", json=message)
            assert resp.status == 201
        # ... and reads are answered, saying how far behind they are.
        resp = await client.get("/v1/conversations/c1/messages")
        assert resp.status in (200, 404)
        assert int(resp.headers["X-Memoryd-Behind"]) >= 0
        for _ in range(1500):  # the new child starts in about a second
            if projector.pid != first and projector.ready.is_set():
                break
            await asyncio.sleep(0.02)
        else:
            raise AssertionError("the projection process was not restarted")
        assert await projector.wait_for(5, timeout=30)
        resp = await client.get("/v1/conversations/c1/messages")
        assert resp.status == 200
        assert len((await resp.json())["messages"]) == 5
        assert resp.headers["X-Memoryd-Behind"] == "0"
        health = await (await client.get("/v1/health")).json()
        assert health["status"] == "ok", health
        task = state.runner_task
        assert task is not None
        assert not task.done()


async def test_a_child_that_dies_before_set_up_fails_start_up(tmp_path: Path) -> None:
    (tmp_path / "projections.sqlite3").write_bytes(b"not a database" * 100)
    settings = AppSettings(backend=Backend(tmp_path), tcp_requires_token=False, projector="process")
    app = build_app(settings)
    with pytest.raises(ProjectorExited):
        async with TestClient(TestServer(app)):
            pass


async def test_wait_for_times_out_while_the_child_is_behind(tmp_path: Path) -> None:
    projector = ProjectorProcess(Backend(tmp_path), fold_delay=0.0)
    assert await projector.wait_for(0, timeout=0.01)
    assert not await projector.wait_for(5, timeout=0.01)


async def test_a_reloaded_log_level_reaches_the_child(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    async with api_client(tmp_path, projector="process") as api:
        projector = api.client.app[STATE].runner
        assert isinstance(projector, ProjectorProcess)
        projector.set_logging("debug", "json")
        err = ""
        for _ in range(200):
            err += capfd.readouterr().err
            if "projector.logging_reloaded" in err:
                break
            await asyncio.sleep(0.025)
        [line] = [line for line in err.splitlines() if "projector.logging_reloaded" in line]
        assert orjson.loads(line)["log_level"] == "debug"


async def _started(data_dir: Path, fold_delay: float = 0.1) -> ProjectorProcess:
    async with SqliteEventStore.in_data_dir(data_dir):  # the daemon creates the log first
        pass
    projector = ProjectorProcess(Backend(data_dir), fold_delay=fold_delay)
    await projector.async_start()
    return projector


async def test_a_stop_signal_during_start_up_does_not_kill_the_child(tmp_path: Path) -> None:
    projector = await _started(tmp_path)
    watch = asyncio.create_task(projector.async_watch())
    # Importing memoryd takes the child about a second; a group signal may come meanwhile.
    await asyncio.sleep(0.3)
    assert projector.pid is not None
    os.kill(projector.pid, signal.SIGTERM)
    os.kill(projector.pid, signal.SIGINT)
    await asyncio.wait_for(projector.ready.wait(), 20)
    await projector.async_stop(0, timeout=10)
    await asyncio.wait_for(watch, 10)  # a clean stop: no ProjectorExited


async def test_stop_right_after_a_fold_request_is_honoured(tmp_path: Path) -> None:
    projector = await _started(tmp_path, fold_delay=0.5)
    watch = asyncio.create_task(projector.async_watch())
    await asyncio.wait_for(projector.ready.wait(), 20)
    async with SqliteEventStore.in_data_dir(tmp_path) as store:
        await store.append("default", [NewEvent(_message("m1"))])
    projector.tell_head(1)  # the child now waits up to 0.5 s for more writes
    await asyncio.sleep(0.05)
    # Both lines in one read: the fold's wake-up must not swallow the stop's cancellation.
    projector.fold_now()
    loop = asyncio.get_running_loop()
    start = loop.time()
    await projector.async_stop(1, timeout=5)
    assert loop.time() - start < 4
    await asyncio.wait_for(watch, 10)
    assert projector.position == 1


async def test_the_child_ignores_a_daemon_package_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    decoy = tmp_path / "cwd" / "daemon"
    decoy.mkdir(parents=True)
    (decoy / "__init__.py").write_text("")
    (decoy / "projector.py").write_text("raise SystemExit(3)\n")
    monkeypatch.chdir(tmp_path / "cwd")
    projector = await _started(tmp_path / "data")
    watch = asyncio.create_task(projector.async_watch())
    # The decoy would exit with status 3 before ready; memoryd's projector folds an event.
    await asyncio.wait_for(projector.ready.wait(), 20)
    async with SqliteEventStore.in_data_dir(tmp_path / "data") as store:
        await store.append("default", [NewEvent(_message("m1"))])
    projector.tell_head(1)
    projector.fold_now()
    assert await projector.wait_for(1, timeout=30)
    await projector.async_stop(1, timeout=10)
    await asyncio.wait_for(watch, 10)  # a clean stop: no ProjectorExited
    assert projector.position == 1
    checkpoints = await _checkpoints(tmp_path / "data")
    assert checkpoints
    assert set(checkpoints.values()) == {1}


def _message(message_id: str) -> MessageAppended:
    return MessageAppended(
        conversation_id="c",
        message_id=message_id,
        role="user",
        content="hi",
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
    )


def test_a_closed_pipe_ends_the_reports_quietly(monkeypatch: pytest.MonkeyPatch) -> None:
    class ClosedPipe:
        def write(self, _data: bytes) -> int:
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self) -> None:
            raise BrokenPipeError(32, "Broken pipe")

    class Stdout:
        buffer = ClosedPipe()

    monkeypatch.setattr("sys.stdout", Stdout())
    reporter = _Reporter()
    reporter.line("at", 5)  # the daemon is gone: no error, and nothing more is tried
    reporter.line("at", 6)
    assert reporter.gone


class _DyingChild:
    """A projection process that dies as soon as it is watched; stops after ``lives``."""

    def __init__(self, lives: int) -> None:
        self.set_up = asyncio.Event()
        self.set_up.set()
        self.ready = asyncio.Event()
        self.stopping = False
        self.on_blocked: object = None
        self.pid = 0
        self.lives = lives
        self.started_at: list[float] = []

    async def async_watch(self) -> None:
        raise ProjectorExited("the projection process exited with status -9")

    async def async_start(self) -> None:
        self.started_at.append(asyncio.get_running_loop().time())
        if len(self.started_at) == self.lives:
            self.stopping = True

    def tell_head(self, head: int) -> None:
        pass

    def fold_now(self) -> None:
        pass


async def test_a_child_that_keeps_dying_is_restarted_with_growing_delays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hosting, "RESTART_FIRST_DELAY", 0.05)
    monkeypatch.setattr(hosting, "RESTART_MAX_DELAY", 0.2)
    async with api_client(tmp_path) as api:
        state = api.client.app[STATE]
        child = _DyingChild(lives=5)
        start = asyncio.get_running_loop().time()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(
                hosting.async_drive_projector(state, child),  # type: ignore[arg-type]
                10,
            )
        _, health = await api.call("GET", "/v1/health")
    assert health["status"] == "degraded"
    assert "restarting it" in health["reason"]
    waits = [b - a for a, b in itertools.pairwise([start, *child.started_at])]
    # Each restart waits at least twice as long as the one before, up to the most (a lower
    # bound only: a busy machine makes the waits longer, never shorter).
    assert len(waits) == 5
    for wait, least in zip(waits, [0.05, 0.1, 0.2, 0.2, 0.2], strict=True):
        assert wait >= least, waits
