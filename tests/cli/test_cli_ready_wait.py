"""A command run while the daemon is still starting a part of itself waits, within bounds."""

from __future__ import annotations

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from daemon.cli.client_cmd import ApiClient, ApiFailure

NOT_READY = {"error": {"code": "not_ready", "message": "starting", "details": {}}}


async def _server(answers: list[int]) -> TestServer:
    async def handler(request: web.Request) -> web.Response:
        status = answers.pop(0) if answers else 200
        if status == 503:
            return web.json_response(NOT_READY, status=503)
        return web.json_response({"ok": True})

    app = web.Application()
    app.router.add_get("/v1/thing", handler)
    server = TestServer(app)
    await server.start_server()
    return server


async def test_not_ready_is_asked_again_until_ready() -> None:
    server = await _server([503, 503])
    try:
        client = ApiClient(url=str(server.make_url("")))
        assert await client.call("GET", "/v1/thing") == {"ok": True}
    finally:
        await server.close()


async def test_not_ready_past_the_wait_is_the_answer() -> None:
    server = await _server([503] * 50)
    try:
        client = ApiClient(url=str(server.make_url("")))
        with pytest.raises(ApiFailure) as raised:
            await client.call("GET", "/v1/thing", ready_wait=0.3)
        assert (raised.value.status, raised.value.code) == (503, "not_ready")
    finally:
        await server.close()
