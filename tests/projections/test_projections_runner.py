"""The runner: checkpoint atomicity, version bumps, following the log, several runners on one
database, and digests."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

import pytest
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

import projections.runner as runner_module
from daemon.backend import PROJECTIONS_FILE
from events.store.base import StoredEvent
from events.types import FactValidated, MessageAppended
from projections.base import Projection
from projections.facts import FactsProjection
from projections.messages import MessagesProjection, messages_table
from projections.runner import (
    DEFAULT_WAL_PAGES,
    REBUILD_WAL_PAGES,
    ProjectionRunner,
    checkpoints_table,
    default_projections,
    read_checkpoints,
)
from tests.projection_fixtures import Env, fact, message, open_env

counter_metadata = sa.MetaData()
counter_table = sa.Table(
    "test_counter",
    counter_metadata,
    sa.Column("position", sa.BigInteger, primary_key=True),
)


class Exploding(Projection):
    """Records every position it sees and fails on a message called ``bad``."""

    name: ClassVar[str] = "exploding"
    version: ClassVar[int] = 1
    metadata: ClassVar[sa.MetaData] = counter_metadata

    async def apply(self, conn: AsyncConnection, events: Sequence[StoredEvent]) -> None:
        await conn.execute(counter_table.insert(), [{"position": e.position} for e in events])
        for e in events:
            if isinstance(e.event, MessageAppended) and e.event.message_id == "bad":
                raise RuntimeError("boom")


class ExplodingV2(Exploding):
    version: ClassVar[int] = 2


async def count(env: Env, table: sa.Table) -> int:
    async with env.engine.connect() as conn:
        return int(await conn.scalar(sa.select(sa.func.count()).select_from(table)) or 0)


async def stored_positions(env: Env) -> dict[str, int]:
    async with env.engine.connect() as conn:
        return {name: position for name, (_, position) in (await read_checkpoints(conn)).items()}


async def test_a_failing_batch_leaves_neither_rows_nor_checkpoint(tmp_path: Path) -> None:
    async with open_env(tmp_path, [MessagesProjection(), Exploding()], batch_size=3) as env:
        await env.append("ns", message("c", "m1"), message("c", "m2"), message("c", "m3"))
        await env.fold()
        await env.append("ns", message("c", "m4"), message("c", "bad"), message("c", "m6"))
        with pytest.raises(RuntimeError, match="boom"):
            await env.fold()
        # The second batch rolled back as a whole, in every projection.
        assert env.runner.position == 3
        assert await stored_positions(env) == {"messages": 3, "exploding": 3}
        assert await count(env, messages_table) == 3
        assert await count(env, counter_table) == 3
        # A restarted runner starts from the checkpoint and fails the same way, no further.
        await env.restart_runner()
        with pytest.raises(RuntimeError, match="boom"):
            await env.fold()
        assert await count(env, messages_table) == 3


async def test_a_new_version_drops_and_refolds_only_that_projection(tmp_path: Path) -> None:
    async with open_env(tmp_path, [MessagesProjection(), Exploding()]) as env:
        await env.append("ns", message("c", "m1"), message("c", "m2"))
        await env.fold()
        async with env.engine.begin() as conn:
            await conn.execute(counter_table.insert().values(position=1000))  # a stale row
        runner = ProjectionRunner(env.store, env.engine, [MessagesProjection(), ExplodingV2()])
        await runner.setup()
        assert runner.checkpoints == {"messages": 2, "exploding": 0}
        assert await count(env, counter_table) == 0
        assert await count(env, messages_table) == 2
        await env.append("ns", message("c", "m3"))
        assert await runner.catch_up() == 3
        async with env.engine.connect() as conn:
            seen = (await conn.execute(sa.select(counter_table.c.position))).scalars().all()
            versions = (await read_checkpoints(conn))["exploding"]
        assert sorted(seen) == [1, 2, 3]
        assert versions == (2, 3)
        assert await count(env, messages_table) == 3


async def test_run_follows_new_commits(tmp_path: Path) -> None:
    async with open_env(tmp_path) as env:
        await env.append("ns", message("c", "m1"))
        task = asyncio.create_task(env.runner.run())
        try:
            assert await env.runner.wait_for(1, timeout=10)
            [position] = await env.append("ns", message("c", "m2"))
            assert await env.runner.wait_for(position, timeout=10)
            assert await count(env, messages_table) == 2
            assert not await env.runner.wait_for(position + 1, timeout=0.05)
        finally:
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task


async def test_two_runners_on_one_database_never_fold_twice(tmp_path: Path) -> None:
    async with open_env(tmp_path, [FactsProjection()], batch_size=2) as env:
        other = ProjectionRunner(env.store, env.engine, [FactsProjection()], batch_size=2)
        await other.setup()
        await env.append("ns", fact("f"), FactValidated(fact_id="f", by="a"))
        await env.fold()
        await env.append("ns", FactValidated(fact_id="f", by="b"))
        # ``other`` still believes it is at 0: it must skip what ``env.runner`` folded.
        assert await other.catch_up() == 3
        assert await env.runner.catch_up() == 3
        both = await env.runner.digest()
        await env.runner.rebuild()
        assert await env.runner.digest() == both


async def test_a_checkpoint_moved_back_by_a_rebuild_elsewhere_is_followed(tmp_path: Path) -> None:
    async with open_env(tmp_path, [FactsProjection()]) as env:
        await env.append("ns", fact("f"), FactValidated(fact_id="f", by="a"))
        await env.fold()
        other = ProjectionRunner(env.store, env.engine, [FactsProjection()], batch_size=1)
        await other.setup()
        async with env.engine.begin() as conn:  # another process starts a rebuild
            for table in reversed(FactsProjection.metadata.sorted_tables):
                await conn.execute(table.delete())
            await conn.execute(checkpoints_table.update().values(position=0))
        await env.append("ns", FactValidated(fact_id="f", by="b"))
        assert await env.runner.catch_up() == 3
        folded = await env.runner.digest()
        await other.rebuild()
        assert await other.digest() == folded


async def test_digest_names_every_table_and_sees_a_change(tmp_path: Path) -> None:
    async with open_env(tmp_path, [MessagesProjection(), FactsProjection()]) as env:
        await env.append("ns", message("c", "m1"), fact("f"))
        await env.fold()
        before = await env.runner.digest()
        assert set(before) == {
            "conversations",
            "messages",
            "fact_versions",
            "fact_tags",
            "fact_claims",
            "fact_sources",
            "fact_decisions",
            "profile_lines",
            "profile_model",
        }
        async with env.engine.begin() as conn:
            await conn.execute(messages_table.update().values(finalized=False))
        after = await env.runner.digest()
        assert [t for t in before if before[t] != after[t]] == ["messages"]


async def test_rebuild_reports_progress(tmp_path: Path) -> None:
    async with open_env(tmp_path, batch_size=4) as env:
        await env.append("ns", *(message("c", f"m{i}") for i in range(10)))
        seen: list[tuple[int, int]] = []
        assert await env.runner.rebuild(lambda done, total: seen.append((done, total))) == 10
        assert seen == [(4, 10), (8, 10), (10, 10)]


def test_default_projections_have_unique_names() -> None:
    names = [p.name for p in default_projections()]
    assert len(names) == len(set(names))
    assert {"messages", "facts"} <= set(names)
    with pytest.raises(ValueError, match="unique"):
        ProjectionRunner(None, None, [FactsProjection(), FactsProjection()])  # type: ignore[arg-type]


async def index_names(env: Env) -> set[str]:
    def names(sync: sa.Connection) -> set[str]:
        return {i["name"] or "" for i in sa.inspect(sync).get_indexes("messages")}

    async with env.engine.connect() as conn:
        return await conn.run_sync(names)


async def test_rebuild_defers_an_index_and_setup_restores_a_missing_one(tmp_path: Path) -> None:
    async with open_env(tmp_path, batch_size=2) as env:
        await env.append("ns", *(message("c", f"m{i}") for i in range(5)))
        await env.runner.rebuild()
        assert "ix_messages_order" in await index_names(env)
        # Cut short (the index dropped, never rebuilt): the next setup creates it again.
        async with env.engine.begin() as conn:
            await conn.exec_driver_sql("DROP INDEX ix_messages_order")
        await env.restart_runner()
        assert "ix_messages_order" in await index_names(env)


class WalWatcher(Exploding):
    """Records the connection's ``wal_autocheckpoint`` at every batch."""

    name: ClassVar[str] = "wal_watcher"
    seen: ClassVar[list[int]] = []

    async def apply(self, conn: AsyncConnection, events: Sequence[StoredEvent]) -> None:
        self.seen.append(int(await conn.scalar(sa.text("PRAGMA wal_autocheckpoint")) or 0))
        await super().apply(conn, events)


