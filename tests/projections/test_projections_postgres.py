"""The projections on PostgreSQL: the same random logs fold to the same tables as on SQLite
(equal digests across backends, the search documents included), reads agree with the
reference models, and ``memoryd projections verify`` works against a database URL."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from daemon.cli import main
from events.store.sqlite import sqlite_engine
from projections.facts import FactsProjection, get_fact
from projections.messages import MessagesProjection, list_messages
from projections.runner import ProjectionRunner
from projections.search import SearchProjection
from tests.pg_fixtures import RESET_STATEMENTS, pg_execute
from tests.projection_fixtures import (
    Append,
    FactModel,
    MessageModel,
    fact,
    logs,
    message,
    open_env,
    play,
)
from tests.projections.test_projections_properties import check_facts, check_messages

pytestmark = pytest.mark.postgres


async def _run(url: str, log: list[Append], batch_sizes: list[int], data: st.DataObject) -> None:
    await pg_execute(url, *RESET_STATEMENTS)
    with tempfile.TemporaryDirectory() as tmp:
        async with open_env(
            Path(tmp),
            [MessagesProjection(), FactsProjection(), SearchProjection()],
            batch_size=3,
            database_url=url,
        ) as env:
            await play(env, log, batch_sizes)
            events = [e async for e in env.store.read()]
            await check_messages(env, MessageModel(events), data)
            await check_facts(env, FactModel(events), data)
            on_postgres = await env.runner.digest()
            scratch = sqlite_engine(Path(tmp) / "scratch.sqlite3", write=True)
            try:
                runner = ProjectionRunner(
                    env.store,
                    scratch,
                    [MessagesProjection(), FactsProjection(), SearchProjection()],
                )
                await runner.setup()
                await runner.catch_up()
                assert await runner.digest() == on_postgres
            finally:
                await scratch.dispose()


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
)
@given(
    log=logs(max_appends=10), batch_sizes=st.lists(st.integers(1, 7), max_size=6), data=st.data()
)
def test_postgres_folds_equal_sqlite_and_the_models(
    pg_url: str,
    log: list[Append],
    batch_sizes: list[int],
    data: st.DataObject,
) -> None:
    asyncio.run(_run(pg_url, log, batch_sizes, data))


def test_verify_and_rebuild_on_postgres(
    pg_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from tests.cli.test_replay_cli import populate_events

    asyncio.run(populate_events(tmp_path, database_url=pg_url))
    base = ["--data-dir", str(tmp_path), "--database-url", pg_url]
    assert main(["projections", "rebuild", *base]) == 0
    assert main(["projections", "verify", *base]) == 0
    assert "tables equal a rebuild" in capsys.readouterr().out
    asyncio.run(pg_execute(pg_url, "UPDATE fact_versions SET text = 'milk'"))
    assert main(["projections", "verify", *base]) == 1
    assert "differ from a rebuild: fact_versions" in capsys.readouterr().err
    past = tmp_path / "past"
    assert main(["replay", "--until", "4", "--into", str(past), *base]) == 0
    assert main(["projections", "verify", "--data-dir", str(past)]) == 0


def test_text_with_nul_does_not_stop_the_runner_on_postgres(pg_url: str, tmp_path: Path) -> None:
    async def run() -> None:
        async with open_env(tmp_path, database_url=pg_url) as env:
            await env.append("ns", fact("f", "a\x00b"), message("c", "m\x00", name="n\x00"))
            assert await env.fold() == 2
            async with env.engine.connect() as conn:
                f = await get_fact(conn, "ns", "f")
                rows = await list_messages(conn, "ns", "c")
            assert f is not None
            assert f.text == "a\ufffdb"
            assert [(m.conversation_id, m.message_id, m.name) for m in rows] == [
                ("c", "m\ufffd", "n\ufffd")
            ]

    asyncio.run(run())
