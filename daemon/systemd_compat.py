"""A minimal stand-in for ``daemon.systemd`` until it lands: notify, listen fds, watchdog."""

from __future__ import annotations

import asyncio
import os
import socket
import time
from collections.abc import Mapping

SD_LISTEN_FDS_START = 3


def notify(*lines: str) -> bool:
    """Send ``lines`` to ``$NOTIFY_SOCKET``; return False when not under systemd."""
    address = os.environ.get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):
        address = "\0" + address[1:]
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.connect(address)
        sock.sendall("\n".join(lines).encode())
    return True


def monotonic_usec() -> int:
    """Return CLOCK_MONOTONIC in microseconds (for RELOADING=1)."""
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000


def listen_sockets(env: Mapping[str, str] | None = None) -> list[socket.socket]:
    """Return the listening sockets systemd passed (``LISTEN_FDS``), if they are ours."""
    env = os.environ if env is None else env
    if env.get("LISTEN_PID") != str(os.getpid()):
        return []
    count = int(env.get("LISTEN_FDS", "0") or 0)
    out = []
    for fd in range(SD_LISTEN_FDS_START, SD_LISTEN_FDS_START + count):
        os.set_inheritable(fd, False)
        sock = socket.socket(fileno=fd)
        sock.setblocking(False)
        out.append(sock)
    return out


def start_watchdog() -> asyncio.Task[None] | None:
    """Ping ``WATCHDOG=1`` at half of ``$WATCHDOG_USEC`` when systemd asks for it."""
    usec = os.environ.get("WATCHDOG_USEC")
    pid = os.environ.get("WATCHDOG_PID")
    if not usec or (pid and pid != str(os.getpid())):
        return None
    interval = int(usec) / 2_000_000

    async def ping() -> None:
        while True:
            notify("WATCHDOG=1")
            await asyncio.sleep(interval)

    return asyncio.create_task(ping(), name="memoryd-watchdog")
