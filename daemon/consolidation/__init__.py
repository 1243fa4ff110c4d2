"""Consolidation: ingest gate, dedupe, phases, plans, review (issue 7)."""

import events.consolidation_events  # noqa: F401  (registers the event classes)
