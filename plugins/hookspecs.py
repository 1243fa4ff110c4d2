"""The hooks a memoryd plugin may implement (pluggy's register-hook pattern, as in ``llm``).

A plugin is a module, found through the ``memoryd`` entry point group, whose ``@hookimpl``
functions receive a ``register`` callable and hand it named factories. The async work lives in
the objects those factories build, behind the typed Protocols in :mod:`plugins.protocols`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from plugins.registry import Register

PROJECT = "memoryd"

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
