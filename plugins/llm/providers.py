"""The built-in remote providers by ``[llm] provider`` name."""

from __future__ import annotations

from plugins.llm.anthropic import AnthropicProvider
from plugins.llm.http import HttpProvider
from plugins.llm.openai import OpenAIProvider

PROVIDERS: dict[str, type[HttpProvider]] = {
    "openai": OpenAIProvider,
    "anthropic": AnthropicProvider,
}
