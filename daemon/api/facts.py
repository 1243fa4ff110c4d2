"""``/v1/facts``: write, read, query, supersede, validate, forget, purge and trace facts.

A write (``POST /v1/facts``) is reconciled with the facts memory holds
(:mod:`daemon.memory.writes`) and answers what it did: ``{fact_id, outcome: added | updated |
deduplicated | conflict, superseded: [...], deduplicated, reason, position, gate_flags?}``.
The decision and its effects are one append, so ``GET /v1/facts/{id}/history`` can say why a
fact is current or gone.

Writes check the fact's own stream in the log (not the projection) and append with the
streams' expected versions, so two concurrent changes of one fact cannot both win (409).

Status on write: a fact with ``provenance`` ``user`` (the default) is ``active``; every other
provenance (``tool``, ``extraction``, ``reflection``, ``imported``) enters ``quarantined``
until someone validates it (``POST /v1/facts/{id}/validate``), and so does a fact the ingest
gate flags or a write the reconciliation policy leaves to a person (``conflict``).

Idempotency: an ``Idempotency-Key`` header makes a write repeatable: the fact id is derived
from the key, and a retry returns the original answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from aiohttp import web

from daemon.api.common import async_append, derived_id, header_key, new_id, path_id
from daemon.api.errors import ApiError, invalid, json_response, not_found
from daemon.api.keys import GRANT, namespace_of, state_of
from daemon.api.validation import Field, Schema, parse_body, parse_query, parse_timestamp
from daemon.consolidation import ingest
from daemon.memory.reconcile import subject_key
from daemon.memory.writes import Draft
from daemon.services.memory import writer_for
from events.consolidation_events import ValidationRefused
from events.store.base import NO_STREAM, NewEvent, StoredEvent
from events.types import (
    FACT_STATUSES,
    OWNERS,
    PROVENANCES,
    Event,
    FactForgotten,
    FactPurged,
    FactReconciled,
    FactSuperseded,
    FactValidated,
    FactWritten,
    fact_stream,
)
from projections.facts import (
    Belief,
    FactRow,
    decisions_of,
    fact_history,
    fact_versions,
    get_fact,
    query_facts,
)
from projections.messages import latest_said_at

MAX_LIST = 1000
MAX_TEXT = 20_000

FACT_BODY = Schema(
    "FactIn",
    (
        Field("text", "string", required=True, min_length=1, max_length=MAX_TEXT),
        Field("subject", "string", nullable=True, max_length=1000),
        Field("predicate", "string", nullable=True, max_length=1000),
        Field("object", "string", nullable=True, max_length=1000),
        Field(
            "tags",
            "array",
            max_length=100,
            items=Field("tag", "string", min_length=1, max_length=200),
        ),
        Field("owner", "string", enum=OWNERS, description="default user"),
        Field(
            "provenance",
            "string",
            enum=PROVENANCES,
            description="default user; anything but user starts quarantined",
        ),
        Field("valid_from", "datetime", description="default: the time of the write"),
        Field("valid_to", "datetime", nullable=True),
        Field("confidence", "number", minimum=0.0, maximum=1.0, description="default 1.0"),
        Field("importance", "number", minimum=0.0, maximum=1.0, description="default 0.5"),
        Field(
            "source_message_ids",
            "array",
            max_length=1000,
            items=Field("message_id", "string", min_length=1, max_length=200),
        ),
        Field(
            "dedupe",
            "boolean",
            description="default true; false writes it as a new fact whatever memory holds "
            "(no reconciliation)",
        ),
    ),
)

KNOWN_AT = Field(
    "known_at",
    "string",
    max_length=64,
    description="transaction time: as memoryd knew then; an ISO timestamp, or a log position "
    "(an integer: the belief right after that event)",
)

VALIDATE_BODY = Schema(
    "ValidateIn",
    (
        Field("note", "string", nullable=True, max_length=2000),
        Field("force", "boolean", description="validate even if the ingest gate flags the text"),
    ),
)

LIST_QUERY = Schema(
    "FactsQuery",
    (
        Field("as_of", "datetime", description="valid time: facts true at this instant"),
        KNOWN_AT,
        Field("status", "string", enum=FACT_STATUSES),
        Field(
            "subject",
            "string",
            max_length=300,
            description="facts about this subject (user, a name, user's sister)",
        ),
        Field("tag", "string", max_length=200),
        Field("owner", "string", enum=OWNERS),
        Field("limit", "integer", minimum=1, maximum=MAX_LIST, description="default 100"),
        Field("include_quarantined", "boolean", description="default false"),
        Field("include_superseded", "boolean", description="default false"),
        Field(
            "include_archived",
            "boolean",
            description="default false; archived facts (consolidation) are left out otherwise",
        ),
    ),
)

GET_QUERY = Schema("FactQuery", (KNOWN_AT,))
FORGET_QUERY = Schema("ForgetQuery", (Field("reason", "string", max_length=2000),))


def known_at_of(query: dict[str, Any]) -> Belief:
    """The ``known_at`` of a query: a log position (digits) or a moment (ISO timestamp)."""
    raw = query.get("known_at")
    if raw is None:
        return None
    text = str(raw).strip()
    if text.isascii() and text.isdigit():
        if len(text) > 18:
            raise invalid("known_at", "a log position must fit in 64 bits")
        return int(text)
    return parse_timestamp(text, "known_at")


def fact_json(row: FactRow, decision: dict[str, Any] | None = None) -> dict[str, Any]:
    """Return the API's view of one fact version, with the decision that wrote it."""
    reconciliation = None
    if decision is not None:
        reconciliation = {
            k: decision.get(k)
            for k in (
                "outcome",
                "superseded",
                "conflicts_with",
                "reason",
                "confidence",
                "decided_by",
                "position",
            )
        }
    return {
        "fact_id": row.fact_id,
        "text": row.text,
        "subject": row.subject,
        "predicate": row.predicate,
        "object": row.object,
        "tags": row.tags,
        "owner": row.owner,
        "provenance": row.provenance,
        "status": row.status,
        "confidence": row.confidence,
        "importance": row.importance,
        "valid_from": row.valid_from,
        "valid_to": row.valid_to,
        "recorded_from": row.recorded_from,
        "recorded_to": row.recorded_to,
        "superseded_by": row.superseded_by,
        "supersedes": row.supersedes,
        "forgotten": row.forgotten,
        "forgotten_reason": row.forgotten_reason,
        "archived": row.archived,
        "source_message_ids": row.source_message_ids,
        "validated_by": row.validated_by,
        "validation_note": row.validation_note,
        "position": row.position,
        "written_position": row.written_position,
        "gate_flags": [] if decision is None else decision.get("gate_flags", []),
        "reconciliation": reconciliation,
    }


