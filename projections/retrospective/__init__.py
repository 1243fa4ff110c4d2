"""Retrospective state: a pure fold of messages and retrospective events, per conversation.

Two readers, one fold. The scheduler keeps a :class:`RetrospectiveFold` (:mod:`.fold`) in
memory (it needs the unreviewed tail of every conversation to evaluate triggers) and rebuilds
it from position 0 at start-up, so replaying the log reproduces the scheduler's state exactly.
The :class:`RetrospectiveProjection` (:mod:`.projection`) writes the part the API shows
(cursor, last attempt, last success, remembered log, runs) to tables, through the same
transition function (:func:`.state.apply_run_event`), so both always agree. The fold rules
are in :mod:`.state`.
"""

from projections.retrospective.fold import RetrospectiveFold
from projections.retrospective.projection import RetrospectiveProjection, get_retrospective, get_run
from projections.retrospective.state import (
    REMEMBERED_MAX_BYTES,
    REMEMBERED_MAX_ENTRIES,
    TERMINAL,
    ConversationRetro,
    RunState,
    bounded_remembered,
)

__all__ = [
    "REMEMBERED_MAX_BYTES",
    "REMEMBERED_MAX_ENTRIES",
    "TERMINAL",
    "ConversationRetro",
    "RetrospectiveFold",
    "RetrospectiveProjection",
    "RunState",
    "bounded_remembered",
    "get_retrospective",
    "get_run",
]
