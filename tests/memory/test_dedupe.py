"""Write-time dedupe: normalised-equal or near-identical facts are not written again; the
existing fact is reinforced; ``dedupe: false`` writes anyway; an update is not a duplicate."""

from __future__ import annotations

from pathlib import Path

import pytest

from daemon.consolidation.rules import judge_pair, normalise
from events.consolidation_events import FactReinforced
from tests.api_fixtures import Api, api_client


async def _events(api: Api) -> list[dict[str, object]]:
    _, body = await api.call("GET", "/v1/events?limit=1000")
    events: list[dict[str, object]] = body["events"]
    return events


def test_normalise_folds_case_punctuation_and_space() -> None:
    assert normalise("  Alice LIKES   tea!! ") == normalise("alice likes tea")
    assert normalise("Alice likes tea") != normalise("Alice likes teas")


def test_numbers_and_negations_are_never_duplicates() -> None:
    assert not judge_pair("Bob is 34 years old", "Bob is 35 years old", 0.99).duplicate
    assert not judge_pair("Alice eats meat", "Alice does not eat meat", 0.99).duplicate
    assert judge_pair("Alice eats meat", "Alice eats meat daily", 0.96).duplicate
    assert not judge_pair("Alice eats meat", "Alice eats meat daily", 0.90).duplicate


async def test_exact_duplicate_returns_existing_and_reinforces(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        status, first = await api.call("POST", "/v1/facts", {"text": "Alice likes green tea."})
        assert status == 201
        status, again = await api.call("POST", "/v1/facts", {"text": "  alice LIKES green tea "})
        assert status == 200
        assert again["fact_id"] == first["fact_id"]
        assert again["deduplicated"] is True
        _, listed = await api.call("GET", "/v1/facts")
        assert [f["fact_id"] for f in listed["facts"]] == [first["fact_id"]]
        reinforced = [e for e in await _events(api) if e["event_type"] == "FactReinforced"]
        assert len(reinforced) == 1
        data = reinforced[0]["data"]
        assert isinstance(data, dict)
        assert data["fact_id"] == first["fact_id"]
        assert FactReinforced.event_type == "FactReinforced"


async def test_dedupe_false_writes_anyway(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        _, first = await api.call("POST", "/v1/facts", {"text": "Alice likes green tea"})
        status, second = await api.call(
            "POST", "/v1/facts", {"text": "Alice likes green tea", "dedupe": False}
        )
        assert status == 201
        assert second["fact_id"] != first["fact_id"]


async def test_near_duplicate_by_embedding(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        _, first = await api.call(
            "POST", "/v1/facts", {"text": "Alice works as a nurse at the central hospital"}
        )
        status, again = await api.call(
            "POST", "/v1/facts", {"text": "Alice works as nurse at the central hospital"}
        )
        assert status == 200, again
        assert again["fact_id"] == first["fact_id"]
        assert again["similarity"] >= 0.95


async def test_update_and_unrelated_are_written(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        await api.call("POST", "/v1/facts", {"text": "Bob is 34 years old"})
        status, _ = await api.call("POST", "/v1/facts", {"text": "Bob is 35 years old"})
        assert status == 201
        status, _ = await api.call("POST", "/v1/facts", {"text": "Carol plays the violin"})
        assert status == 201


async def test_dedupe_with_idempotency_key_is_repeatable(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        _, first = await api.call("POST", "/v1/facts", {"text": "Dan owns a red bike"})
        hdrs = {"Idempotency-Key": "k1"}
        s1, a = await api.call("POST", "/v1/facts", {"text": "dan owns a red bike"}, headers=hdrs)
        s2, b = await api.call("POST", "/v1/facts", {"text": "dan owns a red bike"}, headers=hdrs)
        assert (s1, s2) == (200, 200)
        assert a == b
        assert a["fact_id"] == first["fact_id"]
        reinforced = [e for e in await _events(api) if e["event_type"] == "FactReinforced"]
        assert len(reinforced) == 1


@pytest.mark.parametrize(
    ("a", "b", "reason"),
    [
        ("Alice eats meat", "Alice does not eat meat", "negation"),
        ("Tom is happy at work", "Tom is unhappy at work", "negation"),
        ("Sam loves jazz", "Sam hates jazz", "antonym"),
        ("The shop opens early on Sundays", "The shop opens late on Sundays", "antonym"),
        ("Bob is 34 years old", "Bob is 35 years old", "number"),
        ("The user prefers cats to dogs", "The user prefers dogs to cats", "word order"),
    ],
)
def test_each_conflict_rule(a: str, b: str, reason: str) -> None:
    verdict = judge_pair(a, b, 0.99)
    assert verdict.conflict
    assert not verdict.duplicate
    assert verdict.reason == reason


def test_same_subject_and_predicate_with_another_object_conflicts() -> None:
    verdict = judge_pair(
        "x", "y", 0.1, triple_a=("Ann", "lives in", "Rome"), triple_b=("ann", "lives in", "Oslo")
    )
    assert verdict.conflict
    assert verdict.reason == "same subject and predicate, other object"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Ian plays the cello", "Ian's daughter plays the cello"),
        ("Dr. Patel is the user's dentist", "The user's dentist is Dr. Patel"),
        ("Adam can't swim", "Adam can't ski"),
    ],
)
def test_look_alikes_are_neither(a: str, b: str) -> None:
    verdict = judge_pair(a, b, 0.8)
    assert not verdict.conflict
    assert not verdict.duplicate
