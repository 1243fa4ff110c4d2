"""Find plugins by entry point and collect what they register, by kind and name."""

from __future__ import annotations

import importlib
import importlib.metadata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import pluggy

from plugins import hookspecs

PluginKind = Literal["embedder", "llm_provider", "extractor", "agent"]
Factory = Callable[[Mapping[str, Any]], Any]
"""Build a plugin object from its configuration section."""

ENTRY_POINT_GROUP = "memoryd"

# Built-in plugins are registered directly, so they work even from a source checkout whose
# entry points were never installed. Modules are appended here as plugins are added.
BUILTIN_PLUGINS: list[str] = [
    "plugins.llm",
    "plugins.extractors",
    "plugins.embedders",
    "plugins.agents",
]


class Register(Protocol):
    """The callable a hook receives: ``register(name, factory)``."""

    def __call__(self, name: str, factory: Factory) -> None: ...


class PluginNotFound(LookupError):
    """No plugin of that kind is registered under that name."""


@dataclass
class PluginRegistry:
    """Factories by kind and name, gathered from every registered plugin module."""

    factories: dict[PluginKind, dict[str, Factory]] = field(default_factory=dict)

    def add(self, kind: PluginKind, name: str, factory: Factory) -> None:
        """Add one factory; a second plugin with the same name is refused."""
        bucket = self.factories.setdefault(kind, {})
        if name in bucket and bucket[name] is not factory:
            raise ValueError(f"two {kind} plugins are named {name!r}")
        bucket[name] = factory

    def names(self, kind: PluginKind) -> list[str]:
        """Return the registered names of one kind, sorted."""
        return sorted(self.factories.get(kind, {}))

    def create(self, kind: PluginKind, name: str, config: Mapping[str, Any] | None = None) -> Any:
        """Build the named plugin object from its configuration."""
        try:
            factory = self.factories[kind][name]
        except KeyError:
            known = ", ".join(self.names(kind)) or "none"
            raise PluginNotFound(f"no {kind} plugin named {name!r} (known: {known})") from None
        return factory(config or {})


def _collector(registry: PluginRegistry, kind: PluginKind) -> Register:
    def register(name: str, factory: Factory) -> None:
        registry.add(kind, name, factory)

    return register


def _load_entry_points(manager: pluggy.PluginManager) -> None:
    # Not pluggy's load_setuptools_entrypoints: memoryd's own entry points name the built-in
    # modules registered above, and pluggy refuses a module registered under a second name.
    for entry_point in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        if manager.get_plugin(entry_point.name) is not None:
            continue
        module = entry_point.load()
        if manager.is_registered(module):
            continue
        manager.register(module, entry_point.name)


def load_plugins(*, entry_points: bool = True, extra_modules: Iterable[str] = ()) -> PluginRegistry:
    """Register built-in and entry-point plugins and collect their factories."""
    manager = pluggy.PluginManager(hookspecs.PROJECT)
    manager.add_hookspecs(hookspecs)
    for name in [*BUILTIN_PLUGINS, *extra_modules]:
        if manager.get_plugin(name) is None:
            manager.register(importlib.import_module(name), name)
    if entry_points:
        _load_entry_points(manager)
    registry = PluginRegistry()
    manager.hook.register_embedders(register=_collector(registry, "embedder"))
    manager.hook.register_llm_providers(register=_collector(registry, "llm_provider"))
    manager.hook.register_extractors(register=_collector(registry, "extractor"))
    manager.hook.register_agents(register=_collector(registry, "agent"))
    return registry
