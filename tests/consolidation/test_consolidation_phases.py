"""Consolidation runs: decay and salience math, the light phase (archive, capacity, duplicate
plans), runs under a lease, triggers, tiers, and the model phases with a scripted model."""

from __future__ import annotations

import asyncio
import dataclasses
import math
from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from daemon.api.keys import CONSOLIDATION, STATE
from daemon.api.state import AppSettings
from daemon.app import build_app
from daemon.backend import Backend
from daemon.config import ConsolidationConfig, load_config
from daemon.consolidation.budget import window_start
from daemon.consolidation.phases.standard import parse_verdict
from daemon.consolidation.rules import retention, salience, strength
from daemon.consolidation.service import LEASE_NAME, ConsolidationService
from daemon.consolidation.triggers import due_trigger
from daemon.services.consolidation import install_consolidation
from events.clock import ManualClock
from plugins.contracts import ScriptedProvider
from plugins.llm.types import CompletionRequest, LLMError, LLMProvider
from tests.api_fixtures import T0, Api, ManualConfigSource, api_client

DAY = 86_400 * 1_000_000


def _service(api: Api, **config: Any) -> ConsolidationService:
    service: ConsolidationService = api.client.app[CONSOLIDATION]
    service.config = dataclasses.replace(ConsolidationConfig(), **config)
    return service


async def _fact(api: Api, text: str, **extra: Any) -> str:
    status, body = await api.call("POST", "/v1/facts", {"text": text, "dedupe": False, **extra})
    assert status == 201, body
    fact_id: str = body["fact_id"]
    return fact_id


def test_retention_follows_the_formula() -> None:
    assert retention(0, 30, 1) == 1.0
    assert retention(30, 30, 1) == pytest.approx(math.exp(-1))
    assert retention(30, 30, 2) == pytest.approx(math.exp(-0.5))
    assert retention(30, 30, 0.1) == pytest.approx(math.exp(-2))  # strength floored at 0.5
    assert strength(0, 0) == 1.0
    assert strength(5, 0) > strength(1, 0) > strength(0, 0)


def test_salience_is_retention_times_importance_and_trust() -> None:
    base = dict(days=10, tau_days=30, recalls=0, reinforcements=0, confidence=1.0)
    user = salience(importance=0.5, provenance="user", status="active", **base)  # type: ignore[arg-type]
    assert user == pytest.approx(math.exp(-10 / 30))
    important = salience(importance=1.0, provenance="user", status="active", **base)  # type: ignore[arg-type]
    assert important == pytest.approx(user * 1.5)
    quarantined = salience(importance=0.5, provenance="tool", status="quarantined", **base)  # type: ignore[arg-type]
    assert quarantined < user


def test_due_trigger_rules() -> None:
    config = ConsolidationConfig()
    now = 100 * DAY
    act = {
        "last_position": 10,
        "last_at": now - DAY // 96,
        "retrospectives_succeeded": 2,
        "importance_sum": 3.0,
    }
    assert due_trigger(now, None, None, config) is None
    assert due_trigger(now, act, None, config) is None  # active 15 min ago
    idle = {**act, "last_at": now - DAY}
    trigger = due_trigger(now, idle, None, config)
    assert trigger is not None
    assert trigger[0] == "idle"
    last = {"started_at": now - 2 * DAY, "inputs": {"activity_position": 10}}
    assert due_trigger(now, idle, last, config) is None  # nothing new since the last run
    newer = {**act, "last_position": 11, "last_at": now - 60_000_000}
    scheduled = due_trigger(now, newer, last, config)
    assert scheduled is not None
    assert scheduled[0] == "schedule"
    retro = {**newer, "retrospectives_succeeded": 7}
    last_recent = {"started_at": now - 1, "inputs": {"activity_position": 10, "retrospectives": 2}}
    due = due_trigger(now, retro, last_recent, config)
    assert due is not None
    assert due[0] == "retrospectives"
    assert due[1]["new_retrospectives"] == 5


