"""Conversations and messages: ordering, updates, fork lineage (reference and cloning, depth
bound, cycle guard, deleted parents), paging and namespaces."""

from __future__ import annotations

from pathlib import Path

import pytest

from events.types import ConversationDeleted, ConversationForked
from projections.messages import (
    MAX_FORK_DEPTH,
    UnknownMessage,
    get_conversation,
    get_message,
    list_conversations,
    list_messages,
    list_messages_through,
)
from tests.projection_fixtures import Env, at, message, open_env


async def ids(env: Env, cid: str, namespace: str = "ns", **kw: object) -> list[str]:
    async with env.engine.connect() as conn:
        return [m.message_id for m in await list_messages(conn, namespace, cid, **kw)]  # type: ignore[arg-type]


def fork(
    fid: str, parent: str, through: str | None, strategy: str = "reference"
) -> ConversationForked:
    return ConversationForked(
        fork_id=fid,
        parent_conversation_id=parent,
        through_message_id=through,
        strategy=strategy,  # type: ignore[arg-type]
    )


async def test_messages_in_position_order_and_repeat_is_an_update(tmp_path: Path) -> None:
    async with open_env(tmp_path) as env:
        await env.append(
            "ns", message("c", "m1", "one"), message("c", "m2", "draft", finalized=False)
        )
        await env.append("ns", message("c", "m3", "three"))
        await env.append("ns", message("c", "m2", [{"type": "text", "text": "final"}]))
        await env.fold()
        async with env.engine.connect() as conn:
            rows = await list_messages(conn, "ns", "c")
            assert [m.message_id for m in rows] == ["m1", "m2", "m3"]
            m2 = rows[1]
            assert m2.content == [{"type": "text", "text": "final"}]
            assert m2.finalized is True
            assert (m2.position, m2.updated_position) == (2, 4)
            conv = await get_conversation(conn, "ns", "c")
            assert conv is not None
            assert (conv.message_count, conv.strategy, conv.created_position) == (3, None, 1)
            assert await get_conversation(conn, "other", "c") is None
            assert await list_messages(conn, "other", "c") == []


async def test_paging_after_a_message(tmp_path: Path) -> None:
    async with open_env(tmp_path) as env:
        await env.append("ns", *(message("c", f"m{i}", created_at=at(i)) for i in range(6)))
        await env.fold()
        assert await ids(env, "c", after_message_id="m1", limit=2) == ["m2", "m3"]
        assert await ids(env, "c", after_message_id="m5") == []
        with pytest.raises(UnknownMessage):
            await ids(env, "c", after_message_id="nope")
        async with env.engine.connect() as conn:
            conv = await get_conversation(conn, "ns", "c")
            assert conv is not None
            assert conv.last_message_at == at(5)
            assert await list_conversations(conn, "ns") == ["c"]


async def test_the_messages_up_to_one_read_through_a_fork(tmp_path: Path) -> None:
    async with open_env(tmp_path) as env:
        await env.append("ns", *(message("p", f"m{i}", created_at=at(i)) for i in range(5)))
        await env.append("ns", fork("f", "p", "m3"), message("f", "x"), message("f", "m1", "new"))
        await env.fold()
        async with env.engine.connect() as conn:

            async def through(cid: str, mid: str, limit: int) -> list[str]:
                rows = await list_messages_through(conn, "ns", cid, mid, limit=limit)
                return [r.message_id for r in rows]

            assert await through("p", "m3", 2) == ["m2", "m3"]
            assert await through("p", "m1", 5) == ["m0", "m1"]
            # The fork shows its own m1 in the parent's place, and x after the parent's m3.
            assert await through("f", "x", 3) == ["m2", "m3", "x"]
            rows = await list_messages_through(conn, "ns", "f", "m2", limit=3)
            assert [(r.message_id, r.content) for r in rows] == [
                ("m0", "text"),
                ("m1", "new"),
                ("m2", "text"),
            ]
            assert await through("p", "ghost", 3) == []
            assert await through("nope", "m1", 3) == []
            assert await through("p", "m3", 0) == []


