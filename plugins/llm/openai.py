"""The Chat Completions API with tool calls (OpenAI, Ollama, llama.cpp server, vLLM, LM Studio).

``base_url`` is the API root that holds ``/chat/completions`` (``https://api.openai.com/v1``,
``http://localhost:11434/v1`` for Ollama, ``http://localhost:8080/v1`` for llama.cpp).
"""

from __future__ import annotations

from typing import Any

from plugins.llm.http import HttpProvider, parse_tool_arguments, parse_usage
from plugins.llm.types import Completion, CompletionRequest, LLMError, ToolCall


class OpenAIProvider(HttpProvider):
    """Talk to an OpenAI-compatible ``/chat/completions`` endpoint."""

    provider_name = "openai"

    def build_body(self, request: CompletionRequest) -> dict[str, Any]:
        """Return the JSON body for one request."""
        messages: list[dict[str, Any]] = []
        if request.system:
            messages.append({"role": "system", "content": request.system})
        messages.extend({"role": m.role, "content": m.content} for m in request.messages)
        body: dict[str, Any] = {
            "model": request.model or self._settings.model,
            "messages": messages,
            "max_tokens": request.max_tokens or self._settings.max_tokens,
        }
        if request.effort is not None:
            body["reasoning_effort"] = request.effort
        if request.tools:
            body["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": t.name,
                        "description": t.description,
                        "parameters": dict(t.parameters),
                    },
                }
                for t in request.tools
            ]
        return body

    async def complete(self, request: CompletionRequest) -> Completion:
        """Send one request and parse the first choice."""
        headers: dict[str, str] = {}
        key = self._api_key()
        if key:
            headers["Authorization"] = f"Bearer {key}"
        data = await self._post_json("/chat/completions", self.build_body(request), headers)
        return parse_chat_completion(data, request.model or self._settings.model)


def parse_chat_completion(data: dict[str, Any], default_model: str) -> Completion:
    """Parse a Chat Completions response; a malformed one raises bad_output."""
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise LLMError("bad_output", "the response has no choices")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise LLMError("bad_output", "the first choice has no message")
    content = message.get("content")
    text = content if isinstance(content, str) else ""
    calls: list[ToolCall] = []
    raw_calls = message.get("tool_calls") or []
    if not isinstance(raw_calls, list):
        raise LLMError("bad_output", "tool_calls is not a list")
    for index, raw in enumerate(raw_calls):
        function = raw.get("function") if isinstance(raw, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise LLMError("bad_output", f"tool call {index} has no function name")
        name = function["name"]
        raw_id = raw.get("id")
        call_id = raw_id if isinstance(raw_id, str) else f"call_{index}"
        arguments = parse_tool_arguments(function.get("arguments", {}), name)
        calls.append(ToolCall(call_id=call_id, name=name, arguments=arguments))
    usage = parse_usage(data, "prompt_tokens", "completion_tokens")
    model = data.get("model")
    finish = choices[0].get("finish_reason")
    return Completion(
        text=text,
        tool_calls=tuple(calls),
        usage=usage,
        model=model if isinstance(model, str) and model else default_model,
        stop_reason=finish if isinstance(finish, str) else None,
    )
