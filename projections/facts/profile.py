"""The profile: the namespace's current facts grouped by subject (a *topic*) and attribute
(one summary line each), every line citing the facts it rests on.

The grouped lines (``profile_lines``) are part of the facts projection, so they are a pure
function of the fact tables: after each batch the groups the batch touched are recomputed
from the facts the default recall sees (active, not superseded, forgotten or archived). A
fact belongs to the groups of the claims read from it; a fact with no claim to the
``notes`` group of its subject. A line shows the newest :data:`LINE_FACTS` facts of its group
and counts the rest.

A model may word a topic better (``ProfileWritten``, kept in ``profile_model``). Its lines
are served only while the topic's cited facts are exactly the ones the model was shown
(``rested_on``); once they differ the model's wording is stale and the topic's grouped lines
are served instead, until a later run words it again.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from events.clock import to_micros
from events.consolidation_events import ProfileWritten
from events.store.base import StoredEvent
from projections.base import chunks, dumps, loads, upsert
from projections.facts.tables import (
    fact_claims_table,
    fact_versions_table,
    metadata,
    subject_key,
)

NOTES = "notes"
"""The attribute of a fact from which no claim was read."""
LINE_FACTS = 5
"""Most facts one line shows (the newest); the line counts the others."""
USER = "user"

profile_lines_table = sa.Table(
    "profile_lines",
    metadata,
    sa.Column("namespace", sa.String(200), primary_key=True),
    sa.Column("topic", sa.String(300), primary_key=True),
    sa.Column("attribute", sa.String(200), primary_key=True),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("fact_ids_json", sa.Text, nullable=False),
    sa.Column("facts", sa.Integer, nullable=False),
    # 0 for the user's topic, 1 for the others: the profile is read in that order.
    sa.Column("rank", sa.SmallInteger, nullable=False),
)
sa.Index(
    "ix_profile_lines_order",
    profile_lines_table.c.namespace,
    profile_lines_table.c.rank,
    profile_lines_table.c.topic,
    profile_lines_table.c.attribute,
)
profile_model_table = sa.Table(
    "profile_model",
    metadata,
    sa.Column("namespace", sa.String(200), primary_key=True),
    sa.Column("topic", sa.String(300), primary_key=True),
    sa.Column("lines_json", sa.Text, nullable=False),
    sa.Column("rested_on_json", sa.Text, nullable=False),
    sa.Column("run_id", sa.String(100), nullable=False),
    sa.Column("position", sa.BigInteger, nullable=False),
    sa.Column("at", sa.BigInteger, nullable=False),
)
_V = fact_versions_table.c
_C = fact_claims_table.c
_P = profile_lines_table.c
_M = profile_model_table.c

Group = tuple[str, str, str]
"""``(namespace, topic, attribute)``."""


def _visible() -> sa.ColumnElement[bool]:
    return sa.and_(
        _V.recorded_to.is_(None),
        _V.superseded_by.is_(None),
        _V.forgotten.is_(False),
        _V.archived.is_(False),
        _V.status == "active",
    )


async def groups_of(conn: AsyncConnection, namespace: str, fact_ids: Iterable[str]) -> set[Group]:
    """Return the groups the facts belong to as the tables hold them now."""
    out: set[Group] = set()
    for part in chunks(sorted(set(fact_ids))):
        claimed: set[str] = set()
        rows = await conn.execute(
            sa.select(_C.fact_id, _C.subject_key, _C.attribute)
            .where(_C.namespace == namespace, _C.fact_id.in_(part))
            .distinct()
        )
        for row in rows:
            claimed.add(row.fact_id)
            out.add((namespace, row.subject_key, row.attribute))
        rows = await conn.execute(
            sa.select(_V.fact_id, _V.subject_key).where(
                _V.namespace == namespace, _V.fact_id.in_(part), _V.recorded_to.is_(None)
            )
        )
        out.update(
            (namespace, row.subject_key or USER, NOTES)
            for row in rows
            if row.fact_id not in claimed
        )
    return out


async def regroup(conn: AsyncConnection, groups: Iterable[Group]) -> None:
    """Recompute the lines of ``groups`` from the fact tables (a group left empty goes)."""
    for namespace, topic, attribute in sorted(groups):
        if attribute == NOTES:
            claimless = (
                ~sa.select(sa.literal(1))
                .where(_C.namespace == namespace, _C.fact_id == _V.fact_id)
                .exists()
            )
            members = sa.and_(_V.subject_key == topic, claimless)
        else:
            claimed = sa.select(_C.fact_id).where(
                _C.namespace == namespace, _C.subject_key == topic, _C.attribute == attribute
            )
            members = _V.fact_id.in_(claimed)
        where = sa.and_(_V.namespace == namespace, _visible(), members)
        newest = (
            await conn.execute(
                sa.select(_V.fact_id, _V.text)
                .where(where)
                .order_by(_V.written_position.desc(), _V.fact_id)
                .limit(LINE_FACTS)
            )
        ).all()
        key = sa.and_(_P.namespace == namespace, _P.topic == topic, _P.attribute == attribute)
        if not newest:
            await conn.execute(profile_lines_table.delete().where(key))
            continue
        total = int(
            (
                await conn.execute(
                    sa.select(sa.func.count()).select_from(fact_versions_table).where(where)
                )
            ).scalar_one()
        )
        await conn.execute(
            upsert(
                conn,
                profile_lines_table,
                ["namespace", "topic", "attribute"],
                ["text", "fact_ids_json", "facts", "rank"],
            ),
            [
                {
                    "namespace": namespace,
                    "topic": topic,
                    "attribute": attribute,
                    "text": line_text(attribute, [r.text for r in newest], total),
                    "fact_ids_json": dumps([r.fact_id for r in newest]),
                    "facts": total,
                    "rank": 0 if topic == USER else 1,
                }
            ],
        )


def line_text(attribute: str, texts: Sequence[str], total: int) -> str:
    """Render one grouped line: the attribute, then its newest facts' texts."""
    said = "; ".join(" ".join(t.split()).rstrip(".") for t in texts)
    more = f" (and {total - len(texts)} more)" if total > len(texts) else ""
    return f"{attribute.replace('_', ' ')}: {said}{more}"


