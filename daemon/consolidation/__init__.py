"""Consolidation: ingest gate, dedupe, phases, plans, review (issue 7)."""
