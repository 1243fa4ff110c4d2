"""The search projection: one searchable document per message and per fact, with filters,
a full-text index, entity mentions and the content hash the embedding cache is keyed by.

Fold rules (pure: time comes from the events, no plugin is called):

- ``MessageAppended`` adds a message document (``doc_id`` = the position of the event that
  first appended it). Its indexed ``body`` is ``"<name>: <text> <date>"`` and its ``near``
  column holds the text (each cut to :data:`NEAR_TURN_CHARS`) of up to :data:`CONTEXT_WINDOW`
  turns on each side in the same
  conversation, as long as they are within :data:`CONTEXT_GAP_MICROS` of it (a later session
  is not context), so a reply like "Yes, last Tuesday" is found by what it answers. A new
  message refreshes the ``near`` column of the turns before it. A repeated ``message_id`` in
  the same conversation replaces the document's text and metadata. Appends to a deleted
  conversation are ignored.
- ``ConversationDeleted`` tombstones the conversation's documents (``live`` false; text, name,
  metadata and content hash removed; index rows and mentions deleted).
- ``FactWritten`` adds a fact document (text, subject/predicate/object and tags indexed).
  ``FactSuperseded``, ``FactValidated`` and ``FactForgotten`` record *when* (transaction time)
  the fact changed, so search can answer ``known_at`` questions; ``FactPurged`` tombstones it.
- Entities (see :mod:`projections.entities`) of each live document's own text are stored as
  mentions, and ``search_entities`` counts the documents that mention each canonical key.

Every change bumps the row's ``updated_position``, which the daemon's vector indexer follows.

The full-text index is dialect-specific: a contentless FTS5 table ``search_fts`` (``porter
unicode61 remove_diacritics 2``; columns body, near and an unranked ``scope`` of namespace,
kind and conversation tokens; it keeps the postings of every live document and no copy of
their text, so a document is removed by naming the values it was indexed with, read from
``search_docs`` before the row changes) on SQLite, a weighted ``tsvector`` column generated
from body and near
(PostgreSQL keeps it in step with every insert and update) with a GIN index on PostgreSQL.
Both are created and dropped with ``search_docs``.

Where each part lives: :mod:`~projections.search.schema` (tables and the full-text index each
dialect keeps), :mod:`~projections.search.documents` (a document's row and texts, pure),
:mod:`~projections.search.fold` (a batch of events into rows),
:mod:`~projections.search.index` (SQLite's contentless index kept in step),
:mod:`~projections.search.mentions` (entity mentions and counts),
:mod:`~projections.search.lookups` (the fold's batched reads) and
:mod:`~projections.search.projection` (the projection the runner hosts).
"""

from projections.search.documents import (
    CONTEXT_GAP_MICROS,
    CONTEXT_WINDOW,
    NEAR_TURN_CHARS,
    content_hash,
    date_words,
    embed_text,
    near_turn_text,
)
from projections.search.index import scope_token, scope_tokens
from projections.search.projection import SearchProjection
from projections.search.schema import (
    FTS_TOKENIZER,
    PG_TS_CONFIG,
    PG_TSV,
    deleted_conversations_table,
    docs_table,
    entities_table,
    mentions_table,
    metadata,
    tags_table,
)

__all__ = [
    "CONTEXT_GAP_MICROS",
    "CONTEXT_WINDOW",
    "FTS_TOKENIZER",
    "NEAR_TURN_CHARS",
    "PG_TSV",
    "PG_TS_CONFIG",
    "SearchProjection",
    "content_hash",
    "date_words",
    "deleted_conversations_table",
    "docs_table",
    "embed_text",
    "entities_table",
    "mentions_table",
    "metadata",
    "near_turn_text",
    "scope_token",
    "scope_tokens",
    "tags_table",
]
