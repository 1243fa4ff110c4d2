"""Recovery when an instance starts to lead: what the log shows as running was interrupted
(a crash, or a previous leader whose lease is gone) and is failed as ``interrupted`` (and
retried); reading forks left behind are cleaned."""

from __future__ import annotations

from daemon.logging import get_logger
from daemon.retrospective.closing import orphan_forks
from daemon.retrospective.follower import LogFollower
from daemon.retrospective.runner import RunWorker
from daemon.retrospective.state import Usage
from events.store.base import NewEvent
from events.types import ConversationDeleted

log = get_logger(__name__)


async def recover(follower: LogFollower, worker: RunWorker) -> None:
    """Fail runs a crash interrupted and clean reading forks left behind."""
    await follower.sync()
    for conv in list(follower.fold.conversations.values()):
        run = conv.running
        if run is not None:
            log.warning(
                "retrospective.interrupted_run",
                conversation_id=conv.conversation_id,
                run_id=run.run_id,
                attempt=run.attempt,
            )
            await worker.end_failed(
                conv.key,
                run.run_id,
                run.attempt,
                run.message_ids,
                "interrupted",
                "the daemon stopped during this attempt",
                None,
                Usage(),
            )
    await follower.sync()
    keep_superseded = worker.settings.config.keep_superseded_runs
    for conv in list(follower.fold.conversations.values()):
        orphans = orphan_forks(conv, None, keep_superseded)
        if orphans:
            events = [ConversationDeleted(conversation_id=f) for f in orphans]
            await follower.store.append(conv.namespace, [NewEvent(e) for e in events])
            log.info(
                "retrospective.forks_cleaned",
                conversation_id=conv.conversation_id,
                forks=orphans,
            )
    await follower.sync()
