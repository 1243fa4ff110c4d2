"""The hooks a memoryd plugin may implement (pluggy's register-hook pattern, as in ``llm``).

A plugin is a module (a built-in of :data:`plugins.registry.BUILTIN_PLUGINS`, or a third-party
one found through the ``memoryd`` entry point group) whose ``@hookimpl`` functions receive a
``register`` callable and hand it named factories. The async work lives in the objects those
factories build, behind the typed Protocols in :mod:`plugins.protocols`. Every hook has a
section in ``docs/plugins.md`` (a test checks it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

import pluggy

PROJECT = "memoryd"

Factory = Callable[[Mapping[str, Any]], object]
"""Build a plugin object from its configuration section (a mapping, empty when unset)."""


class Register(Protocol):
    """The callable a hook receives: ``register(name, factory)``."""

    def __call__(self, name: str, factory: Factory) -> None: ...


hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def register_embedders(register: Register) -> None:
    """Register embedder factories: ``register(name, factory)``."""


@hookspec
def register_llm_providers(register: Register) -> None:
    """Register LLM provider factories: ``register(name, factory)``."""


@hookspec
def register_extractors(register: Register) -> None:
    """Register fact extractor factories: ``register(name, factory)``."""


@hookspec
def register_agents(register: Register) -> None:
    """Register consolidation agent factories: ``register(name, factory)``."""


@hookspec
def register_ingest_gates(register: Register) -> None:
    """Register ingest gate factories (predicates on messages before extraction):
    ``register(name, factory)``."""
