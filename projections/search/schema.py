"""The search projection's tables, and the full-text index each dialect keeps with them.

SQLite: a contentless FTS5 table ``search_fts`` (columns body, near and an unranked ``scope``;
see :mod:`projections.search.index`). PostgreSQL: a weighted ``tsvector`` column generated
from body and near, with a GIN index. Both are created and dropped with ``search_docs``.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

FTS_TOKENIZER = "porter unicode61 remove_diacritics 2"
PG_TS_CONFIG = "english"

metadata = sa.MetaData()

docs_table = sa.Table(
    "search_docs",
    metadata,
    sa.Column("doc_id", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("namespace", sa.String(200), nullable=False),
    sa.Column("kind", sa.String(10), nullable=False),
    sa.Column("ref_id", sa.String(300), nullable=False),
    sa.Column("conversation_id", sa.String(300), nullable=False),
    sa.Column("role", sa.String(20)),
    sa.Column("name", sa.String(300)),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("body", sa.Text, nullable=False),
    sa.Column("near", sa.Text, nullable=False),
    sa.Column("created_at", sa.BigInteger, nullable=False),
    sa.Column("valid_from", sa.BigInteger, nullable=False),
    sa.Column("valid_to", sa.BigInteger),
    sa.Column("superseded_valid_to", sa.BigInteger),
    sa.Column("known_from", sa.BigInteger, nullable=False),
    sa.Column("superseded_tx", sa.BigInteger),
    sa.Column("superseded_by", sa.String(300)),
    sa.Column("forgotten_tx", sa.BigInteger),
    sa.Column("validated_tx", sa.BigInteger),
    sa.Column("status", sa.String(20), nullable=False),
    sa.Column("owner", sa.String(20), nullable=False),
    sa.Column("provenance", sa.String(20), nullable=False),
    sa.Column("importance", sa.Float, nullable=False),
    sa.Column("confidence", sa.Float, nullable=False),
    sa.Column("tags_json", sa.Text, nullable=False),
    sa.Column("metadata_json", sa.Text, nullable=False),
    sa.Column("content_hash", sa.String(64), nullable=False),
    sa.Column("live", sa.Boolean, nullable=False),
    sa.Column("updated_position", sa.BigInteger, nullable=False),
    sa.UniqueConstraint("namespace", "kind", "conversation_id", "ref_id", name="uq_search_ref"),
)
sa.Index("ix_search_docs_updated", docs_table.c.updated_position)
sa.Index(
    "ix_search_docs_conv",
    docs_table.c.namespace,
    docs_table.c.conversation_id,
    docs_table.c.doc_id,
)

tags_table = sa.Table(
    "search_tags",
    metadata,
    sa.Column("doc_id", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("tag", sa.String(300), primary_key=True),
)
sa.Index("ix_search_tags_tag", tags_table.c.tag, tags_table.c.doc_id)

mentions_table = sa.Table(
    "search_mentions",
    metadata,
    sa.Column("doc_id", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("entity_key", sa.String(300), primary_key=True),
)
sa.Index("ix_search_mentions_key", mentions_table.c.entity_key, mentions_table.c.doc_id)

entities_table = sa.Table(
    "search_entities",
    metadata,
    sa.Column("namespace", sa.String(200), primary_key=True),
    sa.Column("entity_key", sa.String(300), primary_key=True),
    sa.Column("display", sa.String(300), nullable=False),
    sa.Column("doc_count", sa.Integer, nullable=False),
)

deleted_conversations_table = sa.Table(
    "search_deleted_conversations",
    metadata,
    sa.Column("namespace", sa.String(200), primary_key=True),
    sa.Column("conversation_id", sa.String(300), primary_key=True),
)


def _ddl_statement(statement: str) -> Any:
    return sa.DDL(statement)  # type: ignore[no-untyped-call]


for _ddl in (
    f"CREATE VIRTUAL TABLE IF NOT EXISTS search_fts USING fts5(body, near, scope, "
    f"content='', tokenize='{FTS_TOKENIZER}')",
):
    sa.event.listen(docs_table, "after_create", _ddl_statement(_ddl).execute_if(dialect="sqlite"))
sa.event.listen(
    docs_table,
    "before_drop",
    _ddl_statement("DROP TABLE IF EXISTS search_fts").execute_if(dialect="sqlite"),
)
PG_TSV = (
    f"setweight(to_tsvector('{PG_TS_CONFIG}', body), 'A') || "
    f"setweight(to_tsvector('{PG_TS_CONFIG}', near), 'B')"
)
for _ddl in (
    f"ALTER TABLE search_docs ADD COLUMN IF NOT EXISTS tsv tsvector "
    f"GENERATED ALWAYS AS ({PG_TSV}) STORED",
    "CREATE INDEX IF NOT EXISTS ix_search_docs_tsv ON search_docs USING GIN (tsv)",
):
    sa.event.listen(
        docs_table, "after_create", _ddl_statement(_ddl).execute_if(dialect="postgresql")
    )
