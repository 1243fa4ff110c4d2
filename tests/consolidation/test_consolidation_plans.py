"""preview -> analyze -> apply: plans are events, apply does exactly the stored plan, refuses
items whose facts changed, is one append (all or nothing), and nothing is unrecoverable."""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from daemon.api.keys import CONSOLIDATION, STATE
from daemon.consolidation.apply import apply_plan
from daemon.consolidation.plans import PlanError, append_plan, build_plan, model_decision
from events.store.base import ConcurrencyError, EventStore, NewEvent
from events.types import FactWritten
from tests.api_fixtures import Api, api_client


async def _fact(api: Api, text: str, **extra: Any) -> str:
    status, body = await api.call("POST", "/v1/facts", {"text": text, "dedupe": False, **extra})
    assert status == 201, body
    fact_id: str = body["fact_id"]
    return fact_id


async def _search_ids(api: Api, query: str) -> set[str]:
    _, body = await api.call("POST", "/v1/search", {"query": query, "scope": ["facts"]})
    return {h["id"] for h in body["hits"]}


async def _listed_ids(api: Api, query: str) -> set[str]:
    status, body = await api.call("GET", f"/v1/facts{query}")
    assert status == 200, body
    return {f["fact_id"] for f in body["facts"]}


async def test_preview_reports_without_writing(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        a = await _fact(api, "Alice likes green tea")
        b = await _fact(api, "alice likes green tea!")
        old = await _fact(api, "The office wifi password rotates monthly")
        api.clock.advance(timedelta(days=200))
        c = await _fact(api, "Bob moved to Lisbon")
        _, before = await api.call("GET", "/v1/events?limit=1000")
        status, body = await api.call("POST", "/v1/consolidation/preview", {"stale_days": 100})
        assert status == 200
        assert {"fact_ids": [a, b], "similarity": 1.0, "kind": "exact"} in body["duplicates"]
        stale = {s["fact_id"] for s in body["stale"]}
        assert old in stale
        assert c not in stale
        assert {o["fact_id"] for o in body["orphans"]} >= {c}
        _, after = await api.call("GET", "/v1/events?limit=1000")
        assert after["last_position"] == before["last_position"]


async def test_preview_conflicts_are_about_one_subject_and_include_queued_ones(
    tmp_path: Path,
) -> None:
    async with api_client(tmp_path) as api:
        await _fact(api, "Bob is 35 years old")
        await _fact(api, "Carol is 40 years old")
        diet = await _fact(api, "The user is vegetarian.")
        # A tool's fact that would replace the diet is queued for a person, not applied, and
        # the text rules alone would not see the contradiction.
        status, body = await api.call(
            "POST", "/v1/facts", {"text": "The user eats steak every day.", "provenance": "tool"}
        )
        assert (status, body["outcome"], body["conflicts_with"]) == (201, "conflict", [diet])
        _, preview = await api.call("POST", "/v1/consolidation/preview", {})
        pairs = [(c["fact_ids"], c["reason"]) for c in preview["conflicts"]]
        # Once, whether the rules saw it or only the write's reconciliation did.
        assert len(pairs) == 1
        assert pairs[0][0] == [diet, body["fact_id"]]
        assert pairs[0][1] in ("takes what the diet rules out", "reconciliation: " + body["reason"])


async def test_preview_does_not_flag_facts_that_are_both_true(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        for a, b in [
            ("User speaks Spanish", "User speaks German"),
            ("User enjoys hiking", "User also enjoys photography"),
            ("User has a dog named Rex", "User has a cat named Luna"),
        ]:
            await _fact(api, a)
            await _fact(api, b)
        await _fact(api, "User lives in Boston")
        moved = await _fact(api, "User lives in Berlin", dedupe=False)  # no reconciliation
        _, preview = await api.call("POST", "/v1/consolidation/preview", {})
        assert [c["fact_ids"][1] for c in preview["conflicts"]] == [moved]


async def test_analyze_then_apply_merges_archives_and_logs(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        a = await _fact(api, "Alice likes green tea", tags=["drinks"])
        b = await _fact(api, "alice likes green tea!", importance=0.9)
        old = await _fact(api, "The office wifi password rotates monthly")
        api.clock.advance(timedelta(days=200))
        keep = await _fact(api, "Bob moved to Lisbon")
        status, plan = await api.call("POST", "/v1/consolidation/analyze", {"stale_days": 100})
        assert status == 201
        actions = {r["action"]: r for r in plan["recommendations"]}
        assert actions["merge"]["fact_ids"] == [a, b]
        archive_ids = {
            f for r in plan["recommendations"] if r["action"] == "archive" for f in r["fact_ids"]
        }
        assert old in archive_ids
        assert keep not in archive_ids
        assert set(plan["based_on"]) >= {a, b, old}

        status, stored = await api.call("GET", f"/v1/consolidation/plans/{plan['plan_id']}")
        assert stored["status"] == "pending"
        assert stored["items"] == plan["recommendations"]

        status, result = await api.call(
            "POST", f"/v1/consolidation/plans/{plan['plan_id']}/apply", {}
        )
        assert status == 200, result
        assert result["refused"] == []
        merged = result["results"][actions["merge"]["item_id"]]["merged_fact_id"]
        _, merged_fact = await api.call("GET", f"/v1/facts/{merged}")
        assert merged_fact["tags"] == ["drinks"]
        assert merged_fact["importance"] == 0.9
        for source in (a, b):
            _, src = await api.call("GET", f"/v1/facts/{source}")
            assert src["superseded_by"] == merged
        assert old not in await _search_ids(api, "office wifi password")
        assert merged in await _search_ids(api, "green tea")

        status, again = await api.call(
            "POST", f"/v1/consolidation/plans/{plan['plan_id']}/apply", {}
        )
        assert status == 409
        assert again["error"]["code"] == "plan_applied"

        _, log = await api.call("GET", "/v1/consolidation/log")
        entries = log["entries"]
        assert {e["action"] for e in entries} >= {"merge", "archive"}
        assert all(e["plan_id"] == plan["plan_id"] for e in entries)
        assert all(e["source"] == "user" and e["at"] for e in entries)

        # An archived fact leaves the default listing, stays readable and listable on request.
        assert old not in await _listed_ids(api, "")
        assert old in await _listed_ids(api, "?include_archived=true")
        status, one = await api.call("GET", f"/v1/facts/{old}")
        assert status == 200
        assert one["archived"] is True
        # Nothing is unrecoverable: the archived fact is restored, the sources are in history.
        status, _ = await api.call("POST", f"/v1/consolidation/facts/{old}/restore")
        assert status == 200
        assert old in await _search_ids(api, "office wifi password")
        assert old in await _listed_ids(api, "")
        _, one = await api.call("GET", f"/v1/facts/{old}")
        assert one["archived"] is False
        _, history = await api.call("GET", f"/v1/facts/{a}/history")
        assert history["versions"][0]["text"] == "Alice likes green tea"
        status, _ = await api.call("POST", f"/v1/consolidation/facts/{old}/restore")
        assert status == 409


async def test_apply_refuses_items_whose_facts_changed(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        a = await _fact(api, "Carol drives a blue car")
        b = await _fact(api, "carol drives a blue car.")
        c = await _fact(api, "Dan owns a sailing boat")
        d = await _fact(api, "dan owns a sailing boat")
        _, plan = await api.call("POST", "/v1/consolidation/analyze", {})
        merges = [r for r in plan["recommendations"] if r["action"] == "merge"]
        assert len(merges) == 2
        # b changes after the plan was made
        status, _ = await api.call("POST", f"/v1/facts/{b}/supersede", {"text": "Carol sold it"})
        assert status == 201
        _, result = await api.call("POST", f"/v1/consolidation/plans/{plan['plan_id']}/apply")
        carol = next(m for m in merges if a in m["fact_ids"])
        dan = next(m for m in merges if c in m["fact_ids"])
        assert result["applied"] == [dan["item_id"]]
        assert result["refused"] == [
            {"item_id": carol["item_id"], "reason": "changed", "fact_ids": [b]}
        ]
        _, fact_a = await api.call("GET", f"/v1/facts/{a}")
        assert fact_a["superseded_by"] is None
        _, fact_d = await api.call("GET", f"/v1/facts/{d}")
        assert fact_d["superseded_by"] is not None
        _, log = await api.call("GET", "/v1/consolidation/log")
        refused = [e for e in log["entries"] if e["action"] == "refused"]
        assert refused[0]["detail"]["fact_ids"] == [b]


async def test_min_confidence_refuses_weaker_items(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        await _fact(api, "Erin plays chess")
        await _fact(api, "erin plays chess")
        old = await _fact(api, "Frank's bus leaves at 7")
        api.clock.advance(timedelta(days=100))
        _, plan = await api.call("POST", "/v1/consolidation/analyze", {"stale_days": 50})
        _, result = await api.call(
            "POST",
            f"/v1/consolidation/plans/{plan['plan_id']}/apply",
            {"min_confidence": 0.9},
        )
        reasons = {r["reason"] for r in result["refused"]}
        assert reasons == {"below_min_confidence"}
        assert old in await _search_ids(api, "bus leaves")


class _FailingStore:
    """Wraps a store; the first append fails after a concurrent write lands (a crash window)."""

    def __init__(self, inner: EventStore, namespace: str, intruder: FactWritten) -> None:
        self.inner = inner
        self.namespace = namespace
        self.intruder = intruder
        self.failed = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def append(self, namespace: str, events: Any, **kw: Any) -> list[int]:
        if not self.failed and len(events) > 1:
            self.failed = True
            raise RuntimeError("crash in the middle of apply")
        return await self.inner.append(namespace, events, **kw)


async def test_crash_mid_apply_leaves_nothing_then_whole_plan(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        await _fact(api, "Gina bakes bread")
        await _fact(api, "gina bakes bread")
        await _fact(api, "Hugo bakes cakes daily")
        await _fact(api, "hugo bakes cakes daily")
        _, plan = await api.call("POST", "/v1/consolidation/analyze", {})
        store = api.client.app[STATE].require_store()
        head = await store.head()
        failing = _FailingStore(
            store, "default", FactWritten(fact_id="x", text="x", valid_from=api.clock.now())
        )
        with pytest.raises(RuntimeError):
            await apply_plan(failing, "default", plan["plan_id"], api.clock.now())  # type: ignore[arg-type]
        assert await store.head() == head  # none of it is visible
        result = await apply_plan(store, "default", plan["plan_id"], api.clock.now())
        assert len(result.applied) == 2
        types = [e.event.event_type async for e in store.read(head)]
        assert types.count("FactWritten") == 2
        assert types.count("FactSuperseded") == 4
        assert types[-1] == "PlanApplied"
        with pytest.raises(PlanError):
            await apply_plan(store, "default", plan["plan_id"], api.clock.now())


async def test_concurrent_change_between_check_and_append_is_caught(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        a = await _fact(api, "Ivy runs every morning")
        await _fact(api, "ivy runs every morning")
        _, plan = await api.call("POST", "/v1/consolidation/analyze", {})
        store = api.client.app[STATE].require_store()

        class Racing:
            def __init__(self) -> None:
                self.raced = False

            def __getattr__(self, name: str) -> Any:
                return getattr(store, name)

            async def append(self, namespace: str, events: Any, **kw: Any) -> list[int]:
                if not self.raced and len(events) > 1:
                    self.raced = True
                    await store.append(
                        namespace,
                        [
                            NewEvent(
                                FactWritten(
                                    fact_id="n1", text="Ivy swims", valid_from=api.clock.now()
                                )
                            )
                        ],
                    )
                    from events.types import FactForgotten

                    await store.append(namespace, [NewEvent(FactForgotten(fact_id=a))])
                    with pytest.raises(ConcurrencyError):
                        await store.append(namespace, events, **kw)
                    raise ConcurrencyError(namespace, "x", 0, 1)
                positions: list[int] = await store.append(namespace, events, **kw)
                return positions

        result = await apply_plan(Racing(), "default", plan["plan_id"], api.clock.now())  # type: ignore[arg-type]
        assert result.applied == []
        assert result.refused[0]["reason"] == "changed"


@pytest.mark.parametrize("purge", [False, True])
async def test_a_delete_item_forgets_or_with_purge_erases(tmp_path: Path, purge: bool) -> None:
    async with api_client(tmp_path) as api:
        secret = await _fact(api, "The safe code is 90210")
        store = api.client.app[STATE].require_store()
        item = {"item_id": "i1", "action": "delete", "fact_ids": [secret], "confidence": 1.0}
        plan = await build_plan(store, "default", [item], api.clock.now())
        await append_plan(store, "default", plan)
        status, result = await api.call(
            "POST", f"/v1/consolidation/plans/{plan.plan_id}/apply", {"purge": purge}
        )
        assert status == 200, result
        assert result["applied"] == ["i1"]
        assert secret not in await _listed_ids(api, "")
        _, log = await api.call("GET", f"/v1/events?stream=fact:{secret}")
        assert ("90210" in str(log)) is not purge
        _, events = await api.call("GET", "/v1/events?limit=1000")
        [applied] = [e["data"] for e in events["events"] if e["event_type"] == "PlanApplied"]
        assert applied["purge"] is purge


@pytest.mark.parametrize(
    ("answer", "action", "decided_by", "merged_text"),
    [
        ("DECISION: MERGE\nTEXT: Ann likes tea\nREASON: same", "merge", "model", "Ann likes tea"),
        ("decision: archive\nreason: old", "archive", "model", None),
        ("DECISION: SHRUG\nREASON: unsure", "merge", "rules", "Ann likes tea."),
        ("They look alike.", "merge", "rules", "Ann likes tea."),
    ],
)
def test_a_models_answer_decides_the_item(
    answer: str, action: str, decided_by: str, merged_text: str | None
) -> None:
    item = {
        "item_id": "i1",
        "action": "merge",
        "fact_ids": ["a", "b"],
        "merged_text": "Ann likes tea.",
        "reasoning": "near duplicates",
        "inputs": {"similarity": 0.97},
    }
    decided = model_decision(item, answer)
    assert (decided["action"], decided["decided_by"]) == (action, decided_by)
    assert decided.get("merged_text") == merged_text
    assert decided["inputs"] == {
        **decided["inputs"],
        "similarity": 0.97,
        "rule_action": "merge",
        "model_answer": answer,
    }
    assert decided["reasoning"]


async def test_preview_defaults_come_from_the_consolidation_config(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        faded = await _fact(api, "Dana once mentioned a blue bicycle")
        api.clock.advance(timedelta(days=40))

        async def low(body: dict[str, Any]) -> dict[str, float]:
            _, found = await api.call("POST", "/v1/consolidation/preview", body)
            return {s["fact_id"]: s["score"] for s in found["low_score"]}

        scored = await low({})  # min_score 0.3 by default, not 0.1
        assert 0.1 < scored[faded] < 0.3
        assert faded not in await low({"min_score": 0.1})  # a request still says
        service = api.client.app[CONSOLIDATION]
        service.config = dataclasses.replace(service.config, min_score=0.05, stale_days=30.0)
        assert faded not in await low({})
        _, found = await api.call("POST", "/v1/consolidation/preview", {})
        assert [s["fact_id"] for s in found["stale"]] == [faded]
