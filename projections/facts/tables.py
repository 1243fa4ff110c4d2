"""The facts projection's tables: one row per version of a fact (``fact_versions``), with its
tags, the claims and sources of each fact, and the decisions that wrote or replaced it; and
:class:`FactRow`, the version readers get."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa

from events.clock import from_micros
from projections.base import clean, loads

metadata = sa.MetaData()

fact_versions_table = sa.Table(
    "fact_versions",
    metadata,
    sa.Column("namespace", sa.String(200), primary_key=True),
    sa.Column("fact_id", sa.String(300), primary_key=True),
    # The position of the event that made this version.
    sa.Column("position", sa.BigInteger, primary_key=True),
    sa.Column("written_position", sa.BigInteger, nullable=False),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("subject", sa.Text),
    # The subject as compared: lower case, "the user" and "user" one (filters and lookups).
    sa.Column("subject_key", sa.String(300)),
    sa.Column("predicate", sa.Text),
    sa.Column("object", sa.Text),
    sa.Column("tags_json", sa.Text, nullable=False),
    sa.Column("owner", sa.String(20), nullable=False),
    sa.Column("provenance", sa.String(20), nullable=False),
    sa.Column("status", sa.String(20), nullable=False),
    sa.Column("confidence", sa.Float, nullable=False),
    sa.Column("importance", sa.Float, nullable=False),
    sa.Column("valid_from", sa.BigInteger, nullable=False),
    sa.Column("valid_to", sa.BigInteger),
    sa.Column("recorded_from", sa.BigInteger, nullable=False),
    sa.Column("recorded_to", sa.BigInteger),
    sa.Column("closed_position", sa.BigInteger),
    sa.Column("superseded_by", sa.String(300)),
    sa.Column("supersedes", sa.String(300)),
    sa.Column("forgotten", sa.Boolean, nullable=False),
    sa.Column("forgotten_reason", sa.Text),
    sa.Column("archived", sa.Boolean, nullable=False),
    sa.Column("source_message_ids_json", sa.Text, nullable=False),
    sa.Column("validated_by", sa.String(300)),
    sa.Column("validation_note", sa.Text),
)
sa.Index(
    "ix_fact_versions_belief",
    fact_versions_table.c.namespace,
    fact_versions_table.c.recorded_to,
    fact_versions_table.c.written_position,
)
sa.Index(
    "ix_fact_versions_fact",
    fact_versions_table.c.namespace,
    fact_versions_table.c.fact_id,
    fact_versions_table.c.recorded_to,
)

sa.Index(
    "ix_fact_versions_subject",
    fact_versions_table.c.namespace,
    fact_versions_table.c.subject_key,
    fact_versions_table.c.recorded_to,
)

fact_claims_table = sa.Table(
    "fact_claims",
    metadata,
    sa.Column("namespace", sa.String(200), primary_key=True),
    sa.Column("fact_id", sa.String(300), primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True),
    sa.Column("subject_key", sa.String(300), nullable=False),
    sa.Column("attribute", sa.String(200), nullable=False),
    sa.Column("value_key", sa.String(500), nullable=False),
    sa.Column("claim_json", sa.Text, nullable=False),
)
sa.Index(
    "ix_fact_claims_attribute",
    fact_claims_table.c.namespace,
    fact_claims_table.c.subject_key,
    fact_claims_table.c.attribute,
)
sa.Index(
    "ix_fact_claims_value",
    fact_claims_table.c.namespace,
    fact_claims_table.c.subject_key,
    fact_claims_table.c.value_key,
)

# Which facts each message is a source of: recall reads it to know a message whose every fact
# was replaced ("I live in Boston" once "I moved to Seattle" superseded it) is out of date.
fact_sources_table = sa.Table(
    "fact_sources",
    metadata,
    sa.Column("namespace", sa.String(200), primary_key=True),
    sa.Column("message_id", sa.String(300), primary_key=True),
    sa.Column("fact_id", sa.String(300), primary_key=True),
)

fact_decisions_table = sa.Table(
    "fact_decisions",
    metadata,
    sa.Column("namespace", sa.String(200), primary_key=True),
    sa.Column("fact_id", sa.String(300), primary_key=True),
    sa.Column("position", sa.BigInteger, primary_key=True),
    # written | superseded | conflict | deduplicated: what the decision did to this fact.
    sa.Column("role", sa.String(20), nullable=False),
    sa.Column("outcome", sa.String(20), nullable=False),
    sa.Column("decision_json", sa.Text, nullable=False),
)

fact_tags_table = sa.Table(
    "fact_tags",
    metadata,
    sa.Column("namespace", sa.String(200), primary_key=True),
    sa.Column("fact_id", sa.String(300), primary_key=True),
    sa.Column("tag", sa.String(300), primary_key=True),
)
sa.Index("ix_fact_tags_tag", fact_tags_table.c.namespace, fact_tags_table.c.tag)


@dataclass(frozen=True, slots=True)
class FactRow:
    """One version of a fact (times are aware UTC datetimes)."""

    fact_id: str
    text: str
    subject: str | None
    predicate: str | None
    object: str | None
    tags: list[str]
    owner: str
    provenance: str
    status: str
    confidence: float
    importance: float
    valid_from: datetime
    valid_to: datetime | None
    recorded_from: datetime
    recorded_to: datetime | None
    superseded_by: str | None
    supersedes: str | None
    forgotten: bool
    source_message_ids: list[str]
    validated_by: str | None
    position: int
    """The position of the event that made this version."""
    written_position: int = 0
    """The position of the fact's ``FactWritten``."""
    validation_note: str | None = None
    forgotten_reason: str | None = None
    namespace: str = ""
    archived: bool = False
    closed_position: int | None = None


def fact_row(row: sa.Row[Any]) -> FactRow:
    """Return the version a ``fact_versions`` row holds."""
    return FactRow(
        fact_id=row.fact_id,
        text=row.text,
        subject=row.subject,
        predicate=row.predicate,
        object=row.object,
        tags=loads(row.tags_json),
        owner=row.owner,
        provenance=row.provenance,
        status=row.status,
        confidence=float(row.confidence),
        importance=float(row.importance),
        valid_from=from_micros(row.valid_from),
        valid_to=None if row.valid_to is None else from_micros(row.valid_to),
        recorded_from=from_micros(row.recorded_from),
        recorded_to=None if row.recorded_to is None else from_micros(row.recorded_to),
        superseded_by=row.superseded_by,
        supersedes=row.supersedes,
        forgotten=bool(row.forgotten),
        source_message_ids=loads(row.source_message_ids_json),
        validated_by=row.validated_by,
        position=int(row.position),
        written_position=int(row.written_position),
        validation_note=row.validation_note,
        forgotten_reason=row.forgotten_reason,
        namespace=row.namespace,
        archived=bool(row.archived),
        closed_position=None if row.closed_position is None else int(row.closed_position),
    )


def subject_key(subject: str | None) -> str:
    """Return the comparison key of a subject: "The user", "user" and no subject are "user"."""
    if not subject:
        return "user"
    key = " ".join(unicodedata.normalize("NFKC", subject).casefold().split())
    if key in ("i", "me", "myself", "we", "us"):
        return "user"
    return clean(re.sub(r"^(?:the\s+)?users?\b", "user", key))[:300]