async def wal_autocheckpoint(env: Env) -> int:
    async with env.engine.connect() as conn:
        return int(await conn.scalar(sa.text("PRAGMA wal_autocheckpoint")) or 0)


async def test_rebuild_holds_the_wal_back_and_truncates_it_at_the_end(tmp_path: Path) -> None:
    WalWatcher.seen.clear()
    async with open_env(tmp_path, [WalWatcher()], batch_size=2) as env:
        await env.append("ns", *(message("c", f"m{i}") for i in range(5)))
        await env.fold()
        await env.runner.rebuild()
        assert WalWatcher.seen == [DEFAULT_WAL_PAGES] * 3 + [REBUILD_WAL_PAGES] * 3
        assert await wal_autocheckpoint(env) == DEFAULT_WAL_PAGES
        assert (tmp_path / PROJECTIONS_FILE).with_suffix(".sqlite3-wal").stat().st_size == 0
        # A rebuild that fails puts the setting back as well.
        await env.append("ns", message("c", "bad"))
        with pytest.raises(RuntimeError, match="boom"):
            await env.runner.rebuild()
        assert await wal_autocheckpoint(env) == DEFAULT_WAL_PAGES


async def test_a_large_fold_gives_its_wal_room_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner_module, "WAL_SIZE_LIMIT", 64 * 1024)
    wal = tmp_path / f"{PROJECTIONS_FILE}-wal"
    async with open_env(tmp_path, [MessagesProjection()]) as env:
        for i in range(40):
            await env.append("a", message("c1", f"m{i}", "long words " * 400))
        await env.fold()
        assert wal.stat().st_size > 64 * 1024  # the batch's pages, copied over or not
        await env.runner.shrink_wal()
        assert wal.stat().st_size == 0
        await env.runner.shrink_wal()  # below the limit: nothing to do
        async with env.engine.connect() as conn:
            count = await conn.scalar(sa.select(sa.func.count()).select_from(messages_table))
        assert count == 40
