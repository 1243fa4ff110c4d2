"""``memoryd events import --wait``: the projections hold the import when it returns, with
progress on stderr, with or without a daemon running on the same data dir."""

from __future__ import annotations

import asyncio
from pathlib import Path

import orjson
import pytest
import sqlalchemy as sa

from daemon.backend import Backend
from daemon.cli import events_cmd
from projections.runner import checkpoints_table
from tests.api_fixtures import make_config, running
from tests.cli.test_client_cli import memoryd
from tests.cli.test_events_cli import populate


async def _exported(tmp_path: Path) -> Path:
    source, target = tmp_path / "source", tmp_path / "export.ndjson"
    # Two messages in c1 (default), a fact in another namespace.
    await asyncio.to_thread(populate, source)
    assert await memoryd("events", "export", "--data-dir", str(source), "-o", str(target)) == 0
    return target


async def _checkpoints(data_dir: Path) -> set[int]:
    engine = Backend(data_dir).projection_engine(write=False)
    try:
        async with engine.connect() as conn:
            return {int(p) for p in await conn.scalars(sa.select(checkpoints_table.c.position))}
    finally:
        await engine.dispose()


async def test_import_waits_for_the_fold_with_progress(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(events_cmd, "FOLD_REPORT_EVERY", 0.0)  # a line for every batch
    export = await _exported(tmp_path)
    capsys.readouterr()
    data = tmp_path / "data"
    assert await memoryd("events", "import", "--data-dir", str(data), str(export), "--wait") == 0
    err = capsys.readouterr().err
    assert "imported 3 events" in err
    assert "folded 3 of 3 events" in err
    assert "the projections hold the log up to position 3" in err
    assert await _checkpoints(data) == {3}

    plain = tmp_path / "plain"
    assert await memoryd("events", "import", "--data-dir", str(plain), str(export)) == 0
    assert "projections" not in capsys.readouterr().err
    assert not (plain / "projections.sqlite3").exists()


async def test_import_next_to_a_running_daemon_is_read_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    export = await _exported(tmp_path)
    config = make_config(tmp_path)
    data = str(config.storage.data_dir)
    sock = ["--socket", str(config.server.socket)]
    async with running(config):
        capsys.readouterr()
        assert await memoryd("events", "import", "--data-dir", data, str(export), "--wait") == 0
        assert "up to position 3" in capsys.readouterr().err
        assert await memoryd("messages", "list", "c1", *sock, "--json") == 0
        listed = orjson.loads(capsys.readouterr().out)["messages"]
        assert len(listed) == 2
        assert await memoryd("facts", "list", *sock, "-n", "other", "--json") == 0
        assert [f["text"] for f in orjson.loads(capsys.readouterr().out)["facts"]] == ["tea"]
