"""``memoryd serve`` as a real process: SIGKILL under load loses nothing acknowledged,
SIGTERM stops cleanly with status 0, and a socket handed over by systemd is used."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import warnings
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest

MEMORYD = str(Path(sys.executable).with_name("memoryd"))
CLIENTS = 8


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMORYD_", "LISTEN_"))}
    env.pop("NOTIFY_SOCKET", None)
    env["HOME"] = str(tmp_path / "home")
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    env["MEMORYD_LOGGING__LEVEL"] = "warning"
    # A daemon that hangs is sent SIGABRT by stop(): faulthandler then writes every thread's
    # stack to its stderr file, which the failure shows.
    env["PYTHONFAULTHANDLER"] = "1"
    return env


_STDERR: dict[int, Path] = {}
"""Where each spawned daemon's stderr goes (a file: a pipe nobody reads can fill up)."""


def _stderr_of(proc: subprocess.Popen[bytes]) -> str:
    path = _STDERR.get(proc.pid)
    return path.read_text(errors="replace") if path is not None and path.exists() else ""


def spawn(tmp_path: Path, *args: str, **kwargs: Any) -> subprocess.Popen[bytes]:
    """Start ``memoryd serve`` on the test's data dir and socket."""
    cmd = [
        MEMORYD,
        "serve",
        "--data-dir",
        str(tmp_path / "data"),
        "--socket",
        str(tmp_path / "memoryd.sock"),
        *args,
    ]
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / f"memoryd-{len(_STDERR)}.stderr"
    with path.open("wb") as stderr:
        proc = subprocess.Popen(
            kwargs.pop("argv", cmd),
            env=kwargs.pop("env", _env(tmp_path)),
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            **kwargs,
        )
    _STDERR[proc.pid] = path
    return proc


@asynccontextmanager
async def session(path: Path) -> AsyncIterator[aiohttp.ClientSession]:
    connector = aiohttp.UnixConnector(path=str(path), limit=64)
    async with aiohttp.ClientSession(connector=connector) as http:
        yield http


async def wait_ready(proc: subprocess.Popen[bytes], path: Path) -> None:
    """Poll the health endpoint until it answers 200."""
    for _ in range(400):
        if proc.poll() is not None:
            raise AssertionError(f"memoryd exited with {proc.returncode}: {_stderr_of(proc)}")
        try:
            async with session(path) as http, http.get("http://m/v1/health") as resp:
                if resp.status == 200:
                    return
        except aiohttp.ClientError:
            pass
        await asyncio.sleep(0.05)
    raise AssertionError("memoryd did not become ready")


STOP_PATIENCE = 30.0
"""Seconds after SIGTERM before a slow stop is reported (with the daemon's tasks)."""
STOP_LIMIT = 90.0
"""Seconds after SIGTERM before the daemon counts as hung (a guard, not a timing)."""


def stop(proc: subprocess.Popen[bytes]) -> int:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=STOP_PATIENCE)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGUSR1)  # the daemon writes its asyncio tasks to stderr
    try:
        status = proc.wait(timeout=STOP_LIMIT - STOP_PATIENCE)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGABRT)  # faulthandler: every thread's stack to stderr
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        raise AssertionError(
            f"memoryd did not stop within {STOP_LIMIT:.0f} s of SIGTERM; its stderr:\n"
            f"{_stderr_of(proc)[-20000:]}"
        ) from None
    # Slow but not hung: say so in the run's warnings, with what it was waiting for.
    warnings.warn(
        f"memoryd took over {STOP_PATIENCE:.0f} s to stop; its stderr:\n"
        f"{_stderr_of(proc)[-20000:]}",
        stacklevel=2,
    )
    return status


async def _load(
    http: aiohttp.ClientSession,
    client: int,
    acked: dict[str, dict[str, Any]],
    sent: set[str],
    stop_at: asyncio.Event,
) -> None:
    i = 0
    while not stop_at.is_set():
        key = f"k-{client}-{i}"
        i += 1
        sent.add(key)
        body = {"role": "user", "content": key, "idempotency_key": key}
        try:
            async with http.post(f"http://m/v1/conversations/c{client}/messages", json=body) as r:
                if r.status == 201:
                    acked[key] = await r.json()
        except (TimeoutError, aiohttp.ClientError, ConnectionError):
            return