async def _written_decisions(
    conn: Any, namespace: str, rows: list[FactRow]
) -> dict[str, dict[str, Any]]:
    found = await decisions_of(conn, namespace, [r.fact_id for r in rows], roles=("written",))
    return {fact_id: decisions[-1] for fact_id, decisions in found.items() if decisions}


@dataclass(slots=True)
class _FactLog:
    """A fact's stream in the log and what it says about the fact now."""

    fact_id: str
    events: list[StoredEvent]

    @property
    def version(self) -> int:
        return self.events[-1].stream_version if self.events else NO_STREAM

    def by_key(self, key: str | None) -> StoredEvent | None:
        """Return the event appended with idempotency ``key``, if any."""
        if key is None:
            return None
        return next((e for e in self.events if e.idempotency_key == key), None)

    def require_live(self) -> None:
        """Refuse a change to a fact that is unknown (404), superseded or forgotten (409)."""
        written = False
        for stored in self.events:
            event = stored.event
            if isinstance(event, FactWritten):
                written = True
            elif isinstance(event, FactPurged):
                written = False
        if not written:
            raise not_found("fact", self.fact_id)
        for stored in self.events:
            event = stored.event
            if isinstance(event, FactForgotten):
                raise ApiError(409, "fact_forgotten", f"fact {self.fact_id!r} was forgotten", {})
            if isinstance(event, FactSuperseded) and event.old_fact_id == self.fact_id:
                raise ApiError(
                    409,
                    "fact_superseded",
                    f"fact {self.fact_id!r} was superseded by {event.new_fact_id!r}",
                    {"superseded_by": event.new_fact_id},
                )


