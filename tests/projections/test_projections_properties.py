"""Property tests: for random logs (messages, forks, deletes, facts with supersede / validate /
forget / purge, two namespaces, several commits sharing a ``recorded_at``):

(a) projections folded incrementally, in random batch sizes and with runner restarts between
    appends, equal a rebuild from position 0 (same digest of every table);
(b) ``query_facts`` / ``get_fact`` with ``as_of`` / ``known_at`` equal a naive model that
    re-folds the prefix of the log recorded by ``known_at``;
(c) conversation reads (views through forks, counts, paging) equal a naive recursive model.
"""

from __future__ import annotations

import asyncio
import tempfile
from datetime import datetime, timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from projections.facts import FactsProjection, get_fact, query_facts
from projections.messages import MessagesProjection, get_conversation, list_messages
from tests.projection_fixtures import (
    CONVS,
    FACTS,
    NAMESPACES,
    OWNERS_FOR_QUERY,
    TAGS,
    VALID_TIMES,
    Append,
    Env,
    FactModel,
    MessageModel,
    logs,
    open_env,
    play,
)

SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


async def check_messages(env: Env, model: MessageModel, data: st.DataObject) -> None:
    async with env.engine.connect() as conn:
        for ns in NAMESPACES:
            for cid in CONVS:
                expected = model.visible(ns, cid)
                got = await list_messages(conn, ns, cid, limit=1000)
                assert got == expected, (ns, cid)
                assert await get_conversation(conn, ns, cid) == model.conversation(ns, cid)
                if expected:
                    start = data.draw(st.integers(0, len(expected) - 1), label="after")
                    limit = data.draw(st.integers(1, 3), label="limit")
                    page = await list_messages(
                        conn, ns, cid, after_message_id=expected[start].message_id, limit=limit
                    )
                    assert page == expected[start + 1 : start + 1 + limit]


async def check_facts(env: Env, model: FactModel, data: st.DataObject) -> None:
    recorded = sorted({e.recorded_at for e in model.events})
    known_times: list[datetime | None] = [None, recorded[0] - timedelta(seconds=1)]
    for t in recorded:
        known_times += [t, t + timedelta(microseconds=500_000)]
    valid_times: list[datetime | None] = [None]
    for t in VALID_TIMES:
        valid_times += [t, t - timedelta(seconds=1)]
    async with env.engine.connect() as conn:
        for known_at in known_times:
            believed = {(f.namespace, f.fact_id): f for f in model.believed(known_at)}
            for ns in NAMESPACES:
                for fid in FACTS:
                    got = await get_fact(conn, ns, fid, known_at=known_at)
                    assert got == believed.get((ns, fid)), (ns, fid, known_at)
        for _ in range(8):
            ns = data.draw(st.sampled_from(NAMESPACES), label="namespace")
            as_of = data.draw(st.sampled_from(valid_times), label="as_of")
            known_at = data.draw(st.sampled_from(known_times), label="known_at")
            status = data.draw(st.sampled_from((None, "active", "quarantined")), label="status")
            tag = data.draw(st.sampled_from((None, *TAGS)), label="tag")
            owner = data.draw(st.sampled_from(OWNERS_FOR_QUERY), label="owner")
            quarantined = data.draw(st.booleans(), label="include_quarantined")
            superseded = data.draw(st.booleans(), label="include_superseded")
            rows = await query_facts(
                conn,
                ns,
                as_of=as_of,
                known_at=known_at,
                status=status,
                tag=tag,
                owner=owner,
                include_quarantined=quarantined,
                include_superseded=superseded,
                limit=1000,
            )
            expected = model.query(
                ns,
                as_of=as_of,
                known_at=known_at,
                status=status,
                tag=tag,
                owner=owner,
                include_quarantined=quarantined,
                include_superseded=superseded,
            )
            assert rows == expected


async def _run(log: list[Append], batch_sizes: list[int], data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        async with open_env(
            Path(tmp), [MessagesProjection(), FactsProjection()], batch_size=3
        ) as env:
            await play(env, log, batch_sizes)
            assert env.runner.position == await env.store.head()
            events = [e async for e in env.store.read()]
            await check_messages(env, MessageModel(events), data)
            await check_facts(env, FactModel(events), data)
            incremental = await env.runner.digest()
            await env.runner.rebuild()
            assert await env.runner.digest() == incremental


@SETTINGS
@given(log=logs(), batch_sizes=st.lists(st.integers(1, 7), max_size=8), data=st.data())
def test_incremental_folds_equal_rebuild_and_reference_models(
    log: list[Append], batch_sizes: list[int], data: st.DataObject
) -> None:
    asyncio.run(_run(log, batch_sizes, data))
