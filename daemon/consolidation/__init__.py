"""Consolidation: ingest gate, dedupe, phases, preview, plans and their application, review."""
