"""Consolidation: ingest gate, dedupe, phases, plans, review."""
