"""``memoryd retrospective run|replay|status`` on a SQLite data dir."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest

from daemon.cli import main
from events.retrospective_events import (
    RetrospectiveAbandoned,
    RetrospectiveScheduled,
    RetrospectiveStarted,
)
from events.store.base import NewEvent
from events.store.sqlite import SqliteEventStore
from events.types import Event, MessageAppended

AT = datetime(2026, 3, 1, tzinfo=UTC)


def _append(data_dir: Path, *events: Event) -> None:
    async def go() -> None:
        store = SqliteEventStore.in_data_dir(data_dir)
        await store.open()
        try:
            await store.append("default", [NewEvent(e) for e in events])
        finally:
            await store.close()

    asyncio.run(go())


def _scheduled(data_dir: Path) -> list[RetrospectiveScheduled]:
    async def go() -> list[RetrospectiveScheduled]:
        store = SqliteEventStore.in_data_dir(data_dir)
        await store.open()
        try:
            return [
                e.event async for e in store.read() if isinstance(e.event, RetrospectiveScheduled)
            ]
        finally:
            await store.close()

    return asyncio.run(go())


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, list[str]]:
    config = tmp_path / "memoryd.toml"
    config.write_text("[retrospective]\nmax_retries = 1\n")
    data = tmp_path / "data"
    _append(
        data,
        MessageAppended(
            conversation_id="c",
            message_id="m1",
            role="user",
            content="I live in Lyon.",
            created_at=AT,
        ),
    )
    return data, ["--data-dir", str(data), "--config", str(config)]


def test_run_status_and_replay(
    setup: tuple[Path, list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    data, opts = setup
    assert main(["retrospective", "run", "c", *opts]) == 0
    result = orjson.loads(capsys.readouterr().out)
    assert result["action"] == "schedule"
    [scheduled] = _scheduled(data)
    assert (scheduled.run_id, scheduled.trigger) == (result["run_id"], "manual")
    # A second request merges into the pending run.
    assert main(["retrospective", "run", "c", *opts]) == 0
    assert orjson.loads(capsys.readouterr().out)["action"] == "merge"
    assert main(["retrospective", "status", "c", *opts]) == 0
    status = orjson.loads(capsys.readouterr().out)
    assert status["pending_run_id"] == result["run_id"]
    assert [r["status"] for r in status["runs"]] == ["pending"]
    assert status["unreviewed"] == 1

    assert main(["retrospective", "replay", result["run_id"], *opts]) == 2
    assert "only abandoned runs replay" in capsys.readouterr().err
    run_id = result["run_id"]
    _append(
        data,
        RetrospectiveStarted(
            conversation_id="c",
            run_id=run_id,
            at=AT,
            attempt=1,
            fork_id="f",
            after_message_id=None,
            through_message_id="m1",
            message_ids=["m1"],
        ),
        RetrospectiveAbandoned(
            conversation_id="c", run_id=run_id, at=AT, attempts=1, message_ids=["m1"]
        ),
    )
    assert main(["retrospective", "replay", run_id, *opts]) == 0
    replay = orjson.loads(capsys.readouterr().out)
    last = _scheduled(data)[-1]
    assert (last.run_id, last.replay_of, last.message_ids) == (replay["run_id"], run_id, ["m1"])


def test_unknown_conversation_and_run(
    setup: tuple[Path, list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    _, opts = setup
    assert main(["retrospective", "run", "nope", *opts]) == 2
    assert "no conversation 'nope'" in capsys.readouterr().err
    assert main(["retrospective", "replay", "nope", *opts]) == 2
    assert "no run 'nope'" in capsys.readouterr().err
    assert main(["retrospective", "status", "nope", *opts]) == 2
