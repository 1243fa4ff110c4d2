"""sd_notify datagrams on a real AF_UNIX socket, the watchdog, and socket activation."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

from daemon import systemd
from tests.paths import REPO_ROOT


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A directory with a short path: AF_UNIX paths are limited to 107 bytes."""
    path = Path(tempfile.mkdtemp(prefix="md-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


class NotifyListener:
    """A datagram socket standing in for systemd's notify socket."""

    def __init__(self, address: str, sock: socket.socket) -> None:
        self.address = address
        self.sock = sock
        self.env: dict[str, str] = {"NOTIFY_SOCKET": address}

    def receive(self, timeout: float = 5.0) -> str:
        self.sock.settimeout(timeout)
        return self.sock.recv(4096).decode()

    def pending(self) -> list[str]:
        self.sock.setblocking(False)
        out: list[str] = []
        while True:
            try:
                out.append(self.sock.recv(4096).decode())
            except BlockingIOError:
                return out


@pytest.fixture
def listener(short_dir: Path) -> Iterator[NotifyListener]:
    path = short_dir / "notify"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    try:
        yield NotifyListener(str(path), sock)
    finally:
        sock.close()


def test_notify_ready_status_stopping(listener: NotifyListener) -> None:
    env = listener.env
    assert systemd.ready("caught up at position 42", environ=env)
    assert listener.receive() == "READY=1\nSTATUS=caught up at position 42"
    assert systemd.status("serving\n 3 clients", environ=env)
    assert listener.receive() == "STATUS=serving 3 clients"
    assert systemd.stopping(environ=env)
    assert listener.receive() == "STOPPING=1"
    assert systemd.extend_timeout(90, environ=env)
    assert listener.receive() == "EXTEND_TIMEOUT_USEC=90000000"
    assert systemd.watchdog_ping(environ=env)
    assert listener.receive() == "WATCHDOG=1"


def test_reloading_carries_monotonic_usec(listener: NotifyListener) -> None:
    before = systemd.monotonic_usec()
    assert systemd.reloading("reloading configuration", environ=listener.env)
    after = systemd.monotonic_usec()
    lines = listener.receive().split("\n")
    assert lines[0] == "RELOADING=1"
    key, _, value = lines[1].partition("=")
    assert key == "MONOTONIC_USEC"
    assert before <= int(value) <= after
    assert lines[2] == "STATUS=reloading configuration"


def test_notify_abstract_namespace() -> None:
    name = f"memoryd-test-{os.getpid()}-{time.monotonic_ns()}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind("\0" + name)
    try:
        assert systemd.ready(environ={"NOTIFY_SOCKET": "@" + name})
        sock.settimeout(5)
        assert sock.recv(4096) == b"READY=1"
    finally:
        sock.close()


def test_notify_without_systemd_is_a_no_op(short_dir: Path) -> None:
    assert systemd.notify("READY=1", environ={}) is False
    assert systemd.notify("READY=1", environ={"NOTIFY_SOCKET": "relative/path"}) is False
    # Nobody listening: reported as not sent, never raised.
    missing = {"NOTIFY_SOCKET": str(short_dir / "nobody")}
    assert systemd.notify("READY=1", environ=missing) is False


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, None),
        ({"WATCHDOG_USEC": "30000000"}, 15.0),
        ({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": str(os.getpid())}, 15.0),
        ({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"}, None),
        ({"WATCHDOG_USEC": "junk"}, None),
        ({"WATCHDOG_USEC": "0"}, None),
        ({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "x"}, None),
    ],
)
def test_watchdog_interval(env: dict[str, str], expected: float | None) -> None:
    assert systemd.watchdog_interval(env) == expected


async def test_watchdog_pings_at_half_the_interval(listener: NotifyListener) -> None:
    """Deterministic cadence: the watchdog asks to sleep WATCHDOG_USEC / 2 between pings."""
    asked: list[float] = []
    stop = asyncio.Event()

    async def fake_sleep(seconds: float) -> None:
        asked.append(seconds)
        if len(asked) == 3:
            stop.set()
            await asyncio.Event().wait()  # park until cancelled

    env = {**listener.env, "WATCHDOG_USEC": "8000000"}
    watchdog = systemd.Watchdog(environ=env, sleep=fake_sleep)
    assert watchdog.enabled
    async with watchdog:
        await asyncio.wait_for(stop.wait(), 5)
    assert asked == [4.0, 4.0, 4.0]
    assert watchdog.pings == 3
    assert listener.pending() == ["WATCHDOG=1"] * 3


async def test_watchdog_with_a_real_short_interval(listener: NotifyListener) -> None:
    env = {**listener.env, "WATCHDOG_USEC": "20000", "WATCHDOG_PID": str(os.getpid())}
    async with systemd.Watchdog(environ=env):
        received = [
            await asyncio.to_thread(listener.receive, 5.0),
            await asyncio.to_thread(listener.receive, 5.0),
            await asyncio.to_thread(listener.receive, 5.0),
        ]
    assert received == ["WATCHDOG=1"] * 3


async def test_watchdog_skips_pings_while_unhealthy(listener: NotifyListener) -> None:
    healthy = [True, False, True]
    asked: list[float] = []
    third = asyncio.Event()

    async def fake_sleep(seconds: float) -> None:
        asked.append(seconds)
        if len(asked) == 3:
            third.set()
            await asyncio.Event().wait()

    env = {**listener.env, "WATCHDOG_USEC": "2000000"}
    watchdog = systemd.Watchdog(environ=env, healthy=lambda: healthy.pop(0), sleep=fake_sleep)
    task = watchdog.start()
    assert task is not None
    await asyncio.wait_for(third.wait(), 5)
    await watchdog.stop()
    assert watchdog.pings == 2
    assert listener.pending() == ["WATCHDOG=1", "WATCHDOG=1"]


async def test_watchdog_disabled_for_another_pid(listener: NotifyListener) -> None:
    env = {**listener.env, "WATCHDOG_USEC": "20000", "WATCHDOG_PID": "1"}
    watchdog = systemd.Watchdog(environ=env)
    assert watchdog.start() is None
    await watchdog.run()  # returns at once
    await watchdog.stop()
    assert listener.pending() == []


def test_listen_fds_ignores_variables_meant_for_another_process() -> None:
    env = {"LISTEN_PID": "1", "LISTEN_FDS": "1", "LISTEN_FDNAMES": "api"}
    assert systemd.listen_fds(environ=env) == {}
    assert env == {}  # unset, as sd_listen_fds does
    assert systemd.listen_fds(environ={}) == {}
    env = {"LISTEN_PID": str(os.getpid()), "LISTEN_FDS": "junk"}
    assert systemd.listen_fds(environ=env, unset_environment=False) == {}
    assert env["LISTEN_FDS"] == "junk"


# A child that takes its sockets from systemd's variables and serves HTTP on them with
# aiohttp's SockSite, answering with what it was given.
_CHILD = """
import asyncio, os, sys
from aiohttp import web
from daemon.systemd import listen_fds

async def main():
    pid = os.environ.get("LISTEN_PID")
    sockets = listen_fds()
    info = {
        "names": sorted(sockets),
        "pid_matched": pid == str(os.getpid()),
        "env_left": sorted(k for k in os.environ if k.startswith("LISTEN_")),
        "family": [s.family.name for s in sockets.values()],
    }

    async def hello(request):
        return web.json_response(info)

    app = web.Application()
    app.router.add_get("/", hello)
    runner = web.AppRunner(app)
    await runner.setup()
    for sock in sockets.values():
        await web.SockSite(runner, sock).start()
    print("serving", flush=True)
    await asyncio.sleep(60)

asyncio.run(main())
"""


async def _get_over_unix(path: Path) -> dict[str, object]:
    deadline = time.monotonic() + 20
    while True:
        try:
            connector = aiohttp.UnixConnector(path=str(path))
            async with (
                aiohttp.ClientSession(connector=connector) as session,
                session.get("http://memoryd/", timeout=aiohttp.ClientTimeout(total=20)) as resp,
            ):
                assert resp.status == 200
                body: dict[str, object] = await resp.json()
                return body
        except aiohttp.ClientConnectionError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.05)


def _child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LISTEN_", "NOTIFY_"))}
    env["PYTHONPATH"] = str(REPO_ROOT)
    return env


async def _stop(proc: asyncio.subprocess.Process) -> None:
    proc.terminate()
    try:
        await asyncio.wait_for(proc.wait(), 10)
    except TimeoutError:
        proc.kill()
        await proc.wait()


async def test_listen_fds_serves_an_inherited_socket(short_dir: Path) -> None:
    """Hand a child a listening unix socket as fd 3, the way systemd does."""
    path = short_dir / "api.sock"
    listening = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listening.bind(str(path))
    listening.listen(16)
    fd = listening.fileno()

    def as_fd_3() -> None:
        os.dup2(fd, systemd.SD_LISTEN_FDS_START)
        os.set_inheritable(systemd.SD_LISTEN_FDS_START, True)

    env = {**_child_env(), "LISTEN_FDS": "1", "LISTEN_FDNAMES": "api"}
    # LISTEN_PID must be the child's own pid: a shell learns it ($$) and execs in place.
    proc = await asyncio.create_subprocess_exec(
        "/bin/sh",
        "-c",
        'LISTEN_PID=$$ exec "$0" "$@"',
        sys.executable,
        "-c",
        _CHILD,
        env=env,
        close_fds=False,
        preexec_fn=as_fd_3,
        stdout=subprocess.DEVNULL,
    )
    listening.close()
    try:
        info = await _get_over_unix(path)
    finally:
        await _stop(proc)
    assert info == {"names": ["api"], "pid_matched": True, "env_left": [], "family": ["AF_UNIX"]}


@pytest.mark.skipif(shutil.which("systemd-socket-activate") is None, reason="no systemd tools")
async def test_listen_fds_under_systemd_socket_activate(short_dir: Path) -> None:
    """systemd's own activation helper passes the socket; the child serves on it."""
    path = short_dir / "api.sock"
    proc = await asyncio.create_subprocess_exec(
        "systemd-socket-activate",
        "--listen",
        str(path),
        "--fdname=api",
        sys.executable,
        "-c",
        _CHILD,
        env=_child_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        info = await _get_over_unix(path)
    finally:
        await _stop(proc)
    assert info == {"names": ["api"], "pid_matched": True, "env_left": [], "family": ["AF_UNIX"]}


async def test_watchdog_treats_a_failing_health_check_as_unhealthy(
    listener: NotifyListener,
) -> None:
    asked: list[float] = []
    second = asyncio.Event()

    def broken() -> bool:
        raise RuntimeError("health check bug")

    async def fake_sleep(seconds: float) -> None:
        asked.append(seconds)
        if len(asked) == 2:
            second.set()
            await asyncio.Event().wait()

    env = {**listener.env, "WATCHDOG_USEC": "2000000"}
    watchdog = systemd.Watchdog(environ=env, healthy=broken, sleep=fake_sleep)
    watchdog.start()
    await asyncio.wait_for(second.wait(), 5)
    await watchdog.stop()
    assert watchdog.pings == 0
    assert listener.pending() == []
