"""A command run while the daemon is still starting a part of itself waits, within bounds;
``memoryd status`` answers at once with how far it has got."""

from __future__ import annotations

import argparse

import orjson
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer
from memoryd_client import Retry

from daemon.cli import build_parser, client_cmd
from daemon.cli.client_cmd import EXIT_API_ERROR

NOT_READY = {"error": {"code": "not_ready", "message": "starting", "details": {"head": 7}}}
FACT = {"fact_id": "f1", "text": "likes tea"}


async def _server(answers: list[int]) -> TestServer:
    """Answer ``503 not_ready`` as many times as ``answers`` says, then the fact."""

    async def handler(request: web.Request) -> web.Response:
        status = answers.pop(0) if answers else 200
        if status == 503:
            return web.json_response(NOT_READY, status=503)
        return web.json_response(FACT)

    app = web.Application()
    app.router.add_get("/v1/facts/f1", handler)
    app.router.add_get("/v1/health", handler)
    server = TestServer(app)
    await server.start_server()
    return server


async def memoryd(*argv: str) -> int:
    args: argparse.Namespace = build_parser().parse_args(list(argv))
    status: int = await args.handler(args)
    return status


async def test_not_ready_is_asked_again_until_ready(capsys: pytest.CaptureFixture[str]) -> None:
    server = await _server([503, 503])
    try:
        url = str(server.make_url(""))
        assert await memoryd("facts", "show", "f1", "--url", url, "--json") == 0
        assert orjson.loads(capsys.readouterr().out) == FACT
    finally:
        await server.close()


async def test_not_ready_past_the_wait_is_the_answer(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(client_cmd, "READY_RETRY", Retry(attempts=3, backoff=0.01))
    server = await _server([503] * 50)
    try:
        url = str(server.make_url(""))
        assert await memoryd("facts", "show", "f1", "--url", url, "--json") == EXIT_API_ERROR
        captured = capsys.readouterr()
        assert orjson.loads(captured.out) == NOT_READY
        assert "memoryd: 503 not_ready: starting" in captured.err
    finally:
        await server.close()


async def test_status_of_a_starting_daemon_answers_at_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    answers = [503] * 50
    server = await _server(answers)
    try:
        url = str(server.make_url(""))
        assert await memoryd("status", "--url", url, "--json") == EXIT_API_ERROR
        data = orjson.loads(capsys.readouterr().out)
        assert data["head"] == 7
        assert len(answers) == 49  # asked once
    finally:
        await server.close()
