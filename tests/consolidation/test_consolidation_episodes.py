"""Episodes formed by the standard phase: one per conversation slice, offline (an extractive
summary and a heuristic importance) or with one budgeted model call over real HTTP (a
scripted OpenAI-compatible server), every unusable answer or refused call falling back to the
offline episode; promotion validating an episode a fact drawn from it vouches for."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import orjson
import pytest

from daemon.api.keys import STATE
from daemon.consolidation.episode_text import SliceLine, heuristic_importance
from daemon.consolidation.phases.episodes import EPISODE_SYSTEM, parse_episode
from events.store.base import NewEvent
from events.types import ConversationDeleted
from plugins.contracts import ScriptedProvider
from plugins.llm.providers import PROVIDERS
from plugins.llm.settings import LLMSettings
from plugins.llm.types import CompletionRequest, LLMProvider
from tests.api_fixtures import Api, api_client
from tests.consolidation.test_consolidation_deep import _deep, _fact, _model
from tests.consolidation.test_consolidation_deep import _episodes as episodes_written
from tests.consolidation.test_consolidation_phases import _service
from tests.llm_fakes import FakeLLMServer, Reply, ok_text

LISBON = (
    ("user", "Hi there!"),
    ("assistant", "Hello! How can I help you today?"),
    (
        "user",
        "I moved to Lisbon last month with my sister Ana. My new job is at a design studio "
        "in Alfama. The weather is nice.",
    ),
    ("assistant", "That sounds exciting. How are you finding Lisbon so far?"),
    ("user", "I love it, though I miss Berlin sometimes."),
    ("user", "ok thanks"),
)
SMALL_TALK = (
    ("user", "hello"),
    ("assistant", "Hi! What can I do for you?"),
    ("user", "what time is it in general terms"),
    ("assistant", "It is the afternoon where the server runs."),
)


async def _say(api: Api, conversation: str, turns: Sequence[tuple[str, str]]) -> list[str]:
    ids = []
    for role, text in turns:
        status, body = await api.call(
            "POST", f"/v1/conversations/{conversation}/messages", {"role": role, "content": text}
        )
        assert status == 201, body
        ids.append(body["message_id"])
    return ids


async def _run(api: Api, provider: LLMProvider | None = None, **config: Any) -> dict[str, Any]:
    service = _service(api, tier="cheap", **config)
    service.provider = provider
    status, run = await api.call("POST", "/v1/consolidation/run", {})
    assert status == 200, run
    assert run["status"] == "completed", run
    result: dict[str, Any] = run
    return result


async def _episodes(api: Api, conversation: str) -> list[dict[str, Any]]:
    status, body = await api.call("GET", f"/v1/episodes?conversation_id={conversation}")
    assert status == 200, body
    found: list[dict[str, Any]] = body["episodes"]
    return found


async def test_an_offline_episode_of_a_scripted_conversation(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        lisbon = await _say(api, "chat-lisbon", LISBON)
        await _say(api, "chat-small", SMALL_TALK)
        run = await _run(api)
        assert run["stats"]["episodes"] == 2
        [episode] = await _episodes(api, "chat-lisbon")
        assert episode["message_ids"] == lisbon
        assert episode["method"] == "extractive"
        assert episode["status"] == "quarantined"
        assert "I moved to Lisbon last month with my sister Ana." in episode["summary"]
        assert "Hi there" not in episode["summary"]
        assert "ok thanks" not in episode["summary"]
        assert len(episode["summary"]) <= 600
        assert episode["importance"] > 0.6
        inputs = episode["importance_inputs"]
        assert inputs["signals"]["named"] >= 3
        assert inputs["signals"]["changes"] >= 1
        assert "fallback" not in inputs  # no model configured: offline is the plan, not a fallback
        [small] = await _episodes(api, "chat-small")
        assert small["importance"] < 0.1

        # Nothing new: no episode. Three more messages: fewer than episode_min_messages (4).
        assert "episodes" not in (await _run(api))["stats"]
        more = await _say(api, "chat-lisbon", LISBON[2:5])
        assert "episodes" not in (await _run(api))["stats"]
        more += await _say(api, "chat-lisbon", [("user", "My sister Ana starts school soon.")])
        run = await _run(api, episode_summary_chars=80)
        assert run["stats"]["episodes"] == 1
        newest, first = await _episodes(api, "chat-lisbon")
        assert first["episode_id"] == episode["episode_id"]
        assert newest["message_ids"] == more  # the slice starts after the last episode
        assert len(newest["summary"]) <= 80

        # a deleted conversation takes its episodes with it
        state = api.client.app[STATE]
        positions = await state.require_store().append(
            "default", [NewEvent(ConversationDeleted(conversation_id="chat-lisbon"))]
        )
        await state.async_note_written(positions[-1])
        assert await _episodes(api, "chat-lisbon") == []
        assert len(await _episodes(api, "chat-small")) == 1


@contextlib.asynccontextmanager
async def _fake_model(*replies: Reply) -> AsyncIterator[tuple[FakeLLMServer, LLMProvider]]:
    server = FakeLLMServer("openai", replies)
    await server.start()
    settings = LLMSettings.from_mapping(
        {"provider": "openai", "model": "m", "base_url": server.base_url, "timeout": 2}
    )
    try:
        yield server, PROVIDERS["openai"](settings)
    finally:
        await server.close()


GOOD = orjson.dumps({"summary": "The user moved to Lisbon with Ana.", "importance": 0.9}).decode()


async def test_one_model_call_makes_the_summary_and_the_importance(tmp_path: Path) -> None:
    async with (
        api_client(tmp_path) as api,
        _fake_model(ok_text(f"```json\n{GOOD}\n```")) as (
            server,
            model,
        ),
    ):
        await _say(api, "chat-lisbon", LISBON)
        run = await _run(api, model)
        assert run["stats"]["model_calls"] == 1
        [episode] = await _episodes(api, "chat-lisbon")
        assert (episode["method"], episode["summary"]) == (
            "model",
            "The user moved to Lisbon with Ana.",
        )
        assert episode["importance"] == 0.9
        assert episode["importance_inputs"]["model_importance"] == 0.9
        [request] = server.requests
        system = request.body["messages"][0]["content"]
        assert system == EPISODE_SYSTEM.format(chars=600)
        assert "user: I moved to Lisbon" in request.body["messages"][1]["content"]


async def test_heuristic_scoring_keeps_the_models_summary_but_not_its_score(
    tmp_path: Path,
) -> None:
    async with api_client(tmp_path) as api, _fake_model(ok_text(GOOD)) as (_, model):
        await _say(api, "chat-lisbon", LISBON)
        await _run(api, model, importance_scoring="heuristic")
        [episode] = await _episodes(api, "chat-lisbon")
        assert episode["method"] == "model"
        offline, _ = heuristic_importance([SliceLine(role, text) for role, text in LISBON])
        assert episode["importance"] == offline != 0.9
        assert "model_importance" not in episode["importance_inputs"]


async def test_scoring_off_gives_every_episode_one_half(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api, _fake_model(ok_text(GOOD)) as (_, model):
        await _say(api, "chat-lisbon", LISBON)
        await _say(api, "chat-small", SMALL_TALK)
        await _run(api, importance_scoring="off")  # offline: the heuristic is not asked
        await _say(api, "chat-model", LISBON)
        await _run(api, model, importance_scoring="off")  # nor the model's 0.9
        for conversation in ("chat-lisbon", "chat-small", "chat-model"):
            [episode] = await _episodes(api, conversation)
            assert episode["importance"] == 0.5, conversation
        assert episode["summary"] == "The user moved to Lisbon with Ana."


async def test_a_malformed_answer_falls_back_to_the_offline_episode(tmp_path: Path) -> None:
    bad = ok_text('{"summary": "The user moved.", "importance": 7}')  # out of [0, 1]
    async with api_client(tmp_path) as api, _fake_model(bad, Reply(status=500)) as (_, model):
        await _say(api, "chat-a", LISBON)
        await _say(api, "chat-b", LISBON)
        run = await _run(api, model)
        assert run["stats"]["episodes"] == 2
        a, b = (await _episodes(api, "chat-a"))[0], (await _episodes(api, "chat-b"))[0]
        assert (a["method"], b["method"]) == ("extractive", "extractive")
        assert "I moved to Lisbon" in a["summary"]
        fallbacks = {a["importance_inputs"]["fallback"], b["importance_inputs"]["fallback"]}
        assert "unusable_answer" in fallbacks
        assert any(f.startswith("model_error") for f in fallbacks)
        assert any("unusable answer" in e for e in run["stats"]["errors"])


async def test_a_refused_call_falls_back_to_the_offline_episode(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api, _fake_model(ok_text(GOOD)) as (server, model):
        await _say(api, "chat-a", LISBON)
        await _say(api, "chat-b", LISBON)
        run = await _run(api, model, daily_calls=1)
        assert len(server.requests) == 1
        assert run["stats"]["model_calls_refused"] == 1
        methods = sorted([(await _episodes(api, c))[0]["method"] for c in ("chat-a", "chat-b")])
        assert methods == ["extractive", "model"]
        [offline] = [
            e
            for c in ("chat-a", "chat-b")
            for e in await _episodes(api, c)
            if e["method"] == "extractive"
        ]
        assert offline["importance_inputs"]["fallback"] == "budget"


def test_parse_episode_takes_only_the_promised_json() -> None:
    assert parse_episode('{"summary": " a  b ", "importance": 1}') is not None
    for text in (
        None,
        "no json",
        '{"summary": "", "importance": 0.5}',
        '{"summary": "x", "importance": "high"}',
        '{"summary": "x", "importance": true}',
        '{"summary": "x", "importance": -0.1}',
        '["summary"]',
    ):
        assert parse_episode(text) is None, text


async def test_promotion_validates_an_episode_a_fact_drawn_from_it_vouches_for(
    tmp_path: Path,
) -> None:
    async with api_client(tmp_path) as api:
        lisbon = await _say(api, "chat-lisbon", LISBON)
        await _say(api, "chat-small", SMALL_TALK)
        await _run(api)
        status, fact = await api.call(
            "POST",
            "/v1/facts",
            {"text": "The user lives in Lisbon", "source_message_ids": [lisbon[2]]},
        )
        assert status == 201, fact
        run = await _run(api)
        [validated] = [a for a in run["actions"] if a["action"] == "episode_validated"]
        assert validated["fact_ids"] == [fact["fact_id"]]
        [episode] = await _episodes(api, "chat-lisbon")
        assert (episode["status"], episode["validated_by"]) == (
            "active",
            "consolidation:promotion",
        )
        [small] = await _episodes(api, "chat-small")
        assert small["status"] == "quarantined"  # no fact was drawn from its messages


def _reflections(run: dict[str, Any]) -> list[dict[str, Any]]:
    return [a for a in run["actions"] if a["action"] == "reflection"]


@pytest.mark.parametrize(
    ("importances", "fires"),
    [((1.0, 1.0, 1.0), True), ((1.0, 1.0, 0.9), False), ((0.5,) * 6, True)],
)
async def test_reflection_fires_once_the_episodes_importance_reaches_3(
    tmp_path: Path, importances: tuple[float, ...], fires: bool
) -> None:
    async with api_client(tmp_path) as api:
        await _fact(api, "Yara hikes every Saturday", importance=1.0)  # facts no longer count
        await _fact(api, "Yara owns a kayak", importance=1.0)
        await _fact(api, "Yara camps in summer", importance=1.0)
        ids = await episodes_written(api, *importances)
        model = ScriptedProvider(fn=_model)
        run = await _deep(api, model)
        assert run["stats"]["importance_since_reflection"] == pytest.approx(sum(importances))
        if not fires:
            assert not _reflections(run)
            assert not [r for r in model.requests if "questions" in r.system]
            return
        [fired] = _reflections(run)
        assert fired["episode_ids"] == ids
        assert fired["importance_sum"] == pytest.approx(3.0)
        assert (fired["threshold"], fired["reason"]) == (3.0, "threshold")
        listed = await _episodes_of(api)
        assert {e["reflected_run_id"] for e in listed} == {run["run_id"]}
        # used: the next run starts from zero
        again = await _deep(api, ScriptedProvider(fn=_model))
        assert not _reflections(again)
        assert again["stats"]["importance_since_reflection"] == 0


async def _episodes_of(api: Api) -> list[dict[str, Any]]:
    status, body = await api.call("GET", "/v1/episodes")
    assert status == 200, body
    found: list[dict[str, Any]] = body["episodes"]
    return found


async def test_episodes_formed_by_the_same_run_count_towards_reflection(tmp_path: Path) -> None:
    answer = orjson.dumps({"summary": "Yara changed her life.", "importance": 0.8}).decode()

    def model(request: CompletionRequest) -> str:
        return answer if request.system.startswith("Summarise") else _model(request)

    async with api_client(tmp_path) as api:
        await _fact(api, "Yara hikes every Saturday")
        for n in range(4):  # four slices of 0.8: 3.2
            await _say(api, f"chat-{n}", LISBON)
        run = await _deep(api, ScriptedProvider(fn=model))
        formed = [a["episode_id"] for a in run["actions"] if a["action"] == "episode"]
        assert len(formed) == 4
        [fired] = _reflections(run)
        assert sorted(fired["episode_ids"]) == sorted(formed)
        assert fired["importance_sum"] == pytest.approx(3.2)


async def test_a_forks_slice_is_its_own_messages(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        parent = await _say(api, "chat-main", LISBON * 40)  # more than a page to look through
        status, forked = await api.call("POST", "/v1/conversations/chat-main/fork", {})
        assert status == 201, forked
        fork = forked["conversation_id"]
        own = await _say(api, fork, SMALL_TALK)
        await _run(api)  # at most 40 messages an episode: the fork's come after 240 inherited
        [episode] = await _episodes(api, fork)
        assert episode["message_ids"] == own
        [main] = await _episodes(api, "chat-main")
        assert main["message_ids"] == parent[:40]
