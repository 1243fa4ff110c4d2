"""The retrospective fold: run lifecycle, cursor and tail, remembered log bounds, the table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from events.retrospective_events import (
    RetrospectiveAbandoned,
    RetrospectiveCursorAdvanced,
    RetrospectiveFailed,
    RetrospectiveScheduled,
    RetrospectiveSkipped,
    RetrospectiveStarted,
    RetrospectiveSucceeded,
)
from events.store.base import NewEvent
from events.store.sqlite import SqliteEventStore, sqlite_engine
from events.types import ConversationDeleted, ConversationForked
from projections.retrospective import (
    REMEMBERED_MAX_BYTES,
    REMEMBERED_MAX_ENTRIES,
    ConversationRetro,
    RetrospectiveFold,
    RetrospectiveProjection,
    bounded_remembered,
    get_retrospective,
    get_run,
)
from projections.retrospective.state import profile_settings
from projections.runner import ProjectionRunner
from tests.retrospective_fixtures import T0, LogBuilder, minutes


def _lifecycle(log: LogBuilder) -> None:
    log.message("c", "m1", content="I live in Lyon.")
    m2 = log.message("c", "m2", role="assistant", content="Nice.")
    log.add(RetrospectiveScheduled(conversation_id="c", run_id="r1", at=T0, trigger="interval"))
    log.add(
        RetrospectiveStarted(
            conversation_id="c",
            run_id="r1",
            at=T0 + minutes(1),
            attempt=1,
            fork_id="c~r1~1",
            after_message_id=None,
            through_message_id="m2",
            message_ids=["m1", "m2"],
        )
    )
    log.add(
        ConversationForked(fork_id="c~r1~1", parent_conversation_id="c", through_message_id="m2")
    )
    log.add(
        RetrospectiveFailed(
            conversation_id="c",
            run_id="r1",
            at=T0 + minutes(2),
            attempt=1,
            error_class="rate_limit",
            retry_at=T0 + minutes(10),
        )
    )
    log.add(ConversationDeleted(conversation_id="c~r1~1"))
    log.message("c", "m3", content="My sister is Ana.")
    log.add(
        RetrospectiveStarted(
            conversation_id="c",
            run_id="r1",
            at=T0 + minutes(10),
            attempt=2,
            fork_id="c~r1~2",
            after_message_id=None,
            through_message_id="m2",
            message_ids=["m1", "m2"],
        )
    )
    log.add(
        ConversationForked(fork_id="c~r1~2", parent_conversation_id="c", through_message_id="m2")
    )
    log.add(
        RetrospectiveSucceeded(
            conversation_id="c",
            run_id="r1",
            at=T0 + minutes(11),
            attempt=2,
            fact_ids=["f1"],
            remembered=["The user lives in Lyon."],
        )
    )
    log.add(
        RetrospectiveCursorAdvanced(
            conversation_id="c",
            run_id="r1",
            message_id="m2",
            position=m2.position,
            reason="succeeded",
            at=T0 + minutes(11),
        )
    )
    log.add(
        RetrospectiveScheduled(
            conversation_id="c", run_id="r2", at=T0 + minutes(12), trigger="manual"
        )
    )
    log.add(
        RetrospectiveSkipped(
            conversation_id="c", run_id="r2", at=T0 + minutes(12), reason="no_user_activity"
        )
    )


def _pending(conv: ConversationRetro) -> str | None:
    return conv.pending_run_id


def _status(conv: ConversationRetro, run_id: str) -> str:
    return conv.runs[run_id].status


def test_run_lifecycle_cursor_and_tail() -> None:
    log = LogBuilder()
    _lifecycle(log)
    conv = log.fold.get("default", "c")
    assert conv is not None
    assert conv.cursor_message_id == "m2"
    assert [m.message_id for m in conv.tail] == ["m3"]
    assert conv.last_attempt_at == T0 + minutes(10)
    assert conv.last_success_at == T0 + minutes(11)
    assert conv.remembered == ["The user lives in Lyon."]
    assert (conv.pending_run_id, conv.running_run_id) == (None, None)
    assert conv.runs["r1"].status == "succeeded"
    assert conv.runs["r1"].attempt == 2
    assert conv.runs["r2"].status == "skipped"
    assert conv.forks["c~r1~1"].deleted
    assert conv.forks["c~r1~2"].succeeded
    assert not conv.forks["c~r1~2"].deleted
    # The reading forks are not conversations of their own.
    assert log.fold.get("default", "c~r1~1") is None
    view = conv.view()
    assert [r["status"] for r in view["runs"]] == ["skipped", "succeeded"]
    assert view["runs"][1]["facts_written"] == 1


def test_failed_run_awaits_retry_as_the_pending_run_then_abandons() -> None:
    log = LogBuilder()
    log.message("c", "m1")
    log.add(RetrospectiveScheduled(conversation_id="c", run_id="r", at=T0, trigger="sweep"))
    log.add(
        RetrospectiveStarted(
            conversation_id="c",
            run_id="r",
            at=T0,
            attempt=1,
            fork_id="f",
            after_message_id=None,
            through_message_id="m1",
        )
    )
    log.add(
        RetrospectiveFailed(
            conversation_id="c",
            run_id="r",
            at=T0,
            attempt=1,
            error_class="server",
            retry_at=T0 + minutes(3),
        )
    )
    conv = log.fold.get("default", "c")
    assert conv is not None
    assert _pending(conv) == "r"
    assert _status(conv, "r") == "failed"
    assert conv.runs["r"].not_before == T0 + minutes(3)
    log.add(
        RetrospectiveFailed(conversation_id="c", run_id="r", at=T0, attempt=2, error_class="server")
    )
    log.add(
        RetrospectiveAbandoned(
            conversation_id="c", run_id="r", at=T0, attempts=2, message_ids=["m1"]
        )
    )
    assert _pending(conv) is None
    assert _status(conv, "r") == "abandoned"
    assert conv.runs["r"].message_ids == ["m1"]


def test_message_update_finalizes_in_place() -> None:
    log = LogBuilder()
    log.message("c", "m1", role="assistant", content="...", finalized=False)
    log.message("c", "m2")
    log.message("c", "m1", role="assistant", content="done")
    conv = log.fold.get("default", "c")
    assert conv is not None
    assert [(m.message_id, m.finalized) for m in conv.tail] == [("m1", True), ("m2", True)]


def test_remembered_log_drops_oldest_past_100_entries_or_8kb() -> None:
    log = bounded_remembered([], [f"fact {i}" for i in range(150)])
    assert len(log) == REMEMBERED_MAX_ENTRIES
    assert log[0] == "fact 50"
    big = bounded_remembered([], ["x" * 1000 for _ in range(20)])
    assert sum(len(t) for t in big) <= REMEMBERED_MAX_BYTES
    assert len(big) == 8
    huge = bounded_remembered(["a"], ["y" * 50_000])
    assert huge[0] == "a"
    assert len(huge[1].encode()) <= 1024


def test_refold_from_the_log_gives_the_same_state() -> None:
    log = LogBuilder()
    _lifecycle(log)
    fresh = RetrospectiveFold()
    fresh.apply_all(log.replay())
    a, b = log.fold.get("default", "c"), fresh.get("default", "c")
    assert a is not None
    assert b is not None
    assert a.view() == b.view()
    assert [m.message_id for m in a.tail] == [m.message_id for m in b.tail]


async def test_table_projection_matches_the_fold_and_rebuilds_identically(tmp_path: Path) -> None:
    log = LogBuilder()
    _lifecycle(log)
    store = SqliteEventStore.in_data_dir(tmp_path)
    await store.open()
    engine = sqlite_engine(tmp_path / "projections.sqlite3", write=True)
    try:
        for stored in log.events:
            await store.append("default", [NewEvent(stored.event)])
        runner = ProjectionRunner(store, engine, [RetrospectiveProjection()], batch_size=3)
        await runner.setup()
        await runner.catch_up()
        async with engine.connect() as conn:
            table = await get_retrospective(conn, "default", "c")
            run = await get_run(conn, "default", "r1")
            assert await get_retrospective(conn, "default", "nope") is None
        folded = log.fold.get("default", "c")
        assert table is not None
        assert folded is not None
        assert table.view() == folded.view()
        assert run is not None
        assert run.status == "succeeded"
        before = await runner.digest()
        await runner.rebuild()
        assert await runner.digest() == before
    finally:
        await engine.dispose()
        await store.close()


_TAIL_OPS = st.lists(
    st.one_of(
        st.tuples(
            st.just("say"),
            st.integers(0, 7),  # message id: a repeat updates the message in place
            st.sampled_from(["user", "assistant"]),
            st.sampled_from(["real words here", "   "]),
            st.booleans(),  # finalized
        ),
        st.tuples(st.just("advance"), st.integers(0, 12)),
        st.tuples(st.just("delete")),
    ),
    max_size=40,
)


@settings(max_examples=400, deadline=None)
@given(ops=_TAIL_OPS)
def test_tail_counts_equal_a_scan_of_the_tail(ops: list[tuple[Any, ...]]) -> None:
    # The triggers read the counts after every message instead of scanning the tail.
    log = LogBuilder()
    for op in ops:
        if op[0] == "say":
            _, n, role, text, finalized = op
            log.message("c", f"m{n}", role=role, content=text, finalized=finalized)
        elif op[0] == "advance" and log.position:
            log.add(
                RetrospectiveCursorAdvanced(
                    conversation_id="c",
                    run_id="r",
                    message_id="mx",
                    position=min(op[1], log.position),
                    reason="succeeded",
                    at=T0,
                )
            )
        elif op[0] == "delete":
            log.add(ConversationDeleted(conversation_id="c"))
        conv = log.fold.get("default", "c")
        if conv is None:
            continue
        reviewable = conv.reviewable()
        assert conv.reviewable_count() == len(reviewable)
        assert conv.reviewable_user_activity() == any(m.user_content for m in reviewable)
        assert (conv.first_unfinalized() is None) == all(m.finalized for m in conv.tail)


@pytest.mark.parametrize(
    ("metadata", "settings_named"),
    [
        ({"thinking": True, "effort": "Medium"}, (1024, "medium")),
        ({"thinking": False}, (0, None)),
        ({"thinking": {"type": "enabled", "budget_tokens": 4096}}, (4096, None)),
        ({"thinking": -1, "reasoning_effort": "low"}, (None, "low")),
        ({"thinking": "lots", "effort": ""}, (None, None)),
    ],
)
def test_the_thinking_and_effort_a_message_names(
    metadata: dict[str, Any], settings_named: tuple[int | None, str | None]
) -> None:
    assert profile_settings(metadata) == settings_named
