"""The plugin manager: built-in and third-party plugins, looked up by kind and name.

One :class:`Plugins` is built per process (:func:`default_plugins`, at start-up) and handed to
what needs it: the daemon keeps it on its application (``daemon.api.keys.PLUGINS``) and validates
the configuration's plugin names against it. Built-in plugins are the modules of
:data:`BUILTIN_PLUGINS`; third-party plugins are found by pluggy through the ``memoryd`` entry
point group (``pm.load_setuptools_entrypoints("memoryd")``). Each module's ``@hookimpl``
functions (:mod:`plugins.hookspecs`) hand ``register(name, factory)`` a factory per name, and
the typed accessors (:meth:`Plugins.embedder`, :meth:`Plugins.llm_provider`,
:meth:`Plugins.extractor`, :meth:`Plugins.agent`, :meth:`Plugins.ingest_gate`) build the
object and check it against its Protocol (:mod:`plugins.protocols`).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, cast, overload

import pluggy

from plugins import hookspecs
from plugins.hookspecs import Factory, Register

if TYPE_CHECKING:
    from plugins.protocols import Agent, Embedder, Extractor, IngestGate, LLMProvider

PluginKind = Literal["embedder", "llm_provider", "extractor", "agent", "ingest_gate"]

ENTRY_POINT_GROUP = hookspecs.PROJECT

BUILTIN_PLUGINS: tuple[str, ...] = (
    "plugins.llm",
    "plugins.extractors",
    "plugins.embedders",
    "plugins.agents",
    "plugins.gates",
)
"""The built-in plugin modules: the one list (they are not entry points)."""

_PROTOCOLS: dict[PluginKind, str] = {
    "embedder": "Embedder",
    "llm_provider": "LLMProvider",
    "extractor": "Extractor",
    "agent": "Agent",
    "ingest_gate": "IngestGate",
}
"""The Protocol of each kind, in :mod:`plugins.protocols` (imported when a plugin is built, so
that registering, which validating a configuration needs, imports no numpy or HTTP client)."""

__all__ = [
    "BUILTIN_PLUGINS",
    "Factory",
    "PluginKind",
    "PluginNotFound",
    "PluginTypeError",
    "Plugins",
    "Register",
    "build_plugins",
    "default_plugins",
]


class PluginNotFound(LookupError):
    """No plugin of that kind is registered under that name."""


class PluginTypeError(TypeError):
    """A plugin's factory built something that does not satisfy its kind's Protocol."""


@dataclass
class Plugins:
    """Factories by kind and name, gathered from every registered plugin module."""

    manager: pluggy.PluginManager | None = None
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

    def check(self, kind: PluginKind, name: str) -> None:
        """Raise :class:`PluginNotFound` (naming the known ones) unless ``name`` is registered."""
        if name not in self.factories.get(kind, {}):
            known = ", ".join(self.names(kind)) or "none"
            raise PluginNotFound(f"no {kind} plugin named {name!r} (known: {known})")

    def embedder(self, name: str, config: Mapping[str, Any] | None = None) -> Embedder:
        """Build the named embedder (``[recall] embedder``)."""
        return cast("Embedder", self._build("embedder", name, config))

    def llm_provider(self, name: str, config: Mapping[str, Any]) -> LLMProvider:
        """Build the named remote provider from the ``[llm]`` mapping."""
        return cast("LLMProvider", self._build("llm_provider", name, config))

    def extractor(self, name: str, config: Mapping[str, Any] | None = None) -> Extractor:
        """Build the named offline extractor (``[retrospective] extractor``)."""
        return cast("Extractor", self._build("extractor", name, config))

    def agent(self, name: str, config: Mapping[str, Any] | None = None) -> Agent:
        """Build the named consolidation agent."""
        return cast("Agent", self._build("agent", name, config))

    def ingest_gate(self, name: str, config: Mapping[str, Any] | None = None) -> IngestGate:
        """Build the named ingest gate (``[consolidation] ingest_gate``)."""
        return cast("IngestGate", self._build("ingest_gate", name, config))

    @overload
    def create(
        self, kind: Literal["embedder"], name: str, config: Mapping[str, Any] | None = None
    ) -> Embedder: ...
    @overload
    def create(
        self, kind: Literal["llm_provider"], name: str, config: Mapping[str, Any] | None = None
    ) -> LLMProvider: ...
    @overload
    def create(
        self, kind: Literal["extractor"], name: str, config: Mapping[str, Any] | None = None
    ) -> Extractor: ...
    @overload
    def create(
        self, kind: Literal["agent"], name: str, config: Mapping[str, Any] | None = None
    ) -> Agent: ...
    @overload
    def create(
        self, kind: Literal["ingest_gate"], name: str, config: Mapping[str, Any] | None = None
    ) -> IngestGate: ...
    def create(
        self, kind: PluginKind, name: str, config: Mapping[str, Any] | None = None
    ) -> object:
        """Build the named plugin of ``kind`` (the typed accessors, chosen by kind)."""
        return self._build(kind, name, config)

    def _build(self, kind: PluginKind, name: str, config: Mapping[str, Any] | None) -> object:
        # The typed accessors cast what this returns: it is checked against the Protocol here.
        self.check(kind, name)
        protocol = getattr(importlib.import_module("plugins.protocols"), _PROTOCOLS[kind])
        built = self.factories[kind][name](config or {})
        if not isinstance(built, protocol):
            raise PluginTypeError(
                f"the {kind} plugin {name!r} built a {type(built).__name__}, "
                f"which is not a {protocol.__name__}"
            )
        return built


def _collector(plugins: Plugins, kind: PluginKind) -> Register:
    def register(name: str, factory: Factory) -> None:
        plugins.add(kind, name, factory)

    return register


def build_plugins(*, entry_points: bool = True, extra_modules: Iterable[str] = ()) -> Plugins:
    """Build a plugin manager: the built-ins, ``extra_modules``, and (by default) every
    plugin installed under the ``memoryd`` entry point group."""
    manager = pluggy.PluginManager(hookspecs.PROJECT)
    manager.add_hookspecs(hookspecs)
    for name in (*BUILTIN_PLUGINS, *extra_modules):
        if manager.get_plugin(name) is None:
            manager.register(importlib.import_module(name), name)
    if entry_points:
        manager.load_setuptools_entrypoints(ENTRY_POINT_GROUP)
    plugins = Plugins(manager)
    manager.hook.register_embedders(register=_collector(plugins, "embedder"))
    manager.hook.register_llm_providers(register=_collector(plugins, "llm_provider"))
    manager.hook.register_extractors(register=_collector(plugins, "extractor"))
    manager.hook.register_agents(register=_collector(plugins, "agent"))
    manager.hook.register_ingest_gates(register=_collector(plugins, "ingest_gate"))
    return plugins


@functools.cache
def default_plugins() -> Plugins:
    """Return this process's plugin manager (built-ins and entry points), built on first use.

    The daemon and the CLI call it once at start-up and hand the result on; it is a cache so
    that code which is not handed one still sees the same manager, never a rebuilt one.
    """
    return build_plugins()