async def _async_fact_log(request: web.Request, fact_id: str) -> _FactLog:
    store = state_of(request).require_store()
    events = await store.read_stream(namespace_of(request), fact_stream(fact_id))
    return _FactLog(fact_id, events)


async def _new_draft(request: web.Request, body: dict[str, Any], fact_id: str) -> Draft:
    valid_from: datetime | None = body.get("valid_from")
    sources = body.get("source_message_ids", [])
    if valid_from is None and sources:
        # The change happened when it was said: the latest of the messages it cites.
        valid_from = await _said_at(request, sources)
    valid_from = valid_from or state_of(request).clock.now()
    valid_to: datetime | None = body.get("valid_to")
    if valid_to is not None and valid_to <= valid_from:
        raise invalid("valid_to", "must be later than valid_from")
    provenance = body.get("provenance", "user")
    return Draft(
        fact_id=fact_id,
        text=body["text"],
        valid_from=valid_from,
        valid_to=valid_to,
        subject=body.get("subject"),
        predicate=body.get("predicate"),
        object=body.get("object"),
        tags=tuple(dict.fromkeys(body.get("tags", []))),
        owner=body.get("owner", "user"),
        provenance=provenance,
        status="active" if provenance == "user" else "quarantined",
        confidence=body.get("confidence", 1.0),
        importance=body.get("importance", 0.5),
        source_message_ids=tuple(sources),
    )


async def _said_at(request: web.Request, message_ids: list[str]) -> datetime | None:
    engine = await state_of(request).async_reads()
    async with engine.connect() as conn:
        return await latest_said_at(conn, namespace_of(request), message_ids)


def _keyed(events: list[Event], key: str | None) -> list[NewEvent]:
    """Idempotency keys for a write's events: the fact itself takes the client's key."""
    if key is None:
        return [NewEvent(e) for e in events]
    out = []
    for event in events:
        if isinstance(event, FactWritten):
            suffix = ""
        elif isinstance(event, FactSuperseded):
            suffix = f"#supersedes:{event.old_fact_id}"
        else:
            suffix = f"#{event.event_type}"
        out.append(NewEvent(event, idempotency_key=f"{key}{suffix}"))
    return out


def _answer_from_log(events: list[StoredEvent]) -> dict[str, Any] | None:
    """The answer of a keyed write that already happened (a retry)."""
    decision = next((e for e in events if isinstance(e.event, FactReconciled)), None)
    written = next((e for e in events if isinstance(e.event, FactWritten)), None)
    if written is None or not isinstance(written.event, FactWritten):
        return None
    answer: dict[str, Any] = {"fact_id": written.event.fact_id, "position": written.position}
    if decision is not None and isinstance(decision.event, FactReconciled):
        d = decision.event
        answer.update(
            outcome=d.outcome,
            superseded=d.superseded,
            deduplicated=False,
            reason=d.reason,
            # The write was one append: the fact, its decision, the supersedes, the review item.
            position=written.position
            + 1
            + len(d.superseded)
            + (1 if d.outcome == "conflict" else 0),
        )
        if d.conflicts_with:
            answer["conflicts_with"] = d.conflicts_with
        if d.gate_flags:
            answer["gate_flags"] = d.gate_flags
    else:
        answer.update(outcome="added", superseded=[], deduplicated=False)
    return answer


def _fact_id_for(request: web.Request, key: str | None) -> str:
    return derived_id(namespace_of(request), "fact", key) if key is not None else new_id()


async def post_fact(request: web.Request) -> web.Response:
    """Write a new fact, reconciled with what memory holds."""
    key = header_key(request)
    body = await parse_body(request, FACT_BODY)
    fact_id = _fact_id_for(request, key)
    store = state_of(request).require_store()
    namespace = namespace_of(request)
    if key is not None:
        answer = _answer_from_log(await store.read_stream(namespace, fact_stream(fact_id)))
        if answer is not None:
            return json_response(answer, status=201)
    draft = await _new_draft(request, body, fact_id)
    writer = writer_for(request.app)
    if not body.get("dedupe", True):
        planned = writer.unreconciled(draft)
    else:
        [planned] = await writer.plan(namespace, [draft])
    positions = await async_append(
        request, _keyed(planned.events, key), expected_versions=planned.expected
    )
    answer = {**planned.answer(), "position": max(positions)}
    if planned.verdict.outcome == "deduplicated":
        answer["similarity"] = round(planned.verdict.confidence, 6)
        return json_response(answer)
    return json_response(answer, status=201)


