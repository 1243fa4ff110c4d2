"""The deep phase's profile wording and curated blocks with a model: a scripted
OpenAI-compatible server words the profile (unknown ids and topics dropped, a malformed answer
leaves the grouped profile, a wording goes stale when its facts change), and a scripted
provider rewrites the blocks within max_chars, keeping the text when the call fails."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from daemon.api.keys import CONSOLIDATION
from daemon.config import BlockSpec, ConsolidationConfig
from daemon.consolidation.blocks import fit
from plugins.contracts import ScriptedProvider
from plugins.llm.providers import PROVIDERS
from plugins.llm.settings import LLMSettings
from plugins.llm.types import CompletionRequest, LLMError, LLMProvider
from tests.api_fixtures import Api, api_client
from tests.consolidation_fixtures import an_episode, append_episodes
from tests.llm_fakes import FakeLLMServer, ok_text

NOTES = BlockSpec("notes", "the user's plans for the week", 40)


@pytest.fixture
async def fake() -> AsyncIterator[FakeLLMServer]:
    server = FakeLLMServer("openai")
    await server.start()
    try:
        yield server
    finally:
        await server.close()


def _openai(server: FakeLLMServer) -> LLMProvider:
    settings = LLMSettings.from_mapping(
        {"provider": "openai", "model": "m", "base_url": server.base_url, "timeout": 2}
    )
    return PROVIDERS["openai"](settings)


async def _fact(api: Api, text: str) -> str:
    status, body = await api.call("POST", "/v1/facts", {"text": text, "importance": 0.1})
    assert status == 201, body
    fact_id: str = body["fact_id"]
    return fact_id


async def _deep(api: Api, model: LLMProvider, **config: Any) -> dict[str, Any]:
    service = api.client.app[CONSOLIDATION]
    service.config = dataclasses.replace(ConsolidationConfig(), tier="full", **config)
    service.provider = model
    status, run = await api.call("POST", "/v1/consolidation/run", {"phases": ["deep"]})
    assert status == 200, run
    result: dict[str, Any] = run
    return result


def _line(topic: str, text: str, *ids: str) -> str:
    return orjson.dumps({"topic": topic, "text": text, "fact_ids": list(ids)}).decode()


async def _topics(api: Api) -> dict[str, dict[str, Any]]:
    _, profile = await api.call("GET", "/v1/profile")
    return {t["topic"]: t for t in profile["topics"]}


async def test_a_model_words_the_profile_citing_only_the_facts_it_was_shown(
    tmp_path: Path, fake: FakeLLMServer
) -> None:
    async with api_client(tmp_path) as api:
        tea = await _fact(api, "I like green tea")
        seattle = await _fact(api, "I live in Seattle")
        anna = await _fact(api, "My sister Anna is a nurse")
        answer = "\n".join(
            [
                _line("user", "Lives in Seattle and drinks green tea.", seattle, tea),
                _line("user", "Owns a boat.", "F99"),  # an id it was not shown
                _line("bob", "Bob is tall.", tea),  # a topic it was not shown
                "not json",
            ]
        )
        fake.push(ok_text(answer), ok_text("Lives in Seattle."))
        run = await _deep(api, _openai(fake))
        [worded] = [a for a in run["actions"] if a["action"] == "profile"]
        assert worded["lines_dropped"] == 3
        assert "Topic user:" in fake.requests[0].body["messages"][-1]["content"]
        topics = await _topics(api)
        assert topics["user"]["source"] == "model"
        assert topics["user"]["lines"] == [
            {"text": "Lives in Seattle and drinks green tea.", "fact_ids": [seattle, tea]}
        ]
        assert topics["user"]["worded_by"] == run["run_id"]
        assert topics["anna"]["source"] == "facts"
        assert topics["anna"]["fact_ids"] == [anna]
        _, events = await api.call("GET", "/v1/events?limit=100")
        [written] = [e["data"] for e in events["events"] if e["event_type"] == "ProfileWritten"]
        assert written["topics"][0]["rested_on"] == sorted([seattle, tea, anna])

        # A new fact about the user: the wording no longer rests on the topic's facts.
        await _fact(api, "I play the cello")
        topics = await _topics(api)
        assert topics["user"]["source"] == "facts"
        assert topics["user"]["stale_model"] == run["run_id"]
        assert any("cello" in line["text"] for line in topics["user"]["lines"])


async def test_a_malformed_profile_answer_leaves_the_grouped_profile(
    tmp_path: Path, fake: FakeLLMServer
) -> None:
    async with api_client(tmp_path) as api:
        await _fact(api, "I like green tea")
        fake.push(ok_text("Here is the profile: the user likes tea."), ok_text("Likes tea."))
        run = await _deep(api, _openai(fake))
        assert [a for a in run["actions"] if a["action"] == "profile_kept"]
        assert any(e.startswith("profile:") for e in run["stats"]["errors"])
        topics = await _topics(api)
        assert topics["user"]["source"] == "facts"
        _, events = await api.call("GET", "/v1/events?limit=100")
        assert not [e for e in events["events"] if e["event_type"] == "ProfileWritten"]


def _writer(request: CompletionRequest) -> str:
    if "one block of an assistant's working memory, named 'notes'" in request.system:
        return "Gym on Monday. Dentist on Thursday at nine in the morning."
    if "named 'learned_context'" in request.system:
        return "The user drinks green tea."
    return ""


async def test_the_deep_phase_rewrites_each_block_within_its_max_chars(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        tea = await _fact(api, "I like green tea")
        await api.call("PUT", "/v1/blocks/learned_context", {"text": "Likes tea?"})
        model = ScriptedProvider(fn=_writer)
        run = await _deep(api, model, blocks=(NOTES,))
        written = {a["name"] for a in run["actions"] if a["action"] == "block"}
        assert written == {"learned_context", "notes"}
        _, notes = await api.call("GET", "/v1/blocks/notes")
        assert notes["text"] == "Gym on Monday."  # cut at the sentence that fits 40
        assert notes["author"] == run["run_id"]
        assert notes["how"] == "model"
        _, learned = await api.call("GET", "/v1/blocks/learned_context")
        assert learned["text"] == "The user drinks green tea."
        assert learned["fact_ids"] == [tea]
        assert learned["previous_hash"] is not None
        asked = next(r for r in model.requests if "'learned_context'" in r.system)
        assert "Likes tea?" in asked.messages[0].content  # the previous text
        assert "I like green tea" in asked.messages[0].content

        # Nothing new since: no call, the blocks stay.
        again = ScriptedProvider(fn=_writer)
        run2 = await _deep(api, again, blocks=(NOTES,))
        kept = {a["name"]: a["reason"] for a in run2["actions"] if a["action"] == "block_kept"}
        assert set(kept) == {"learned_context", "notes"}
        assert not [r for r in again.requests if "working memory" in r.system]


async def test_the_rewrite_is_asked_with_the_recent_episodes_and_insights(
    tmp_path: Path,
) -> None:
    async with api_client(tmp_path) as api:
        tea = await _fact(api, "I like green tea")
        status, body = await api.call(
            "POST", "/v1/facts", {"text": "The user relaxes with tea", "tags": ["insight"]}
        )
        assert status == 201, body
        insight = body["fact_id"]
        [episode] = await append_episodes(
            api, an_episode("Planned a trip to Kyoto in April", 0.4, api.clock.now())
        )
        model = ScriptedProvider(fn=_writer)
        await _deep(api, model, reflection=False)
        asked = next(r for r in model.requests if "'learned_context'" in r.system)
        prompt = asked.messages[0].content
        assert "Recent episodes:\n- Planned a trip to Kyoto in April" in prompt
        assert "Recent insights:\n- The user relaxes with tea" in prompt
        assert "Salient facts:\n- I like green tea" in prompt
        _, learned = await api.call("GET", "/v1/blocks/learned_context")
        assert (learned["fact_ids"], learned["insight_ids"], learned["episode_ids"]) == (
            [tea],
            [insight],
            [episode],
        )


async def test_a_failed_rewrite_keeps_the_text_and_says_why(tmp_path: Path) -> None:
    def failing(request: CompletionRequest) -> str:
        raise LLMError("server", "scripted outage")

    async with api_client(tmp_path) as api:
        await _fact(api, "I like green tea")
        api.client.app[CONSOLIDATION].config = ConsolidationConfig(blocks=(NOTES,))
        status, _ = await api.call("PUT", "/v1/blocks/notes", {"text": "Keep me."})
        assert status == 200
        run = await _deep(api, ScriptedProvider(fn=failing), blocks=(NOTES,))
        assert run["status"] == "completed"
        kept = {a["name"]: a["reason"] for a in run["actions"] if a["action"] == "block_kept"}
        assert "scripted outage" in kept["notes"]
        _, notes = await api.call("GET", "/v1/blocks/notes")
        assert notes["text"] == "Keep me."
        # learned_context was never written: the offline block stands in.
        _, learned = await api.call("GET", "/v1/blocks/learned_context")
        assert learned["text"] == "- I like green tea"
        assert learned["how"] == "offline"


def test_fit_cuts_at_a_sentence_then_a_word() -> None:
    assert fit("One. Two three four.", 12) == "One."
    assert fit("one two three", 9) == "one two"
    assert fit("short", 40) == "short"
    assert len(fit("x" * 50, 10)) == 10
