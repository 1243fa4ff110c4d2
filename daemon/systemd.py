"""systemd integration without libsystemd: sd_notify, the watchdog, and socket activation.

* :func:`notify` sends one datagram to ``$NOTIFY_SOCKET`` (a path, or ``@name`` in the abstract
  namespace). Outside systemd (no ``NOTIFY_SOCKET``) every call is a cheap no-op returning
  False, so the daemon calls these unconditionally.
* ``READY=1`` once projections have caught up; ``STATUS=`` lines; ``STOPPING=1`` on SIGTERM;
  on SIGHUP ``RELOADING=1`` with ``MONOTONIC_USEC=`` (required by ``Type=notify-reload``,
  harmless otherwise) and ``READY=1`` again when the reload is done.
* :class:`Watchdog` pings ``WATCHDOG=1`` every ``WATCHDOG_USEC / 2`` when systemd asked for it
  (``WatchdogSec=``) and ``WATCHDOG_PID`` is unset or names this process. The ping runs on the
  event loop, so a blocked loop stops it and systemd restarts the service: that is the point.
* :func:`listen_fds` takes the sockets systemd passed (``LISTEN_FDS``/``LISTEN_PID``/
  ``LISTEN_FDNAMES``, fds from 3) by name, for ``aiohttp.web.SockSite``.
"""

from __future__ import annotations

import asyncio
import os
import socket
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from daemon.logging import get_logger
from events.tasks import cancel_and_wait

SD_LISTEN_FDS_START = 3
NOTIFY_SOCKET_ENV = "NOTIFY_SOCKET"

_log = get_logger(__name__)


def _notify_address(value: str) -> str | None:
    if value.startswith("@"):
        return "\0" + value[1:]  # abstract namespace
    if value.startswith("/"):
        return value
    return None  # vsock: and relative paths are not supported


def notify(state: str, *, environ: MutableMapping[str, str] | None = None) -> bool:
    """Send ``state`` (``"READY=1"``, several lines allowed) to systemd; True when sent."""
    env = os.environ if environ is None else environ
    target = env.get(NOTIFY_SOCKET_ENV)
    if not target:
        return False
    address = _notify_address(target)
    if address is None:
        _log.warning("systemd.notify_socket_unsupported", notify_socket=target)
        return False
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.sendto(state.encode("utf-8"), address)
    except OSError as exc:
        _log.warning("systemd.notify_failed", state=state.split("\n", 1)[0], error=str(exc))
        return False
    return True


def _one_line(text: str) -> str:
    return " ".join(text.split())


def ready(status: str | None = None, **kw: Any) -> bool:
    """Tell systemd the service is up (``READY=1``), optionally with a status line."""
    lines = ["READY=1"]
    if status:
        lines.append(f"STATUS={_one_line(status)}")
    return notify("\n".join(lines), **kw)


def status(text: str, **kw: Any) -> bool:
    """Set the free-form status shown by ``systemctl status``."""
    return notify(f"STATUS={_one_line(text)}", **kw)


def stopping(status: str | None = None, **kw: Any) -> bool:
    """Tell systemd the service is shutting down (``STOPPING=1``)."""
    lines = ["STOPPING=1"]
    if status:
        lines.append(f"STATUS={_one_line(status)}")
    return notify("\n".join(lines), **kw)


def monotonic_usec() -> int:
    """Return CLOCK_MONOTONIC in microseconds, as systemd reads it."""
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000


def reloading(status: str | None = None, **kw: Any) -> bool:
    """Tell systemd a reload started (``RELOADING=1`` + ``MONOTONIC_USEC``); send ready() after."""
    lines = ["RELOADING=1", f"MONOTONIC_USEC={monotonic_usec()}"]
    if status:
        lines.append(f"STATUS={_one_line(status)}")
    return notify("\n".join(lines), **kw)


def extend_timeout(seconds: float, **kw: Any) -> bool:
    """Ask for more time to start or stop (``EXTEND_TIMEOUT_USEC``), e.g. during a long catch-up."""
    return notify(f"EXTEND_TIMEOUT_USEC={int(seconds * 1_000_000)}", **kw)


def watchdog_ping(**kw: Any) -> bool:
    """Send one ``WATCHDOG=1``."""
    return notify("WATCHDOG=1", **kw)


