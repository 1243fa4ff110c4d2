"""What the agents receive from a run (priority facts, graph metrics, neighbours, recent
episodes), the health agent's structural audit (with and without a model), and the split
agent: one call per item, at most ``llm_concurrency`` at once, answers applied in item
order, a spent budget stopping it between items. The model is a scripted OpenAI-compatible
server on loopback."""

from __future__ import annotations

import dataclasses
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

from daemon.api.keys import CONSOLIDATION
from daemon.config import ConsolidationConfig
from events.consolidation_events import FactLinked, ReviewItemQueued
from tests.api_fixtures import Api, api_client
from tests.consolidation.test_consolidation_deep import _fact
from tests.consolidation_fixtures import an_episode, append_episodes, append_events
from tests.llm_fakes import FakeLLMServer, Reply, openai_provider

_FACT_LINE = re.compile(r"^(F\d+): (.*?)(?: \[|$)")


def _shown(body: dict[str, Any]) -> tuple[str, str]:
    """Return (system prompt, user message) of a recorded OpenAI request."""
    messages = body["messages"]
    return messages[0]["content"], messages[-1]["content"]


def _keys(user: str) -> dict[str, str]:
    """Return fact text -> key as the user message shows them."""
    out = {}
    for line in user.splitlines():
        m = _FACT_LINE.match(line)
        if m:
            out[m.group(2)] = m.group(1)
    return out


def _line(user: str, key: str) -> str:
    [line] = [x for x in user.splitlines() if x.startswith(f"{key}: ")]
    return line


def _request_of(server: FakeLLMServer, agent: str) -> tuple[str, str]:
    found = [_shown(r.body) for r in server.requests]
    [hit] = [(s, u) for s, u in found if f"memoryd's {agent} agent" in s]
    return hit


async def _link(api: Api, a: str, b: str, kind: str = "related") -> None:
    await append_events(
        api, FactLinked(fact_id=a, other_fact_id=b, at=api.clock.now(), kind=kind, by="test")
    )


def _use_model(api: Api, server: FakeLLMServer, **config: Any) -> None:
    service = api.client.app[CONSOLIDATION]
    service.provider = openai_provider(server)
    service.config = dataclasses.replace(ConsolidationConfig(), tier="standard", **config)


async def _run(api: Api) -> dict[str, Any]:
    status, run = await api.call("POST", "/v1/consolidation/run", {})
    assert status == 200, run
    assert run["status"] == "completed", run
    return dict(run)


async def test_agents_see_priority_facts_metrics_neighbours_and_episodes(
    tmp_path: Path, openai_fake: FakeLLMServer
) -> None:
    async with api_client(tmp_path) as api:
        porto = await _fact(api, "Kim lives in Porto", importance=0.1)
        cello = await _fact(api, "Kim plays the cello", importance=0.9)
        cat = await _fact(api, "Kim owns a grey cat", importance=0.3)
        band = await _fact(api, "Kim joined a string quartet", importance=0.6)
        await _link(api, cello, porto)
        await _link(api, cello, band, "cites")
        await _link(api, band, porto)
        await append_episodes(
            api,
            an_episode("Kim talked about the quartet's first concert", 0.8, api.clock.now()),
        )
        openai_fake.responder = lambda body: Reply(text="")
        _use_model(api, openai_fake, agents=("linker", "transfer"))
        await _run(api)

        system, user = _request_of(openai_fake, "linker")
        keys = _keys(user)
        # the most salient first: equal age and trust, so by importance
        assert list(keys) == [
            "Kim plays the cello",
            "Kim joined a string quartet",
            "Kim owns a grey cat",
            "Kim lives in Porto",
        ]
        c, b, p = (
            keys["Kim plays the cello"],
            keys["Kim joined a string quartet"],
            keys["Kim lives in Porto"],
        )
        line = _line(user, c)
        # a triangle: every neighbour pair is linked
        assert "[degree: 2, clustering: 1.00, links: cites 1, related 1, component: 3]" in line
        assert f"{b} (linked:cites 1.00)" in line
        assert f"{p} (linked:related 1.00)" in line
        assert "[degree: 0, clustering: 0.00, links: none, component: 1]" in _line(
            user, keys["Kim owns a grey cat"]
        )
        assert "[salience: " in line
        assert "neighbours" in system or "neighbours" in user
        assert all(fact_id not in user for fact_id in (porto, cello, cat, band))
        assert "quartet's first concert" not in user  # the linker is not shown episodes

        _, transfer = _request_of(openai_fake, "transfer")
        assert "Recent episodes (newest first):" in transfer
        day = api.clock.now().date().isoformat()
        assert f"- {day} (importance 0.80): Kim talked about the quartet's first concert" in (
            transfer
        )
        assert "degree:" not in transfer  # the transfer agent is not shown the graph


