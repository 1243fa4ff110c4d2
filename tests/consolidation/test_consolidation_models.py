"""``cheap_model`` / ``deep_model`` and ``[consolidation.models]``: each call site asks its
model of an OpenAI-compatible server (which sees the name), and the log records it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from daemon.api.keys import CONSOLIDATION
from daemon.config import ConsolidationConfig, ModelsConfig, config_from_mapping
from daemon.consolidation.blocks import REWRITE_SYSTEM
from daemon.consolidation.models import CALL_SITES
from daemon.consolidation.phases.deep import INSIGHT_SYSTEM, JUDGE_SYSTEM, QUESTIONS_SYSTEM
from daemon.consolidation.phases.episodes import EPISODE_SYSTEM
from daemon.consolidation.phases.profile import PROFILE_SYSTEM
from daemon.consolidation.phases.standard import RECONCILE_SYSTEM
from daemon.consolidation.service import DECIDE_SYSTEM
from tests.api_fixtures import Api, api_client, retrospective_api
from tests.consolidation.test_consolidation_deep import _fact
from tests.consolidation.test_consolidation_episodes import LISBON, _say
from tests.consolidation.test_consolidation_knobs import _yara
from tests.llm_fakes import FakeLLMServer, ok_text, openai_provider, remember
from tests.retrospective.test_retrospective_api import _state_when


def _site(system: str) -> str:
    for prefix, site in (
        (RECONCILE_SYSTEM[:40], "reconcile"),
        (JUDGE_SYSTEM[:40], "judge"),
        (QUESTIONS_SYSTEM[:40], "reflection"),
        (INSIGHT_SYSTEM[:40], "reflection"),
        (DECIDE_SYSTEM[:40], "analyze"),
        (EPISODE_SYSTEM[:40], "episodes"),
        (PROFILE_SYSTEM[:40], "profile"),
        (REWRITE_SYSTEM[:40], "blocks"),
        ("You are memoryd's", "agents"),
    ):
        if system.startswith(prefix):
            return site
    raise AssertionError(f"a request no call site asks: {system[:60]!r}")


def _asked(server: FakeLLMServer) -> dict[str, set[str]]:
    asked: dict[str, set[str]] = {}
    for request in server.requests:
        system = request.body["messages"][0]["content"]
        asked.setdefault(_site(system), set()).add(request.body["model"])
    return asked


async def _events(api: Api, event_type: str) -> list[dict[str, Any]]:
    _, body = await api.call("GET", "/v1/events?after=0&limit=1000")
    return [e["data"] for e in body["events"] if e["event_type"] == event_type]


async def _news_for_every_phase(api: Api) -> None:
    """Facts a model-less run has seen, then news for each model call of a full run: facts
    to reconcile (near, not equal, to a seen one), a contradiction to judge, episodes whose
    importance fires reflection, and facts for the profile and the blocks."""
    await _fact(api, "Yara rides a bike to work every day")
    await _fact(api, "Yara lives in Oslo")
    status, _ = await api.call("POST", "/v1/consolidation/run", {})  # free, no model
    assert status == 200
    await _yara(api)
    await _fact(api, "Yara rides a bike to work every single weekday")
    await _fact(api, "Yara lives in Bergen")


async def test_each_phase_and_call_site_asks_its_model(
    tmp_path: Path, openai_fake: FakeLLMServer
) -> None:
    async with api_client(tmp_path) as api:
        await _news_for_every_phase(api)
        service = api.client.app[CONSOLIDATION]
        service.provider = openai_provider(openai_fake)
        service.config = ConsolidationConfig(
            tier="full",
            cheap_model="small-m",
            deep_model="big-m",
            models=ModelsConfig(judge="judge-m"),
        )
        openai_fake.push(*[ok_text("ADD")] * 3)
        status, run = await api.call("POST", "/v1/consolidation/run", {})
        assert status == 200, run
        asked = _asked(openai_fake)
        assert asked == {
            "reconcile": {"small-m"},
            "agents": {"small-m"},
            "judge": {"judge-m"},
            "reflection": {"big-m"},
            "profile": {"big-m"},
            "blocks": {"big-m"},
        }
        [_, started] = await _events(api, "ConsolidationRunStarted")
        assert started["inputs"]["models"] == {
            "retrospective": "small-m",
            "reconcile": "small-m",
            "agents": "small-m",
            "episodes": "small-m",
            "judge": "judge-m",
            "reflection": "big-m",
            "analyze": "big-m",
            "profile": "big-m",
            "blocks": "big-m",
        }
        # the server names the model that answered; the run counts its calls by it
        assert run["stats"]["model_calls_by_model"] == {"fake-gpt": len(openai_fake.requests)}

        openai_fake.requests.clear()
        for _ in range(2):
            await _fact(api, "Yara keeps a red kayak in the garage")
        status, plan = await api.call("POST", "/v1/consolidation/analyze", {})
        assert status == 201, plan
        assert _asked(openai_fake) == {"analyze": {"big-m"}}
        decided = [i for i in plan["recommendations"] if "model_answer" in i["inputs"]]
        assert decided
        assert all(i["inputs"]["model"] == "fake-gpt" for i in decided)

        openai_fake.requests.clear()
        service.config = ConsolidationConfig(tier="full")  # unset: the provider's model
        await _fact(api, "Yara rides a bike to the office each day")
        await api.call("POST", "/v1/consolidation/run", {})
        assert {m for models in _asked(openai_fake).values() for m in models} == {"m"}


async def test_every_call_site_override_reaches_its_request(
    tmp_path: Path, openai_fake: FakeLLMServer
) -> None:
    overrides = {site: f"{site}-m" for site in CALL_SITES}
    async with api_client(tmp_path) as api:
        await _news_for_every_phase(api)
        service = api.client.app[CONSOLIDATION]
        await _say(api, "chat", LISBON)
        service.provider = openai_provider(openai_fake)
        service.config = ConsolidationConfig(
            tier="full", cheap_model="small-m", deep_model="big-m", models=ModelsConfig(**overrides)
        )
        status, run = await api.call("POST", "/v1/consolidation/run", {})
        assert status == 200, run
        # The retrospective's override is the retrospective service's (the next test).
        ran = [site for site in CALL_SITES if site not in ("retrospective", "analyze")]
        assert _asked(openai_fake) == {site: {overrides[site]} for site in ran}

        openai_fake.requests.clear()
        status, plan = await api.call("POST", "/v1/consolidation/analyze", {})
        assert status == 201, plan
        assert _asked(openai_fake) == {"analyze": {"analyze-m"}}


@pytest.mark.parametrize(
    ("models", "expected"),
    [({}, "small-m"), ({"consolidation.models.retrospective": "retro-m"}, "retro-m")],
)
async def test_the_retrospective_asks_the_cheap_model_unless_its_site_names_one(
    tmp_path: Path, openai_fake: FakeLLMServer, models: dict[str, str], expected: str
) -> None:
    openai_fake.push(remember("The user lives in Lyon."))
    overrides = {
        "llm.provider": "openai",
        "llm.model": "m",
        "llm.base_url": openai_fake.base_url,
        "llm.api_key_env": "",
        "consolidation.cheap_model": "small-m",
        **models,
    }
    async with retrospective_api(tmp_path, overrides) as api:
        body = {"role": "user", "content": "I live in Lyon."}
        status, _ = await api.call("POST", "/v1/conversations/c1/messages", body)
        assert status == 201
        await _state_when(api, "c1", lambda b: [r["status"] for r in b["runs"]] == ["succeeded"])
        assert [r.body["model"] for r in openai_fake.requests][:1] == [expected]
        [started] = await _events(api, "RetrospectiveStarted")
        assert started["model"] == expected


def test_models_are_read_and_blank_means_the_providers() -> None:
    config = config_from_mapping(
        {
            "consolidation": {
                "cheap_model": "small-m",
                "deep_model": "",
                "models": {"retrospective": "retro-m", "analyze": "a-m"},
            }
        }
    ).consolidation
    assert (config.cheap_model, config.deep_model) == ("small-m", None)
    assert (config.models.retrospective, config.models.analyze) == ("retro-m", "a-m")