def watchdog_interval(environ: MutableMapping[str, str] | None = None) -> float | None:
    """Return the seconds between pings (half of ``WATCHDOG_USEC``), or None when not asked.

    None when ``WATCHDOG_USEC`` is unset or invalid, or ``WATCHDOG_PID`` names another process.
    """
    env = os.environ if environ is None else environ
    usec_text = env.get("WATCHDOG_USEC")
    if not usec_text:
        return None
    try:
        usec = int(usec_text)
    except ValueError:
        return None
    if usec <= 0:
        return None
    pid_text = env.get("WATCHDOG_PID")
    if pid_text:
        try:
            if int(pid_text) != os.getpid():
                return None
        except ValueError:
            return None
    return usec / 2 / 1_000_000


class Watchdog:
    """Send ``WATCHDOG=1`` every ``WATCHDOG_USEC / 2`` while running (when systemd asked).

    ``async with Watchdog():`` or ``start()`` / ``await stop()``. ``healthy`` (optional) is
    asked before each ping; a False answer skips the ping so systemd notices a wedged daemon.
    """

    def __init__(
        self,
        *,
        environ: MutableMapping[str, str] | None = None,
        healthy: Callable[[], bool] | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self._environ = environ
        self.interval = watchdog_interval(environ)
        self._healthy = healthy
        self._sleep = sleep
        self._task: asyncio.Task[None] | None = None
        self.pings = 0

    @property
    def enabled(self) -> bool:
        """Return True when systemd asked for watchdog pings."""
        return self.interval is not None

    async def run(self) -> None:
        """Ping until cancelled (returns at once when the watchdog is not enabled)."""
        if self.interval is None:
            return
        while True:
            if self._is_healthy():
                if watchdog_ping(environ=self._environ):
                    self.pings += 1
            else:
                _log.warning("systemd.watchdog_skipped", reason="unhealthy")
            await self._sleep(self.interval)

    def _is_healthy(self) -> bool:
        if self._healthy is None:
            return True
        try:
            return self._healthy()
        except Exception:
            _log.exception("systemd.watchdog_health_check_failed")
            return False

    def start(self) -> asyncio.Task[None] | None:
        """Start pinging in a task (None when the watchdog is not enabled)."""
        if self.interval is not None and self._task is None:
            self._task = asyncio.get_running_loop().create_task(self.run(), name="systemd-watchdog")
        return self._task

    async def stop(self) -> None:
        """Stop pinging."""
        task, self._task = self._task, None
        if task is not None:
            await cancel_and_wait(task)

    async def __aenter__(self) -> Watchdog:
        self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()


def listen_fds(
    *, environ: MutableMapping[str, str] | None = None, unset_environment: bool = True
) -> dict[str, socket.socket]:
    """Return the sockets systemd passed to this process, by ``FileDescriptorName=``.

    Empty when ``LISTEN_PID`` is missing or names another process (the variables were
    inherited, not meant for us). Unnamed sockets are called ``unknown``; a repeated name gets
    ``.1``, ``.2``, ... appended. The variables are removed afterwards (as ``sd_listen_fds``
    does) so child processes do not take the sockets for theirs. The sockets are
    close-on-exec and non-blocking, ready for ``aiohttp.web.SockSite``.
    """
    env = os.environ if environ is None else environ
    try:
        pid_text = env.get("LISTEN_PID")
        count_text = env.get("LISTEN_FDS")
        names_text = env.get("LISTEN_FDNAMES")
        if not pid_text or not count_text:
            return {}
        try:
            pid, count = int(pid_text), int(count_text)
        except ValueError:
            _log.warning("systemd.listen_fds_invalid", listen_pid=pid_text, listen_fds=count_text)
            return {}
        if pid != os.getpid() or count <= 0:
            return {}
        names = names_text.split(":") if names_text else []
        if len(names) != count:
            names = ["unknown"] * count
        sockets: dict[str, socket.socket] = {}
        for offset, name in enumerate(names):
            fd = SD_LISTEN_FDS_START + offset
            try:
                os.set_inheritable(fd, False)
                sock = socket.socket(fileno=fd)
            except OSError as exc:  # not a socket (ListenFIFO=...) or already closed
                _log.warning("systemd.listen_fd_skipped", fd=fd, name=name, error=str(exc))
                continue
            sock.setblocking(False)
            key, n = name or "unknown", 0
            while key in sockets:
                n += 1
                key = f"{name}.{n}"
            sockets[key] = sock
        return sockets
    finally:
        if unset_environment:
            for var in ("LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"):
                env.pop(var, None)
