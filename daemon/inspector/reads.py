"""A connection to the projections for one page, current with every write this daemon
acknowledged (read-your-writes, as the API's reads are)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from aiohttp import web
from sqlalchemy.ext.asyncio import AsyncConnection

from daemon.api.keys import state_of


@asynccontextmanager
async def projection_reads(request: web.Request) -> AsyncIterator[AsyncConnection]:
    """Yield a read connection to the projections for the page being made."""
    engine = await state_of(request).async_reads()
    async with engine.connect() as conn:
        yield conn