async def _unhealthy_memory(api: Api) -> dict[str, Any]:
    """Write a namespace with one of each finding; return the ids by role."""
    stale = await _fact(api, "Noa once visited Tromso")
    api.clock.advance(timedelta(days=3))
    hub = await _fact(api, "Noa is a software engineer", importance=0.9)
    spokes = [
        await _fact(api, text)
        for text in (
            "Noa writes Rust at work",
            "Noa leads a team of four",
            "Noa works remotely on Fridays",
            "Noa mentors two interns",
            "Noa reviews code every morning",
            "Noa gives talks on databases",
        )
    ]
    for spoke in spokes:
        await _link(api, hub, spoke)
    twin = await _fact(api, "Noa drinks green tea every single morning")
    twin2 = await _fact(api, "Noa drinks green tea every single morning!")
    await _link(api, twin, twin2)  # linked, and still near-duplicates
    lonely = await _fact(api, "Noa has a brother called Eli")
    quarantined = await _fact(api, "Noa might move to Bergen", provenance="tool")
    a = await _fact(api, "Noa is 31 years old")
    b = await _fact(api, "Noa is 33 years old")
    await append_events(
        api,
        ReviewItemQueued(
            item_id="rev-open",
            at=api.clock.now(),
            agent="reconcile",
            action={"verb": "CONFLICT", "texts": ["ages"], "fact_ids": [a, b]},
        ),
    )
    return {
        "stale": stale,
        "hub": hub,
        "twins": sorted([twin, twin2]),
        "lonely": lonely,
        "quarantined": quarantined,
        "conflict": [a, b],
    }


