"""Fact extractors: local, model-free providers (the embedded default is ``offline-extractor``).

The extractor's rules (:mod:`plugins.extractors.statements` and the modules it reads) are
imported when it is built, not when the plugin registers: registering stays cheap.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from plugins.hookspecs import Register, hookimpl
from plugins.llm.types import LLMProvider

OFFLINE_EXTRACTOR = "offline-extractor"
"""The registered name (``statements.EXTRACTOR_NAME``; a test keeps the two equal)."""


def _offline(config: Mapping[str, Any]) -> LLMProvider:
    from plugins.extractors.statements import StatementExtractor

    return StatementExtractor(config)


@hookimpl
def register_extractors(register: Register) -> None:
    """Register the offline statement extractor."""
    register(OFFLINE_EXTRACTOR, _offline)