async def test_reference_fork_reads_parent_through_message(tmp_path: Path) -> None:
    async with open_env(tmp_path) as env:
        await env.append("ns", message("p", "m1"), message("p", "m2"), message("p", "m3"))
        await env.append("ns", fork("f", "p", "m2"), message("f", "x"))
        await env.append("ns", message("p", "m4"), message("p", "m1", "edited"))
        await env.fold()
        assert await ids(env, "f") == ["m1", "m2", "x"]
        async with env.engine.connect() as conn:
            rows = await list_messages(conn, "ns", "f")
            assert rows[0].content == "edited"  # a reference sees the parent's updates
            assert rows[0].conversation_id == "p"
            conv = await get_conversation(conn, "ns", "f")
            assert conv is not None
            assert (conv.strategy, conv.orphaned, conv.message_count) == ("reference", False, 3)
            assert conv.through_position == 2
            # Only the fork's own message is stored under it.
            assert await get_message(conn, "ns", "f", "m1") == rows[0]


async def test_fork_without_through_message_takes_everything_before_the_fork(
    tmp_path: Path,
) -> None:
    async with open_env(tmp_path) as env:
        await env.append("ns", message("p", "m1"), message("p", "m2"))
        await env.append("ns", fork("f", "p", None))
        await env.append("ns", message("p", "m3"))
        await env.fold()
        assert await ids(env, "f") == ["m1", "m2"]
        assert await ids(env, "p") == ["m1", "m2", "m3"]


async def test_fork_through_an_unknown_message_inherits_nothing(tmp_path: Path) -> None:
    async with open_env(tmp_path) as env:
        await env.append("ns", message("p", "m1"), fork("f", "p", "ghost"), message("f", "x"))
        await env.fold()
        assert await ids(env, "f") == ["x"]


async def test_appending_an_inherited_id_shadows_it_in_place(tmp_path: Path) -> None:
    async with open_env(tmp_path) as env:
        await env.append("ns", message("p", "m1"), message("p", "m2", "draft", finalized=False))
        await env.append("ns", fork("f", "p", None), message("f", "x"))
        await env.append("ns", message("f", "m2", "fork's final"))
        await env.fold()
        async with env.engine.connect() as conn:
            rows = await list_messages(conn, "ns", "f")
            assert [(m.message_id, m.conversation_id) for m in rows] == [
                ("m1", "p"),
                ("m2", "f"),
                ("x", "f"),
            ]
            assert rows[1].content == "fork's final"
            assert rows[1].position == 2
            parent = await list_messages(conn, "ns", "p")
            assert parent[1].content == "draft"
            conv = await get_conversation(conn, "ns", "f")
            assert conv is not None
            assert conv.message_count == 3


async def test_cloning_fork_copies_and_does_not_follow_parent(tmp_path: Path) -> None:
    async with open_env(tmp_path) as env:
        await env.append("ns", message("p", "m1"), message("p", "m2"), message("p", "m3"))
        await env.append("ns", fork("f", "p", "m2", "cloning"), message("f", "x"))
        await env.append(
            "ns", message("p", "m1", "edited"), ConversationDeleted(conversation_id="p")
        )
        await env.fold()
        async with env.engine.connect() as conn:
            rows = await list_messages(conn, "ns", "f")
            assert [(m.message_id, m.conversation_id) for m in rows] == [
                ("m1", "f"),
                ("m2", "f"),
                ("x", "f"),
            ]
            assert rows[0].content == "text"
            conv = await get_conversation(conn, "ns", "f")
            assert conv is not None
            assert (conv.orphaned, conv.strategy, conv.message_count) == (False, "cloning", 3)


async def test_nested_reference_forks_cut_at_the_tightest_bound(tmp_path: Path) -> None:
    async with open_env(tmp_path) as env:
        await env.append("ns", *(message("a", f"a{i}") for i in range(4)))
        await env.append("ns", fork("b", "a", "a1"), message("b", "b0"), message("b", "b1"))
        await env.append("ns", fork("c", "b", "b0"), message("c", "c0"))
        await env.append("ns", message("b", "b2"))
        await env.fold()
        assert await ids(env, "c") == ["a0", "a1", "b0", "c0"]
        assert await ids(env, "c", after_message_id="a1", limit=1) == ["b0"]
        assert await ids(env, "b") == ["a0", "a1", "b0", "b1", "b2"]


async def test_a_fork_through_an_inherited_message_cuts_the_grandparent_there(
    tmp_path: Path,
) -> None:
    async with open_env(tmp_path) as env:
        await env.append("ns", *(message("a", f"a{i}") for i in range(4)))
        await env.append("ns", fork("b", "a", "a2"), message("b", "b0"))
        # Through a0, which b shows as a's: d's bound on a is a0's, tighter than b's a2.
        await env.append("ns", fork("d", "b", "a0"), message("d", "d0"))
        await env.fold()
        assert await ids(env, "d") == ["a0", "d0"]


