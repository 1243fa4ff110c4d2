"""A real ``memoryd serve`` process for the client library's tests, and the sync client
dressed as the async one so that one scenario runs through both."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from memoryd_client import AsyncMemorydClient, MemorydClient, Retry

from tests.server.test_server_process import _stderr_of, spawn, stop


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class Daemon:
    """A running ``memoryd serve`` on a temporary data dir: its socket and its TCP address."""

    root: Path
    port: int
    proc: subprocess.Popen[bytes] | None = None

    @property
    def socket(self) -> Path:
        return self.root / "memoryd.sock"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def token(self) -> str:
        return (self.root / "data" / "api-token").read_text().strip()

    def start(self) -> None:
        self.proc = spawn(self.root, "--http", f"127.0.0.1:{self.port}")

    def wait_ready(self) -> None:
        assert self.proc is not None
        deadline = time.monotonic() + 30
        with MemorydClient(self.socket, retry=Retry(attempts=1)) as client:
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    raise AssertionError(f"memoryd exited: {_stderr_of(self.proc)}")
                try:
                    if client.health()["status"] == "ok":
                        return
                except Exception:
                    time.sleep(0.05)
        raise AssertionError(f"memoryd did not become ready: {_stderr_of(self.proc)}")

    def stop(self) -> None:
        if self.proc is not None:
            assert stop(self.proc) == 0, _stderr_of(self.proc)
            self.proc = None


@contextmanager
def started(root: Path) -> Iterator[Daemon]:
    """Start a daemon on ``root``; stop it when the generator is closed."""
    daemon = Daemon(root, free_port())
    daemon.start()
    try:
        daemon.wait_ready()
        yield daemon
    finally:
        daemon.stop()


class _SyncAsAsync:
    """A :class:`MemorydClient` whose methods are awaited: each call runs in a thread."""

    def __init__(self, client: MemorydClient) -> None:
        self.sync = client

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.sync, name)
        if not callable(method):
            return method

        async def call(*args: Any, **kwargs: Any) -> Any:
            return await asyncio.to_thread(cast(Callable[..., Any], method), *args, **kwargs)

        return call


def as_async(client: MemorydClient) -> AsyncMemorydClient:
    """The sync client with the async client's interface (its own code path underneath)."""
    return cast(AsyncMemorydClient, _SyncAsAsync(client))
