"""What a search document holds: its row built from an event, the text it is indexed and
embedded by, and the context (``near``) of a message. Pure: no connection, no clock."""

from __future__ import annotations

import functools
import hashlib
from datetime import datetime
from typing import Any

from events.clock import from_micros, to_micros
from events.store.base import StoredEvent
from events.types import FactWritten, MessageAppended, content_text
from projections.base import clean, clean_opt, dumps

CONTEXT_WINDOW = 2
"""Turns on each side of a message that are indexed with it."""
CONTEXT_GAP_MICROS = 3 * 3600 * 1_000_000
"""A neighbouring turn further away in time than this is not context (another session)."""
NEAR_TURN_CHARS = 512
"""Characters of one neighbouring turn kept in ``near``, cut at a word boundary (a message's
own text, in ``body``, is never cut). Uncut, four 4 KB neighbours made ``near`` 3.3x the event
log, plus their postings. 512 keeps a paragraph, which is what a short reply usually answers,
and every LoCoMo turn whole (the longest, with speaker and image caption, is 487): what is
lost on long turns is not measured by any benchmark here."""
INDEX_DATES = True
"""Index a message's date as words with it (benchmarks switch this off for the ablation)."""


def content_hash(text: str) -> str:
    """Return the sha256 of the text that is embedded for a document."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def embed_text(name: str | None, text: str) -> str:
    """Return what the embedder sees for a document: ``"<name>: <text>"`` or the text."""
    return f"{name}: {text}" if name else text


def date_words(micros: int) -> str:
    """Return a document's date as words ("8 May 2023"), so dates in a query match it."""
    return _day_words(micros // _DAY_MICROS)


_DAY_MICROS = 86_400_000_000


@functools.lru_cache(maxsize=1024)
def _day_words(day: int) -> str:
    # Consecutive messages mostly share a day: formatting once per day is the fold's saving.
    when: datetime = from_micros(day * _DAY_MICROS)
    return f"{when.day} {when.strftime('%B %Y')}"


def message_owner(role: str) -> str:
    """Return the owner a message counts as: the user's own words or the agent's."""
    return "user" if role == "user" else "agent"


def message_provenance(role: str) -> str:
    """Return a message's provenance: tool output is foreign, everything else first-hand."""
    return "tool" if role == "tool" else "user"


def message_tags(meta: dict[str, Any]) -> list[str]:
    """Return a message's tags: ``metadata.tags`` when it is a list of strings."""
    tags = meta.get("tags")
    if isinstance(tags, list):
        return sorted({clean(t) for t in tags if isinstance(t, str)})
    return []


def message_body(name: str | None, text: str, created: int) -> str:
    head = f"{name}: {text}" if name else text
    return f"{head} {date_words(created)}" if INDEX_DATES else head


def near_text(turns: list[dict[str, Any]], i: int) -> tuple[str, int]:
    """Return the context of ``turns[i]`` and how many neighbouring turns it holds."""
    centre = turns[i]["created_at"]
    parts = []
    for j in range(max(0, i - CONTEXT_WINDOW), min(len(turns), i + CONTEXT_WINDOW + 1)):
        if j == i:
            continue
        other = turns[j]
        if abs(other["created_at"] - centre) > CONTEXT_GAP_MICROS:
            continue
        parts.append(near_turn_text(other["name"], other["text"]))
    return "\n".join(parts), len(parts)


def near_turn_text(name: str | None, text: str) -> str:
    """Return what a neighbouring turn adds to ``near``: its :func:`embed_text`, cut at the
    last whitespace within :data:`NEAR_TURN_CHARS` characters (at the limit itself when the
    second half holds none, say a long URL)."""
    part = embed_text(name, text)
    if len(part) <= NEAR_TURN_CHARS:
        return part
    end = NEAR_TURN_CHARS  # part[end] is the first character left out
    while end > NEAR_TURN_CHARS // 2 and not part[end].isspace():
        end -= 1
    if end <= NEAR_TURN_CHARS // 2:
        end = NEAR_TURN_CHARS
    return part[:end].rstrip()


MESSAGE_UPDATED = (
    "role",
    "name",
    "text",
    "body",
    "created_at",
    "valid_from",
    "owner",
    "provenance",
    "tags_json",
    "metadata_json",
    "content_hash",
)
"""The columns a repeated ``message_id`` replaces (the rest keep the first append's values)."""
NEAR_PARTS = "_near_parts"
"""Key (not a column) of an in-memory row: how many turns its ``near`` holds."""


def message_row(stored: StoredEvent, event: MessageAppended) -> dict[str, Any]:
    """Return the document of an appended message (``near`` is filled in by the fold)."""
    ns, cid = stored.namespace, clean(event.conversation_id)
    text = clean(content_text(event.content))
    name = clean_opt(event.name)
    message_id = clean(event.message_id)
    created = to_micros(event.created_at)
    role = event.role
    # One dict literal per new document: this is the fold's hottest line.
    return {
        "doc_id": stored.position,
        "namespace": ns,
        "kind": "message",
        "ref_id": message_id,
        "conversation_id": cid,
        "role": role,
        "name": name,
        "text": text,
        "body": message_body(name, text, created),
        "near": "",
        "created_at": created,
        "valid_from": created,
        "valid_to": None,
        "superseded_valid_to": None,
        "known_from": to_micros(stored.recorded_at),
        "superseded_tx": None,
        "superseded_by": None,
        "forgotten_tx": None,
        "validated_tx": None,
        "status": "active",
        "owner": message_owner(role),
        "provenance": message_provenance(role),
        "importance": 0.5,
        "confidence": 1.0,
        "tags_json": dumps(message_tags(event.metadata)),
        "metadata_json": dumps(event.metadata),
        "content_hash": content_hash(embed_text(name, text)),
        "live": True,
        "updated_position": stored.position,
    }


def fact_row(stored: StoredEvent, event: FactWritten) -> dict[str, Any]:
    """Return the document of a written fact."""
    ns = stored.namespace
    fact_id, text = clean(event.fact_id), clean(event.text)
    tags = sorted({clean(t) for t in event.tags})
    spo = [clean_opt(event.subject), clean_opt(event.predicate), clean_opt(event.object)]
    parts = [text, *spo, " ".join(tags)]
    body = " ".join(p for p in parts if p)
    valid_from = to_micros(event.valid_from)
    return {
        "doc_id": stored.position,
        "namespace": ns,
        "kind": "fact",
        "ref_id": fact_id,
        "conversation_id": "",
        "role": None,
        "name": None,
        "text": text,
        "body": body,
        "near": "",
        "created_at": valid_from,
        "valid_from": valid_from,
        "valid_to": None if event.valid_to is None else to_micros(event.valid_to),
        "superseded_valid_to": None,
        "known_from": to_micros(stored.recorded_at),
        "superseded_tx": None,
        "superseded_by": None,
        "forgotten_tx": None,
        "validated_tx": None,
        "status": event.status,
        "owner": event.owner,
        "provenance": event.provenance,
        "importance": float(event.importance),
        "confidence": float(event.confidence),
        "tags_json": dumps(tags),
        "metadata_json": dumps(
            {
                "subject": event.subject,
                "predicate": event.predicate,
                "object": event.object,
                "source_message_ids": event.source_message_ids,
            }
        ),
        "content_hash": content_hash(text),
        "live": True,
        "updated_position": stored.position,
    }