async def test_the_health_agent_audits_the_graph_without_a_model(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        ids = await _unhealthy_memory(api)
        service = api.client.app[CONSOLIDATION]
        assert service.provider is None
        service.config = dataclasses.replace(
            ConsolidationConfig(), tier="standard", agents=("health",), stale_days=2.0
        )
        run = await _run(api)
        [found] = [a for a in run["actions"] if a["action"] == "health_audit"]
        assert found["inputs"]["facts"] == 14
        assert found["inputs"]["links"] == 7
        assert found["inputs"]["stale_days"] == 2.0
        assert found["hubs"]["fact_ids"] == [ids["hub"]]
        assert found["hubs"]["min_degree"] == 5
        assert ids["lonely"] in found["isolated"]["fact_ids"]
        assert found["isolated"]["count"] == 14 - 9
        assert ids["hub"] not in found["isolated"]["fact_ids"]
        assert [sorted(c) for c in found["near_duplicate_clusters"]["clusters"]] == [ids["twins"]]
        assert found["unresolved_contradictions"]["items"] == [
            {"item_id": "rev-open", "fact_ids": ids["conflict"]}
        ]
        assert found["quarantined_never_recalled"]["fact_ids"] == [ids["quarantined"]]
        assert found["stale"]["fact_ids"] == [ids["stale"]]
        assert run["stats"]["health_findings"] == 1 + 5 + 1 + 1 + 1 + 1
        assert run["stats"].get("model_calls", 0) == 0

        # the run's event records it, with the inputs that decided it
        _, log = await api.call("GET", "/v1/events?after=0&limit=1000")
        [done] = [
            e["data"] for e in log["events"] if e["event_type"] == "ConsolidationRunCompleted"
        ]
        [logged] = [a for a in done["actions"] if a["action"] == "health_audit"]
        assert logged == found


async def test_the_health_agent_shows_the_model_the_structure(
    tmp_path: Path, openai_fake: FakeLLMServer
) -> None:
    async with api_client(tmp_path) as api:
        ids = await _unhealthy_memory(api)
        openai_fake.responder = lambda body: Reply(text='NOTE "Noa\'s profile hangs off one hub"')
        _use_model(api, openai_fake, agents=("health",), stale_days=2.0)
        run = await _run(api)
        system, user = _request_of(openai_fake, "health")
        assert "over-connected hubs" in system
        assert "Memory graph: 14 facts, 7 links, 7 components (largest 7), 5 isolated" in user
        assert "Audit findings: hubs 1, isolated 5, near_duplicate_clusters 1" in user
        # the facts the audit flagged come first, the healthy spokes of the hub last
        assert set(list(_keys(user))[-6:]) == {
            "Noa writes Rust at work",
            "Noa leads a team of four",
            "Noa works remotely on Fridays",
            "Noa mentors two interns",
            "Noa reviews code every morning",
            "Noa gives talks on databases",
        }
        hub_line = _line(user, _keys(user)["Noa is a software engineer"])
        assert "[audit: hub]" in hub_line
        assert "degree: 6" in hub_line
        assert "[audit: isolated, stale]" in _line(user, _keys(user)["Noa once visited Tromso"])
        notes = [a for a in run["actions"] if a["action"] == "note"]
        assert notes == [
            {"action": "note", "text": "Noa's profile hangs off one hub", "agent": "health"}
        ]
        assert ids


_PAIRS = (
    ("Ori grows tomatoes", "Ori grows basil"),
    ("Ori runs marathons", "Ori runs in the park"),
    ("Ori reads sci-fi", "Ori reads poetry"),
)


async def _linked_pairs(api: Api) -> list[str]:
    """Write three linked pairs, importance falling with the order written; return the ids."""
    ids = []
    importance = 1.0
    for first, second in _PAIRS:
        a = await _fact(api, first, importance=importance)
        b = await _fact(api, second, importance=importance - 0.05)
        importance -= 0.2
        await _link(api, a, b)
        ids += [a, b]
    return ids


def _split_answers(body: dict[str, Any]) -> Reply:
    """Link the item to its first neighbour; the most important items answer slowest, so
    answers come back out of order."""
    _, user = _shown(body)
    keys = _keys(user)
    item = next(iter(keys))
    slow = 0.15 if item.endswith(("tomatoes", "basil")) else 0.02
    return Reply(text="LINK F1 F2 0.9", delay=slow)


async def test_the_split_agent_runs_one_call_per_item_within_llm_concurrency(
    tmp_path: Path, openai_fake: FakeLLMServer
) -> None:
    async with api_client(tmp_path) as api:
        ids = await _linked_pairs(api)
        openai_fake.responder = _split_answers
        _use_model(api, openai_fake, agents=("split",), llm_concurrency=2)
        run = await _run(api)
        assert len(openai_fake.requests) == 6  # one per fact: each has a neighbour
        assert openai_fake.max_in_flight == 2
        for request in openai_fake.requests:
            _, user = _shown(request.body)
            assert len(_keys(user)) == 2  # the item and its neighbour
            assert "Neighbouring facts" in user
        links = [a["fact_ids"] for a in run["actions"] if a["action"] == "link"]
        # merged by item id, whatever order the answers came back in
        assert [item for item, _ in links] == sorted(ids)
        assert run["stats"]["agent_calls"] == 6

        # the same log and the same answers give the same effects, in the same order
        openai_fake.requests.clear()
        again = await _run(api)
        assert [a["fact_ids"] for a in again["actions"] if a["action"] == "link"] == links


async def test_a_spent_budget_stops_the_split_between_items(
    tmp_path: Path, openai_fake: FakeLLMServer
) -> None:
    async with api_client(tmp_path) as api:
        ids = await _linked_pairs(api)
        openai_fake.responder = _split_answers
        _use_model(api, openai_fake, agents=("split",), llm_concurrency=2, daily_calls=3)
        run = await _run(api)
        assert len(openai_fake.requests) == 3
        assert run["stats"]["agent_calls"] == 3
        assert run["stats"]["agent_calls_skipped"] == 3
        assert "budget_exceeded" in run["stats"]
        # the three most salient items were asked (priority order), their links applied
        asked = sorted(next(iter(_keys(_shown(r.body)[1]))) for r in openai_fake.requests)
        assert asked == sorted(["Ori grows tomatoes", "Ori grows basil", "Ori runs marathons"])
        links = [a["fact_ids"][0] for a in run["actions"] if a["action"] == "link"]
        assert links == sorted(ids[:3])


async def test_a_few_unlinked_facts_are_not_reported_isolated(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        for text in ("Pia swims", "Pia paints", "Pia bakes bread"):
            await _fact(api, text)
        service = api.client.app[CONSOLIDATION]
        service.config = dataclasses.replace(ConsolidationConfig(), tier="standard")
        run = await _run(api)
        [found] = [a for a in run["actions"] if a["action"] == "health_audit"]
        assert found["isolated"] == {"count": 0, "fact_ids": []}
        assert found["inputs"]["isolated_among"] == 10
        assert found["inputs"]["facts"] == 3
