"""The consolidator's knobs in ``[consolidation]``: the light phase's archive threshold, the
standard phase's batch bound, the deep phase's judge bound, reflection (on/off, its
importance threshold, its questions, and the bound on insights waiting in quarantine), the
retries of a failed run and the cooldown between runs, the token, cost and duration
ceilings, the weights of salience, and the noise filters."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest

from daemon.api.keys import CONSOLIDATION, STATE
from daemon.config import ConsolidationConfig, SalienceWeightsConfig
from daemon.consolidation import phases
from daemon.consolidation.phases.deep import QUESTIONS_SYSTEM
from daemon.consolidation.phases.standard import RECONCILE_SYSTEM
from daemon.consolidation.rules import salience
from daemon.consolidation.triggers import due_trigger, retry_delay
from plugins.contracts import ScriptedProvider
from plugins.gates.noise import noise_kind
from plugins.llm.budget import BudgetedProvider, BudgetTracker
from plugins.llm.settings import BudgetSettings
from plugins.llm.types import CompletionRequest, Usage
from tests.api_fixtures import Api, api_client
from tests.consolidation.test_consolidation_deep import _deep, _episodes, _fact, _model
from tests.consolidation.test_consolidation_phases import _budget_run

YARA = (
    "Yara hikes every Saturday",
    "Yara goes climbing on Sundays",
    "Yara owns a kayak",
    "Yara cycles to the lake on weekends",
)
"""Four facts, and four episodes of importance 0.9: 3.6, past the default
importance_threshold of 3."""


async def _yara(api: Api) -> None:
    for text in YARA:
        await _fact(api, text, importance=0.9)
    await _episodes(api, 0.9, 0.9, 0.9, 0.9)


def _reflections(run: dict[str, object]) -> list[dict[str, object]]:
    actions = run["actions"]
    assert isinstance(actions, list)
    return [a for a in actions if a["action"] == "reflect"]


async def test_decay_archive_threshold_sets_the_light_phase_floor(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        faded = await _fact(api, "Dana once mentioned a blue bicycle")
        api.clock.advance(timedelta(days=40))  # salience about 0.26
        run = await _deep(api)
        assert run["stats"]["archived"] == 0  # the default floor is 0.05
        run = await _deep(api, decay_archive_threshold=0.3)
        assert [a["fact_ids"] for a in run["actions"] if a["action"] == "archive"] == [[faded]]


async def test_max_standard_batch_size_defers_the_rest_to_the_next_run(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        await _fact(api, "Quinn works at the bakery on Main Street")
        await _fact(api, "Rosa lives in a small flat near the river")
        await _deep(api)
        api.clock.advance(timedelta(minutes=1))
        await _fact(api, "Quinn works at the bakery on Oak Street now")
        await _fact(api, "Rosa lives in a small flat near the harbour")
        model = ScriptedProvider(fn=lambda _r: "ADD")

        def reconciled() -> list[str]:
            asked = [r.messages[0].content for r in model.requests if r.system == RECONCILE_SYSTEM]
            return [text.split("New:")[1].split()[0] for text in asked]

        run = await _deep(api, model, max_standard_batch_size=1)
        assert run["stats"]["reconcile_deferred"] == 1
        assert reconciled() == ["Quinn"]
        api.clock.advance(timedelta(minutes=1))  # runs are told apart by their start
        run = await _deep(api, model, max_standard_batch_size=1)
        assert "reconcile_deferred" not in run["stats"]
        assert reconciled() == ["Quinn", "Rosa"]


async def test_max_deep_conflicts_per_run_bounds_the_judge(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        await _fact(api, "Zed is 34 years old")
        api.clock.advance(timedelta(days=3))
        await _fact(api, "Zed is 35 years old")
        model = ScriptedProvider(fn=_model)
        run = await _deep(api, model, max_deep_conflicts_per_run=0)
        assert run["stats"]["judge_deferred"] == 1
        assert "judged_contradict" not in run["stats"]
        assert not [r for r in model.requests if r.system.startswith("Two memory facts")]


@pytest.mark.parametrize(("threshold", "reflects"), [(5.0, False), (None, True)])
async def test_importance_threshold_decides_when_reflection_runs(
    tmp_path: Path, threshold: float | None, reflects: bool
) -> None:
    async with api_client(tmp_path) as api:
        await _yara(api)
        config = {} if threshold is None else {"importance_threshold": threshold}
        run = await _deep(api, ScriptedProvider(fn=_model), **config)
        assert bool(_reflections(run)) is reflects


async def test_reflection_can_be_switched_off(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        await _yara(api)
        model = ScriptedProvider(fn=_model)
        assert not _reflections(await _deep(api, model, reflection=False))
        assert not [r for r in model.requests if "questions" in r.system]


_INSIGHTS = (
    "Yara spends weekends outdoors",
    "Kayaking calms her after long shifts",
    "Cold mornings never stop that paddler",
    "She trains for endurance rather than speed",
    "Rivers matter more to Yara than beaches",
    "Her fitness comes from daily habits",
)
"""Insights in other words each: one said twice is written once."""


def _three_questions() -> Callable[[CompletionRequest], str]:
    """A model asking three questions and answering each with an insight not said before."""
    insights = iter(_INSIGHTS)

    def answer(request: CompletionRequest) -> str:
        if "questions" in request.system:
            return "Q: What does Yara do on weekends?\nQ: Does Yara like water?\nQ: Is Yara fit?"
        if request.system.startswith("Answer the question"):
            return f"INSIGHT: {next(insights)} (see E1)"
        return _model(request)

    return answer


async def test_reflection_max_questions_bounds_the_questions(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        await _yara(api)
        model = ScriptedProvider(fn=_three_questions())
        run = await _deep(api, model, reflection_max_questions=2)
        assert len(_reflections(run)) == 2
        asked = [r for r in model.requests if "questions" in r.system]
        assert asked[0].system == QUESTIONS_SYSTEM.format(n=2)


async def test_the_oldest_quarantined_insights_beyond_the_bound_are_archived(
    tmp_path: Path,
) -> None:
    async with api_client(tmp_path) as api:
        await _yara(api)
        model = _three_questions()
        first = _reflections(await _deep(api, ScriptedProvider(fn=model)))
        assert len(first) == 3
        await _yara(api)  # enough new importance for another reflection
        run = await _deep(api, ScriptedProvider(fn=model), reflection_max_quarantined_insights=4)
        assert len(_reflections(run)) == 3
        pruned = [a["fact_ids"][0] for a in run["actions"] if a.get("reason") == "insights"]
        assert pruned == [a["fact_id"] for a in first[:2]]
        for fact_id in pruned:
            _, fact = await api.call("GET", f"/v1/facts/{fact_id}")
            assert fact["archived"] is True


MINUTE = 60 * 1_000_000
ACTIVITY = {
    "last_position": 20,
    "last_at": 0,
    "retrospectives_succeeded": 0,
    "importance_sum": 0.0,
}


def _last(outcome: str, ended: int, **inputs: object) -> dict[str, object]:
    return {
        "run_id": "run-last",
        "outcome": outcome,
        "started_at": ended - MINUTE,
        "completed_at": ended,
        "inputs": {"activity_position": 20, **inputs},
    }


def test_a_failed_run_is_retried_with_a_doubling_backoff() -> None:
    config = ConsolidationConfig()  # 3 retries, 5m doubling, at most 6h
    assert [retry_delay(n, config) for n in (1, 2, 3)] == [5 * MINUTE, 10 * MINUTE, 20 * MINUTE]
    now = 1_000 * MINUTE
    assert due_trigger(now, ACTIVITY, _last("failed", now - 4 * MINUTE), config) is None
    due = due_trigger(now, ACTIVITY, _last("failed", now - 5 * MINUTE), config)
    assert due is not None
    assert due[0] == "retry"
    assert (due[1]["attempt"], due[1]["retry_of"]) == (1, "run-last")
    second = _last("failed", now - 9 * MINUTE, attempt=1)
    assert due_trigger(now, ACTIVITY, second, config) is None  # the second waits 10m
    third = _last("failed", now - 20 * MINUTE, attempt=2)
    assert due_trigger(now, ACTIVITY, third, config) == (
        "retry",
        {**due[1], "attempt": 3, "retry_delay_micros": 20 * MINUTE},
    )
    spent = _last("failed", now - 600 * MINUTE, attempt=3)
    assert due_trigger(now, ACTIVITY, spent, config) is None  # nothing new: no run
    assert due_trigger(now, ACTIVITY, _last("completed", now - 600 * MINUTE), config) is None
    capped = dataclasses.replace(config, retry_max_delay=timedelta(minutes=7))
    assert retry_delay(3, capped) == 7 * MINUTE


def test_cooldown_holds_back_triggered_runs() -> None:
    now = 1_000 * MINUTE
    fresh = {**ACTIVITY, "last_position": 30}
    last = _last("completed", now - MINUTE)  # started two minutes ago
    assert due_trigger(now, fresh, last, ConsolidationConfig()) is not None  # idle
    held = ConsolidationConfig(cooldown=timedelta(minutes=3))
    assert due_trigger(now, fresh, last, held) is None
    assert due_trigger(now + MINUTE, fresh, last, held) is not None


async def test_tick_retries_a_failed_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async with api_client(tmp_path) as api:
        await _fact(api, "Pia collects stamps")
        service = api.client.app[CONSOLIDATION]
        service.config = ConsolidationConfig()

        async def broken(_ctx: object, _agents: object) -> None:
            raise RuntimeError("disk full")

        monkeypatch.setitem(phases.PHASES, "light", broken)
        api.clock.advance(timedelta(hours=1))
        [failed] = await service.tick()
        assert (failed["trigger"], failed["status"]) == ("idle", "failed")
        assert await service.tick() == []  # the backoff is not over
        monkeypatch.undo()
        api.clock.advance(timedelta(minutes=5))
        [retried] = await service.tick()
        assert (retried["trigger"], retried["status"]) == ("retry", "completed")
        # A tick's run is no acknowledged write, so a read need not wait for it: say it was.
        await api.client.app[STATE].async_note_written(retried["position"])
        _, runs = await api.call("GET", "/v1/consolidation/runs")
        assert runs["runs"][0]["inputs"]["retry_of"] == failed["run_id"]


@pytest.mark.parametrize(
    "ceiling",
    [{"daily_tokens": 100}, {"daily_cost": 0.001, "cost_per_million_tokens": 10.0}],
)
async def test_token_and_cost_ceilings_stop_model_calls_and_are_counted_from_the_log(
    tmp_path: Path, ceiling: dict[str, float]
) -> None:
    async with api_client(tmp_path) as api:
        model = ScriptedProvider(
            fn=lambda _r: "ADD", usage=Usage(input_tokens=80, output_tokens=20)
        )
        _, run = await _budget_run(api, model, **ceiling)
        assert run["status"] == "completed"
        assert len(model.requests) == 1  # 100 tokens spend the day's 100
        assert run["stats"]["model_tokens"] == 100
        assert "tokens" in run["stats"]["budget_exceeded"]
        api.clock.advance(timedelta(minutes=1))
        await _fact(api, "Quinn works at the bakery on Elm Street since May")
        _, again = await api.call("POST", "/v1/consolidation/run", {"phases": ["standard"]})
        assert len(model.requests) == 1  # the log remembers the day's tokens
        assert again["stats"]["model_calls_refused"] >= 1
        _, runs = await api.call("GET", "/v1/consolidation/runs")
        budget = runs["runs"][0]["inputs"]["budget"]
        assert (budget["token_ceiling"], budget["tokens_used"]) == (100, 100)


async def test_max_run_duration_stops_model_calls(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:

        def slow(_request: CompletionRequest) -> str:
            api.clock.advance(timedelta(minutes=2))
            return "ADD"

        model = ScriptedProvider(fn=slow)
        _, run = await _budget_run(api, model, max_run_duration=timedelta(minutes=1))
        assert run["status"] == "completed"
        assert len(model.requests) == 1
        assert "max_run_duration" in run["stats"]["budget_exceeded"]


def _budgeted(api: Api, model: ScriptedProvider) -> BudgetedProvider:
    return BudgetedProvider(model, BudgetTracker(BudgetSettings(calls_per_day=2)), api.clock.now)


async def test_the_provider_budget_is_rebuilt_from_the_log(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        usage = Usage(input_tokens=30, output_tokens=10)
        model = ScriptedProvider(fn=lambda _r: "ADD", usage=usage)
        _, run = await _budget_run(api, _budgeted(api, model))
        assert (run["stats"]["model_calls"], run["stats"]["model_tokens"]) == (2, 80)
        # A restart (or a reloaded [llm]) builds a new provider whose tracker starts at zero.
        service = api.client.app[CONSOLIDATION]
        service.provider = fresh = _budgeted(api, model)
        await service.seed_provider_budget()
        assert fresh.tracker.usage(api.clock.now()) == (2, 80)
        assert fresh.tracker.check(api.clock.now()).exceeded


def test_salience_weights_raise_each_factor_to_its_weight() -> None:
    base = dict(days=30, tau_days=30, recalls=0, reinforcements=0, confidence=1.0)
    plain = salience(importance=1.0, provenance="tool", status="active", **base)  # type: ignore[arg-type]
    assert plain == pytest.approx(math.exp(-1) * 1.5 * 0.8)
    weighted = salience(
        importance=1.0,
        provenance="tool",
        status="active",
        weights=(2.0, 0.0, 1.0),
        **base,  # type: ignore[arg-type]
    )
    assert weighted == pytest.approx(math.exp(-2) * 0.8)


async def test_salience_weights_reach_preview_and_the_light_phase(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        unimportant = await _fact(api, "Lunch was pasta", importance=0.0)  # salience 0.5
        await _fact(api, "Mia is allergic to nuts", importance=1.0)
        service = api.client.app[CONSOLIDATION]

        async def low() -> list[str]:
            _, found = await api.call("POST", "/v1/consolidation/preview", {"min_score": 0.6})
            return [s["fact_id"] for s in found["low_score"]]

        assert await low() == [unimportant]
        ignored = SalienceWeightsConfig(importance=0.0)
        service.config = dataclasses.replace(service.config, salience_weights=ignored)
        assert await low() == []
        run = await _deep(api, salience_weights=ignored, decay_archive_threshold=0.6)
        assert run["stats"]["archived"] == 0
        run = await _deep(api, decay_archive_threshold=0.6)
        assert [a["fact_ids"] for a in run["actions"] if a["action"] == "archive"] == [
            [unimportant]
        ]


@pytest.mark.parametrize(
    ("filters", "kept"),
    [
        ("default", ["Ana found a flat in Porto"]),
        ("minimal", ["Ana found a flat in Porto", "Let me check the weather tool"]),
        ("none", ["Ana found a flat in Porto", "Let me check the weather tool", "Thanks!"]),
    ],
)
async def test_noise_filters_decide_what_never_stays_a_fact(
    tmp_path: Path, filters: str, kept: list[str]
) -> None:
    async with api_client(tmp_path) as api:
        texts = ["Ana found a flat in Porto", "Let me check the weather tool", "Thanks!"]
        ids = {await _fact(api, t, provenance="extraction"): t for t in texts}
        said = await _fact(api, "Hello there", provenance="user")  # the user's own write
        run = await _deep(api, noise_filters=filters)
        archived = {a["fact_ids"][0] for a in run["actions"] if a["action"] == "archive"}
        assert sorted(t for f, t in ids.items() if f not in archived) == sorted(kept)
        assert said not in archived


def test_noise_is_the_whole_text_only() -> None:
    assert noise_kind("Good morning!", "minimal") == "greeting"
    assert noise_kind("ok, thanks so much", "minimal") is None  # two remarks: kept
    assert noise_kind("Thank you so much.", "minimal") == "acknowledgement"
    assert noise_kind("Thanks to Ana I found the flat", "default") is None
    assert noise_kind('{"tool": "search", "q": "flats"}', "default") == "tool chatter"
    assert noise_kind("Calling the search tool for flats", "default") == "tool chatter"
    assert noise_kind("Calling the search tool for flats", "minimal") is None
