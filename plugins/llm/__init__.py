"""LLM providers: the Chat Completions (``openai``) and Messages (``anthropic``) APIs.

Each is registered under the ``memoryd`` plugin hook ``register_llm_providers``; the daemon
builds the one ``[llm] provider`` names and wraps it in its budget
(:class:`plugins.llm.budget.BudgetedProvider`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from plugins.hookspecs import Register, hookimpl
from plugins.llm.anthropic import AnthropicProvider
from plugins.llm.http import HttpProvider
from plugins.llm.openai import OpenAIProvider
from plugins.llm.settings import LLMSettings
from plugins.llm.types import LLMProvider

PROVIDERS: dict[str, type[HttpProvider]] = {
    "openai": OpenAIProvider,
    "anthropic": AnthropicProvider,
}


def _factory(cls: type[HttpProvider]) -> Callable[[Mapping[str, Any]], LLMProvider]:
    def build(config: Mapping[str, Any]) -> LLMProvider:
        return cls(LLMSettings.from_mapping(config))

    return build


@hookimpl
def register_llm_providers(register: Register) -> None:
    """Register the built-in remote providers."""
    for name, cls in PROVIDERS.items():
        register(name, _factory(cls))
