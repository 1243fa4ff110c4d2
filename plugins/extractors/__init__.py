"""Fact extractors: local, model-free providers (the embedded default is ``selfstatements``)."""

from __future__ import annotations

from plugins.extractors.selfstatements import EXTRACTOR_NAME, SelfStatementExtractor
from plugins.hookspecs import hookimpl
from plugins.registry import Register


@hookimpl
def register_extractors(register: Register) -> None:
    """Register the offline self-statement extractor."""
    register(EXTRACTOR_NAME, SelfStatementExtractor)
