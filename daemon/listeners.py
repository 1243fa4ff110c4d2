"""The daemon's listening sockets and what they may hold: the unix socket (created 0600
after removing a stale one), TCP on loopback, or the sockets systemd hands over; the
connection cap the open-file limit leaves room for; accept() failures logged at a bounded
rate when descriptors run out."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import resource
import socket
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from daemon import systemd
from daemon.api.protocol import ConnectionLimits
from daemon.config import Config
from daemon.logging import get_logger

log = get_logger("memoryd.server")

SOCKET_BACKLOG = 512


class ServeError(RuntimeError):
    """The daemon cannot start (a message for a person, and the exit status)."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


@dataclass(slots=True)
class Listener:
    """One listening socket and how to describe it."""

    sock: socket.socket
    label: str
    is_unix: bool
    owned_path: Path | None = None
    """A socket file this daemon created (removed at shutdown)."""


def bind_unix_socket(path: Path) -> socket.socket:
    """Bind a listening unix socket at ``path`` with mode 0600, replacing a stale one."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None:
        if not stat.S_ISSOCK(mode):
            raise ServeError(f"{path} exists and is not a socket; refusing to replace it")
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        probe.settimeout(1.0)
        try:
            probe.connect(str(path))
        except (ConnectionRefusedError, FileNotFoundError):
            path.unlink(missing_ok=True)  # stale: nobody is listening
        except OSError as exc:
            raise ServeError(f"cannot check the existing socket {path}: {exc}") from exc
        else:
            raise ServeError(f"another memoryd is already listening on {path}")
        finally:
            probe.close()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_umask = os.umask(0o177)
    try:
        sock.bind(str(path))
    except OSError as exc:
        sock.close()
        raise ServeError(f"cannot listen on {path}: {exc.strerror or exc}") from exc
    finally:
        os.umask(old_umask)
    os.chmod(path, 0o600)
    sock.listen(SOCKET_BACKLOG)
    sock.setblocking(False)
    return sock


def bind_tcp_socket(host: str, port: int) -> socket.socket:
    """Bind a listening TCP socket."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        sock = socket.create_server(
            (host, port), family=family, backlog=SOCKET_BACKLOG, reuse_port=False
        )
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise ServeError(f"{host}:{port} is already in use") from exc
        raise ServeError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
    sock.setblocking(False)
    return sock


def _tcp_label(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def open_listeners(config: Config, env: Mapping[str, str] | None = None) -> list[Listener]:
    """Take systemd's sockets if it passed any, else bind the configured ones."""
    listeners: list[Listener] = []
    environ = dict(env) if env is not None else None
    for sock in systemd.listen_fds(environ=environ).values():
        if sock.family == socket.AF_UNIX:
            listeners.append(Listener(sock, f"unix:{sock.getsockname()}", is_unix=True))
        else:
            listeners.append(Listener(sock, _tcp_label(sock), is_unix=False))
    if listeners:
        return listeners
    path = config.server.socket
    listeners.append(
        Listener(bind_unix_socket(path), f"unix:{path}", is_unix=True, owned_path=path)
    )
    http = config.server.http
    if http is not None:
        try:
            sock = bind_tcp_socket(http.host, http.port)
        except ServeError:
            close_listeners(listeners)
            raise
        listeners.append(Listener(sock, _tcp_label(sock), is_unix=False))
    return listeners


def close_listeners(listeners: list[Listener]) -> None:
    """Close listening sockets and remove the socket files this daemon created."""
    for listener in listeners:
        with contextlib.suppress(OSError):
            listener.sock.close()
        path = listener.owned_path
        if path is not None:
            with contextlib.suppress(OSError):
                path.unlink()


FILES_KEPT = 128
"""Descriptors kept for the daemon's own use (databases and their WALs, the projection
process's pipes, the listeners) when the open-file limit caps the connections."""


def connection_limits(config: Config, open_files: int | None = None) -> ConnectionLimits:
    """Return the listeners' connection cap and timeouts from the configuration.

    Under an open-file limit too low for ``server.max_connections``, the cap is lowered to
    what the limit leaves: past it, accept() itself fails and a client waits for nothing,
    where one over the cap is told ``503 too_many_connections`` at once.
    """
    server = config.server
    cap = server.max_connections
    if open_files is not None:
        cap = max(1, min(cap, open_files - FILES_KEPT))
    return ConnectionLimits(
        max_connections=cap,
        header_timeout=server.header_timeout.total_seconds(),
        idle_timeout=server.idle_timeout.total_seconds(),
    )


def raise_file_limit() -> int:
    """Raise the soft limit on open files to the hard one; return the limit in force.

    Each connection holds a descriptor, and so do the databases; the default soft limit of
    1024 was used up by idle clients before anything else refused them.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
    return soft


class RateLimitedLoopErrors:
    """The event loop's exception handler, with accept() failures logged once per interval.

    When descriptors run out, asyncio reports every failed accept(); under a flood of
    connections that was 106,356 log lines in 47 s. Other errors go to the default handler.
    """

    interval = 10.0

    def __init__(self) -> None:
        self.suppressed = 0
        self.last = -self.interval

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        message = str(context.get("message", ""))
        if not message.startswith("socket.accept() out of system resource"):
            loop.default_exception_handler(context)
            return
        now = loop.time()
        if now - self.last < self.interval:
            self.suppressed += 1
            return
        exc = context.get("exception")
        log.error(
            "cannot accept connections: out of file descriptors or memory",
            error=repr(exc),
            similar_errors_since_last_report=self.suppressed,
        )
        self.suppressed = 0
        self.last = now
