"""Reconciliation by a model over real HTTP (a scripted OpenAI-compatible server): one call per
write that touches current facts, its JSON verdict applied, the rules standing whenever the
model cannot decide."""

from __future__ import annotations

import orjson
import pytest

from daemon.memory.judge import ModelJudge
from daemon.memory.reconcile import Known, Verdict, claims_of, reconcile
from tests.llm_fakes import FakeLLMServer, Reply, ok_text, openai_provider

KNOWN = [
    Known("f-boston", "Lives in Boston.", claims_of("Lives in Boston.")),
    Known("f-job", "Works as a nurse.", claims_of("Works as a nurse.")),
]
NEW = "Relocated to the Pacific Northwest, Seattle area."


def _rules() -> Verdict:
    return reconcile(NEW, claims_of(NEW), KNOWN)


async def test_the_models_verdict_is_applied(openai_fake: FakeLLMServer) -> None:
    answer = {"outcome": "update", "targets": ["f-boston"], "confidence": 0.9, "reason": "moved"}
    openai_fake.replies.append(ok_text("```json\n" + orjson.dumps(answer).decode() + "\n```"))
    verdict = await ModelJudge(openai_provider(openai_fake)).decide(NEW, KNOWN, _rules(), "user")
    assert (verdict.outcome, verdict.superseded) == ("updated", ("f-boston",))
    assert verdict.decided_by == "model:fake-gpt"  # the model the server says answered
    assert verdict.reason == "moved"
    [request] = openai_fake.requests
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
    openai_fake: FakeLLMServer, reply: Reply
) -> None:
    openai_fake.replies.append(reply)
    rules = _rules()
    verdict = await ModelJudge(openai_provider(openai_fake)).decide(NEW, KNOWN, rules, "user")
    assert (verdict.outcome, verdict.superseded) == (rules.outcome, rules.superseded)
    assert verdict.decided_by == rules.decided_by
    assert "the rules decided" in verdict.reason


async def test_nothing_to_compare_costs_no_call(openai_fake: FakeLLMServer) -> None:
    rules = reconcile("Has a cat.", claims_of("Has a cat."), [])
    verdict = await ModelJudge(openai_provider(openai_fake)).decide("Has a cat.", [], rules, "user")
    assert verdict == rules
    assert openai_fake.requests == []
