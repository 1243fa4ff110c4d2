"""``memoryd retrospective run|status`` against a daemon (socket and TCP); ``replay`` on a
SQLite data dir (it has no API)."""

from __future__ import annotations

import asyncio
import socket
from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest

from daemon.auth import TOKEN_FILE
from daemon.cli import main
from daemon.cli.client_cmd import EXIT_API_ERROR, EXIT_NO_DAEMON
from events.retrospective_events import (
    RetrospectiveAbandoned,
    RetrospectiveScheduled,
    RetrospectiveStarted,
)
from events.store.base import NewEvent
from events.store.sqlite import SqliteEventStore
from events.types import Event, MessageAppended
from tests.api_fixtures import make_config, running
from tests.cli.test_client_cli import memoryd

AT = datetime(2026, 3, 1, tzinfo=UTC)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


async def test_run_and_status_talk_to_the_daemon(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    port = _free_port()
    config = make_config(
        tmp_path, **{"retrospective.enabled": True, "server.http": f"127.0.0.1:{port}"}
    )
    sock = ["--socket", str(config.server.socket)]
    async with running(config):
        token = (config.storage.data_dir / TOKEN_FILE).read_text().strip()
        tcp = ["--url", f"http://127.0.0.1:{port}"]
        assert await memoryd("messages", "add", "c", "I live in Lyon.", *sock) == 0
        capsys.readouterr()

        assert await memoryd("retrospective", "run", "c", "--wait", *sock, "--json") == 0
        run = orjson.loads(capsys.readouterr().out)
        assert (run["finished"], run["status"]) == (True, "succeeded")
        assert await memoryd("retrospective", "status", "c", *tcp, "--token", token, "--json") == 0
        status = orjson.loads(capsys.readouterr().out)
        # The manual run is listed as it ended (an interval trigger may have scheduled
        # another run for the same message meanwhile, which then had nothing to do).
        runs = {r["run_id"]: r["status"] for r in status["runs"]}
        assert runs[run["run_id"]] == "succeeded"
        assert set(runs.values()) <= {"succeeded", "skipped"}
        # The same flags as every client command: a token file, a namespace, a table.
        token_file = tmp_path / "token"
        token_file.write_text(token)
        assert (
            await memoryd("retrospective", "status", "c", *tcp, "--token-file", str(token_file))
            == 0
        )
        assert run["run_id"] in capsys.readouterr().out
        assert await memoryd("retrospective", "status", "c", *sock) == 0
        table = capsys.readouterr().out
        assert "RUN_ID" in table
        assert run["run_id"] in table

        assert await memoryd("retrospective", "run", "c", *sock, "--json") == 0
        assert "action" in orjson.loads(capsys.readouterr().out)
        assert await memoryd("retrospective", "status", "c", *sock, "-n", "other") == (
            EXIT_API_ERROR
        )
        assert "404 not_found" in capsys.readouterr().err
        assert await memoryd("retrospective", "run", "nope", *sock) == EXIT_API_ERROR
        assert "404 not_found" in capsys.readouterr().err
        assert await memoryd("retrospective", "status", "c", *tcp) == EXIT_API_ERROR
        assert "401 unauthorized" in capsys.readouterr().err


async def test_run_works_when_retrospectives_are_off(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = make_config(tmp_path)  # retrospectives off
    sock = ["--socket", str(config.server.socket)]
    async with running(config):
        assert await memoryd("messages", "add", "c", "hello", *sock) == 0
        for _ in range(200):  # the service starts once the log is folded
            status = await memoryd("retrospective", "run", "c", *sock)
            out, err = capsys.readouterr()
            if "not_ready" not in err:
                break
            await asyncio.sleep(0.025)
        # A person asked: the run is answered though automatic runs are off.
        assert status == 0, err
        assert "schedule" in out
    assert await memoryd("retrospective", "status", "c", *sock) == EXIT_NO_DAEMON


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


def test_replay_writes_to_the_log_of_the_data_dir(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "memoryd.toml"
    config.write_text("[retrospective]\nmax_retries = 1\n")
    data = tmp_path / "data"
    opts = ["--data-dir", str(data), "--config", str(config)]
    _append(
        data,
        MessageAppended(
            conversation_id="c",
            message_id="m1",
            role="user",
            content="I live in Lyon.",
            created_at=AT,
        ),
        RetrospectiveScheduled(conversation_id="c", run_id="r1", at=AT, trigger="manual"),
    )
    assert main(["retrospective", "replay", "r1", *opts]) == 2
    assert "only abandoned runs replay" in capsys.readouterr().err
    _append(
        data,
        RetrospectiveStarted(
            conversation_id="c",
            run_id="r1",
            at=AT,
            attempt=1,
            fork_id="f",
            after_message_id=None,
            through_message_id="m1",
            message_ids=["m1"],
        ),
        RetrospectiveAbandoned(
            conversation_id="c", run_id="r1", at=AT, attempts=1, message_ids=["m1"]
        ),
    )
    assert main(["retrospective", "replay", "r1", *opts]) == 0
    replay = orjson.loads(capsys.readouterr().out)
    last = _scheduled(data)[-1]
    assert (last.run_id, last.replay_of, last.message_ids) == (replay["run_id"], "r1", ["m1"])
    assert main(["retrospective", "replay", "nope", *opts]) == 2
    assert "no run 'nope'" in capsys.readouterr().err