@pytest.mark.slow
async def test_sigkill_under_load_loses_nothing_acknowledged(tmp_path: Path) -> None:
    sock = tmp_path / "memoryd.sock"
    proc = spawn(tmp_path)
    acked: dict[str, dict[str, Any]] = {}
    sent: set[str] = set()
    try:
        await wait_ready(proc, sock)
        stop_at = asyncio.Event()
        async with session(sock) as http:
            tasks = [
                asyncio.create_task(_load(http, c, acked, sent, stop_at)) for c in range(CLIENTS)
            ]
            while len(acked) < 300:
                await asyncio.sleep(0.01)
                assert not all(t.done() for t in tasks)
            proc.send_signal(signal.SIGKILL)  # mid-flight: several requests are open now
            proc.wait(timeout=10)
            stop_at.set()
            await asyncio.gather(*tasks)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert len(acked) >= 300

    proc = spawn(tmp_path)  # the socket file is stale now: the new daemon replaces it
    try:
        await wait_ready(proc, sock)
        async with session(sock) as http:
            stored: dict[str, dict[str, Any]] = {}
            for c in range(CLIENTS):
                async with http.get(f"http://m/v1/conversations/c{c}/messages?limit=1000") as resp:
                    assert resp.status == 200
                    for m in (await resp.json())["messages"]:
                        assert m["content"] not in stored, "a message was written twice"
                        stored[m["content"]] = m
            for key, original in acked.items():
                assert key in stored, f"acknowledged {key} is missing after SIGKILL"
                assert stored[key]["message_id"] == original["message_id"]
                assert stored[key]["position"] == original["position"]
            # Retrying every key (acknowledged or not) gives the original ids, writes no copy.
            for key in sorted(sent):
                client = key.split("-")[1]
                body = {"role": "user", "content": key, "idempotency_key": key}
                async with http.post(
                    f"http://m/v1/conversations/c{client}/messages", json=body
                ) as resp:
                    assert resp.status == 201
                    got = await resp.json()
                if key in acked:
                    assert got == acked[key]
                elif key in stored:
                    assert got["message_id"] == stored[key]["message_id"]
            total = 0
            for c in range(CLIENTS):
                async with http.get(f"http://m/v1/conversations/c{c}/messages?limit=1000") as resp:
                    total += len((await resp.json())["messages"])
            assert total == len(sent)
    finally:
        assert stop(proc) == 0


async def test_sigterm_exits_zero_and_removes_the_socket(tmp_path: Path) -> None:
    sock = tmp_path / "memoryd.sock"
    proc = spawn(tmp_path)
    try:
        await wait_ready(proc, sock)
        async with (
            session(sock) as http,
            http.post("http://m/v1/facts", json={"text": "survives a restart"}) as resp,
        ):
            assert resp.status == 201
    finally:
        status = stop(proc)
    assert status == 0
    assert not sock.exists()


async def test_socket_activation_uses_the_passed_fd(tmp_path: Path) -> None:
    path = tmp_path / "activated.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(16)
    os.set_inheritable(listener.fileno(), True)
    # Like systemd: the socket is fd 3 and LISTEN_PID names the process that runs memoryd
    # (exec keeps the pid, so the wrapper sets its own).
    wrapper = (
        "import os, sys\n"
        f"os.dup2({listener.fileno()}, 3)\n"
        "os.environ['LISTEN_PID'] = str(os.getpid())\n"
        "os.environ['LISTEN_FDS'] = '1'\n"
        "os.environ['LISTEN_FDNAMES'] = 'memoryd.socket'\n"
        "os.execv(sys.argv[1], sys.argv[1:])\n"
    )
    argv = [
        sys.executable,
        "-c",
        wrapper,
        MEMORYD,
        "serve",
        "--data-dir",
        str(tmp_path / "data"),
        "--socket",
        str(tmp_path / "unused.sock"),
    ]
    proc = spawn(tmp_path, argv=argv, pass_fds=(listener.fileno(),))
    listener.close()
    try:
        await wait_ready(proc, path)
        assert not (tmp_path / "unused.sock").exists()
    finally:
        assert stop(proc) == 0
