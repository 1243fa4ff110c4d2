"""Fake OpenAI-compatible and Anthropic servers over real HTTP on loopback.

Each server answers from a script: a queue of :class:`Reply` values, one per request. It
records every request (path, headers, JSON body) so tests can check what was sent.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import orjson
from aiohttp import web
from aiohttp.test_utils import TestServer

from plugins.llm.providers import PROVIDERS
from plugins.llm.settings import LLMSettings
from plugins.llm.types import LLMProvider

Dialect = Literal["openai", "anthropic"]


@dataclass(frozen=True)
class Reply:
    """One scripted answer."""

    text: str | None = None
    tool_calls: Sequence[tuple[str, Any]] = ()
    """(tool name, arguments): a dict, or a str sent verbatim as the arguments JSON."""
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    raw_body: bytes | None = None
    delay: float = 0.0
    usage: tuple[int, int] = (11, 7)


def openai_provider(server: FakeLLMServer, model: str = "m") -> LLMProvider:
    """The built-in OpenAI-compatible provider asking ``server`` (configured ``model``)."""
    settings = LLMSettings.from_mapping(
        {"provider": "openai", "model": model, "base_url": server.base_url, "timeout": 0.5}
    )
    return PROVIDERS["openai"](settings)


def ok_text(text: str) -> Reply:
    """A plain text answer."""
    return Reply(text=text)


def remember(*texts: str) -> Reply:
    """An answer that calls ``remember`` once per text."""
    return Reply(tool_calls=[("remember", {"text": t}) for t in texts])


@dataclass
class RecordedRequest:
    """What the fake server received."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]


class FakeLLMServer:
    """An aiohttp server speaking one dialect, answering from a script."""

    def __init__(self, dialect: Dialect, replies: Sequence[Reply] = ()) -> None:
        self.dialect = dialect
        self.replies: deque[Reply] = deque(replies)
        self.requests: list[RecordedRequest] = []
        self.responder: Callable[[dict[str, Any]], Reply] | None = None
        """When set, answers each request from its JSON body (the queue is not used): for
        concurrent requests, whose arrival order is not the order they were made in."""
        self.in_flight = 0
        self.max_in_flight = 0
        """The most requests the server was answering at once."""
        app = web.Application()
        path = "/v1/chat/completions" if dialect == "openai" else "/v1/messages"
        app.router.add_post(path, self._handle)
        self._server = TestServer(app, host="127.0.0.1")

    async def start(self) -> None:
        """Start listening on a free loopback port."""
        await self._server.start_server()

    async def close(self) -> None:
        """Stop the server."""
        await self._server.close()

    @property
    def base_url(self) -> str:
        """Return the base URL a provider is configured with."""
        root = str(self._server.make_url("")).rstrip("/")
        return f"{root}/v1" if self.dialect == "openai" else root

    def push(self, *replies: Reply) -> None:
        """Queue more answers."""
        self.replies.extend(replies)

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            return await self._answer(request)
        finally:
            self.in_flight -= 1

    async def _answer(self, request: web.Request) -> web.StreamResponse:
        body = orjson.loads(await request.read())
        self.requests.append(RecordedRequest(request.path, dict(request.headers), body))
        if self.responder is not None:
            reply = self.responder(body)
        else:
            reply = self.replies.popleft() if self.replies else Reply(text="Nothing new to save.")
        if reply.delay:
            await asyncio.sleep(reply.delay)
        if reply.raw_body is not None:
            return web.Response(
                status=reply.status, body=reply.raw_body, headers=dict(reply.headers)
            )
        if reply.status != 200:
            err = {"error": {"type": "fake", "message": f"scripted {reply.status}"}}
            return web.Response(
                status=reply.status,
                body=orjson.dumps(err),
                headers={"Content-Type": "application/json", **reply.headers},
            )
        payload = self._openai(reply) if self.dialect == "openai" else self._anthropic(reply)
        return web.Response(body=orjson.dumps(payload), content_type="application/json")

    @staticmethod
    def _openai(reply: Reply) -> dict[str, Any]:
        calls = [
            {
                "id": f"call_{i}",
                "type": "function",
                "function": {
                    "name": name,
                    "arguments": args if isinstance(args, str) else orjson.dumps(args).decode(),
                },
            }
            for i, (name, args) in enumerate(reply.tool_calls)
        ]
        message: dict[str, Any] = {"role": "assistant", "content": reply.text}
        if calls:
            message["tool_calls"] = calls
        return {
            "id": "chatcmpl-fake",
            "model": "fake-gpt",
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if calls else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": reply.usage[0],
                "completion_tokens": reply.usage[1],
                "total_tokens": sum(reply.usage),
            },
        }

    @staticmethod
    def _anthropic(reply: Reply) -> dict[str, Any]:
        blocks: list[dict[str, Any]] = []
        if reply.text is not None:
            blocks.append({"type": "text", "text": reply.text})
        for i, (name, args) in enumerate(reply.tool_calls):
            blocks.append({"type": "tool_use", "id": f"toolu_{i}", "name": name, "input": args})
        return {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": "fake-claude",
            "content": blocks,
            "stop_reason": "tool_use" if reply.tool_calls else "end_turn",
            "usage": {"input_tokens": reply.usage[0], "output_tokens": reply.usage[1]},
        }
