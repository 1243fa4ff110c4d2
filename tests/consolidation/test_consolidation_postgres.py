"""Consolidation on PostgreSQL: the projection folds, plans apply, runs take the lease,
episodes are formed, validated and found, blocks and the profile are read and written."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient, TestServer

from daemon.api.keys import CONSOLIDATION, STATE
from daemon.api.state import AppSettings
from daemon.app import build_app
from daemon.backend import Backend
from daemon.consolidation.service import LEASE_NAME
from events.clock import ManualClock
from events.consolidation_events import lease_stream
from tests.api_fixtures import T0, Api


async def _scenario(tmp_path: Path, url: str) -> None:
    clock = ManualClock(T0)
    settings = AppSettings(
        backend=Backend(data_dir=tmp_path, database_url=url),
        tcp_requires_token=False,
        projector="inline",
    )
    app = build_app(settings, clock=clock)
    async with TestClient(TestServer(app)) as client:
        await asyncio.wait_for(app[STATE].ready.wait(), 20)
        api = Api(client, clock)

        async def fact(text: str, **extra: Any) -> str:
            status, body = await api.call("POST", "/v1/facts", {"text": text, **extra})
            assert status == 201, body
            fact_id: str = body["fact_id"]
            return fact_id

        a = await fact("Vera plays the oboe")
        status, dup = await api.call("POST", "/v1/facts", {"text": "vera plays the OBOE"})
        assert status == 200
        assert dup["fact_id"] == a
        b = await fact("vera plays the oboe!", dedupe=False)
        old = await fact("Vera's old locker code is 1234", importance=0.0)
        clock.advance(timedelta(days=150))
        _, plan = await api.call("POST", "/v1/consolidation/analyze", {"stale_days": 100})
        status, result = await api.call(
            "POST", f"/v1/consolidation/plans/{plan['plan_id']}/apply", {}
        )
        assert status == 200, result
        assert len(result["applied"]) == 2
        _, fa = await api.call("GET", f"/v1/facts/{a}")
        _, fb = await api.call("GET", f"/v1/facts/{b}")
        assert fa["superseded_by"] == fb["superseded_by"] is not None
        _, log = await api.call("GET", "/v1/consolidation/log")
        assert {e["action"] for e in log["entries"]} == {"merge", "archive", "reinforce"}
        _, listed = await api.call("GET", "/v1/facts")
        assert old not in {f["fact_id"] for f in listed["facts"]}
        _, listed = await api.call("GET", "/v1/facts?include_archived=true")
        assert old in {f["fact_id"] for f in listed["facts"]}
        service = app[CONSOLIDATION]
        held = await service.leases.acquire(LEASE_NAME, "elsewhere", timedelta(minutes=1))
        assert held is not None
        status, _ = await api.call("POST", "/v1/consolidation/run", {})
        assert status == 409
        await service.leases.release(held)
        status, run = await api.call("POST", "/v1/consolidation/run", {})
        assert status == 200, run
        assert run["status"] == "completed"
        # the run took the namespace's turn: its fencing stream moved once
        assert await service.store.stream_version("default", lease_stream("default")) == 1
        # episodes: formed by the standard phase, validated, found
        for text in ("I moved to Lisbon with Ana.", "Nice!", "My job is in Alfama now.", "ok"):
            body = {"role": "user", "content": text}
            status, _ = await api.call("POST", "/v1/conversations/c1/messages", body)
            assert status == 201
        _, run = await api.call("POST", "/v1/consolidation/run", {"phases": ["standard"]})
        assert run["stats"]["episodes"] == 1, run
        _, listed = await api.call("GET", "/v1/episodes")
        [episode] = listed["episodes"]
        status, _ = await api.call("POST", f"/v1/episodes/{episode['episode_id']}/validate")
        assert status == 200
        _, found = await api.call("POST", "/v1/episodes/search", {"query": "Lisbon"})
        assert [e["episode_id"] for e in found["episodes"]] == [episode["episode_id"]]
        # blocks and the profile read and write the same on PostgreSQL
        status, _ = await api.call("PUT", "/v1/blocks/learned_context", {"text": "Plays oboe."})
        assert status == 200
        _, history = await api.call("GET", "/v1/blocks/learned_context/history")
        assert history["history"][0]["text"] == "Plays oboe."
        _, profile = await api.call("GET", "/v1/profile")
        assert fb["superseded_by"] in profile["topics"][0]["fact_ids"]
        status, context = await api.call("POST", "/v1/context", {"conversation_id": "c"})
        assert status == 200, context
        assert context["profile"]


def test_consolidation_on_postgres(pg_url: str, tmp_path: Path) -> None:
    asyncio.run(_scenario(tmp_path, pg_url))
