"""Three ``memoryd serve`` processes on one PostgreSQL database.

Each has its own data dir and unix socket. A write through one is readable through the others
once their projections catch up. Retrospectives (the background work) run on the leader only;
after ``kill -9`` of the leader another instance takes the lease over within a bounded time and
the work goes on, and the log shows no run executed twice: one start per attempt, one end per
attempt, one success per run, and no message reviewed by two successful runs.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg

from events.retrospective_events import (
    RetrospectiveCursorAdvanced,
    RetrospectiveFailed,
    RetrospectiveStarted,
    RetrospectiveSucceeded,
)
from events.store.postgres import PostgresEventStore, libpq_dsn

MEMORYD = str(Path(sys.executable).with_name("memoryd"))
INSTANCES = 3
CONVERSATIONS = 6
TAKEOVER_BOUND = 30.0
"""Seconds within which a survivor must hold the lease after the leader is killed."""
CATCH_UP_BOUND = 45.0


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMORYD_", "LISTEN_"))}
    env.pop("NOTIFY_SOCKET", None)
    env["HOME"] = str(tmp_path / "home")
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    env["MEMORYD_LOGGING__LEVEL"] = "warning"
    # Every new message is worth a run (no cooldown), and an interrupted run is retried soon.
    env["MEMORYD_RETROSPECTIVE__MIN_COOLDOWN"] = "0s"
    env["MEMORYD_RETROSPECTIVE__MESSAGE_THRESHOLD"] = "1"
    env["MEMORYD_RETROSPECTIVE__RETRY_BASE_DELAY"] = "100ms"
    env["MEMORYD_RETROSPECTIVE__RETRY_MAX_DELAY"] = "1s"
    return env


class Instance:
    """One ``memoryd serve`` process and its socket."""

    def __init__(self, tmp_path: Path, index: int, url: str) -> None:
        self.name = f"d{index}"
        self.socket = tmp_path / f"{self.name}.sock"
        self.stderr = tmp_path / f"{self.name}.stderr"
        cmd = [
            MEMORYD,
            "serve",
            "--data-dir",
            str(tmp_path / self.name),
            "--socket",
            str(self.socket),
            "--database-url",
            url,
        ]
        with self.stderr.open("wb") as err:
            self.proc = subprocess.Popen(
                cmd, env=_env(tmp_path), stdout=subprocess.DEVNULL, stderr=err
            )

    @property
    def pid(self) -> int:
        return self.proc.pid

    def output(self) -> str:
        return self.stderr.read_text(errors="replace")

    @asynccontextmanager
    async def http(self) -> AsyncIterator[aiohttp.ClientSession]:
        connector = aiohttp.UnixConnector(path=str(self.socket))
        timeout = aiohttp.ClientTimeout(total=30)
        async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
            yield session

    async def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        async with self.http() as http, http.request(method, f"http://m{path}", json=body) as r:
            return r.status, await r.json()

    async def wait_ready(self) -> None:
        for _ in range(600):
            if self.proc.poll() is not None:
                raise AssertionError(f"{self.name} exited {self.proc.returncode}: {self.output()}")
            try:
                status, _ = await self.call("GET", "/v1/health")
                if status == 200:
                    return
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.05)
        raise AssertionError(f"{self.name} did not become ready: {self.output()}")

    async def write(self, cid: str, text: str) -> str:
        status, body = await self.call(
            "POST", f"/v1/conversations/{cid}/messages", {"role": "user", "content": text}
        )
        assert status == 201, body
        return str(body["message_id"])

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise


async def eventually(what: str, check: Any, bound: float) -> Any:
    """Poll the async ``check`` until it returns something truthy; fail after ``bound`` s."""
    deadline = time.monotonic() + bound
    while True:
        result = await check()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {bound} s: {what}")
        await asyncio.sleep(0.1)


async def leader_pid(url: str) -> int | None:
    """Return the pid of the process holding an unexpired leader lease, if any."""
    conn = await asyncpg.connect(libpq_dsn(url), timeout=10)
    try:
        holder = await conn.fetchval(
            "SELECT holder FROM memoryd_leases WHERE name = 'leader' AND expires_at > "
            "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT)"
        )
    except asyncpg.UndefinedTableError:
        return None
    finally:
        await conn.close()
    return None if not holder else int(str(holder).split(":")[1])


async def cursors_cover(via: Instance, last: dict[str, str]) -> bool:
    """True when every conversation's retrospective cursor is at its last message."""
    for cid, message_id in last.items():
        status, body = await via.call("GET", f"/v1/conversations/{cid}/retrospective")
        if status != 200 or body["cursor"] != message_id:
            return False
    return True


