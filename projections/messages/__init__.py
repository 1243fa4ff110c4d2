"""The ``conversations`` and ``messages`` projection, with fork lineage.

Fold rules (each a plain consequence of the log, no clock):

- ``MessageAppended`` creates its conversation on first use. A repeat of a ``message_id`` in
  the same conversation is an *update* (content, role, name, created_at, metadata, finalized
  are replaced, e.g. a streamed reply being finalized); the message keeps its place, which is
  the position of the event that first appended it. Appends to a deleted conversation are
  ignored.
- ``ConversationForked`` creates ``fork_id`` (ignored if ``fork_id`` already names a
  conversation, deleted or not). Its *through position* is the position of
  ``through_message_id`` among the parent's visible messages at fold time, or the fork event's
  own position when ``through_message_id`` is None (everything the parent had then). A
  ``through_message_id`` the parent does not show resolves to 0: the fork inherits nothing.

  * ``reference``: the fork stores only its own messages and reads its parent's visible
    messages with ``position <= through position``, recursively: each ancestor is cut at the
    tightest bound on the way up. A message id present in a nearer conversation hides the
    same id further up (appending an inherited message id to a fork stores the fork's own
    version *at the inherited message's position*). The walk stops after
    :data:`MAX_FORK_DEPTH` ancestors or when it meets a conversation twice (a cycle, possible
    only when forks name parents that do not exist yet); ``lineage_truncated`` says so.
  * ``cloning``: the parent's visible messages up to the through position are copied into the
    fork at fold time (with their positions); later changes to the parent do not show.

- ``ConversationDeleted`` removes the conversation's own messages and marks it deleted
  (deleting an unknown conversation is ignored). **A reference fork of a deleted (or
  never-existing) parent stays readable with its own messages only and reports
  ``orphaned=True``**: the deleted parent's messages are gone for every reader, which is what
  deleting them means. A cloning fork holds its copies and is never orphaned.

The tables are in :mod:`.tables`, the lineage rules in :mod:`.lineage`, the fold in
:mod:`.fold`; read functions (:mod:`.reads`) take an :class:`AsyncConnection` on the projection
database. This module names what the rest of memoryd imports.
"""

from projections.messages.fold import MessagesProjection
from projections.messages.lineage import LINEAGE_CHAIN, MAX_FORK_DEPTH, Ancestry, climb
from projections.messages.reads import (
    get_conversation,
    get_message,
    latest_said_at,
    list_conversations,
    list_messages,
    list_messages_through,
    recent_messages,
)
from projections.messages.tables import (
    ConversationRow,
    MessageRow,
    UnknownMessage,
    conversations_table,
    messages_table,
)

__all__ = [
    "LINEAGE_CHAIN",
    "MAX_FORK_DEPTH",
    "Ancestry",
    "ConversationRow",
    "MessageRow",
    "MessagesProjection",
    "UnknownMessage",
    "climb",
    "conversations_table",
    "get_conversation",
    "get_message",
    "latest_said_at",
    "list_conversations",
    "list_messages",
    "list_messages_through",
    "messages_table",
    "recent_messages",
]
