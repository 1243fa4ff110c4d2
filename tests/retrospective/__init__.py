"""Retrospectives: triggers, prompts, the scheduler and worker, their routes and CLI."""
