"""The standard phase's extraction: a consolidation run asks the retrospective service (its
manual trigger) for a run of each conversation with unreviewed messages, records the requests,
and the next run reconciles the facts those retrospectives wrote."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from daemon.api.keys import CONSOLIDATION
from daemon.config import ConsolidationConfig
from daemon.consolidation.service import ConsolidationService
from tests.api_fixtures import Api, retrospective_api
from tests.retrospective.test_retrospective_api import _state_when


@pytest.fixture
async def api(tmp_path: Path) -> AsyncIterator[Api]:
    async with retrospective_api(tmp_path) as api:
        yield api


def _runs(body: dict[str, Any]) -> list[str]:
    return [r["status"] for r in body["runs"]]


async def test_standard_phase_requests_retrospectives_of_unreviewed_conversations(
    api: Api,
) -> None:
    service: ConsolidationService = api.client.app[CONSOLIDATION]
    service.config = dataclasses.replace(ConsolidationConfig(), tier="cheap")
    status, _ = await api.call(
        "POST", "/v1/conversations/c1/messages", {"role": "user", "content": "I live in Lyon."}
    )
    assert status == 201
    await _state_when(api, "c1", lambda b: _runs(b) == ["succeeded"])
    # A second message is left unreviewed: no automatic trigger is due yet.
    status, _ = await api.call(
        "POST", "/v1/conversations/c1/messages", {"role": "user", "content": "I work in Paris."}
    )
    assert status == 201
    # Only an assistant message: the manual trigger would skip it, so nothing is requested.
    status, _ = await api.call(
        "POST", "/v1/conversations/c2/messages", {"role": "assistant", "content": "Hello!"}
    )
    assert status == 201
    api.clock.advance(timedelta(minutes=10))  # past the manual cooldown
    status, run = await api.call("POST", "/v1/consolidation/run", {})
    assert status == 200, run
    [action] = [a for a in run["actions"] if a["action"] == "retrospective"]
    [request] = action["requests"]
    assert request["conversation_id"] == "c1"
    assert request["action"] == "schedule"
    assert run["stats"]["retrospectives_requested"] == 1
    body = await _state_when(api, "c1", lambda b: _runs(b) == ["succeeded", "succeeded"])
    assert body["runs"][0]["run_id"] == request["run_id"]
    assert body["runs"][0]["trigger"] == "manual"
    # Nothing left unreviewed: the next run requests nothing.
    _, again = await api.call("POST", "/v1/consolidation/run", {})
    assert not [a for a in again["actions"] if a["action"] == "retrospective"]
