"""Reconciliation by a model over real HTTP (a scripted OpenAI-compatible server): one call per
write that touches current facts, its JSON verdict applied, the rules standing whenever the
model cannot decide."""

from __future__ import annotations

from collections.abc import AsyncIterator

import orjson
import pytest

from daemon.memory.judge import ModelJudge
from daemon.memory.reconcile import Known, Verdict, claims_of, reconcile
from plugins.llm.providers import PROVIDERS
from plugins.llm.settings import LLMSettings
from plugins.llm.types import LLMProvider
from tests.llm_fakes import FakeLLMServer, Reply, ok_text

KNOWN = [
    Known("f-boston", "Lives in Boston.", claims_of("Lives in Boston.")),
    Known("f-job", "Works as a nurse.", claims_of("Works as a nurse.")),
]
NEW = "Relocated to the Pacific Northwest, Seattle area."


@pytest.fixture
async def fake() -> AsyncIterator[FakeLLMServer]:
    server = FakeLLMServer("openai")
    await server.start()
    try:
        yield server
    finally:
        await server.close()


def _provider(server: FakeLLMServer) -> LLMProvider:
    settings = LLMSettings.from_mapping(
        {"provider": "openai", "model": "m", "base_url": server.base_url, "timeout": 0.5}
    )
    return PROVIDERS["openai"](settings)


def _rules() -> Verdict:
    return reconcile(NEW, claims_of(NEW), KNOWN)


async def test_the_models_verdict_is_applied(fake: FakeLLMServer) -> None:
    answer = {"outcome": "update", "targets": ["f-boston"], "confidence": 0.9, "reason": "moved"}
    fake.replies.append(ok_text("```json\n" + orjson.dumps(answer).decode() + "\n```"))
    verdict = await ModelJudge(_provider(fake)).decide(NEW, KNOWN, _rules(), "user")
    assert (verdict.outcome, verdict.superseded) == ("updated", ("f-boston",))
    assert verdict.decided_by == "model:fake-gpt"  # the model the server says answered
    assert verdict.reason == "moved"
    [request] = fake.requests
    sent = orjson.loads(request.body["messages"][-1]["content"])
    assert sent["new_fact"] == NEW
    assert {f["id"] for f in sent["current_facts"]} == {"f-boston", "f-job"}


@pytest.mark.parametrize(
    "reply",
    [
        Reply(status=500, text="boom"),
        ok_text("I think it is an update."),
        ok_text('{"outcome": "update", "targets": ["f-unknown"]}'),
        ok_text('{"outcome": "sideways", "targets": ["f-boston"]}'),
    ],
)
async def test_the_rules_stand_when_the_model_cannot_decide(
    fake: FakeLLMServer, reply: Reply
) -> None:
    fake.replies.append(reply)
    rules = _rules()
    verdict = await ModelJudge(_provider(fake)).decide(NEW, KNOWN, rules, "user")
    assert (verdict.outcome, verdict.superseded) == (rules.outcome, rules.superseded)
    assert verdict.decided_by == rules.decided_by
    assert "the rules decided" in verdict.reason


async def test_nothing_to_compare_costs_no_call(fake: FakeLLMServer) -> None:
    rules = reconcile("Has a cat.", claims_of("Has a cat."), [])
    verdict = await ModelJudge(_provider(fake)).decide("Has a cat.", [], rules, "user")
    assert verdict == rules
    assert fake.requests == []
