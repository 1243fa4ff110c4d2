"""Register every resource module's routes on the application."""

from __future__ import annotations

from aiohttp import web

from daemon.api import (
    conversations,
    events,
    facts,
    health,
    messages,
    openapi,
    retrospective,
    search,
)


def add_routes(app: web.Application) -> None:
    """Register all API routes."""
    for module in (messages, conversations, facts, events, health, openapi, search, retrospective):
        module.add_routes(app)
