"""A person vouching for an episode: its quarantine ends (``EpisodeValidated``).

The decision reads the episode's own stream (not a projection that may lag) and appends with
that stream's version expected, so two validations of one episode write one event.
"""

from __future__ import annotations

from datetime import datetime

from daemon.consolidation.plans import PlanError
from events.episode_events import EpisodeValidated, EpisodeWritten, episode_stream
from events.store.base import ConcurrencyError, EventStore, NewEvent


async def validate_episode(
    store: EventStore,
    namespace: str,
    episode_id: str,
    now: datetime,
    by: str,
    note: str | None = None,
) -> int:
    """Validate a quarantined episode; return the position written.

    :class:`PlanError` ``not_found`` (404) for an unknown episode, ``already_active`` (409)
    for one already validated.
    """
    stream = episode_stream(episode_id)
    events = await store.read_stream(namespace, stream)
    if not any(isinstance(e.event, EpisodeWritten) for e in events):
        raise PlanError("not_found", f"no episode {episode_id!r}", 404)
    if any(isinstance(e.event, EpisodeValidated) for e in events):
        raise PlanError("already_active", f"episode {episode_id!r} was already validated")
    validated = EpisodeValidated(episode_id=episode_id, at=now, by=by, note=note)
    try:
        positions = await store.append(
            namespace,
            [NewEvent(validated)],
            expected_versions={stream: events[-1].stream_version},
        )
    except ConcurrencyError:  # validated (by promotion or a person) since it was read
        raise PlanError("already_active", f"episode {episode_id!r} was already validated") from None
    return positions[-1]
