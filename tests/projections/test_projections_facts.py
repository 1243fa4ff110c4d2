"""Bi-temporal facts: current / as_of / known_at queries, supersede chains both ways,
validation, forgetting, purging, and versions made in one commit."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import sqlalchemy as sa

from events.types import (
    FactForgotten,
    FactPurged,
    FactSuperseded,
    FactValidated,
)
from projections.facts import (
    fact_history,
    fact_versions,
    fact_versions_table,
    get_fact,
    query_facts,
)
from tests.projection_fixtures import Env, at, fact, open_env


async def fact_ids(env: Env, namespace: str = "ns", **kw: object) -> list[str]:
    async with env.engine.connect() as conn:
        return [f.fact_id for f in await query_facts(conn, namespace, **kw)]  # type: ignore[arg-type]


async def test_supersede_closes_validity_and_belief(tmp_path: Path) -> None:
    async with open_env(tmp_path) as env:
        await env.append("ns", fact("old", "lives in Paris", valid_from=at(0)))
        t_written = env.clock.now()
        env.clock.advance(timedelta(seconds=60))
        await env.append(
            "ns",
            fact("new", "lives in Rome", valid_from=at(100)),
            FactSuperseded(old_fact_id="old", new_fact_id="new", at=at(100)),
        )
        t_superseded = env.clock.now()
        await env.fold()

        assert await fact_ids(env) == ["new"]
        assert await fact_ids(env, include_superseded=True) == ["old", "new"]
        # Valid time: the old fact was true before 100, the new one from 100.
        assert await fact_ids(env, as_of=at(50)) == ["old"]
        assert await fact_ids(env, as_of=at(100)) == ["new"]
        # Transaction time: before the supersede memoryd believed only the old fact.
        assert await fact_ids(env, known_at=t_written) == ["old"]
        assert await fact_ids(env, known_at=t_written - timedelta(seconds=1)) == []
        assert await fact_ids(env, known_at=t_superseded) == ["new"]
        # Both: what memoryd believed then about what was true at 150 (valid_to was open).
        assert await fact_ids(env, known_at=t_written, as_of=at(150)) == ["old"]
        assert await fact_ids(env, known_at=t_superseded, as_of=at(150)) == ["new"]

        async with env.engine.connect() as conn:
            old = await get_fact(conn, "ns", "old")
            assert old is not None
            assert (old.superseded_by, old.valid_to, old.recorded_from) == (
                "new",
                at(100),
                t_superseded,
            )
            before = await get_fact(conn, "ns", "old", known_at=t_written)
            assert before is not None
            assert (before.superseded_by, before.valid_to, before.recorded_to) == (
                None,
                None,
                t_superseded,
            )
            new = await get_fact(conn, "ns", "new")
            assert new is not None
            assert new.supersedes == "old"


async def test_history_walks_the_chain_both_ways(tmp_path: Path) -> None:
    async with open_env(tmp_path) as env:
        await env.append("ns", fact("a"), fact("b"), fact("c"), fact("other"))
        await env.append("ns", FactSuperseded(old_fact_id="a", new_fact_id="b", at=at(10)))
        await env.append("ns", FactSuperseded(old_fact_id="b", new_fact_id="c", at=at(20)))
        await env.fold()
        async with env.engine.connect() as conn:
            for start in ("a", "b", "c"):
                chain = await fact_history(conn, "ns", start)
                assert [f.fact_id for f in chain] == ["a", "b", "c"], start
            b = (await fact_history(conn, "ns", "b"))[1]
            assert (b.supersedes, b.superseded_by, b.valid_to) == ("a", "c", at(20))
            assert [f.fact_id for f in await fact_history(conn, "ns", "other")] == ["other"]
            assert await fact_history(conn, "ns", "missing") == []
            assert await fact_history(conn, "elsewhere", "a") == []


async def test_history_survives_a_cycle(tmp_path: Path) -> None:
    async with open_env(tmp_path) as env:
        await env.append("ns", fact("a"), fact("b"))
        await env.append(
            "ns",
            FactSuperseded(old_fact_id="a", new_fact_id="b", at=at(10)),
            FactSuperseded(old_fact_id="b", new_fact_id="a", at=at(20)),
        )
        await env.fold()
        async with env.engine.connect() as conn:
            chain = await fact_history(conn, "ns", "a")
        assert sorted(f.fact_id for f in chain) == ["a", "b"]


async def test_validation_activates_a_quarantined_fact(tmp_path: Path) -> None:
    async with open_env(tmp_path) as env:
        await env.append("ns", fact("q", status="quarantined", owner="agent", tags=["x", "x"]))
        t_quarantined = env.clock.now()
        env.clock.advance(timedelta(seconds=5))
        await env.append("ns", FactValidated(fact_id="q", by="alice", note="checked"))
        await env.fold()
        assert await fact_ids(env, known_at=t_quarantined) == []
        assert await fact_ids(env, known_at=t_quarantined, include_quarantined=True) == ["q"]
        assert await fact_ids(env, known_at=t_quarantined, status="quarantined") == ["q"]
        assert await fact_ids(env) == ["q"]
        assert await fact_ids(env, status="quarantined") == []
        assert await fact_ids(env, tag="x", owner="agent") == ["q"]
        assert await fact_ids(env, tag="y") == []
        assert await fact_ids(env, owner="user") == []
        async with env.engine.connect() as conn:
            q = await get_fact(conn, "ns", "q")
            assert q is not None
            assert (q.status, q.validated_by, q.validation_note) == ("active", "alice", "checked")
            assert q.tags == ["x", "x"]


async def test_forget_hides_without_erasing(tmp_path: Path) -> None:
    async with open_env(tmp_path) as env:
        await env.append("ns", fact("f", "secret-ish"))
        t_known = env.clock.now()
        env.clock.advance(timedelta(seconds=5))
        await env.append("ns", FactForgotten(fact_id="f", reason="asked"))
        await env.fold()
        assert await fact_ids(env) == []
        assert await fact_ids(env, as_of=at(1)) == []
        assert await fact_ids(env, known_at=t_known) == ["f"]
        async with env.engine.connect() as conn:
            f = await get_fact(conn, "ns", "f")
            assert f is not None
            assert f.forgotten
            assert f.forgotten_reason == "asked"
            assert f.text == "secret-ish"


async def test_purge_removes_every_row_and_a_rebuild_agrees(tmp_path: Path) -> None:
    async with open_env(tmp_path) as env:
        await env.append("ns", fact("p", "my card number", tags=["pii"]), fact("keep"))
        await env.append("ns", FactValidated(fact_id="p", by="u"))
        await env.fold()
        await env.append("ns", FactPurged(fact_id="p"))
        await env.append("ns", FactValidated(fact_id="p", by="u"))  # about nothing: ignored
        await env.fold()
        async with env.engine.connect() as conn:
            assert await get_fact(conn, "ns", "p") == None  # noqa: E711
            assert await fact_versions(conn, "ns", "p") == []
            dump = (await conn.execute(sa.select(fact_versions_table))).all()
            assert "my card number" not in repr(dump)
        assert await fact_ids(env, tag="pii", include_quarantined=True) == []
        live = await env.runner.digest()
        await env.runner.rebuild()
        assert await env.runner.digest() == live
        # The id is free again.
        await env.append("ns", fact("p", "something else"))
        await env.fold()
        assert await fact_ids(env) == ["keep", "p"]


async def test_versions_in_one_commit_are_well_defined(tmp_path: Path) -> None:
    async with open_env(tmp_path) as env:
        await env.append(
            "ns",
            fact("t", status="quarantined"),
            FactValidated(fact_id="t", by="a"),
            FactForgotten(fact_id="t"),
        )
        t = env.clock.now()
        await env.fold()
        async with env.engine.connect() as conn:
            versions = await fact_versions(conn, "ns", "t")
            assert [v.position for v in versions] == [1, 2, 3]
            # The first two have zero length in transaction time: never an answer.
            assert [(v.recorded_from, v.recorded_to) for v in versions] == [
                (t, t),
                (t, t),
                (t, None),
            ]
            believed = await get_fact(conn, "ns", "t", known_at=t)
            assert believed is not None
            assert believed.position == 3
            assert believed.forgotten
        assert await fact_ids(env, known_at=t, include_quarantined=True) == []


async def test_first_write_wins_and_bad_supersedes_are_ignored(tmp_path: Path) -> None:
    async with open_env(tmp_path) as env:
        await env.append("ns", fact("a", "first"), fact("a", "second"))
        await env.append(
            "ns",
            FactSuperseded(old_fact_id="a", new_fact_id="a", at=at(5)),
            FactSuperseded(old_fact_id="ghost", new_fact_id="a", at=at(5)),
        )
        await env.fold()
        async with env.engine.connect() as conn:
            versions = await fact_versions(conn, "ns", "a")
        assert [(v.text, v.supersedes, v.superseded_by) for v in versions] == [
            ("first", None, None)
        ]


async def test_valid_to_is_the_earlier_of_its_own_end_and_the_supersede(tmp_path: Path) -> None:
    async with open_env(tmp_path) as env:
        await env.append("ns", fact("a", valid_from=at(0), valid_to=at(10)), fact("b"))
        await env.append("ns", FactSuperseded(old_fact_id="a", new_fact_id="b", at=at(50)))
        await env.fold()
        async with env.engine.connect() as conn:
            a = await get_fact(conn, "ns", "a")
        assert a is not None
        assert a.valid_to == at(10)
        assert await fact_ids(env, as_of=at(9)) == ["a", "b"]
        assert await fact_ids(env, as_of=at(10)) == ["b"]


async def test_nul_characters_are_stored_as_replacement_characters(tmp_path: Path) -> None:
    async with open_env(tmp_path) as env:
        await env.append("ns", fact("f\x00", "a\x00b", tags=["t\x00"]))
        await env.append("ns", FactValidated(fact_id="f\x00", by="x\x00"))
        await env.fold()
        async with env.engine.connect() as conn:
            f = await get_fact(conn, "ns", "f\x00")
        assert f is not None
        assert (f.fact_id, f.text, f.validated_by) == ("f\ufffd", "a\ufffdb", "x\ufffd")
        assert f.tags == ["t\x00"]  # inside JSON, NUL survives as an escape
        assert await fact_ids(env, tag="t\x00") == ["f\ufffd"]
