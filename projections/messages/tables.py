"""The ``conversations`` and ``messages`` tables, and the rows readers get."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa

from events.types import Content

metadata = sa.MetaData()

conversations_table = sa.Table(
    "conversations",
    metadata,
    sa.Column("namespace", sa.String(200), primary_key=True),
    sa.Column("conversation_id", sa.String(300), primary_key=True),
    sa.Column("parent_conversation_id", sa.String(300)),
    sa.Column("through_message_id", sa.String(300)),
    sa.Column("through_position", sa.BigInteger),
    sa.Column("strategy", sa.String(20)),
    sa.Column("deleted", sa.Boolean, nullable=False),
    # The position of the event that created the conversation: unique, so it doubles as the
    # compact key its messages are stored under.
    sa.Column("created_position", sa.BigInteger, nullable=False, unique=True),
    sa.Column("deleted_position", sa.BigInteger),
)

messages_table = sa.Table(
    "messages",
    metadata,
    # The conversation's created_position (an integer key is far cheaper to index than
    # namespace + conversation id, which matters for a rebuild's millions of inserts).
    sa.Column("conversation_key", sa.BigInteger, primary_key=True),
    sa.Column("message_id", sa.String(300), primary_key=True),
    # The position of the event that first put this message in the conversation (its place).
    sa.Column("position", sa.BigInteger, nullable=False),
    sa.Column("role", sa.String(20), nullable=False),
    sa.Column("name", sa.String(300)),
    sa.Column("content_json", sa.Text, nullable=False),
    sa.Column("created_at", sa.BigInteger, nullable=False),
    sa.Column("metadata_json", sa.Text, nullable=False),
    sa.Column("finalized", sa.Boolean, nullable=False),
    # The position of the event that last changed it.
    sa.Column("updated_position", sa.BigInteger, nullable=False),
)
sa.Index("ix_messages_order", messages_table.c.conversation_key, messages_table.c.position)


class UnknownMessage(LookupError):
    """A message id named in a read is not visible in that conversation."""


@dataclass(frozen=True, slots=True)
class MessageRow:
    """One visible message. ``conversation_id`` is the conversation that holds the row (an
    ancestor's id for a message a reference fork inherits)."""

    conversation_id: str
    message_id: str
    role: str
    name: str | None
    content: Content
    created_at: datetime
    metadata: dict[str, Any]
    finalized: bool
    position: int
    updated_position: int = 0
    namespace: str = ""


@dataclass(frozen=True, slots=True)
class ConversationRow:
    """One conversation with its lineage, counted over its visible messages."""

    conversation_id: str
    parent_conversation_id: str | None
    through_message_id: str | None
    strategy: str | None
    """``reference`` or ``cloning`` for a fork, None for a conversation started by a message."""
    deleted: bool
    orphaned: bool
    """A reference fork whose lineage meets a deleted or missing conversation."""
    message_count: int
    last_message_at: datetime | None
    created_position: int
    through_position: int | None = None
    deleted_position: int | None = None
    lineage_truncated: bool = False
    """The walk up the lineage stopped at the depth bound or at a cycle."""
    namespace: str = ""
