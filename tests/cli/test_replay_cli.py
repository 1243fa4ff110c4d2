"""``memoryd projections rebuild|verify`` and ``memoryd replay`` on SQLite data dirs."""

from __future__ import annotations

import asyncio
import io
import sqlite3
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from daemon.backend import PROJECTIONS_FILE, READONLY_MARKER, Backend
from daemon.cli import main
from daemon.cli.progress import ProgressBar
from events.store.base import NewEvent, ReadOnlyStoreError
from events.types import ConversationForked, FactPurged, FactSuperseded
from projections.facts import get_fact, query_facts
from projections.messages import list_messages
from projections.runner import ProjectionRunner, default_projections
from tests.paths import REPO_ROOT
from tests.projection_fixtures import at, fact, message, open_env


async def populate_events(
    data_dir: Path, *, fold: bool = True, database_url: str | None = None
) -> None:
    """Seven events: messages, a fork, facts with a supersede; folded unless told not to."""
    async with open_env(data_dir, default_projections(), database_url=database_url) as env:
        await env.append("ns", message("c", "m1"), message("c", "m2"))  # 1, 2
        await env.append("ns", fact("old", "tea"))  # 3
        env.clock.advance(timedelta(seconds=10))
        await env.append(
            "ns",
            ConversationForked(fork_id="f", parent_conversation_id="c", through_message_id="m1"),
            message("c", "m3"),
            fact("new", "coffee"),
            FactSuperseded(old_fact_id="old", new_fact_id="new", at=at(50)),
        )  # 4..7
        if fold:
            await env.fold()


def populate(data_dir: Path, *, fold: bool = True) -> None:
    """Write (and fold) :func:`populate_events` into a SQLite data dir."""
    asyncio.run(populate_events(data_dir, fold=fold))


def args(command: list[str], data_dir: Path) -> list[str]:
    return [*command, "--data-dir", str(data_dir)]


def test_rebuild_then_verify_is_clean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    populate(tmp_path, fold=False)
    assert main(args(["projections", "rebuild"], tmp_path)) == 0
    assert "up to position 7" in capsys.readouterr().out
    assert main(args(["projections", "verify"], tmp_path)) == 0
    assert "tables equal a rebuild" in capsys.readouterr().out

    async def read() -> list[str]:
        engine = Backend(tmp_path).projection_engine(write=False)
        try:
            async with engine.connect() as conn:
                return [m.message_id for m in await list_messages(conn, "ns", "f")]
        finally:
            await engine.dispose()

    assert asyncio.run(read()) == ["m1"]


