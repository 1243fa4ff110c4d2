"""The search projection folded incrementally (any batch size) equals a rebuild from 0.

The fold preloads what a batch looks up (existing documents, deleted conversations, each
conversation's last turns) and writes in bulk; these tests pin that the result does not depend
on where the batch boundaries fall, that each message's context (``near``) equals a naive
computation from the stored turns, and that a purge leaves the same rows as a rebuild.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any, ClassVar

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy.ext.asyncio import AsyncConnection

from events.store.base import StoredEvent
from events.types import ConversationDeleted, FactPurged, FactSuperseded, MessageAppended
from projections.base import Projection
from projections.messages import MessagesProjection
from projections.runner import ProjectionRunner
from projections.search import (
    CONTEXT_GAP_MICROS,
    CONTEXT_WINDOW,
    FTS_TOKENIZER,
    NEAR_TURN_CHARS,
    SearchProjection,
    docs_table,
    embed_text,
    entities_table,
    mentions_table,
    near_turn_text,
    scope_tokens,
)
from tests.projection_fixtures import Append, at, fact, logs, message, open_env, play

SETTINGS = settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


async def _check_near(env: Any) -> None:
    """Each live message's ``near`` is its neighbours' text (each cut by ``near_turn_text``),
    computed naively from the rows."""
    d = docs_table.c
    async with env.engine.connect() as conn:
        rows = (
            await conn.execute(
                sa.select(d.namespace, d.conversation_id, d.name, d.text, d.near, d.created_at)
                .where(d.kind == "message", d.live.is_(True))
                .order_by(d.namespace, d.conversation_id, d.doc_id)
            )
        ).all()
    by_conversation: dict[tuple[str, str], list[Any]] = {}
    for row in rows:
        by_conversation.setdefault((row.namespace, row.conversation_id), []).append(row)
    for turns in by_conversation.values():
        for i, turn in enumerate(turns):
            expected = [
                near_turn_text(other.name, other.text)
                for j, other in enumerate(turns)
                if j != i
                and abs(j - i) <= CONTEXT_WINDOW
                and abs(other.created_at - turn.created_at) <= CONTEXT_GAP_MICROS
            ]
            assert turn.near == "\n".join(expected)


def _postings(sync: sa.Connection) -> tuple[list[Any], list[Any]]:
    """Return the postings of ``search_fts`` and those of a fresh index of the live rows."""
    d = docs_table.c
    live = sync.execute(
        sa.select(d.doc_id, d.body, d.near, d.namespace, d.kind, d.conversation_id).where(
            d.live.is_(True)
        )
    ).all()
    sync.exec_driver_sql(
        "CREATE VIRTUAL TABLE temp.fresh_fts USING fts5(body, near, scope, content='', "
        f"tokenize='{FTS_TOKENIZER}')"
    )
    if live:
        sync.exec_driver_sql(
            "INSERT INTO temp.fresh_fts(rowid, body, near, scope) VALUES (?, ?, ?, ?)",
            [(r[0], r[1], r[2], scope_tokens(r[3], r[4], r[5])) for r in live],
        )
    found = []
    for schema, table in (("main", "search_fts"), ("temp", "fresh_fts")):
        sync.exec_driver_sql(
            f"CREATE VIRTUAL TABLE temp.v_{table} USING fts5vocab({schema}, {table}, instance)"
        )
        found.append(
            [
                tuple(r)
                for r in sync.exec_driver_sql(f"SELECT * FROM temp.v_{table} ORDER BY 1, 2, 3, 4")
            ]
        )
    for name in ("v_search_fts", "v_fresh_fts", "fresh_fts"):
        sync.exec_driver_sql(f"DROP TABLE temp.{name}")
    return found[0], found[1]


async def _check_index(env: Any) -> None:
    """The contentless index holds exactly the postings of the live rows' body, near and
    scope: every removal named the values the document had been indexed with."""
    async with env.engine.connect() as conn:
        indexed, fresh = await conn.run_sync(_postings)
    assert indexed == fresh


async def _run(log: list[Append], batch_sizes: list[int]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        async with open_env(Path(tmp), [SearchProjection()], batch_size=3) as env:
            await play(env, log, batch_sizes)
            await _check_near(env)
            await _check_index(env)
            incremental = await env.runner.digest()
            await env.runner.rebuild()
            assert await env.runner.digest() == incremental


@SETTINGS
@given(log=logs(), batch_sizes=st.lists(st.integers(1, 7), max_size=8))
def test_incremental_search_fold_equals_rebuild(log: list[Append], batch_sizes: list[int]) -> None:
    import asyncio

    asyncio.run(_run(log, batch_sizes))


async def test_long_conversations_across_batches_equal_one_batch(tmp_path: Path) -> None:
    async with open_env(tmp_path, [SearchProjection()], batch_size=2) as env:
        for i in range(40):
            cid = f"c{i % 3}"
            # Gaps beyond the context window's time bound now and then.
            when = at(i * 60 + (i // 7) * 5 * 3600)
            await env.append(
                "a", message(cid, f"m{i}", f"Turn {i} about Alice {i}", created_at=when)
            )
            if i % 11 == 5:  # a finalised rewrite of an earlier turn
                await env.append(
                    "a", message(cid, f"m{i - 3}", f"Rewritten {i} Bob", created_at=when)
                )
            if i % 5 == 0:
                await env.fold()
        await env.append("a", ConversationDeleted(conversation_id="c2"))
        await env.append("a", message("c2", "late", "ignored after the delete"))
        await env.fold()
        await _check_index(env)
        incremental = await env.runner.digest()
        env.runner.batch_size = 1000
        await env.runner.rebuild()
        assert await env.runner.digest() == incremental
        async with env.engine.connect() as conn:
            near = await conn.scalar(
                sa.select(docs_table.c.near).where(docs_table.c.ref_id == "m30")
            )
        # Same conversation: m27 (another session, 5 h earlier) and m33 (3 minutes later).
        assert near == "Turn 33 about Alice 33"


def test_a_neighbouring_turn_is_cut_at_a_word_boundary() -> None:
    words = " ".join(f"word{i}" for i in range(400))  # 3,089 characters
    cut = near_turn_text("Ann", words)
    assert len(cut) <= NEAR_TURN_CHARS
    assert embed_text("Ann", words).startswith(cut)
    assert embed_text("Ann", words)[len(cut)] == " "  # the last word kept is whole
    assert len(cut) > NEAR_TURN_CHARS - len(" word399")
    # No whitespace to cut at (a long URL): cut at the limit itself.
    url = "https://example.com/" + "a" * 2000
    assert near_turn_text(None, url) == url[:NEAR_TURN_CHARS]
    # Up to the limit, a turn is kept whole.
    whole = "x" * (NEAR_TURN_CHARS - len("Ann: "))
    assert near_turn_text("Ann", whole) == f"Ann: {whole}"


async def test_a_long_neighbour_is_cut_in_near_and_its_own_text_is_not(tmp_path: Path) -> None:
    long_text = " ".join(f"word{i}" for i in range(1000))  # about 7.9 KB
    async with open_env(tmp_path, [SearchProjection()], batch_size=2) as env:
        await env.append(
            "a",
            message("c1", "m1", "Where did you go last summer?", name="Ann"),
            message("c1", "m2", long_text, name="Bob"),
            message("c1", "m3", "Yes, last Tuesday", name="Ann"),
            # A short conversation: its near is its neighbours' text, uncut.
            message("c2", "s1", "Did you see the match?", name="Ann"),
            message("c2", "s2", "No, I was at work", name="Bob"),
            message("c2", "s3", "Shame, it was a good one", name="Ann"),
        )
        await env.fold()
        d = docs_table.c
        async with env.engine.connect() as conn:
            rows = {
                r.ref_id: r for r in await conn.execute(sa.select(d.ref_id, d.text, d.body, d.near))
            }
        cut = near_turn_text("Bob", long_text)
        assert len(cut) <= NEAR_TURN_CHARS < len(long_text)
        # The long message's own text and body are whole; its neighbours hold it cut.
        assert rows["m2"].text == long_text
        assert rows["m2"].body.startswith(f"Bob: {long_text} ")
        assert rows["m2"].near == "Ann: Where did you go last summer?\nAnn: Yes, last Tuesday"
        assert rows["m1"].near == f"{cut}\nAnn: Yes, last Tuesday"
        assert rows["m3"].near == f"Ann: Where did you go last summer?\n{cut}"
        assert rows["s1"].near == "Bob: No, I was at work\nAnn: Shame, it was a good one"
        assert rows["s2"].near == "Ann: Did you see the match?\nAnn: Shame, it was a good one"
        assert rows["s3"].near == "Ann: Did you see the match?\nBob: No, I was at work"
        await _check_near(env)
        await _check_index(env)
        incremental = await env.runner.digest()
        await env.runner.rebuild()
        assert await env.runner.digest() == incremental


async def test_a_purged_fact_leaves_the_rows_a_rebuild_gives(tmp_path: Path) -> None:
    async with open_env(tmp_path, [SearchProjection()]) as env:
        await env.append("a", fact("f1", "Alice lives in Paris", tags=["home"]))
        await env.append("a", fact("f2", "Alice lives in Rome"))
        await env.fold()
        env.clock.advance(timedelta(seconds=5))
        await env.append("a", FactSuperseded(old_fact_id="f1", new_fact_id="f2", at=at(3)))
        await env.append("a", FactPurged(fact_id="f1"))
        await env.fold()
        await _check_index(env)
        incremental = await env.runner.digest()
        await env.runner.rebuild()
        assert await env.runner.digest() == incremental
        async with env.engine.connect() as conn:
            row = (
                await conn.execute(
                    sa.select(
                        docs_table.c.live, docs_table.c.text, docs_table.c.content_hash
                    ).where(docs_table.c.ref_id == "f1")
                )
            ).one()
        assert tuple(row) == (False, "", "")


async def test_entity_counts_are_the_live_mentions(tmp_path: Path) -> None:
    """``search_entities.doc_count`` is, per namespace and key, the number of documents that
    mention it, through additions, a rewritten message, a purge and a deleted conversation
    (keys whose count falls to zero are gone; another namespace keeps its own)."""
    async with open_env(tmp_path, [SearchProjection()], batch_size=2) as env:
        await env.append(
            "a",
            fact("f1", "Alice Smith met Bob in Paris"),
            fact("f2", "Alice Smith likes Rome"),
            message("c1", "m1", "Bob and Carol went to Paris"),
            message("c2", "m2", "Dana called Alice Smith"),
        )
        await env.append("b", fact("f1", "Alice Smith in another namespace"))
        await env.fold()
        await env.append(
            "a",
            message("c1", "m1", "Carol stayed home"),  # no longer mentions Bob or Paris
            FactPurged(fact_id="f2"),
            ConversationDeleted(conversation_id="c2"),
        )
        await env.fold()
        e, m, d = entities_table.c, mentions_table.c, docs_table.c
        async with env.engine.connect() as conn:
            counts = {
                (r.namespace, r.entity_key): r.doc_count
                for r in await conn.execute(sa.select(e.namespace, e.entity_key, e.doc_count))
            }
            mentioned = await conn.execute(
                sa.select(d.namespace, m.entity_key, sa.func.count())
                .select_from(mentions_table.join(docs_table, d.doc_id == m.doc_id))
                .group_by(d.namespace, m.entity_key)
            )
            expected = {(ns, key): n for ns, key, n in mentioned}
        assert counts == expected
        assert counts[("a", "alice smith")] == 1  # f1 only: f2 purged, m2's chat deleted
        assert counts[("b", "alice smith")] == 1
        assert ("a", "bob") in counts  # f1 still names Bob
        await _check_index(env)
        incremental = await env.runner.digest()
        await env.runner.rebuild()
        assert await env.runner.digest() == incremental


async def test_state_carried_between_batches_is_dropped_when_another_runner_folded(
    tmp_path: Path,
) -> None:
    # Two runners, each with its own projection instances, take turns on one database: each
    # one's turns and names from its last batch are stale once the other has folded.
    async with open_env(tmp_path, [MessagesProjection(), SearchProjection()], batch_size=2) as env:
        other = ProjectionRunner(
            env.store, env.engine, [MessagesProjection(), SearchProjection()], batch_size=2
        )
        await other.setup()
        runners = [env.runner, other]
        for i in range(36):
            cid = f"c{i % 2}"
            await env.append("a", message(cid, f"m{i}", f"Turn {i} with Alice", name="Ann"))
            if i % 3 == 2:
                await runners[(i // 3) % 2].catch_up()
        await other.catch_up()
        await env.runner.catch_up()
        await _check_near(env)
        await _check_index(env)
        folded = await env.runner.digest()
        await env.runner.rebuild()
        assert await env.runner.digest() == folded


async def test_a_rolled_back_batch_leaves_no_carried_state(tmp_path: Path) -> None:
    failing = FailingOnce()
    async with open_env(
        tmp_path, [MessagesProjection(), SearchProjection(), failing], batch_size=3
    ) as env:
        for i in range(12):
            await env.append("a", message("c", "bad" if i == 7 else f"m{i}", f"Turn {i} Bo"))
        with pytest.raises(RuntimeError, match="once"):
            await env.fold()
        await env.fold()  # the same batch again, and the rest
        await _check_near(env)
        await _check_index(env)
        folded = await env.runner.digest()
        await env.runner.rebuild()
        assert await env.runner.digest() == folded


class FailingOnce(Projection):
    """Fails the first batch holding a message called ``bad``, after the others folded it."""

    name: ClassVar[str] = "failing_once"
    version: ClassVar[int] = 1
    metadata: ClassVar[sa.MetaData] = sa.MetaData()

    def __init__(self) -> None:
        self.failed = False

    async def apply(self, conn: AsyncConnection, events: Sequence[StoredEvent]) -> None:
        bad = any(
            isinstance(e.event, MessageAppended) and e.event.message_id == "bad" for e in events
        )
        if bad and not self.failed:
            self.failed = True
            raise RuntimeError("fails once")