async def post_supersede(request: web.Request) -> web.Response:
    """Replace a fact by a new one; the old one stops being valid at the new ``valid_from``."""
    old_id = path_id(request, "fact_id")
    key = header_key(request)
    body = await parse_body(request, FACT_BODY)
    fact_id = _fact_id_for(request, key)
    if key is not None:
        store = state_of(request).require_store()
        done = await store.read_stream(namespace_of(request), fact_stream(fact_id))
        answer = _answer_from_log(done)
        if answer is not None:
            return json_response(answer, status=201)
    log = await _async_fact_log(request, old_id)
    log.require_live()
    draft = await _new_draft(request, body, fact_id)
    planned = writer_for(request.app).forced(draft, [old_id], decided_by=_actor(request))
    expected = {**planned.expected, fact_stream(old_id): log.version}
    positions = await async_append(request, _keyed(planned.events, key), expected_versions=expected)
    return json_response({**planned.answer(), "position": max(positions)}, status=201)


def _actor(request: web.Request) -> str:
    grant = request.get(GRANT)
    return f"api:{grant}" if grant is not None else "api"


async def post_validate(request: web.Request) -> web.Response:
    """Vouch for a fact: a quarantined fact becomes active."""
    fact_id = path_id(request, "fact_id")
    key = header_key(request)
    body = await parse_body(request, VALIDATE_BODY, allow_empty=True)
    position = await validate_fact(
        request, fact_id, key=key, note=body.get("note"), force=body.get("force", False)
    )
    return json_response({"fact_id": fact_id, "position": position})


async def validate_fact(
    request: web.Request, fact_id: str, *, key: str | None, note: str | None, force: bool
) -> int:
    """Append the validation of a fact in the request's namespace; return its position.

    Shared by the API and the inspector's review page: the same checks (a live fact, the
    ingest gate unless forced), the same event, the same actor.
    """
    log = await _async_fact_log(request, fact_id)
    retried = log.by_key(key)
    if retried is not None:
        return retried.position
    log.require_live()
    flags = ingest.validation_refusal(log.events, force=force)
    if flags:
        await _refuse_validation(request, fact_id, log.version, flags)
    event = FactValidated(fact_id=fact_id, by=_actor(request), note=note)
    [position] = await async_append(
        request,
        [NewEvent(event, idempotency_key=key)],
        expected_versions={fact_stream(fact_id): log.version},
    )
    return position


async def _refuse_validation(
    request: web.Request, fact_id: str, version: int, flags: list[str]
) -> None:
    """Record the refusal (``ValidationRefused``) and answer 409 ``validation_refused``."""
    at = state_of(request).clock.now()
    event = ValidationRefused(fact_id=fact_id, at=at, flags=flags, by=_actor(request))
    await async_append(
        request, [NewEvent(event)], expected_versions={fact_stream(fact_id): version}
    )
    raise ApiError(
        409,
        "validation_refused",
        f"fact {fact_id!r} matches prompt-injection patterns ({', '.join(flags)}); "
        "validate with force=true to vouch for it anyway",
        {"flags": flags},
    )


async def delete_fact(request: web.Request) -> web.Response:
    """Forget a fact: hidden from queries from now on, kept in the log and in history."""
    fact_id = path_id(request, "fact_id")
    query = parse_query(request.query, FORGET_QUERY)
    log = await _async_fact_log(request, fact_id)
    done = next((e for e in log.events if isinstance(e.event, FactForgotten)), None)
    if done is not None:
        return json_response({"fact_id": fact_id, "position": done.position})
    log.require_live()
    event = FactForgotten(fact_id=fact_id, reason=query.get("reason"))
    [position] = await async_append(
        request, [NewEvent(event)], expected_versions={fact_stream(fact_id): log.version}
    )
    return json_response({"fact_id": fact_id, "position": position})