def test_reconciliation_verdicts_are_strict() -> None:
    assert parse_verdict("ADD", 2) == ("ADD", None)
    assert parse_verdict("update E2", 2) == ("UPDATE", 1)
    assert parse_verdict("NOOP E1\n", 2) == ("NOOP", 0)
    assert parse_verdict("CONFLICT E3", 2) is None
    assert parse_verdict("UPDATE", 2) is None
    assert parse_verdict("ADD E1", 2) is None
    assert parse_verdict("ADD\nNOOP E1", 2) is None
    assert parse_verdict("Sure! ADD", 2) is None
    assert parse_verdict(None, 2) is None


async def test_light_run_archives_decayed_and_plans_duplicates(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        old = await _fact(api, "The old printer is on floor two", importance=0.0)
        api.clock.advance(timedelta(days=120))
        a = await _fact(api, "Jane's birthday is in May")
        b = await _fact(api, "jane's birthday is in may!")
        fresh = await _fact(api, "Kim started a pottery class")
        status, run = await api.call("POST", "/v1/consolidation/run", {})
        assert status == 200, run
        assert run["status"] == "completed"
        assert run["trigger"] == "manual"
        archived = [x["fact_ids"][0] for x in run["actions"] if x["action"] == "archive"]
        assert archived == [old]
        plan_id = next(x["plan_id"] for x in run["actions"] if x["action"] == "plan")
        _, plan = await api.call("GET", f"/v1/consolidation/plans/{plan_id}")
        assert plan["source"] == "auto"
        assert plan["items"][0]["fact_ids"] == [a, b]
        # the merge waits for a person; the archive is done and logged
        _, fact_a = await api.call("GET", f"/v1/facts/{a}")
        assert fact_a["superseded_by"] is None
        _, log = await api.call("GET", "/v1/consolidation/log")
        assert [(e["action"], e["run_id"]) for e in log["entries"]] == [("archive", run["run_id"])]
        _, runs = await api.call("GET", "/v1/consolidation/runs")
        assert runs["runs"][0]["outcome"] == "completed"
        assert runs["runs"][0]["summary"]["stats"]["archived"] == 1
        _, search = await api.call("POST", "/v1/search", {"query": "printer", "scope": ["facts"]})
        assert old not in {h["id"] for h in search["hits"]}
        assert fresh


async def test_capacity_archives_lowest_salience(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        low = await _fact(api, "Lunch was pasta", importance=0.1)
        mid = await _fact(api, "Leo likes hiking", importance=0.5)
        high = await _fact(api, "Mia is allergic to nuts", importance=1.0)
        _service(api, capacity=2)
        _, run = await api.call("POST", "/v1/consolidation/run", {})
        archived = [x["fact_ids"][0] for x in run["actions"] if x["action"] == "archive"]
        assert archived == [low]
        assert {mid, high}


async def test_one_run_at_a_time_under_the_lease(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        await _fact(api, "Ned fixes bikes")
        service = _service(api)
        other = await service.leases.acquire(LEASE_NAME, "other-daemon", timedelta(minutes=5))
        assert other is not None
        status, body = await api.call("POST", "/v1/consolidation/run", {})
        assert status == 409
        assert body["error"]["details"]["holder"] == "other-daemon"
        await service.leases.release(other)
        status, run = await api.call("POST", "/v1/consolidation/run", {})
        assert status == 200, run
        _, runs = await api.call("GET", "/v1/consolidation/runs")
        assert runs["runs"][0]["lease_token"] == other.token + 1


async def test_tick_runs_when_idle_and_not_again(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        await _fact(api, "Olga sings in a choir")
        service = _service(api)
        assert await service.tick() == []  # just written: not idle yet
        api.clock.advance(timedelta(hours=1))
        [run] = await service.tick()
        assert run["trigger"] == "idle"
        api.clock.advance(timedelta(hours=1))
        assert await service.tick() == []  # nothing new since
        service.config = dataclasses.replace(service.config, enabled=False)
        await _fact(api, "Olga also plays piano")
        api.clock.advance(timedelta(hours=2))
        assert await service.tick() == []


async def test_free_tier_never_calls_a_model(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        await _fact(api, "Pat is a vet")
        service = _service(api, tier="free")
        model = ScriptedProvider(['NOTE "x"'])
        service.provider = model
        _, run = await api.call("POST", "/v1/consolidation/run", {})
        assert run["phases"] == ["light"]
        assert model.requests == []


async def test_standard_reconciliation_update_and_conflict(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        old = await _fact(api, "Quinn works at the bakery on Main Street")
        other = await _fact(api, "Rosa lives in a small flat near the river")
        service = _service(api, tier="cheap")
        await api.call("POST", "/v1/consolidation/run", {})
        new = await _fact(api, "Quinn works at the bakery on Oak Street now")
        new2 = await _fact(api, "Rosa lives in a small flat near the harbour")

        def answer(request: CompletionRequest) -> str:
            text = request.messages[0].content
            return "UPDATE E1" if "Quinn" in text.split("New:")[1] else "CONFLICT E1"

        service.provider = ScriptedProvider(fn=answer)
        _, run = await api.call("POST", "/v1/consolidation/run", {"phases": ["standard"]})
        assert run["stats"]["reconcile_update"] == 1
        assert run["stats"]["reconcile_conflict"] == 1
        _, fact_old = await api.call("GET", f"/v1/facts/{old}")
        assert fact_old["superseded_by"] == new
        _, queue = await api.call("GET", "/v1/review")
        [item] = queue["items"]
        assert item["verb"] == "CONFLICT"
        assert item["action"]["fact_ids"] == [other, new2]


async def test_without_a_model_only_deterministic_zones_apply(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        await _fact(api, "Sam is 34 years old and lives in Oslo")
        _service(api, tier="cheap")
        await api.call("POST", "/v1/consolidation/run", {})
        await _fact(api, "Sam is 35 years old and lives in Oslo")
        _, run = await api.call("POST", "/v1/consolidation/run", {"phases": ["standard"]})
        assert run["stats"]["model_calls"] == 0
        _, queue = await api.call("GET", "/v1/review")
        assert [i["verb"] for i in queue["items"]] == ["CONFLICT"]


async def test_daily_budget_stops_model_calls(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        for i in range(5):
            await _fact(api, f"Fact number {i} about topic {i * 7}")
        service = _service(api, tier="standard", daily_calls=2)
        model = ScriptedProvider(fn=lambda _r: "")
        service.provider = model
        _, run = await api.call("POST", "/v1/consolidation/run", {})
        assert run["stats"]["model_calls"] == 2
        assert run["stats"]["model_calls_refused"] >= 1
        _, run2 = await api.call("POST", "/v1/consolidation/run", {})
        assert run2["stats"]["model_calls"] == 0


def _refused_by_the_provider_budget(_request: CompletionRequest) -> str:
    raise LLMError("budget", "10 calls reached the daily ceiling of 10")


async def _budget_run(api: Api, provider: LLMProvider, **config: Any) -> tuple[str, Any]:
    """A cheap-tier run whose light phase archives one fact (capacity) and whose standard
    phase asks the model twice (two new facts near old ones); return the archived fact's id
    and the run."""
    service = _service(api, tier="cheap", **config)
    low = await _fact(api, "Lunch was pasta", importance=0.0)
    await _fact(api, "Quinn works at the bakery on Main Street")
    await _fact(api, "Rosa lives in a small flat near the river")
    await api.call("POST", "/v1/consolidation/run", {"phases": ["standard"]})
    await _fact(api, "Quinn works at the bakery on Oak Street now")
    await _fact(api, "Rosa lives in a small flat near the harbour")
    service.config = dataclasses.replace(service.config, capacity=4)
    service.provider = provider
    _, run = await api.call("POST", "/v1/consolidation/run", {})
    return low, run


async def test_on_exceed_pause_keeps_the_light_phase_when_the_provider_budget_refuses(
    tmp_path: Path,
) -> None:
    async with api_client(tmp_path) as api:
        low, run = await _budget_run(
            api, ScriptedProvider(fn=_refused_by_the_provider_budget), on_exceed="pause"
        )
        assert run["status"] == "completed", run
        archived = [a["fact_ids"] for a in run["actions"] if a["action"] == "archive"]
        assert archived == [[low]]
        assert "daily ceiling" in run["stats"]["budget_exceeded"]
        assert run["stats"]["model_calls_refused"] >= 1
        _, fact = await api.call("GET", f"/v1/facts/{low}")
        assert fact["archived"] is True


async def test_on_exceed_throw_fails_the_run_and_writes_none_of_it(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        low, run = await _budget_run(
            api, ScriptedProvider(fn=_refused_by_the_provider_budget), on_exceed="throw"
        )
        assert run["status"] == "failed"
        assert run["error"].startswith("budget exceeded (on_exceed throw)")
        _, fact = await api.call("GET", f"/v1/facts/{low}")
        assert fact["archived"] is False


@pytest.mark.parametrize(
    ("on_exceed", "status", "calls", "archived"),
    [("log", "completed", 2, True), ("throw", "failed", 1, False)],
)
async def test_on_exceed_at_the_daily_calls(
    tmp_path: Path, on_exceed: str, status: str, calls: int, archived: bool
) -> None:
    async with api_client(tmp_path) as api:
        model = ScriptedProvider(fn=lambda _r: "ADD")
        low, run = await _budget_run(api, model, on_exceed=on_exceed, daily_calls=1)
        assert run["status"] == status
        assert len(model.requests) == calls  # log goes past the ceiling, throw stops at it
        assert run["stats"]["model_calls_over_budget"] == calls - 1
        _, fact = await api.call("GET", f"/v1/facts/{low}")
        assert fact["archived"] is archived


@pytest.mark.parametrize(("reset", "calls_after_midnight"), [("utc", 2), ("sliding-24h", 0)])
async def test_budget_reset_decides_when_the_daily_calls_return(
    tmp_path: Path, reset: str, calls_after_midnight: int
) -> None:
    async with api_client(tmp_path) as api:
        now = api.clock.now()
        midnight = now.replace(hour=0, minute=0, second=0, microsecond=0) + timedelta(days=1)
        api.clock.advance(midnight - now - timedelta(minutes=30))
        for i in range(5):
            await _fact(api, f"Fact number {i} about topic {i * 7}")
        service = _service(api, tier="standard", daily_calls=2, budget_reset=reset)
        service.provider = ScriptedProvider(fn=lambda _r: "")
        _, run = await api.call("POST", "/v1/consolidation/run", {})
        assert run["stats"]["model_calls"] == 2
        api.clock.advance(timedelta(hours=1))
        await _fact(api, "Another fact about topic 99")
        _, run2 = await api.call("POST", "/v1/consolidation/run", {})
        assert run2["stats"]["model_calls"] == calls_after_midnight
        _, runs = await api.call("GET", "/v1/consolidation/runs")
        budget = runs["runs"][0]["inputs"]["budget"]
        assert (budget["reset"], budget["used"], budget["ceiling"]) == (
            reset,
            2 - calls_after_midnight,
            2,
        )


def test_window_start_follows_the_reset() -> None:
    now = datetime(2026, 3, 4, 15, 30, tzinfo=UTC)
    assert window_start(now, "utc") == datetime(2026, 3, 4, tzinfo=UTC)
    assert window_start(now, "sliding-24h") == now - timedelta(days=1)
    local = window_start(now, "local")
    assert local <= now < local + timedelta(days=1, hours=1)
    assert local.astimezone().time() == time(0)


async def test_analyze_with_a_model_carries_its_reasoning(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        a = await _fact(api, "Tara knits scarves")
        b = await _fact(api, "tara knits scarves.")
        service = _service(api, tier="standard")
        model = ScriptedProvider(["Both say the same thing; merging loses nothing."])
        service.provider = model
        _, plan = await api.call("POST", "/v1/consolidation/analyze", {})
        [item] = plan["recommendations"]
        assert item["action"] == "merge"
        assert item["fact_ids"] == [a, b]
        assert item["reasoning"] == "Both say the same thing; merging loses nothing."
        assert "Tara knits scarves" in model.requests[0].messages[0].content
        _, stored = await api.call("GET", f"/v1/consolidation/plans/{plan['plan_id']}")
        assert stored["inputs"]["model_calls"] == 1
        service.config = dataclasses.replace(service.config, daily_calls=1)
        _, again = await api.call("POST", "/v1/consolidation/analyze", {})
        assert again["recommendations"][0]["reasoning"].startswith("exact duplicates")
        assert len(model.requests) == 1  # the day's one call is spent
        # The provider's own [llm.budget] refusing is no failure either: the rules' reasoning.
        service.config = dataclasses.replace(service.config, daily_calls=10)
        service.provider = ScriptedProvider(fn=_refused_by_the_provider_budget)
        status, refused = await api.call("POST", "/v1/consolidation/analyze", {})
        assert status == 201, refused
        assert refused["recommendations"][0]["reasoning"].startswith("exact duplicates")


def _decides(request: CompletionRequest) -> str:
    content = request.messages[0].content
    if "Proposed action: merge" in content:
        return "DECISION: KEEP\nREASON: two different Umas: one is the user's aunt."
    if "Uma's old locker code" in content:
        return "DECISION: DELETE\nREASON: a stale code is worth nothing."
    return "DECISION: MERGE\nTEXT: nonsense\nREASON: a single fact cannot be merged."


async def test_analyze_with_a_model_lets_the_model_decide(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        texts = (
            "Uma likes jazz",
            "uma likes jazz.",
            "Uma's old locker code is 4411",
            "Uma bought a lamp",
        )
        a, b, code, lamp = [await _fact(api, text) for text in texts]
        api.clock.advance(timedelta(days=200))
        service = _service(api, tier="standard")
        service.provider = ScriptedProvider(fn=_decides)
        status, plan = await api.call("POST", "/v1/consolidation/analyze", {"stale_days": 100})
        assert status == 201, plan
        items = {tuple(i["fact_ids"]): i for i in plan["recommendations"]}
        kept = items[(a, b)]
        assert (kept["action"], kept["decided_by"]) == ("keep", "model")
        assert kept["reasoning"] == "two different Umas: one is the user's aunt."
        assert kept["inputs"]["rule_action"] == "merge"
        assert "merged_text" not in kept
        deleted = items[(code,)]
        assert (deleted["action"], deleted["decided_by"]) == ("delete", "model")
        assert deleted["inputs"]["rule_action"] == "archive"
        # A merge of one fact is no decision the plan can carry out: the rule's action stands.
        archived = items[(lamp,)]
        assert (archived["action"], archived["decided_by"]) == ("archive", "rules")
        assert archived["inputs"]["model_error"] == "a merge needs two facts or more"

        status, result = await api.call(
            "POST", f"/v1/consolidation/plans/{plan['plan_id']}/apply", {}
        )
        assert status == 200, result
        assert code not in await _ids(api)
        assert {a, b} <= await _ids(api)


async def _ids(api: Api) -> set[str]:
    _, body = await api.call("GET", "/v1/facts?limit=1000")
    return {f["fact_id"] for f in body["facts"]}


async def test_install_consolidation_takes_the_config_section_and_reloads(tmp_path: Path) -> None:
    config = load_config(
        None,
        env={},
        overrides={"storage.data_dir": str(tmp_path), "consolidation.tier": "cheap"},
    )
    watcher = ManualConfigSource(config)
    app = build_app(
        AppSettings(
            backend=Backend(data_dir=tmp_path), tcp_requires_token=False, projector="inline"
        ),
        clock=ManualClock(T0),
    )
    setup = install_consolidation(app, watcher)
    assert setup.provider is None  # [llm] provider = "none": no model
    async with TestClient(TestServer(app)) as client:
        await asyncio.wait_for(app[STATE].ready.wait(), 10)
        service = client.app[CONSOLIDATION]
        assert service.config.tier == "cheap"
        new = load_config(
            None,
            env={},
            overrides={"storage.data_dir": str(tmp_path), "consolidation.capacity": 7},
        )
        for callback in watcher.callbacks:
            await callback(config, new)
        assert service.config.tier == "free"
        assert service.config.capacity == 7


async def test_light_runs_do_not_plan_the_same_items_twice(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        await _fact(api, "Uli rides a red scooter")
        await _fact(api, "uli rides a red scooter")
        _, first = await api.call("POST", "/v1/consolidation/run", {})
        assert [a["action"] for a in first["actions"]] == ["plan"]
        await _fact(api, "Uli rides a red scooter!")
        _, second = await api.call("POST", "/v1/consolidation/run", {})
        [plan] = [a for a in second["actions"] if a["action"] == "plan"]
        _, stored = await api.call("GET", f"/v1/consolidation/plans/{plan['plan_id']}")
        assert len(stored["items"]) == 1  # the new three-way group, not the old pair again
        assert len(stored["items"][0]["fact_ids"]) == 3
        _, third = await api.call("POST", "/v1/consolidation/run", {})
        assert third["stats"]["already_planned"] == 1
        assert not [a for a in third["actions"] if a["action"] == "plan"]
