"""Helpers shared by the consolidation worker tests: a second worker on the same log, and
episodes appended as the standard phase writes them.

The stalled-phase fixture (``gated_light``) is in ``tests/conftest.py``.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from daemon.api.keys import STATE
from daemon.consolidation.service import LEASE_TTL, ConsolidationService
from events.episode_events import EpisodeWritten
from events.leases import LeaseManager
from events.store.base import NewEvent
from events.types import Event
from tests.api_fixtures import Api


def sibling_worker(
    service: ConsolidationService,
    holder: str,
    *,
    leases: LeaseManager | None = None,
    lease_ttl: timedelta = LEASE_TTL,
) -> ConsolidationService:
    """Return another daemon's worker on the same log and lease table."""
    return ConsolidationService(
        service.store,
        service.engine,
        leases or service.leases,
        service.clock,
        service.config,
        service.embedder,
        sync=service.sync,
        holder=holder,
        lease_ttl=lease_ttl,
    )


def an_episode(
    summary: str, importance: float, ended_at: datetime, conversation_id: str = "chat"
) -> EpisodeWritten:
    """An episode of one message said at ``ended_at``."""
    message_id = f"m-{uuid.uuid4().hex[:8]}"
    return EpisodeWritten(
        episode_id=f"ep-{uuid.uuid4().hex[:16]}",
        conversation_id=conversation_id,
        message_ids=[message_id],
        first_position=1,
        last_position=1,
        started_at=ended_at,
        ended_at=ended_at,
        summary=summary,
        importance=importance,
        method="extractive",
        at=ended_at,
    )


async def append_events(api: Api, *events: Event) -> None:
    """Append events to the default namespace, folded before this returns."""
    state = api.client.app[STATE]
    positions = await state.require_store().append("default", [NewEvent(e) for e in events])
    await state.async_note_written(positions[-1])


async def append_episodes(api: Api, *episodes: EpisodeWritten) -> list[str]:
    """Append episodes to the default namespace, folded before this returns; return their ids."""
    await append_events(api, *episodes)
    return [e.episode_id for e in episodes]
