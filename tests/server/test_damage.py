"""Damage is found and named: a changed byte, a damaged page, a file that is not a database;
health says ``degraded`` with the reason while writes fail."""

from __future__ import annotations

import asyncio
import os
import sqlite3
from pathlib import Path

import pytest

from daemon.cli import main
from daemon.logging import reset_logging
from daemon.server import EXIT_DAMAGED, ServeOptions, async_serve
from events.store.base import NewEvent
from events.store.contract import message
from events.store.sqlite import EVENTS_FILE, SqliteEventStore
from tests.api_fixtures import api_client, appends_failing, make_config, running

MSG = "/v1/conversations/c1/messages"


def fill(data_dir: Path, count: int = 300) -> None:
    async def run() -> None:
        store = SqliteEventStore.in_data_dir(data_dir)
        await store.open()
        try:
            for n in range(1, count + 1):
                await store.append("ns", [NewEvent(message("c1", n, "text " * 40))])
        finally:
            await store.close()

    asyncio.run(run())


def change_a_payload_byte(data_dir: Path, position: int) -> None:
    conn = sqlite3.connect(data_dir / EVENTS_FILE)
    with conn:
        conn.execute(
            "UPDATE events SET payload = replace(payload, 'text', 'test') WHERE position = ?",
            (position,),
        )
    conn.close()


def damage_a_page(data_dir: Path, page_from_end: int) -> None:
    path = data_dir / EVENTS_FILE
    data = bytearray(path.read_bytes())
    start = len(data) - 4096 * page_from_end
    data[start + 8 : start + 4096] = b"\xa5" * (4096 - 8)
    path.write_bytes(bytes(data))


def test_doctor_and_export_name_a_changed_payload_byte(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fill(tmp_path)
    assert main(["doctor", "--data-dir", str(tmp_path)]) == 0
    capsys.readouterr()
    change_a_payload_byte(tmp_path, 120)
    assert main(["doctor", "--data-dir", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "1 events do not match their checksums: positions 120" in out
    assert main(["events", "export", "--data-dir", str(tmp_path)]) == 1
    captured = capsys.readouterr()
    assert "position 120 does not match its checksum" in captured.err
    assert "Traceback" not in captured.err
    assert captured.out.count(b"\n".decode()) == 119  # what came before the damage


def health_at_start(data_dir: Path) -> str:
    """Start the app on ``data_dir``; return the reason its health gives for ``degraded``."""

    async def start() -> str:
        async with api_client(data_dir) as api:
            _, health = await api.call("GET", "/v1/health")
        assert health["status"] == "degraded", health
        return str(health["reason"])

    return asyncio.run(start())


def test_a_missing_event_is_found_by_doctor_and_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fill(tmp_path)
    conn = sqlite3.connect(tmp_path / EVENTS_FILE)
    with conn:
        conn.execute("DELETE FROM events WHERE position = 150")
    conn.close()
    assert main(["doctor", "--data-dir", str(tmp_path)]) == 1
    assert "positions are not gapless: 299 events between 1 and 300" in capsys.readouterr().out
    assert "not gapless" in health_at_start(tmp_path)


@pytest.mark.parametrize("page_from_end", [1, 3])
def test_a_damaged_page_is_found_by_doctor_export_and_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], page_from_end: int
) -> None:
    fill(tmp_path)
    damage_a_page(tmp_path, page_from_end)
    assert main(["doctor", "--data-dir", str(tmp_path)]) == 1
    assert "problem:" in capsys.readouterr().out
    status = main(["events", "export", "--data-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    if status:
        assert "memoryd:" in err
    assert "doctor" in health_at_start(tmp_path)


async def test_a_file_that_is_not_a_database_is_named_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    (data_dir / EVENTS_FILE).write_bytes(b"this is not a database\n" * 500)
    overrides = {
        "storage.data_dir": str(data_dir),
        "server.socket": str(tmp_path / "s.sock"),
        "retrospective.enabled": False,
    }
    try:
        assert await async_serve(ServeOptions(overrides=overrides, env={})) == EXIT_DAMAGED
    finally:
        reset_logging()  # async_serve configured it onto the captured stdout
    err = capsys.readouterr().err
    assert "cannot open the event log" in err
    assert "not a database" in err
    assert "Traceback" not in err


def test_doctor_and_cli_on_a_file_that_is_not_a_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / EVENTS_FILE).write_bytes(b"this is not a database\n" * 500)
    assert main(["doctor", "--data-dir", str(tmp_path)]) == 1
    assert "not a database" in capsys.readouterr().out
    assert main(["events", "export", "--data-dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "not a database" in err
    assert "Traceback" not in err


async def test_health_is_degraded_while_writes_fail(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        with appends_failing(api, OSError(5, "Input/output error")):
            status, _ = await api.call("POST", MSG, {"role": "user", "content": "x"})
            assert status == 500
            _, health = await api.call("GET", "/v1/health")
            assert health["status"] == "degraded"
            assert "Input/output error" in health["reason"]
        status, _ = await api.call("POST", MSG, {"role": "user", "content": "x"})
        assert status == 201
        _, health = await api.call("GET", "/v1/health")
        assert health["status"] == "ok"


def test_loose_permissions_are_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fill(tmp_path, 1)
    tmp_path.chmod(0o755)
    (tmp_path / "tokens").write_text("")
    (tmp_path / "tokens").chmod(0o644)
    assert main(["doctor", "--data-dir", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"{tmp_path} has mode 0755" in out
    assert "tokens has mode 0644" in out


def test_the_cli_creates_private_files(tmp_path: Path) -> None:
    data_dir = tmp_path / "fresh"
    assert main(["db", "upgrade", "--data-dir", str(data_dir)]) == 0
    modes = {p.name: p.stat().st_mode & 0o777 for p in data_dir.iterdir()}
    assert modes
    assert all(mode & 0o077 == 0 for mode in modes.values()), modes


async def test_the_daemon_keeps_its_files_private_in_a_loose_data_dir(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = make_config(tmp_path, **{"server.projector": "inline", "server.http": "127.0.0.1:0"})
    data_dir = config.storage.data_dir
    data_dir.mkdir()
    data_dir.chmod(0o755)  # made before memoryd, by someone with the usual umask
    umask = os.umask(0o022)
    try:
        async with running(config) as (_server, _lines):
            pass
    finally:
        os.umask(umask)
    modes = {p.name: p.stat().st_mode & 0o777 for p in data_dir.iterdir() if not p.is_dir()}
    assert "api-token" in modes
    assert "events.sqlite3" in modes
    assert all(mode & 0o077 == 0 for mode in modes.values()), modes
    assert f"{data_dir} has mode 0755" in capsys.readouterr().err
