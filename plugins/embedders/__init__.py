"""Built-in embedders: ``hashed`` (default, no download) and ``minilm`` (the ``minilm`` extra)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from plugins.hookspecs import Register, hookimpl


def _hashed(config: Mapping[str, Any]) -> Any:
    from plugins.embedders.hashed import HashedNgramEmbedder

    return HashedNgramEmbedder.from_config(config)


def _minilm(config: Mapping[str, Any]) -> Any:
    from plugins.embedders.minilm import MiniLMEmbedder

    return MiniLMEmbedder.from_config(config)


@hookimpl
def register_embedders(register: Register) -> None:
    """Register the built-in embedders."""
    register("hashed", _hashed)
    register("minilm", _minilm)
