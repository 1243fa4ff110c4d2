"""The consolidation projection's dispatch: every event it folds has its folds, and the
tables (episodes included) come out the same whatever the batch boundaries (the fact-state
cache is per batch)."""

from __future__ import annotations

import random
from datetime import timedelta
from pathlib import Path

from sqlalchemy.ext.asyncio import create_async_engine

from events.consolidation_events import (
    CONSOLIDATION_EVENT_CLASSES,
    BlockWritten,
    ConsolidationLeaseTaken,
    ConsolidationRunCompleted,
    ConsolidationRunStarted,
    FactArchived,
    FactCategorized,
    FactLinked,
    FactReinforced,
    FactRestored,
    LearnedContextWritten,
    PlanApplied,
    PlanCreated,
    ProfileWritten,
    ReviewItemApproved,
    ReviewItemQueued,
    ReviewItemRejected,
    ValidationRefused,
)
from events.episode_events import (
    EPISODE_EVENT_CLASSES,
    EpisodeValidated,
    EpisodeWritten,
    ReflectionFired,
)
from events.recall_events import RecallRecorded
from events.types import ConversationDeleted, Event, FactPurged, FactWritten
from projections.consolidation import ConsolidationProjection, read_log, recent_episodes
from projections.consolidation.projection import FOLDS_BY_EVENT
from projections.runner import ProjectionRunner, table_digests
from tests.projection_fixtures import T0, open_env


def test_every_event_the_projection_folds_has_its_folds() -> None:
    folded = {
        *CONSOLIDATION_EVENT_CLASSES,
        *EPISODE_EVENT_CLASSES,
        RecallRecorded,
        FactWritten,
        FactPurged,
        ConversationDeleted,
    }
    # ProfileWritten is the facts projection's (its staleness is read against the facts).
    assert set(FOLDS_BY_EVENT) == folded - {ConsolidationLeaseTaken, ProfileWritten}
    # A purge clears both the fact's state and its links.
    assert len(FOLDS_BY_EVENT[FactPurged]) == 2


def _log(rng: random.Random, count: int) -> list[Event]:
    facts = [f"f{i}" for i in range(12)]
    out: list[Event] = []
    for i in range(count):
        at = T0 + timedelta(minutes=i)
        f, other = rng.sample(facts, 2)
        plan, item, run = f"p{i % 7}", f"r{i % 5}", f"run{i % 4}"
        items = [{"item_id": "i1", "action": "merge", "fact_ids": [f, other], "reasoning": "r"}]
        hits = [{"kind": "fact", "id": f}, {"kind": "message", "id": "m"}]
        episode = f"ep{i % 9}"
        out.append(
            rng.choice(
                [
                    FactWritten(fact_id=f, text=f"Cleo's fact {i % 3}", valid_from=at),
                    PlanCreated(plan_id=plan, at=at, items=items, based_on={f: 1}),
                    PlanApplied(plan_id=plan, at=at, applied=["i1"], refused=[{"item_id": "x"}]),
                    FactArchived(fact_id=f, at=at, reason="stale"),
                    FactRestored(fact_id=f, at=at),
                    FactReinforced(fact_id=f, at=at, similarity=0.97),
                    FactCategorized(fact_id=f, category="food", at=at),
                    FactLinked(fact_id=f, other_fact_id=other, at=at),
                    ValidationRefused(fact_id=f, at=at, flags=["x"]),
                    RecallRecorded(
                        recalls=[{"at": at.isoformat(), "query": f"q{i % 4}", "hits": hits}],
                        first_at=at,
                        last_at=at,
                    ),
                    ConsolidationRunStarted(
                        run_id=f"run{i % 4}", phase="light", trigger="idle", at=at
                    ),
                    ConsolidationRunCompleted(run_id=run, at=at),
                    ReviewItemQueued(item_id=item, at=at, agent="a", action={"verb": "LINK"}),
                    ReviewItemApproved(item_id=item, at=at, plan_id=plan),
                    ReviewItemRejected(item_id=item, at=at, reason="no"),
                    LearnedContextWritten(at=at, text=f"context {i}", fact_ids=[f]),
                    BlockWritten(
                        name=rng.choice(["learned_context", "notes"]),
                        text=f"block {i}",
                        at=at,
                        author=rng.choice(["app", run]),
                        fact_ids=[f],
                        insight_ids=[other],
                    ),
                    FactPurged(fact_id=f),
                    EpisodeWritten(
                        episode_id=episode,
                        conversation_id=f"c{i % 3}",
                        message_ids=[f"m{i}", f"m{i + 1}"],
                        first_position=i,
                        last_position=i + 1,
                        started_at=at,
                        ended_at=at,
                        summary=f"Cleo talked about {i % 5}",
                        importance=(i % 10) / 10,
                        method=rng.choice(["model", "extractive"]),
                        importance_inputs={"scoring": "heuristic"},
                        at=at,
                    ),
                    EpisodeValidated(episode_id=episode, at=at, by="api"),
                    ReflectionFired(run_id=run, at=at, episode_ids=[episode, f"ep{(i + 1) % 9}"]),
                ]
            )
        )
    return out


async def test_batch_boundaries_do_not_change_the_tables(tmp_path: Path) -> None:
    rng = random.Random(3)
    digests = []
    logged = 0
    async with open_env(tmp_path / "data", [ConsolidationProjection()]) as env:
        events = _log(rng, 400)
        for start in range(0, len(events), 9):
            await env.append("default", *events[start : start + 9])
        for batch_size in (1, 7, 1000):
            engine = create_async_engine(f"sqlite+aiosqlite:///{tmp_path / f'{batch_size}.db'}")
            projection = ConsolidationProjection()
            runner = ProjectionRunner(env.store, engine, [projection], batch_size=batch_size)
            await runner.setup()
            await runner.catch_up()
            async with engine.connect() as conn:
                digests.append(await table_digests(conn, [projection]))
                logged = len(await read_log(conn, "default", limit=1000))
                episodes = await recent_episodes(conn, "default", limit=100)
            await engine.dispose()
    assert digests[0] == digests[1] == digests[2]
    assert len(digests[0]) == 10
    assert logged > 50  # the log holds what the folds wrote, not an empty table thrice
    # episodes were written, validated and used by reflections, not left empty
    assert {e["status"] for e in episodes} == {"quarantined", "active"}
    assert any(e["reflected_run_id"] for e in episodes)
