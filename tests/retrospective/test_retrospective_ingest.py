"""What reaches the extractor and what becomes a fact: the ingest gate refuses messages
before any extractor sees them, and ``noise_filters`` keeps a remembered greeting,
acknowledgement or tool chatter from becoming a fact; both are recorded on the run."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from daemon.config import ConfigError, config_from_mapping
from plugins.gates.base import GateMessage
from plugins.hookspecs import Register, hookimpl
from plugins.registry import build_plugins
from tests.api_fixtures import Api, retrospective_api
from tests.llm_fakes import FakeLLMServer, remember
from tests.retrospective.test_retrospective_api import _state_when


def _model(fake: FakeLLMServer, **extra: object) -> dict[str, object]:
    return {
        "llm.provider": "openai",
        "llm.model": "m",
        "llm.base_url": fake.base_url,
        "llm.api_key_env": "",
        **extra,
    }


async def _say(api: Api, role: str, text: str) -> str:
    status, body = await api.call(
        "POST", "/v1/conversations/c1/messages", {"role": role, "content": text}
    )
    assert status == 201, body
    message_id: str = body["message_id"]
    return message_id


async def _succeeded(api: Api) -> list[dict[str, Any]]:
    _, body = await api.call("GET", "/v1/events?after=0&limit=1000")
    return [e["data"] for e in body["events"] if e["event_type"] == "RetrospectiveSucceeded"]


def _statuses(body: dict[str, Any]) -> list[str]:
    return [r["status"] for r in body["runs"]]


async def test_a_refused_message_never_reaches_the_extractor(
    tmp_path: Path, openai_fake: FakeLLMServer
) -> None:
    overrides = _model(openai_fake, **{"consolidation.ingest_gate": "noise"})
    async with retrospective_api(tmp_path, overrides) as api:
        thanks = await _say(api, "user", "Thanks so much!")
        await _state_when(api, "c1", lambda b: _statuses(b) == ["succeeded"])
        assert openai_fake.requests == []  # the whole slice was refused: no model call
        [first] = await _succeeded(api)
        assert first["gated"] == [{"message_id": thanks, "reason": "noise: acknowledgement"}]
        assert (first["outcome"], first["calls"]) == ("nothing_new", 0)
        _, service = await api.call("GET", "/v1/retrospective")
        assert service["counters"]["gated"] == 1
        _, metrics = await api.call("GET", "/metrics")
        assert "memoryd_retrospective_gated_total 1" in metrics

        ok = await _say(api, "assistant", "ok")
        await _say(api, "user", "I live in Lyon.")
        openai_fake.push(remember("The user lives in Lyon."))
        api.clock.advance(timedelta(minutes=10))
        status, run = await api.call(
            "POST", "/v1/conversations/c1/retrospective:run", {"wait": True, "timeout": 30}
        )
        assert status == 200, run
        [request] = openai_fake.requests
        sent = str(request.body["messages"])
        assert "I live in Lyon." in sent
        assert "Thanks so much!" not in sent  # not even as context
        assert ok not in sent  # each message is shown as "[its id] role: text"
        assert thanks not in sent
        second = (await _succeeded(api))[-1]
        # the earlier "thanks" is refused again when it is read as context before the slice
        assert {"message_id": ok, "reason": "noise: acknowledgement"} in second["gated"]
        assert {g["message_id"] for g in second["gated"]} <= {ok, thanks}
        assert second["remembered"] == ["The user lives in Lyon."]


async def test_the_default_gate_lets_every_message_through(
    tmp_path: Path, openai_fake: FakeLLMServer
) -> None:
    async with retrospective_api(tmp_path, _model(openai_fake)) as api:
        await _say(api, "user", "Thanks so much!")
        await _state_when(api, "c1", lambda b: _statuses(b) == ["succeeded"])
        [request] = openai_fake.requests
        assert "Thanks so much!" in str(request.body["messages"])
        [run] = await _succeeded(api)
        assert run["gated"] == []


class NoWeatherGate:
    """A third party's gate: small talk about the weather never reaches the extractor."""

    name = "no-weather"

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        self.config = dict(config or {})

    async def refuse(self, message: GateMessage) -> str | None:
        """Refuse a message that mentions the weather."""
        return "weather talk" if "weather" in message.text.lower() else None


@hookimpl
def register_ingest_gates(register: Register) -> None:
    """This module is the third-party plugin: it registers ``no-weather``."""
    register(NoWeatherGate.name, NoWeatherGate)


async def test_a_third_party_gate_chosen_by_config_runs(
    tmp_path: Path, openai_fake: FakeLLMServer
) -> None:
    plugins = build_plugins(entry_points=False, extra_modules=[__name__])
    assert "no-weather" in plugins.names("ingest_gate")
    overrides = _model(openai_fake, **{"consolidation.ingest_gate": "no-weather"})
    openai_fake.push(remember("The user lives in Lyon."))
    async with retrospective_api(tmp_path, overrides, plugins) as api:
        weather = await _say(api, "user", "Lovely weather today.")
        await _say(api, "user", "I live in Lyon.")
        await _state_when(api, "c1", lambda b: _statuses(b) == ["succeeded"])
        [request] = openai_fake.requests
        sent = str(request.body["messages"])
        assert "I live in Lyon." in sent
        assert "Lovely weather" not in sent
        [run] = await _succeeded(api)
        assert run["gated"] == [{"message_id": weather, "reason": "weather talk"}]


async def test_noise_the_extractor_remembers_never_becomes_a_fact(
    tmp_path: Path, openai_fake: FakeLLMServer
) -> None:
    openai_fake.push(remember("Thanks!", "Good morning", "The user lives in Lyon."))
    async with retrospective_api(tmp_path, _model(openai_fake)) as api:
        await _say(api, "user", "Good morning, thanks! I live in Lyon.")
        await _state_when(api, "c1", lambda b: _statuses(b) == ["succeeded"])
        _, facts = await api.call("GET", "/v1/facts?include_quarantined=true")
        assert [f["text"] for f in facts["facts"]] == ["The user lives in Lyon."]
        [run] = await _succeeded(api)
        assert [r["reason"] for r in run["rejected"]] == [
            "noise: acknowledgement",
            "noise: greeting",
        ]


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("oracle", "consolidation.ingest_gate: 'oracle' is not one of the registered ingest gate"),
        ("Noise!", "consolidation.ingest_gate: 'Noise!' is not a plugin name"),
    ],
)
def test_config_check_refuses_an_unknown_gate(value: str, says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        config_from_mapping({"consolidation": {"ingest_gate": value}})
