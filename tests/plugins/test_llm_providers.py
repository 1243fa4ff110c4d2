"""The openai and anthropic providers against fake servers over real HTTP on loopback."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from plugins.llm.http import HttpProvider, parse_retry_after
from plugins.llm.providers import PROVIDERS
from plugins.llm.settings import LLMSettings, SettingsError
from plugins.llm.types import ChatMessage, CompletionRequest, LLMError, ToolSpec
from plugins.registry import build_plugins
from tests.llm_fakes import Dialect, FakeLLMServer, Reply, ok_text, remember

SECRET = "sk-test-very-secret-1234"
REMEMBER_TOOL = ToolSpec(
    name="remember",
    description="Save one durable fact.",
    parameters={"type": "object", "properties": {"text": {"type": "string"}}},
)
REQUEST = CompletionRequest(
    system="You review conversations.",
    messages=[ChatMessage("user", "Transcript: I live in Lyon.")],
    tools=[REMEMBER_TOOL],
)


@pytest.fixture(params=["openai", "anthropic"])
async def server(request: pytest.FixtureRequest) -> AsyncIterator[FakeLLMServer]:
    fake = FakeLLMServer(request.param)
    await fake.start()
    yield fake
    await fake.close()


def _provider(server: FakeLLMServer, timeout: float = 5.0) -> HttpProvider:
    settings = LLMSettings.from_mapping(
        {
            "provider": server.dialect,
            "model": "m-1",
            "base_url": server.base_url,
            "api_key_env": "FAKE_LLM_KEY",
            "timeout": timeout,
        }
    )
    return PROVIDERS[server.dialect](settings, environ={"FAKE_LLM_KEY": SECRET})


async def _complete_error(server: FakeLLMServer, reply: Reply, timeout: float = 5.0) -> LLMError:
    server.push(reply)
    provider = _provider(server, timeout)
    try:
        with pytest.raises(LLMError) as caught:
            await provider.complete(REQUEST)
    finally:
        await provider.aclose()
    assert SECRET not in str(caught.value)
    return caught.value


async def test_tool_calls_come_back_parsed_with_usage(server: FakeLLMServer) -> None:
    server.push(remember("Lives in Lyon", "Has a sister named Ana"))
    provider = _provider(server)
    try:
        completion = await provider.complete(REQUEST)
    finally:
        await provider.aclose()
    assert [c.name for c in completion.tool_calls] == ["remember", "remember"]
    assert [c.arguments["text"] for c in completion.tool_calls] == [
        "Lives in Lyon",
        "Has a sister named Ana",
    ]
    assert completion.usage.input_tokens == 11
    assert completion.usage.output_tokens == 7
    assert completion.model.startswith("fake-")


async def test_request_carries_tools_system_and_key_header(server: FakeLLMServer) -> None:
    server.push(ok_text("Nothing new to save."))
    provider = _provider(server)
    try:
        completion = await provider.complete(REQUEST)
    finally:
        await provider.aclose()
    assert completion.text == "Nothing new to save."
    assert completion.tool_calls == ()
    sent = server.requests[0]
    assert sent.body["model"] == "m-1"
    if server.dialect == "openai":
        assert sent.headers["Authorization"] == f"Bearer {SECRET}"
        assert sent.body["messages"][0] == {"role": "system", "content": REQUEST.system}
        assert sent.body["tools"][0]["function"]["name"] == "remember"
    else:
        assert sent.headers["x-api-key"] == SECRET
        assert sent.headers["anthropic-version"]
        assert sent.body["system"] == REQUEST.system
        assert sent.body["tools"][0]["input_schema"]["type"] == "object"
    assert SECRET not in repr(provider)


async def test_rate_limit_honours_retry_after(server: FakeLLMServer) -> None:
    err = await _complete_error(server, Reply(status=429, headers={"Retry-After": "17"}))
    assert err.kind == "rate_limit"
    assert err.retry_after == 17.0
    assert err.retryable


async def test_server_error_is_classified(server: FakeLLMServer) -> None:
    err = await _complete_error(server, Reply(status=500))
    assert (err.kind, err.status, err.retry_after) == ("server", 500, None)


async def test_bad_request_is_not_retryable(server: FakeLLMServer) -> None:
    err = await _complete_error(server, Reply(status=400))
    assert err.kind == "bad_request"
    assert not err.retryable


async def test_timeout_is_classified(server: FakeLLMServer) -> None:
    err = await _complete_error(server, Reply(text="late", delay=2.0), timeout=0.2)
    assert err.kind == "timeout"


async def test_junk_body_is_bad_output(server: FakeLLMServer) -> None:
    err = await _complete_error(server, Reply(raw_body=b"<html>oops</html>"))
    assert err.kind == "bad_output"


async def test_json_without_answer_is_bad_output(server: FakeLLMServer) -> None:
    err = await _complete_error(server, Reply(raw_body=b'{"hello": 1}'))
    assert err.kind == "bad_output"


async def test_tool_arguments_that_are_not_json_are_bad_output(server: FakeLLMServer) -> None:
    err = await _complete_error(server, Reply(tool_calls=[("remember", '{"text": "unclosed')]))
    assert err.kind == "bad_output"
    assert "remember" in err.message


async def test_error_text_never_echoes_the_key(server: FakeLLMServer) -> None:
    body = f'{{"error": {{"message": "Incorrect API key provided: {SECRET}"}}}}'.encode()
    err = await _complete_error(server, Reply(status=401, raw_body=body))
    assert err.kind == "bad_request"
    assert "[api key]" in err.message


async def test_unreachable_server_is_a_server_error() -> None:
    settings = LLMSettings.from_mapping(
        {"provider": "openai", "model": "m", "base_url": "http://127.0.0.1:9", "timeout": 2}
    )
    provider = PROVIDERS["openai"](settings)
    try:
        with pytest.raises(LLMError) as caught:
            await provider.complete(REQUEST)
    finally:
        await provider.aclose()
    assert caught.value.kind == "server"


def test_retry_after_http_date_and_junk() -> None:
    from datetime import UTC, datetime

    now = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)
    assert parse_retry_after("Sun, 01 Mar 2026 12:00:30 GMT", now) == 30.0
    assert parse_retry_after("Sun, 01 Mar 2026 11:00:00 GMT", now) == 0.0
    assert parse_retry_after("soon", now) is None
    assert parse_retry_after(None, now) is None


@pytest.mark.parametrize(
    ("data", "key"),
    [
        ({"model": "m"}, "llm.provider"),
        ({"provider": "openai"}, "llm.model"),
        ({"provider": "openai", "model": "m", "timeout": -1}, "llm.timeout"),
        ({"provider": "openai", "model": "m", "base_url": "ftp://x"}, "llm.base_url"),
        ({"provider": "openai", "model": "m", "colour": "red"}, "llm.colour"),
        ({"provider": "openai", "model": "m", "budget": {"reset": "weekly"}}, "llm.budget.reset"),
        (
            {"provider": "openai", "model": "m", "budget": {"on_exceed": "x"}},
            "llm.budget.on_exceed",
        ),
        (
            {"provider": "openai", "model": "m", "budget": {"calls_per_day": 0}},
            "llm.budget.calls_per_day",
        ),
    ],
)
def test_bad_settings_name_the_key(data: dict[str, object], key: str) -> None:
    with pytest.raises(SettingsError, match=key.replace(".", r"\.")):
        LLMSettings.from_mapping(data)


@pytest.mark.parametrize("dialect", ["openai", "anthropic"])
def test_providers_register_as_plugins(dialect: Dialect) -> None:
    registry = build_plugins(entry_points=False, extra_modules=["plugins.llm"])
    provider = registry.create("llm_provider", dialect, {"provider": dialect, "model": "m"})
    assert provider.name == dialect
    assert provider.model == "m"
