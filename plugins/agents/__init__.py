"""Built-in consolidation agents: replay, linker, separator, transfer, health and
split (one call per fact with its neighbours)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from plugins.agents.base import AGENTS, ConsolidationAgent
from plugins.hookspecs import Register, hookimpl


def _factory(cls: type[ConsolidationAgent]) -> Callable[[Mapping[str, Any]], ConsolidationAgent]:
    def build(config: Mapping[str, Any]) -> ConsolidationAgent:
        return cls(config)

    return build


@hookimpl
def register_agents(register: Register) -> None:
    """Register the built-in agents."""
    for cls in AGENTS:
        register(cls.name, _factory(cls))