async def fold_model_profiles(conn: AsyncConnection, events: Sequence[StoredEvent]) -> None:
    """Keep each topic's latest model wording (``ProfileWritten``)."""
    rows = [
        {
            "namespace": stored.namespace,
            "topic": str(topic["topic"]),
            "lines_json": dumps(topic.get("lines") or []),
            "rested_on_json": dumps(sorted(topic.get("rested_on") or [])),
            "run_id": stored.event.run_id,
            "position": stored.position,
            "at": to_micros(stored.event.at),
        }
        for stored in events
        if isinstance(stored.event, ProfileWritten)
        for topic in stored.event.topics
        if isinstance(topic, dict) and topic.get("topic")
    ]
    keys = ["lines_json", "rested_on_json", "run_id", "position", "at"]
    for row in rows:
        await conn.execute(upsert(conn, profile_model_table, ["namespace", "topic"], keys), [row])


async def read_profile(
    conn: AsyncConnection,
    namespace: str,
    *,
    subject: str | None = None,
    max_lines: int | None = None,
) -> list[dict[str, Any]]:
    """Return the profile's topics (the user first, then by name), each ``{topic, source,
    lines: [{attribute?, text, fact_ids}], fact_ids}``; ``source`` is ``model`` while the
    model's wording is fresh, else ``facts`` (with ``stale_model`` when one went stale).

    ``max_lines`` bounds the grouped lines read (the context endpoint reads only a few)."""
    joined = profile_lines_table.outerjoin(
        profile_model_table, sa.and_(_M.namespace == _P.namespace, _M.topic == _P.topic)
    )
    query = (
        sa.select(
            profile_lines_table,
            _M.lines_json,
            _M.rested_on_json,
            _M.run_id.label("worded_by"),
        )
        .select_from(joined)
        .where(_P.namespace == namespace)
    )
    if subject is not None:
        query = query.where(_P.topic == subject_key(subject))
    # (namespace, rank, topic, attribute) is an index: the first lines are read, not sorted.
    query = query.order_by(_P.rank, _P.topic, _P.attribute)
    if max_lines is not None:
        query = query.limit(max_lines)
    rows = (await conn.execute(query)).all()
    topics: dict[str, dict[str, Any]] = {}
    for row in rows:
        topic = topics.setdefault(row.topic, {"topic": row.topic, "source": "facts", "lines": []})
        ids = loads(row.fact_ids_json)
        topic["lines"].append(
            {"attribute": row.attribute, "text": row.text, "fact_ids": ids, "facts": row.facts}
        )
        topic["model"] = row
    maybe_cut = (
        rows[-1].topic if rows and max_lines is not None and len(rows) == max_lines else None
    )
    for topic in topics.values():
        model = topic.pop("model")
        if model.worded_by is None:
            continue
        cited = sorted({f for line in topic["lines"] for f in line["fact_ids"]})
        if topic["topic"] == maybe_cut:  # its other lines were not read
            cited = await _cited(conn, namespace, topic["topic"])
        if cited == loads(model.rested_on_json):
            topic["source"] = "model"
            topic["lines"] = loads(model.lines_json)
            topic["worded_by"] = model.worded_by
        else:
            topic["stale_model"] = model.worded_by
    out = list(topics.values())
    for topic in out:
        topic["fact_ids"] = sorted({f for line in topic["lines"] for f in line["fact_ids"]})
    return out


async def _cited(conn: AsyncConnection, namespace: str, topic: str) -> list[str]:
    """Every fact id a topic's grouped lines cite now (all its lines, however many were read)."""
    rows = await conn.execute(
        sa.select(_P.fact_ids_json).where(_P.namespace == namespace, _P.topic == topic)
    )
    return sorted({f for row in rows for f in loads(row.fact_ids_json)})


async def grouped_topics(
    conn: AsyncConnection, namespace: str, *, max_lines: int
) -> dict[str, list[dict[str, Any]]]:
    """Return whole topics' grouped lines (what a model is shown to word the profile), at
    most ``max_lines`` lines."""
    query = (
        sa.select(profile_lines_table)
        .where(_P.namespace == namespace)
        .order_by(_P.rank, _P.topic, _P.attribute)
        .limit(max_lines + 1)
    )
    rows = (await conn.execute(query)).all()
    out: dict[str, list[dict[str, Any]]] = {}
    for row in rows[:max_lines]:
        out.setdefault(row.topic, []).append(
            {"attribute": row.attribute, "text": row.text, "fact_ids": loads(row.fact_ids_json)}
        )
    if len(rows) > max_lines and rows[max_lines].topic == rows[max_lines - 1].topic:
        out.pop(rows[max_lines].topic)  # a topic cut short would be stale at once
    return out


async def fresh_model_topics(conn: AsyncConnection, namespace: str) -> set[str]:
    """Return the topics whose model wording still rests on the topic's facts."""
    rows = (
        await conn.execute(sa.select(_M.topic, _M.rested_on_json).where(_M.namespace == namespace))
    ).all()
    return {
        row.topic
        for row in rows
        if await _cited(conn, namespace, row.topic) == loads(row.rested_on_json)
    }
