"""For the inspector's browser tests: Debian's Chromium driven by Playwright, and a real
``memoryd serve`` to look at.

Chromium comes from apt (``.ci/run`` installs it); Playwright never downloads a browser here.
Without Chromium or Playwright the browser tests skip, except under CI (``CI=true``), where
they fail, as the PostgreSQL tests do. The daemon listens on its unix socket only: the first
``memoryd inspect`` opens the loopback listener the pages are served on.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.pg_fixtures import under_ci
from tests.server.test_server_process import stop

CHROMIUM = Path("/usr/bin/chromium")
MEMORYD = str(Path(sys.executable).with_name("memoryd"))
LIMITED_TOKEN = "limited-browser-token-namespace-a"


def require_chromium() -> None:
    """Skip (fail under CI) when Playwright or Chromium is missing."""
    try:
        import playwright  # noqa: F401
    except ImportError:
        reason = "playwright is not installed (pip install -e '.[dev]')"
    else:
        if CHROMIUM.exists():
            return
        reason = f"{CHROMIUM} is missing (apt-get install -y chromium)"
    if under_ci():
        pytest.fail(f"{reason}: under CI the browser tests must run")
    pytest.skip(reason)


@dataclass(slots=True)
class Daemon:
    """A running ``memoryd serve`` and how to reach it."""

    process: subprocess.Popen[bytes]
    data_dir: Path
    socket: Path
    env: dict[str, str]
    base: str = ""
    """The inspector's loopback address, once ``memoryd inspect`` opened it."""

    def inspect_url(self) -> str:
        """Run ``memoryd inspect`` and return the one-time login URL it prints."""
        out = subprocess.run(
            [MEMORYD, "inspect", "--socket", str(self.socket), "--json"],
            env=self.env,
            capture_output=True,
            check=True,
            timeout=30,
        ).stdout
        url = str(json.loads(out)["url"])
        self.base = url[: url.index("/inspect/")]
        return url

    def api(self, method: str, path: str, body: Any = None, namespace: str = "default") -> Any:
        """Call the JSON API over the loopback listener with the daemon's own token."""
        token = (self.data_dir / "api-token").read_text().strip()
        return self.call(method, path, body, token=token, namespace=namespace)

    def call(
        self, method: str, path: str, body: Any = None, *, token: str, namespace: str = "default"
    ) -> Any:
        """Call the daemon over TCP with a bearer token; return the decoded answer."""
        request = urllib.request.Request(
            self.base + path,
            method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={
                "Authorization": f"Bearer {token}",
                "X-Memoryd-Namespace": namespace,
                "Content-Type": "application/json",
            },
        )
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.loads(answer.read())


def start_daemon(tmp: Path) -> Daemon:
    """Start ``memoryd serve`` (a token limited to namespace ``a`` in its tokens file) and wait
    until ``memoryd inspect`` answers."""
    data_dir, socket = tmp / "data", tmp / "memoryd.sock"
    data_dir.mkdir(parents=True, mode=0o700)
    (data_dir / "tokens").write_text(f"{LIMITED_TOKEN} a\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMORYD_", "LISTEN_"))}
    env.pop("NOTIFY_SOCKET", None)
    env.update(
        HOME=str(tmp / "home"),
        XDG_CONFIG_HOME=str(tmp / "config"),
        MEMORYD_LOGGING__LEVEL="warning",
        MEMORYD_RETROSPECTIVE__ENABLED="off",
    )
    argv = [MEMORYD, "serve", "--data-dir", str(data_dir), "--socket", str(socket)]
    with (tmp / "memoryd.stderr").open("wb") as stderr:
        process = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=stderr)
    daemon = Daemon(process, data_dir, socket, env)
    deadline = time.monotonic() + 30
    while True:
        if process.poll() is not None:
            raise AssertionError((tmp / "memoryd.stderr").read_text(errors="replace"))
        try:
            daemon.inspect_url()
            return daemon
        except subprocess.CalledProcessError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def stop_daemon(daemon: Daemon) -> None:
    """Stop the daemon as the process tests do (SIGTERM; its tasks reported if it hangs)."""
    assert stop(daemon.process) == 0
