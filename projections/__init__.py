"""Projections: pure folds of the event log into read models, with their checkpoints.

This package imports only :mod:`events`. Every table here can be dropped and rebuilt from
position 0 with identical content; nothing reads a clock or calls a plugin.

Running them (``projections.runner``)::

    runner = ProjectionRunner(store, backend.projection_engine(write=True))
    await runner.setup()          # create tables; drop + reset a projection whose version changed
    await runner.catch_up()       # fold up to the store's head, returns the position reached
    task = asyncio.create_task(runner.run())   # then follow new commits (cancel to stop)
    await runner.wait_for(position, timeout=5)  # read-your-writes after an append
    await runner.rebuild(progress)              # drop everything and refold from 0
    await runner.digest()         # {table: sha256 of its rows in primary-key order}

``runner.position`` is the checkpoint every projection has reached (``runner.checkpoints``
per projection). Each batch (``batch_size`` events, default 5000; fewer when following) is
folded in one transaction together with the checkpoints, in ``projection_checkpoints(name,
version, position)``; a failing batch leaves neither rows nor checkpoint behind. A batch does
not wait for the disk (SQLite ``synchronous=NORMAL``, PostgreSQL ``synchronous_commit=off``):
a power cut can only lose whole recent batches, which are folded again from the durable log.
Several runners may share one database (checkpoints are re-read, and locked on PostgreSQL,
per batch, so nothing is folded twice). A projection whose stored ``version`` differs from
the code's is dropped and refolded by ``setup()``. ``rebuild()`` drops the indexes a
projection lists in ``deferred_indexes`` and builds them once at the end.

Text: NUL characters in projected text columns are stored as U+FFFD on every backend
(PostgreSQL cannot hold NUL, and a projection must fold every event the log holds).

Reading them (every function takes an ``AsyncConnection`` on the projection database, e.g.
``async with backend.projection_engine(write=False).connect() as conn``):

- ``projections.messages``: :func:`get_conversation` -> :class:`ConversationRow` | None,
  :func:`list_messages` (``after_message_id``, ``limit``) -> list[:class:`MessageRow`],
  :func:`get_message`, :func:`list_conversations`. Fork lineage rules (reference / cloning,
  deleted parents -> ``orphaned=True``, message updates) are in that module's docstring.
- ``projections.facts``: :func:`query_facts` (``as_of``, ``known_at``, ``status``, ``tag``,
  ``owner``, ``include_quarantined``, ``include_superseded``, ``limit``) ->
  list[:class:`FactRow`], :func:`get_fact` (``known_at``), :func:`fact_history` (the supersede
  chain both ways, oldest first), :func:`fact_versions` (every version, for audits).
  Bi-temporal rules are in that module's docstring.

Adding a projection: subclass :class:`Projection` (``name``, ``version``, ``metadata`` with
its tables, ``async apply(conn, events)``) and pass it to the runner.
"""

from projections.base import Projection, upsert
from projections.facts import (
    FactRow,
    FactsProjection,
    fact_history,
    fact_versions,
    get_fact,
    query_facts,
)
from projections.messages import (
    ConversationRow,
    MessageRow,
    MessagesProjection,
    UnknownMessage,
    get_conversation,
    get_message,
    list_conversations,
    list_messages,
)
from projections.runner import (
    ProjectionRunner,
    ProjectionStateChanged,
    default_projections,
    table_digests,
)

__all__ = [
    "ConversationRow",
    "FactRow",
    "FactsProjection",
    "MessageRow",
    "MessagesProjection",
    "Projection",
    "ProjectionRunner",
    "ProjectionStateChanged",
    "UnknownMessage",
    "default_projections",
    "fact_history",
    "fact_versions",
    "get_conversation",
    "get_fact",
    "get_message",
    "list_conversations",
    "list_messages",
    "query_facts",
    "table_digests",
    "upsert",
]
