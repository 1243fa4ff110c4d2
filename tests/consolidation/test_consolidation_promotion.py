"""``[consolidation.promotion]``: the promotion policy's thresholds, the provenances it may
promote, its bound per run and its switch, each recorded in the evidence it names."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from daemon.config import ConfigError, PromotionConfig, config_from_mapping
from tests.api_fixtures import api_client
from tests.consolidation.test_consolidation_deep import _deep, _fact, _recalled, _status


async def test_the_policy_decides_which_provenances_and_how_many(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        tool = await _fact(api, "Zed keeps a sourdough starter", provenance="tool")
        extracted = [
            await _fact(api, f"Zed visited city number {i}", provenance="extraction")
            for i in range(3)
        ]
        for i, fact_id in enumerate([tool, *extracted]):
            await _recalled(api, fact_id, ["bread", "city"] + ["more"] * i)
        api.clock.advance(timedelta(hours=2))
        run = await _deep(api, promotion=PromotionConfig(min_age=timedelta(hours=3)))
        assert run["stats"]["promoted"] == 0  # too young for a 3h floor
        policy = PromotionConfig(
            min_recalls=2,
            min_queries=2,
            min_age=timedelta(hours=1),
            max_per_run=2,
            provenances=("extraction",),
        )
        run = await _deep(api, promotion=policy)
        assert run["stats"]["promoted"] == 2
        assert run["stats"]["promotion_refused_by_provenance"] == 1
        assert run["stats"]["promotion_deferred"] == 1
        assert await _status(api, tool) == "quarantined"
        # the most recalled go first; the third waits for the next run
        assert [await _status(api, f) for f in extracted] == ["quarantined", "active", "active"]
        _, events = await api.call("GET", "/v1/events?after=0&limit=1000")
        validated = [e["data"] for e in events["events"] if e["event_type"] == "FactValidated"]
        assert {v["fact_id"] for v in validated} == set(extracted[1:])
        for v in validated:
            assert v["evidence"]["provenance"] == "extraction"
            assert v["evidence"]["recalls"] >= 3
            assert v["evidence"]["rule"] == {
                "min_recalls": 2,
                "min_queries": 2,
                "min_age_hours": 1.0,
                "provenances": ["extraction"],
                "max_per_run": 2,
            }
        run = await _deep(api, promotion=PromotionConfig(enabled=False))
        assert run["stats"].get("promoted", 0) == 0
        assert await _status(api, extracted[0]) == "quarantined"


def test_the_policy_is_read_and_older_memory_keys_still_count() -> None:
    promotion = config_from_mapping(
        {"consolidation": {"promotion": {"max_per_run": 0, "provenances": ["user", "tool"]}}}
    ).consolidation.promotion
    assert (promotion.max_per_run, promotion.provenances) == (0, ("user", "tool"))
    assert (promotion.min_recalls, promotion.min_queries) == (3, 2)
    older = config_from_mapping({"memory": {"promote_min_recalls": 7, "promote_min_age": "2h"}})
    assert older.consolidation.promotion.min_recalls == 7
    assert older.consolidation.promotion.min_age == timedelta(hours=2)
    both = config_from_mapping(
        {"memory": {"promote_min_recalls": 7}, "consolidation": {"promotion": {"min_recalls": 4}}}
    )
    assert both.consolidation.promotion.min_recalls == 4


@pytest.mark.parametrize(
    ("table", "says"),
    [
        ({"provenances": ["gossip"]}, "consolidation.promotion.provenances: 'gossip'"),
        ({"min_recalls": 0}, "consolidation.promotion.min_recalls"),
        ({"max_per_run": -1}, "consolidation.promotion.max_per_run"),
        ({"min_age": "soon"}, "consolidation.promotion.min_age"),
    ],
)
def test_config_check_rejects_a_bad_policy(table: dict[str, object], says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        config_from_mapping({"consolidation": {"promotion": table}})