async def purge_fact(request: web.Request) -> web.Response:
    """Erase a fact: the store redacts its text from every earlier event in the same commit.

    Unlike forgetting, nothing of what it said is left to restore; a fact already purged
    answers with that purge (a retry is safe).
    """
    fact_id = path_id(request, "fact_id")
    log = await _async_fact_log(request, fact_id)
    if not log.events:
        raise not_found("fact", fact_id)
    last = log.events[-1]
    if isinstance(last.event, FactPurged):
        return json_response({"fact_id": fact_id, "position": last.position})
    [position] = await async_append(
        request,
        [NewEvent(FactPurged(fact_id=fact_id))],
        expected_versions={fact_stream(fact_id): log.version},
    )
    return json_response({"fact_id": fact_id, "position": position})


async def get_one(request: web.Request) -> web.Response:
    """Return a fact as believed now (or at ``known_at``); a forgotten fact is 404."""
    fact_id = path_id(request, "fact_id")
    query = parse_query(request.query, GET_QUERY)
    namespace = namespace_of(request)
    engine = await state_of(request).async_reads()
    async with engine.connect() as conn:
        row = await get_fact(conn, namespace, fact_id, known_at=known_at_of(query))
        if row is None or row.forgotten:
            raise not_found("fact", fact_id)
        decisions = await _written_decisions(conn, namespace, [row])
    return json_response(fact_json(row, decisions.get(row.fact_id)))


async def list_facts(request: web.Request) -> web.Response:
    """Query facts by valid time, transaction time, status, tag and owner."""
    query = parse_query(request.query, LIST_QUERY)
    namespace = namespace_of(request)
    subject = query.get("subject")
    engine = await state_of(request).async_reads()
    async with engine.connect() as conn:
        rows = await query_facts(
            conn,
            namespace,
            as_of=query.get("as_of"),
            known_at=known_at_of(query),
            status=query.get("status"),
            tag=query.get("tag"),
            owner=query.get("owner"),
            subject=None if subject is None else subject_key(subject),
            include_quarantined=query.get("include_quarantined", False),
            include_superseded=query.get("include_superseded", False),
            include_archived=query.get("include_archived", False),
            limit=query.get("limit", 100),
        )
        decisions = await _written_decisions(conn, namespace, rows)
    return json_response({"facts": [fact_json(r, decisions.get(r.fact_id)) for r in rows]})


async def get_history(request: web.Request) -> web.Response:
    """Return the supersede chain through a fact and every version of the fact itself."""
    fact_id = path_id(request, "fact_id")
    namespace = namespace_of(request)
    engine = await state_of(request).async_reads()
    async with engine.connect() as conn:
        versions = await fact_versions(conn, namespace, fact_id)
        if not versions:
            raise not_found("fact", fact_id)
        chain = await fact_history(conn, namespace, fact_id)
        decisions = await decisions_of(conn, namespace, [r.fact_id for r in chain] + [fact_id])
    written = {f: [d for d in ds if d["role"] == "written"] for f, ds in decisions.items()}

    def view(row: FactRow) -> dict[str, Any]:
        own = written.get(row.fact_id)
        return fact_json(row, own[-1] if own else None)

    return json_response(
        {
            "fact_id": fact_id,
            "chain": [view(r) for r in chain],
            "versions": [view(r) for r in versions],
            # Every decision that named this fact: what wrote it, what replaced it, the
            # conflicts it was part of and the restatements folded into it.
            "decisions": decisions.get(fact_id, []),
        }
    )


def add_routes(app: web.Application) -> None:
    """Register the fact routes."""
    app.router.add_post("/v1/facts", post_fact)
    app.router.add_get("/v1/facts", list_facts, allow_head=False)
    app.router.add_get("/v1/facts/{fact_id}", get_one, allow_head=False)
    app.router.add_delete("/v1/facts/{fact_id}", delete_fact)
    app.router.add_post("/v1/facts/{fact_id}/supersede", post_supersede)
    app.router.add_post("/v1/facts/{fact_id}/validate", post_validate)
    app.router.add_post("/v1/facts/{fact_id}/purge", purge_fact)
    app.router.add_get("/v1/facts/{fact_id}/history", get_history, allow_head=False)
