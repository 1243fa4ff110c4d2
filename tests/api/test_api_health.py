"""Health is 503 until the projections caught up; metrics in the Prometheus text format."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient, TestServer
from sqlalchemy.ext.asyncio import AsyncEngine

from daemon.api.keys import STATE
from daemon.api.state import AppSettings
from daemon.app import build_app
from daemon.backend import Backend
from events.store.base import EventStore
from projections.runner import ProjectionRunner
from tests.api_fixtures import api_client


class GatedRunner(ProjectionRunner):
    """A runner whose first catch-up waits for the test to open the gate."""

    gate: asyncio.Event

    def __init__(self, store: EventStore, engine: AsyncEngine) -> None:
        super().__init__(store, engine)
        self.gate = asyncio.Event()
        GatedRunner.last = self

    last: GatedRunner | None = None

    async def catch_up(self, *args: Any, **kwargs: Any) -> int:
        await self.gate.wait()
        return await super().catch_up(*args, **kwargs)


async def test_not_ready_until_caught_up(tmp_path: Path) -> None:
    settings = AppSettings(backend=Backend(tmp_path), tcp_requires_token=False, projector="inline")
    app = build_app(settings, runner_factory=GatedRunner)
    async with TestClient(TestServer(app)) as client:
        resp = await client.get("/v1/health")
        assert resp.status == 503
        body = await resp.json()
        assert body["error"]["code"] == "not_ready"
        assert body["error"]["details"]["status"] == "starting"
        assert resp.headers["Retry-After"] == "1"
        resp = await client.get("/v1/facts")
        assert resp.status == 503
        resp = await client.post(
            "/v1/conversations/c/messages", json={"role": "user", "content": "early"}
        )
        assert resp.status == 503
        assert GatedRunner.last is not None
        GatedRunner.last.gate.set()
        await asyncio.wait_for(app[STATE].ready.wait(), 10)
        resp = await client.get("/v1/health")
        assert resp.status == 200
        health = await resp.json()
        assert health == {
            "status": "ok",
            "last_position": 0,
            "projection_position": 0,
            "projection_lag": 0,
            "version": health["version"],
        }


async def test_metrics_count_requests_appends_and_lag(tmp_path: Path) -> None:
    async with api_client(tmp_path) as api:
        for _ in range(3):
            await api.call("POST", "/v1/conversations/c/messages", {"role": "user", "content": "x"})
        await api.call("POST", "/v1/conversations/c/messages", {"role": "nobody"})
        await api.call("GET", "/v1/nowhere")
        status, text = await api.call("GET", "/metrics")
        assert status == 200
        lines = set(text.splitlines())
        route = "/v1/conversations/{cid}/messages"
        assert (
            f'memoryd_http_requests_total{{route="{route}",method="POST",status="201"}} 3' in lines
        )
        assert (
            f'memoryd_http_requests_total{{route="{route}",method="POST",status="400"}} 1' in lines
        )
        assert 'memoryd_http_requests_total{route="unmatched",method="GET",status="404"} 1' in lines
        assert 'memoryd_events_appended_total{event_type="MessageAppended"} 3' in lines
        assert (
            f'memoryd_http_request_duration_seconds_count{{route="{route}",method="POST"}} 4'
            in lines
        )
        assert any(
            line.startswith(
                f'memoryd_http_request_duration_seconds_bucket{{route="{route}",method="POST",le="+Inf"}}'
            )
            for line in lines
        )
        assert "memoryd_log_head_position 3" in lines
        assert "# TYPE memoryd_projection_lag_events gauge" in lines
        lag = next(line for line in lines if line.startswith("memoryd_projection_lag_events "))
        assert int(lag.split()[1]) >= 0


async def test_slow_request_gets_a_timeout_error(tmp_path: Path) -> None:
    async with api_client(tmp_path, request_timeout=1e-9) as api:
        status, body = await api.call("GET", "/v1/facts")
        assert (status, body["error"]["code"]) == (503, "timeout")
        assert body["error"]["details"] == {"timeout_seconds": 1e-9}
