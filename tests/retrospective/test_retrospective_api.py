"""The retrospective routes and the daemon wiring (service start, reload, metrics)."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from daemon.api.keys import RETROSPECTIVE, STATE
from daemon.api.state import AppSettings
from daemon.app import build_app
from daemon.backend import Backend
from daemon.config import ConfigError, load_config
from daemon.services.retrospective import build_provider, install_retrospective
from events.clock import ManualClock
from plugins.registry import default_plugins
from tests.api_fixtures import T0, Api, ManualConfigSource


@pytest.fixture
async def api(tmp_path: Path) -> AsyncIterator[tuple[Api, ManualConfigSource]]:
    config = load_config(None, env={}, overrides={"storage.data_dir": str(tmp_path)})
    watcher = ManualConfigSource(config)
    clock = ManualClock(T0)
    app = build_app(
        AppSettings(
            backend=Backend(data_dir=tmp_path), tcp_requires_token=False, projector="inline"
        ),
        clock=clock,
    )
    install_retrospective(app, watcher)
    async with TestClient(TestServer(app)) as client:
        await asyncio.wait_for(app[STATE].ready.wait(), 10)
        holder = app[RETROSPECTIVE]
        for _ in range(500):
            if holder.service is not None:
                break
            await asyncio.sleep(0.01)
        assert holder.service is not None
        yield Api(client, clock), watcher


async def _state_when(api: Api, cid: str, check: Callable[[dict[str, Any]], bool]) -> Any:
    for _ in range(500):
        status, body = await api.call("GET", f"/v1/conversations/{cid}/retrospective")
        assert status == 200
        if check(body):
            return body
        await asyncio.sleep(0.02)
    raise AssertionError(f"state not reached: {body}")


async def test_message_triggers_a_run_visible_over_http(
    api: tuple[Api, ManualConfigSource],
) -> None:
    client, _ = api
    status, _ = await client.call(
        "POST", "/v1/conversations/c1/messages", {"role": "user", "content": "I live in Lyon."}
    )
    assert status == 201
    body = await _state_when(
        client, "c1", lambda b: [r["status"] for r in b["runs"]] == ["succeeded"]
    )
    assert body["remembered"] == ["The user lives in Lyon."]
    assert body["cursor"] is not None
    assert body["last_attempt_at"] is not None
    assert body["last_success_at"] is not None
    [run] = body["runs"]
    assert (run["trigger"], run["facts_written"]) == ("interval", 1)
    status, facts = await client.call("GET", "/v1/facts?include_quarantined=true")
    assert status == 200
    assert [f["text"] for f in facts["facts"]] == ["The user lives in Lyon."]
    status, service = await client.call("GET", "/v1/retrospective")
    assert status == 200
    assert service["counters"]["succeeded"] == 1
    assert service["provider"] == "offline-extractor"
    status, metrics = await client.call("GET", "/metrics")
    assert "memoryd_retrospective_succeeded_total 1" in metrics


async def test_manual_run_unknown_and_kill_switch_reload(
    api: tuple[Api, ManualConfigSource],
) -> None:
    client, watcher = api
    status, body = await client.call("POST", "/v1/conversations/nope/retrospective:run")
    assert (status, body["error"]["code"]) == (404, "not_found")
    status, body = await client.call("GET", "/v1/conversations/nope/retrospective")
    assert status == 404
    status, _ = await client.call(
        "POST", "/v1/conversations/c2/messages", {"role": "assistant", "content": "Hello!"}
    )
    assert status == 201
    body = await _state_when(client, "c2", lambda b: True)
    assert body["runs"] == []  # no user activity: nothing fired
    status, body = await client.call("POST", "/v1/conversations/c2/retrospective:run")
    assert status == 202
    assert (body["action"], body["reason"]) == ("skip", "no_user_activity")
    new = dataclasses.replace(
        watcher.current,
        retrospective=dataclasses.replace(watcher.current.retrospective, enabled=False),
    )
    await watcher.reload(new)
    # The switch stops automatic runs; a request is a person asking, and is still answered.
    status, body = await client.call("POST", "/v1/conversations/c2/retrospective:run")
    assert (status, body["action"], body["reason"]) == (202, "skip", "no_user_activity")


async def test_a_run_that_waits_is_bounded_by_its_own_timeout(
    api: tuple[Api, ManualConfigSource],
) -> None:
    client, _ = api
    body = {"role": "user", "content": "I live in Lyon."}
    status, _ = await client.call("POST", "/v1/conversations/c3/messages", body)
    assert status == 201
    await _state_when(client, "c3", lambda b: True)
    app = client.client.app
    assert app is not None
    state = app[STATE]
    # A request timeout of 1 ms would cut the wait short with 503 timeout; the run's own
    # `timeout` (up to 600 s) bounds it instead.
    state.settings = dataclasses.replace(state.settings, request_timeout=0.001)
    status, run = await client.call(
        "POST", "/v1/conversations/c3/retrospective:run", {"wait": True, "timeout": 60}
    )
    assert status == 200, run
    assert run["finished"] is True


@pytest.mark.parametrize("provider", ["none", "openai", "anthropic"])
def test_llm_section_builds_the_provider_with_its_budget(provider: str) -> None:
    overrides: dict[str, object] = {"llm.provider": provider}
    if provider != "none":
        overrides.update({"llm.model": "m1", "llm.budget.calls_per_day": 5})
    config = load_config(None, env={}, overrides=overrides)
    choice = build_provider(default_plugins(), config.llm, ManualClock(T0).now)
    if provider == "none":
        assert choice.provider.name == "offline-extractor"
        assert choice.budget is None
    else:
        assert (choice.provider.name, choice.provider.model) == (provider, "m1")
        assert choice.budget is not None
        assert choice.budget.settings.calls_per_day == 5


async def test_trust_and_auto_promote_from_config_and_reload(
    api: tuple[Api, ManualConfigSource],
) -> None:
    """The user's own statements are active by default; with the trust policy off they are
    quarantined; auto_promote makes every fact active but one flagged as a possible prompt
    injection, which stays quarantined regardless."""
    client, watcher = api
    say = "POST", "/v1/conversations/{}/messages"

    async def remember(cid: str, text: str, runs: list[str]) -> None:
        status, _ = await client.call(say[0], say[1].format(cid), {"role": "user", "content": text})
        assert status == 201
        await _state_when(client, cid, lambda b: [r["status"] for r in b["runs"]] == runs)

    await remember("c0", "I speak Welsh.", ["succeeded"])
    untrusting = dataclasses.replace(
        watcher.current,
        memory=dataclasses.replace(watcher.current.memory, trust_user_statements=False),
    )
    await watcher.reload(untrusting)
    await remember("c1", "I live in Lyon.", ["succeeded"])
    new = dataclasses.replace(
        watcher.current,
        retrospective=dataclasses.replace(watcher.current.retrospective, auto_promote=True),
    )
    await watcher.reload(new)
    await remember("c2", "I work as a baker.", ["succeeded"])
    await remember("c3", "My favourite book is the system prompt.", ["succeeded"])
    status, body = await client.call("GET", "/v1/facts?include_quarantined=true")
    assert status == 200
    by_text = {f["text"]: f for f in body["facts"]}
    assert by_text["The user speaks Welsh."]["status"] == "active"
    assert by_text["The user lives in Lyon."]["status"] == "quarantined"
    assert by_text["The user works as a baker."]["status"] == "active"
    flagged_texts = [t for t in by_text if "system prompt" in t]
    assert len(flagged_texts) == 1, sorted(by_text)
    flagged = by_text[flagged_texts[0]]
    assert flagged["status"] == "quarantined"
    assert "injection-suspect" in flagged["tags"]


def test_auto_promote_key_parses_and_env_overrides(tmp_path: Path) -> None:
    assert load_config(None, env={}).retrospective.auto_promote is False
    env = {"MEMORYD_RETROSPECTIVE__AUTO_PROMOTE": "on"}
    assert load_config(None, env=env).retrospective.auto_promote is True
    path = tmp_path / "memoryd.toml"
    path.write_text('[retrospective]\nauto_promote = "yes"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"retrospective\.auto_promote: must be true or false"):
        load_config(path, env={})


async def test_ingest_gate_and_model_choice_follow_reloads(
    api: tuple[Api, ManualConfigSource],
) -> None:
    client, watcher = api
    app = client.client.app
    assert app is not None
    service = app[RETROSPECTIVE].service
    assert service is not None
    gate = service._settings.ingest_gate
    assert gate is not None
    assert gate.name == "default"
    new = load_config(
        None,
        env={},
        overrides={
            "storage.data_dir": str(watcher.current.storage.data_dir),
            "consolidation.ingest_gate": "noise",
            "consolidation.noise_filters": "minimal",
            "llm.provider": "openai",
            "llm.model": "m",
            "llm.api_key_env": "",
            "consolidation.cheap_model": "small-m",
        },
    )
    await watcher.reload(new)
    gate = service._settings.ingest_gate
    assert gate is not None
    assert gate.name == "noise"
    assert service._settings.noise_filters == "minimal"
    assert service.provider.model == "small-m"  # what RetrospectiveStarted records
    cheaper = dataclasses.replace(
        new, consolidation=dataclasses.replace(new.consolidation, cheap_model="tiny-m")
    )
    await watcher.reload(cheaper)
    assert service.provider.model == "tiny-m"
