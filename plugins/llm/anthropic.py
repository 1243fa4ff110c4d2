"""The Anthropic Messages API with tool use.

``base_url`` is the API root (``https://api.anthropic.com``); requests go to ``/v1/messages``.
"""

from __future__ import annotations

from typing import Any

from plugins.llm.http import HttpProvider, parse_tool_arguments, parse_usage
from plugins.llm.types import Completion, CompletionRequest, LLMError, ToolCall

ANTHROPIC_VERSION = "2023-06-01"


class AnthropicProvider(HttpProvider):
    """Talk to the Anthropic ``/v1/messages`` endpoint."""

    provider_name = "anthropic"

    def build_body(self, request: CompletionRequest) -> dict[str, Any]:
        """Return the JSON body for one request."""
        body: dict[str, Any] = {
            "model": request.model or self._settings.model,
            "max_tokens": request.max_tokens or self._settings.max_tokens,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
        }
        if request.system:
            body["system"] = request.system
        if request.thinking:
            # The thinking budget is spent out of max_tokens: the answer keeps its own room.
            body["thinking"] = {"type": "enabled", "budget_tokens": request.thinking}
            body["max_tokens"] += request.thinking
        if request.tools:
            body["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": dict(t.parameters)}
                for t in request.tools
            ]
        return body

    async def complete(self, request: CompletionRequest) -> Completion:
        """Send one request and parse its content blocks."""
        headers = {"anthropic-version": ANTHROPIC_VERSION}
        key = self._api_key()
        if key:
            headers["x-api-key"] = key
        data = await self._post_json("/v1/messages", self.build_body(request), headers)
        return parse_messages_response(data, request.model or self._settings.model)


def parse_messages_response(data: dict[str, Any], default_model: str) -> Completion:
    """Parse a Messages API response; a malformed one raises bad_output."""
    if data.get("type") == "error":
        raise LLMError("bad_output", "the response is an error object with a success status")
    blocks = data.get("content")
    if not isinstance(blocks, list):
        raise LLMError("bad_output", "the response has no content list")
    texts: list[str] = []
    calls: list[ToolCall] = []
    for index, block in enumerate(blocks):
        if not isinstance(block, dict):
            raise LLMError("bad_output", f"content block {index} is not an object")
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif kind == "tool_use":
            name = block.get("name")
            if not isinstance(name, str):
                raise LLMError("bad_output", f"tool_use block {index} has no name")
            raw_id = block.get("id")
            call_id = raw_id if isinstance(raw_id, str) else f"toolu_{index}"
            arguments = parse_tool_arguments(block.get("input", {}), name)
            calls.append(ToolCall(call_id=call_id, name=name, arguments=arguments))
    usage = parse_usage(data, "input_tokens", "output_tokens")
    model = data.get("model")
    stop = data.get("stop_reason")
    return Completion(
        text="".join(texts),
        tool_calls=tuple(calls),
        usage=usage,
        model=model if isinstance(model, str) and model else default_model,
        stop_reason=stop if isinstance(stop, str) else None,
    )
