"""Fact extractors: local, model-free providers (the embedded default is ``offline-extractor``)."""

from __future__ import annotations

from plugins.extractors.statements import EXTRACTOR_NAME, StatementExtractor
from plugins.hookspecs import Register, hookimpl


@hookimpl
def register_extractors(register: Register) -> None:
    """Register the offline statement extractor."""
    register(EXTRACTOR_NAME, StatementExtractor)
