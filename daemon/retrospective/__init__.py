"""Retrospectives: the scheduler (triggers, sweep), the worker (slice, prompt, model, facts)."""
