"""LLM providers: the Chat Completions (``openai``) and Messages (``anthropic``) APIs.

Each is registered under the ``memoryd`` plugin hook ``register_llm_providers``; the daemon
builds the one ``[llm] provider`` names and wraps it in its budget
(:class:`plugins.llm.budget.BudgetedProvider`). The provider classes
(:data:`plugins.llm.providers.PROVIDERS`) and their HTTP client are imported when one is built,
not when the plugin registers: registering (to validate a configuration) stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from plugins.hookspecs import Register, hookimpl
from plugins.llm.settings import LLMSettings
from plugins.llm.types import LLMProvider

PROVIDER_NAMES: tuple[str, ...] = ("openai", "anthropic")


def _factory(name: str) -> Callable[[Mapping[str, Any]], LLMProvider]:
    def build(config: Mapping[str, Any]) -> LLMProvider:
        from plugins.llm.providers import PROVIDERS

        return PROVIDERS[name](LLMSettings.from_mapping(config))

    return build


@hookimpl
def register_llm_providers(register: Register) -> None:
    """Register the built-in remote providers."""
    for name in PROVIDER_NAMES:
        register(name, _factory(name))