async def test_deleted_parent_leaves_reference_fork_orphaned_with_its_own(
    tmp_path: Path,
) -> None:
    async with open_env(tmp_path) as env:
        await env.append("ns", message("p", "m1"), message("p", "m2"))
        await env.append("ns", fork("f", "p", None), message("f", "x"))
        await env.append("ns", fork("g", "f", None), message("g", "y"))
        await env.append("ns", ConversationDeleted(conversation_id="p"))
        await env.append("ns", message("p", "late"))  # ignored: deletion is final
        await env.append("ns", fork("p", "f", None))  # ignored: p names a conversation
        await env.fold()
        assert await ids(env, "f") == ["x"]
        assert await ids(env, "g") == ["x", "y"]
        assert await ids(env, "p") == []
        async with env.engine.connect() as conn:
            f = await get_conversation(conn, "ns", "f")
            g = await get_conversation(conn, "ns", "g")
            p = await get_conversation(conn, "ns", "p")
            assert f is not None
            assert (f.orphaned, f.message_count) == (True, 1)
            assert g is not None
            assert (g.orphaned, g.message_count) == (True, 2)
            assert p is not None
            assert (p.deleted, p.deleted_position, p.message_count) == (
                True,
                7,
                0,
            )
            assert p.last_message_at is None
            assert await list_conversations(conn, "ns") == ["f", "g"]
            assert await list_conversations(conn, "ns", include_deleted=True) == ["f", "g", "p"]


async def test_fork_of_a_missing_parent_is_orphaned(tmp_path: Path) -> None:
    async with open_env(tmp_path) as env:
        await env.append("ns", fork("f", "nowhere", None), message("f", "x"))
        await env.fold()
        async with env.engine.connect() as conn:
            conv = await get_conversation(conn, "ns", "f")
            assert conv is not None
            assert conv.orphaned
            assert conv.message_count == 1


async def test_cycle_guard(tmp_path: Path) -> None:
    # Forks naming parents that do not exist yet can close a loop; reads still end.
    async with open_env(tmp_path) as env:
        await env.append("ns", fork("x", "y", None), fork("y", "x", None))
        await env.append("ns", message("x", "mx"), message("y", "my"))
        await env.append("ns", fork("s", "s", None), message("s", "ms"))
        await env.fold()
        async with env.engine.connect() as conn:
            x = await get_conversation(conn, "ns", "x")
            s = await get_conversation(conn, "ns", "s")
            assert x is not None
            assert x.lineage_truncated
            assert not x.orphaned
            assert s is not None
            assert s.lineage_truncated
            assert s.message_count == 1
        # y's view of x is cut at the fork position (2): x's message came later.
        assert await ids(env, "x") == ["mx"]
        assert await ids(env, "y") == ["my"]
        assert await ids(env, "s") == ["ms"]


async def test_depth_bound(tmp_path: Path) -> None:
    depth = MAX_FORK_DEPTH + 3
    async with open_env(tmp_path) as env:
        await env.append("ns", message("c0", "root"))
        await env.append("ns", *(fork(f"c{i}", f"c{i - 1}", None) for i in range(1, depth + 1)))
        await env.append("ns", message(f"c{depth}", "leaf"))
        await env.fold()
        async with env.engine.connect() as conn:
            deep = await get_conversation(conn, "ns", f"c{depth}")
            near = await get_conversation(conn, "ns", f"c{MAX_FORK_DEPTH}")
        assert deep is not None
        assert deep.lineage_truncated
        assert deep.message_count == 1
        assert near is not None
        assert not near.lineage_truncated
        assert near.message_count == 1
        # c{MAX_FORK_DEPTH} reads through exactly MAX_FORK_DEPTH ancestors to the root.
        assert await ids(env, f"c{MAX_FORK_DEPTH}") == ["root"]
        assert await ids(env, f"c{depth}") == ["leaf"]


async def test_namespaces_are_separate(tmp_path: Path) -> None:
    async with open_env(tmp_path) as env:
        await env.append("a", message("c", "m1", "in a"))
        await env.append("b", message("c", "m1", "in b"), ConversationDeleted(conversation_id="c"))
        await env.fold()
        async with env.engine.connect() as conn:
            rows = await list_messages(conn, "a", "c")
            assert [m.content for m in rows] == ["in a"]
            assert rows[0].namespace == "a"
            assert await list_messages(conn, "b", "c") == []
