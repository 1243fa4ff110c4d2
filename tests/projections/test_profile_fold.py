"""The profile lines are a pure function of the fact tables: folded in any batch sizes they
come out the same, superseded, forgotten, archived and purged facts leave them, and a model's
wording is served only while the topic's facts are the ones it rested on."""

from __future__ import annotations

import random
from datetime import timedelta
from pathlib import Path

from sqlalchemy.ext.asyncio import create_async_engine

from events.consolidation_events import FactArchived, FactRestored, ProfileWritten
from events.types import (
    Event,
    FactForgotten,
    FactPurged,
    FactReconciled,
    FactStatus,
    FactSuperseded,
    FactValidated,
    FactWritten,
)
from projections.facts import FactsProjection, read_profile
from projections.runner import ProjectionRunner, table_digests
from tests.projection_fixtures import T0, open_env

SUBJECTS = ("user", "anna", "bob")
ATTRIBUTES = ("likes", "residence", "job")


def _claim(subject: str, attribute: str) -> dict[str, object]:
    return {"subject_key": subject, "attribute": attribute, "value_key": attribute + subject}


def _log(rng: random.Random, count: int) -> list[Event]:
    """Writes (each with its reconciliation, as the API appends them) and changes of
    earlier facts, at random; a fact id is written once, as the API allows."""
    out: list[Event] = []
    written: list[str] = []
    for i in range(count):
        at = T0 + timedelta(minutes=i)
        if not written or rng.random() < 0.4:
            f = f"f{i}"
            written.append(f)
            claims = [_claim(rng.choice(SUBJECTS), rng.choice(ATTRIBUTES))] if i % 3 else []
            status: FactStatus = "quarantined" if rng.random() < 0.3 else "active"
            out.append(FactWritten(fact_id=f, text=f"fact {i}", valid_from=at, status=status))
            out.append(FactReconciled(fact_id=f, outcome="added", at=at, claims=claims))
            continue
        f, other = rng.choice(written), rng.choice(written)
        out.append(
            rng.choice(
                [
                    FactSuperseded(old_fact_id=f, new_fact_id=other, at=at),
                    FactValidated(fact_id=f, by="t"),
                    FactForgotten(fact_id=f),
                    FactArchived(fact_id=f, at=at, reason="stale"),
                    FactRestored(fact_id=f, at=at),
                    FactPurged(fact_id=f),
                    ProfileWritten(
                        at=at,
                        run_id=f"run{i}",
                        topics=[
                            {
                                "topic": rng.choice(SUBJECTS),
                                "lines": [{"text": "worded", "fact_ids": [f]}],
                                "rested_on": [f],
                            }
                        ],
                    ),
                ]
            )
        )
    return out


async def test_batch_boundaries_do_not_change_the_profile(tmp_path: Path) -> None:
    rng = random.Random(5)
    digests = []
    profiles = []
    async with open_env(tmp_path / "data", [FactsProjection()]) as env:
        events = _log(rng, 250)
        for start in range(0, len(events), 11):
            await env.append("default", *events[start : start + 11])
        for batch_size in (1, 7, 1000):
            engine = create_async_engine(f"sqlite+aiosqlite:///{tmp_path / f'{batch_size}.db'}")
            projection = FactsProjection()
            runner = ProjectionRunner(env.store, engine, [projection], batch_size=batch_size)
            await runner.setup()
            await runner.catch_up()
            async with engine.connect() as conn:
                digests.append(await table_digests(conn, [projection]))
                profiles.append(await read_profile(conn, "default"))
            await engine.dispose()
    assert digests[0] == digests[1] == digests[2]
    assert profiles[0]  # the tables are not empty thrice
    assert {"profile_lines", "profile_model"} <= set(digests[0])


async def test_only_current_active_facts_are_in_the_profile(tmp_path: Path) -> None:
    async with open_env(tmp_path / "data", [FactsProjection()]) as env:

        def written(fact_id: str, text: str, subject: str, attribute: str) -> list[Event]:
            claims = [_claim(subject, attribute)]
            return [
                FactWritten(fact_id=fact_id, text=text, valid_from=T0),
                FactReconciled(fact_id=fact_id, outcome="added", at=T0, claims=claims),
            ]

        await env.append("ns", *written("berlin", "Lives in Berlin.", "user", "residence"))
        await env.append("ns", *written("anna", "Anna is a nurse.", "anna", "job"))
        await env.append("ns", *written("tea", "Likes tea.", "user", "likes"))
        await env.append(
            "ns",
            *written("seattle", "Lives in Seattle.", "user", "residence"),
            FactSuperseded(old_fact_id="berlin", new_fact_id="seattle", at=T0),
        )
        await env.append(
            "ns", FactWritten(fact_id="q", text="Maybe", valid_from=T0, status="quarantined")
        )
        await env.append(
            "ns",
            ProfileWritten(
                at=T0,
                run_id="r1",
                topics=[
                    {
                        "topic": "anna",
                        "lines": [{"text": "Anna nurses.", "fact_ids": ["anna"]}],
                        "rested_on": ["anna"],
                    }
                ],
            ),
        )
        await env.fold()
        async with env.engine.connect() as conn:
            topics = {t["topic"]: t for t in await read_profile(conn, "ns")}
        assert list(topics) == ["user", "anna"]
        assert topics["user"]["fact_ids"] == ["seattle", "tea"]
        assert [line["text"] for line in topics["user"]["lines"]] == [
            "likes: Likes tea",
            "residence: Lives in Seattle",
        ]
        assert topics["anna"]["source"] == "model"
        assert topics["anna"]["lines"] == [{"text": "Anna nurses.", "fact_ids": ["anna"]}]

        await env.append("ns", *written("anna2", "Anna moved to Oslo.", "anna", "residence"))
        await env.append("ns", FactArchived(fact_id="tea", at=T0, reason="stale"))
        await env.fold()
        async with env.engine.connect() as conn:
            topics = {t["topic"]: t for t in await read_profile(conn, "ns")}
            cut = await read_profile(conn, "ns", max_lines=2)
        assert topics["user"]["fact_ids"] == ["seattle"]
        assert topics["anna"]["source"] == "facts"
        assert topics["anna"]["stale_model"] == "r1"
        assert [t["topic"] for t in cut] == ["user", "anna"]
        assert cut[1]["lines"][0]["attribute"] == "job"