def test_verify_names_the_tables_that_differ(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    populate(tmp_path)
    assert main(args(["projections", "verify"], tmp_path)) == 0
    with sqlite3.connect(tmp_path / PROJECTIONS_FILE) as db:
        db.execute("UPDATE messages SET content_json = '\"tampered\"' WHERE message_id = 'm2'")
        db.execute("DELETE FROM fact_tags")
        db.execute("UPDATE fact_versions SET text = 'milk' WHERE fact_id = 'new'")
    capsys.readouterr()
    assert main(args(["projections", "verify"], tmp_path)) == 1
    err = capsys.readouterr().err
    assert "differ from a rebuild: fact_versions, messages" in err
    assert "conversations" not in err
    # A rebuild repairs them.
    assert main(args(["projections", "rebuild"], tmp_path)) == 0
    assert main(args(["projections", "verify"], tmp_path)) == 0


def test_verify_compares_at_the_live_checkpoint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    populate(tmp_path)

    async def append_unfolded() -> None:
        store = Backend(tmp_path).open_store()
        await store.open()
        try:
            await store.append("ns", [NewEvent(message("c", "m9"))])
        finally:
            await store.close()

    asyncio.run(append_unfolded())
    # The live tables lag the log (position 7 of 8): compared with a fold up to 7, they agree.
    assert main(args(["projections", "verify"], tmp_path)) == 0
    assert "position 7" in capsys.readouterr().out


def test_verify_without_projections_says_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    populate(tmp_path, fold=False)
    (tmp_path / PROJECTIONS_FILE).unlink()
    assert main(args(["projections", "verify"], tmp_path)) == 2
    assert "memoryd projections rebuild" in capsys.readouterr().err
    assert main(args(["projections", "rebuild"], tmp_path / "nowhere")) == 2
    assert "no event log" in capsys.readouterr().err


def test_replay_materialises_a_read_only_past(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    live = tmp_path / "live"
    past = tmp_path / "past"
    populate(live)
    assert main([*args(["replay", "--until", "3"], live), "--into", str(past)]) == 0
    assert (past / READONLY_MARKER).exists()
    assert "positions 1..3" in capsys.readouterr().out

    async def inspect() -> None:
        backend = Backend(past)
        assert backend.readonly
        store = backend.open_store()
        await store.open()
        engine = backend.projection_engine(write=False)
        try:
            assert store.readonly
            assert await store.head() == 3
            with pytest.raises(ReadOnlyStoreError):
                await store.append("ns", [NewEvent(message("c", "late"))])
            async with engine.connect() as conn:
                assert [m.message_id for m in await list_messages(conn, "ns", "c")] == ["m1", "m2"]
                assert [f.fact_id for f in await query_facts(conn, "ns")] == ["old"]
                old = await get_fact(conn, "ns", "old")
                assert old is not None
                assert old.superseded_by is None
            # A daemon's runner on the replay finds nothing to do (and could write nothing).
            runner = ProjectionRunner(store, engine)
            await runner.setup()
            assert await runner.catch_up() == 3
        finally:
            await engine.dispose()
            await store.close()

    asyncio.run(inspect())
    # The replayed dir verifies against itself, and refuses a rebuild.
    assert main(args(["projections", "verify"], past)) == 0
    assert main(args(["projections", "rebuild"], past)) == 2
    assert "read-only replay" in capsys.readouterr().err


def test_replay_keeps_a_purge(tmp_path: Path) -> None:
    live = tmp_path / "live"
    populate(live)

    async def purge() -> None:
        async with open_env(live) as env:
            await env.append("ns", FactPurged(fact_id="old"))

    asyncio.run(purge())
    past = tmp_path / "past"
    assert main([*args(["replay", "--until", "8"], live), "--into", str(past)]) == 0
    with sqlite3.connect(past / "events.sqlite3") as db:
        payloads = b"".join(row[0] for row in db.execute("SELECT payload FROM events"))
    assert b"tea" not in payloads
    assert main(args(["projections", "verify"], past)) == 0


def test_replay_refusals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    live = tmp_path / "live"
    populate(live)
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "something").write_text("x")
    assert main([*args(["replay", "--until", "3"], live), "--into", str(busy)]) == 2
    assert "not an empty directory" in capsys.readouterr().err
    assert main([*args(["replay", "--until", "99"], live), "--into", str(tmp_path / "x")]) == 2
    assert "beyond the log's head (7)" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main([*args(["replay", "--until", "0"], live), "--into", str(empty)]) == 0
    assert (empty / READONLY_MARKER).exists()


def test_progress_bar_draws_rate_and_eta_and_ends_its_line() -> None:
    out = io.StringIO()
    now = [100.0]
    bar = ProgressBar("rebuild", out, width=10, clock=lambda: now[0])
    bar.update(0, 10)
    now[0] += 2.0
    bar.update(5, 10)
    now[0] += 0.05
    bar.update(6, 10)  # within 0.1 s: not redrawn
    now[0] += 1.95
    bar.update(10, 10)
    bar.finish()
    lines = out.getvalue().split("\r")[1:]
    assert lines == [
        "rebuild [..........]   0% 0/10 events\x1b[K",
        "rebuild [#####.....]  50% 5/10 events  2/s  ETA 0:02\x1b[K",
        "rebuild [##########] 100% 10/10 events  2/s  in 0:04\x1b[K\n",
    ]


def test_console_script_runs_verify(tmp_path: Path) -> None:
    populate(tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "daemon.cli", *args(["projections", "verify"], tmp_path)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "tables equal a rebuild" in result.stdout
