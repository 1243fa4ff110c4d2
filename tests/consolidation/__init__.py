"""Consolidation runs: phases, plans, leases and fencing, crashes, PostgreSQL, the CLI."""