async def test_three_daemons_share_one_database_and_one_leader(
    tmp_path: Path,
    pg_url: str,
) -> None:
    instances = [Instance(tmp_path, i, pg_url) for i in range(INSTANCES)]
    try:
        await asyncio.gather(*(i.wait_ready() for i in instances))
        await _run_scenario(pg_url, instances)
    finally:
        codes = {i.name: (i.stop() if i.proc.poll() is None else None) for i in instances}
    survivors = {name: code for name, code in codes.items() if code is not None}
    assert survivors, codes
    assert all(code == 0 for code in survivors.values()), codes
    await _check_log(pg_url)


async def _run_scenario(url: str, instances: list[Instance]) -> None:
    a, b, c = instances
    # Read-your-writes on the writer; the others see it once their projections catch up.
    mid = await a.write("shared", "I live in Berlin.")
    status, body = await a.call("GET", "/v1/conversations/shared/messages")
    assert status == 200
    assert [m["message_id"] for m in body["messages"]] == [mid]

    async def visible(via: Instance) -> bool:
        status, body = await via.call("GET", "/v1/conversations/shared/messages")
        return status == 200 and [m["message_id"] for m in body["messages"]] == [mid]

    for via in (b, c):
        await eventually(
            f"{via.name} reads a write made through {a.name}", lambda v=via: visible(v), 15
        )

    pids = {i.pid: i for i in instances}
    first = await eventually("some instance leads", lambda: leader_pid(url), TAKEOVER_BOUND)
    assert first in pids
    leader = pids[first]
    others = [i for i in instances if i is not leader]

    # Work through every instance; the leader alone runs the retrospectives.
    last: dict[str, str] = {"shared": mid}
    for n in range(2):
        for k in range(CONVERSATIONS):
            via = instances[(k + n) % INSTANCES]
            last[f"c{k}"] = await via.write(f"c{k}", f"I work as a baker, note {n} of c{k}.")
    await eventually("the leader reviews everything", lambda: cursors_cover(others[0], last), 30)

    # More work queued, then the leader dies mid-stream.
    for k in range(CONVERSATIONS):
        last[f"c{k}"] = await others[k % 2].write(f"c{k}", f"I prefer tea, say c{k}.")
    _, health = await others[0].call("GET", "/v1/health")
    leader.proc.send_signal(signal.SIGKILL)
    leader.proc.wait(timeout=10)

    async def new_leader() -> int | None:
        pid = await leader_pid(url)
        return pid if pid is not None and pid != leader.pid else None

    taken = await eventually("a survivor takes the lease over", new_leader, TAKEOVER_BOUND)
    assert taken in {i.pid for i in others}
    for k in range(CONVERSATIONS):
        last[f"c{k}"] = await others[(k + 1) % 2].write(f"c{k}", f"I have a dog named Rex {k}.")
    await eventually(
        "the survivors review everything", lambda: cursors_cover(others[1], last), CATCH_UP_BOUND
    )
    # The new leader did work of its own (after the kill), not only the old one's.
    store = PostgresEventStore(url, readonly=True)
    await store.open()
    try:
        after_kill = [
            s
            async for s in store.read(int(health["last_position"]))
            if isinstance(s.event, RetrospectiveSucceeded)
        ]
    finally:
        await store.close()
    assert after_kill


async def _check_log(url: str) -> None:
    """No run executed twice: one start and one end per attempt, one success per run, no
    message reviewed by two successful runs, every cursor only moves forward."""
    store = PostgresEventStore(url, readonly=True)
    await store.open()
    try:
        events = [s async for s in store.read(0)]
    finally:
        await store.close()
    started: Counter[tuple[str, int]] = Counter()
    ended: Counter[tuple[str, int]] = Counter()
    succeeded: Counter[str] = Counter()
    slices: dict[tuple[str, int], list[str]] = {}
    cursor_positions: dict[str, list[int]] = defaultdict(list)
    reviewed: dict[str, list[str]] = defaultdict(list)
    for stored in events:
        event = stored.event
        if isinstance(event, RetrospectiveStarted):
            started[(event.run_id, event.attempt)] += 1
            slices[(event.run_id, event.attempt)] = list(event.message_ids)
        elif isinstance(event, RetrospectiveSucceeded):
            ended[(event.run_id, event.attempt)] += 1
            succeeded[event.run_id] += 1
            reviewed[event.conversation_id].extend(slices[(event.run_id, event.attempt)])
        elif isinstance(event, RetrospectiveFailed):
            ended[(event.run_id, event.attempt)] += 1
        elif isinstance(event, RetrospectiveCursorAdvanced):
            cursor_positions[event.conversation_id].append(event.position)
    assert len(succeeded) >= CONVERSATIONS
    assert max(started.values()) == 1, started.most_common(3)
    assert max(ended.values()) == 1, ended.most_common(3)
    assert max(succeeded.values()) == 1, succeeded.most_common(3)
    assert set(ended) <= set(started)
    for cid, ids in reviewed.items():
        assert len(ids) == len(set(ids)), f"{cid}: a message was reviewed twice: {ids}"
    for cid, positions in cursor_positions.items():
        assert positions == sorted(set(positions)), f"{cid}: cursor went back or repeated"
