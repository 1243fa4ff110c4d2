"""Register every resource module's routes on the application."""

from __future__ import annotations

from aiohttp import web

from daemon.api import (
    blocks,
    consolidation,
    context,
    conversations,
    episodes,
    events,
    facts,
    health,
    insights,
    messages,
    openapi,
    retrospective,
    search,
)


def add_routes(app: web.Application) -> None:
    """Register all API routes."""
    modules = (messages, conversations, facts, events, health, openapi, search, retrospective)
    for module in (*modules, consolidation, insights, episodes, blocks, context):
        module.add_routes(app)
