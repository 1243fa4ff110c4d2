"""The unit files: required settings, ``systemd-analyze verify``, and MemoryDenyWriteExecute."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import REPO_ROOT

UNITS = REPO_ROOT / "systemd"
MEMORYD = Path(sys.executable).with_name("memoryd")


def _parse(path: Path) -> dict[str, list[tuple[str, str]]]:
    """Read a unit file: section -> [(key, value)] (keys may repeat)."""
    sections: dict[str, list[tuple[str, str]]] = {}
    current: list[tuple[str, str]] = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], [])
            continue
        key, _, value = line.partition("=")
        current.append((key.strip(), value.strip()))
    return sections


def _values(section: list[tuple[str, str]], key: str) -> list[str]:
    return [v for k, v in section if k == key]


def _one(section: list[tuple[str, str]], key: str) -> str:
    [value] = _values(section, key)
    return value


COMMON_SERVICE = {
    "Type": "notify",
    "NotifyAccess": "main",
    "ExecReload": "/bin/kill -HUP $MAINPID",
    "WatchdogSec": "30",
    "StateDirectory": "memoryd",
    "RuntimeDirectory": "memoryd",
    "RuntimeDirectoryMode": "0700",
    "RuntimeDirectoryPreserve": "yes",
    "ConfigurationDirectory": "memoryd",
    "UMask": "0077",
    # Above server.max_connections (1000): idle clients once used up the default 1024.
    "LimitNOFILE": "65536",
    "RestartPreventExitStatus": "65",
    "NoNewPrivileges": "yes",
    "RestrictAddressFamilies": "AF_UNIX AF_INET AF_INET6",
    "RestrictNamespaces": "yes",
    "LockPersonality": "yes",
    "MemoryDenyWriteExecute": "yes",
}

SYSTEM_ONLY = {
    "ExecStart": "/usr/local/lib/memoryd/.venv/bin/memoryd serve",
    "User": "memoryd",
    "ProtectSystem": "strict",
    "ProtectHome": "yes",
    "PrivateTmp": "yes",
    "PrivateDevices": "yes",
    "ProtectKernelTunables": "yes",
    "ProtectKernelModules": "yes",
    "ProtectKernelLogs": "yes",
    "ProtectControlGroups": "yes",
}


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (UNITS / "memoryd.service", {**COMMON_SERVICE, **SYSTEM_ONLY}),
        (
            UNITS / "user" / "memoryd.service",
            {**COMMON_SERVICE, "ExecStart": "%h/.local/share/memoryd/.venv/bin/memoryd serve"},
        ),
    ],
)
def test_service_settings(path: Path, expected: dict[str, str]) -> None:
    service = _parse(path)["Service"]
    for key, value in expected.items():
        assert _one(service, key) == value, key
    assert "@system-service" in _values(service, "SystemCallFilter")


@pytest.mark.parametrize("path", [UNITS / "memoryd.socket", UNITS / "user" / "memoryd.socket"])
def test_socket_settings(path: Path) -> None:
    socket_section = _parse(path)["Socket"]
    assert _one(socket_section, "ListenStream") == "%t/memoryd/memoryd.sock"
    assert _one(socket_section, "SocketMode") == "0600"
    assert _one(socket_section, "FileDescriptorName") == "api"
    assert _one(socket_section, "Service") == "memoryd.service"


def _verify(unit_dir: Path, tmp_path: Path, *, user: bool) -> subprocess.CompletedProcess[str]:
    """Run ``systemd-analyze verify`` on copies whose ExecStart names this checkout's binary."""
    work = tmp_path / ("user" if user else "system")
    work.mkdir()
    for name in ("memoryd.service", "memoryd.socket"):
        text = (unit_dir / name).read_text(encoding="utf-8")
        lines = [
            f"ExecStart={MEMORYD} serve" if line.startswith("ExecStart=") else line
            for line in text.splitlines()
        ]
        (work / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    runtime = tmp_path / f"runtime-{'user' if user else 'system'}"
    runtime.mkdir(mode=0o700)
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime), "SYSTEMD_LOG_COLOR": "0"}
    command = ["systemd-analyze", *(["--user"] if user else []), "verify"]
    return subprocess.run(
        [*command, str(work / "memoryd.service"), str(work / "memoryd.socket")],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not found")
@pytest.mark.parametrize("user", [False, True])
def test_systemd_analyze_verify_is_clean(tmp_path: Path, user: bool) -> None:
    assert MEMORYD.exists()
    result = _verify(UNITS / "user" if user else UNITS, tmp_path, user=user)
    # verify exits 0 even for unknown keys, which it only warns about: require silence.
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == "", result.stderr
    assert result.stdout.strip() == "", result.stdout


# The kernel's own write-xor-execute switch (Linux >= 6.3), which systemd uses for
# MemoryDenyWriteExecute= where available. The child proves the switch is on (a W+X mapping is
# refused), then runs memoryd's stack: compiled extensions, the SQLite store, an aiohttp server
# and client over a unix socket, structlog JSON via orjson, watchfiles, numpy.
_MDWE_CHILD = r"""
import asyncio, ctypes, mmap, sys, tempfile
from datetime import UTC, datetime
from pathlib import Path

libc = ctypes.CDLL(None, use_errno=True)
PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN = 65, 1
if libc.prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0, 0, 0) != 0:
    print("unsupported")
    sys.exit(0)
try:
    mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
except OSError:
    pass
else:
    raise SystemExit("W+X mapping was allowed: MDWE is not in force")

import aiohttp, io, numpy, orjson, sqlalchemy, structlog, watchfiles
from aiohttp import web
from daemon.logging import configure_logging, get_logger
from events.store import NewEvent
from events.store.sqlite import SqliteEventStore
from events.types import MessageAppended

async def main() -> None:
    out = io.BytesIO()
    configure_logging("info", "json", stream=out)
    get_logger("mdwe").info("hello", n=1)
    assert orjson.loads(out.getvalue().splitlines()[0])["event"] == "hello"
    with tempfile.TemporaryDirectory() as tmp:
        store = SqliteEventStore.in_data_dir(Path(tmp))
        await store.open()
        event = MessageAppended(
            conversation_id="c", message_id="m", role="user", content="hi",
            created_at=datetime(2026, 1, 1, tzinfo=UTC),
        )
        assert await store.append("default", [NewEvent(event, idempotency_key="k")]) == [1]
        assert [e.event async for e in store.read()] == [event]
        await store.close()

        async def ok(request: web.Request) -> web.Response:
            return web.json_response({"ok": True}, dumps=lambda o: orjson.dumps(o).decode())

        app = web.Application()
        app.router.add_get("/", ok)
        runner = web.AppRunner(app)
        await runner.setup()
        sock = str(Path(tmp) / "s.sock")
        await web.UnixSite(runner, sock).start()
        async with aiohttp.ClientSession(connector=aiohttp.UnixConnector(path=sock)) as s:
            async with s.get("http://x/") as resp:
                assert (await resp.json()) == {"ok": True}
        await runner.cleanup()
        watcher = watchfiles.awatch(tmp, stop_event=asyncio.Event())
        del watcher
    a = numpy.ones((64, 64), dtype=numpy.float32)
    assert float((a @ a)[0, 0]) == 64.0
    print("ok")

asyncio.run(main())
"""


def test_memoryd_stack_runs_without_writable_executable_memory() -> None:
    """Backs ``MemoryDenyWriteExecute=yes`` in the units with a run under the kernel's MDWE."""
    result = subprocess.run(
        [sys.executable, "-c", _MDWE_CHILD],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        timeout=120,
        check=False,
    )
    if result.stdout.strip() == "unsupported":
        pytest.skip("this kernel has no PR_SET_MDWE")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
