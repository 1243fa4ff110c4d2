"""``memoryd serve`` speaking the sd_notify protocol to a stand-in for systemd.

A datagram socket with SO_PASSCRED plays systemd's notify socket, so each message's sender pid
is checked too (the units say ``NotifyAccess=main``). The daemon must say READY=1 only once it
answers health checks, ping the watchdog, wrap a SIGHUP reload in RELOADING=1 (with
MONOTONIC_USEC) ... READY=1, and say STOPPING=1 before it exits 0 on SIGTERM.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import struct
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

MEMORYD = str(Path(sys.executable).with_name("memoryd"))
WAIT = 60.0  # upper bound for the daemon to start or answer; never a timing assertion


class FakeSystemd:
    """Receive notify datagrams with the sender's credentials."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(path))
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        self.sock.settimeout(WAIT)

    def _receive(self) -> tuple[int, str]:
        data, ancillary, _flags, _addr = self.sock.recvmsg(4096, socket.CMSG_SPACE(12))
        pid = -1
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
                pid, _uid, _gid = struct.unpack("iII", payload[:12])
        return pid, data.decode()

    async def receive(self) -> tuple[int, str]:
        return await asyncio.to_thread(self._receive)

    async def until(self, prefix: str, pid: int, seen: list[str]) -> str:
        """Return the next message starting with ``prefix``, collecting all of them."""
        while True:
            sender, message = await self.receive()
            assert sender == pid, (sender, pid, message)
            seen.append(message)
            if message.startswith(prefix):
                return message


@pytest.fixture
def short_dir() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="md-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


async def _health(sock: Path) -> int:
    connector = aiohttp.UnixConnector(path=str(sock))
    async with (
        aiohttp.ClientSession(connector=connector) as http,
        http.get("http://m/v1/health", timeout=aiohttp.ClientTimeout(total=WAIT)) as resp,
    ):
        return resp.status


async def test_notify_protocol_of_a_running_daemon(short_dir: Path) -> None:
    systemd = FakeSystemd(short_dir / "notify")
    api = short_dir / "api.sock"
    config = short_dir / "memoryd.toml"
    config.write_text('[logging]\nlevel = "warning"\n', encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMORYD_", "LISTEN_"))}
    env.update(
        NOTIFY_SOCKET=str(systemd.path),
        WATCHDOG_USEC="200000",
        HOME=str(short_dir / "home"),
        XDG_CONFIG_HOME=str(short_dir / "xdg"),
    )
    proc = await asyncio.create_subprocess_exec(
        "/bin/sh",
        "-c",
        'WATCHDOG_PID=$$ exec "$0" "$@"',  # systemd sets WATCHDOG_PID to the main pid
        MEMORYD,
        "serve",
        "--data-dir",
        str(short_dir / "data"),
        "--socket",
        str(api),
        "--config",
        str(config),
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    seen: list[str] = []
    try:
        ready = await asyncio.wait_for(systemd.until("READY=1", proc.pid, seen), WAIT)
        assert await _health(api) == 200  # ready means caught up and serving
        assert ready.split("\n")[0] == "READY=1"
        for _ in range(2):
            await asyncio.wait_for(systemd.until("WATCHDOG=1", proc.pid, seen), WAIT)

        config.write_text('[logging]\nlevel = "error"\n', encoding="utf-8")
        proc.send_signal(signal.SIGHUP)
        reloading = await asyncio.wait_for(systemd.until("RELOADING=1", proc.pid, seen), WAIT)
        fields = dict(line.split("=", 1) for line in reloading.split("\n"))
        assert int(fields["MONOTONIC_USEC"]) > 0
        await asyncio.wait_for(systemd.until("READY=1", proc.pid, seen), WAIT)

        proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(systemd.until("STOPPING=1", proc.pid, seen), WAIT)
        status = await asyncio.wait_for(proc.wait(), WAIT)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        systemd.sock.close()
    stderr = (await proc.stderr.read()).decode() if proc.stderr else ""
    assert status == 0, stderr
    first_ready = next(i for i, m in enumerate(seen) if m.startswith("READY=1"))
    assert not any(m.startswith("WATCHDOG=1") for m in seen[:first_ready])
