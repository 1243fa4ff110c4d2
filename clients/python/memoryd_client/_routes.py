"""Every route of API v1, once: each function takes a method's arguments and returns the
:class:`Call` it makes. :class:`MemorydClient` and :class:`AsyncMemorydClient` expose each
one as a method of the same name and signature that sends it and returns its answer.

``None`` leaves an option out (the daemon's default applies). Writes send an
``Idempotency-Key``: ``idempotency_key`` if given, else a random one, the same on each retry.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal, TypedDict, Unpack

from memoryd_client._core import Call, fields, query, segment, write_key
from memoryd_client.types import (
    BatchWritten,
    Context,
    Decay,
    Events,
    Fact,
    FactHistory,
    Facts,
    FactWriteOutcome,
    FactWritten,
    Forked,
    Fusion,
    Health,
    Iterative,
    JSONObject,
    MessageIn,
    Messages,
    MessageWritten,
    Owner,
    Progress,
    Provenance,
    Role,
    Scope,
    SearchResult,
)

Time = datetime | str
"""An aware datetime, or an ISO 8601 string."""

WAIT_MARGIN = 30.0
"""Seconds the client waits beyond a server-side wait for the answer to arrive."""


# --- messages, forks, compaction ---------------------------------------------------------


def add_message(
    conversation_id: str,
    role: Role,
    content: str | list[JSONObject],
    *,
    name: str | None = None,
    created_at: Time | None = None,
    metadata: JSONObject | None = None,
    idempotency_key: str | None = None,
) -> Call[MessageWritten]:
    """Append a message to a conversation (``POST /v1/conversations/{cid}/messages``)."""
    body = {"role": role, "content": content}
    body |= fields(name=name, created_at=created_at, metadata=metadata)
    path = f"/v1/conversations/{segment(conversation_id)}/messages"
    return Call("POST", path, body=body, key=write_key(idempotency_key))


def add_messages(
    conversation_id: str, messages: Sequence[MessageIn], *, idempotency_key: str | None = None
) -> Call[BatchWritten]:
    """Append many messages in one transaction, all or nothing (``messages:batch``); message
    *i* gets the key ``K#i`` unless it has its own."""
    path = f"/v1/conversations/{segment(conversation_id)}/messages:batch"
    body = {"messages": [fields(**m) for m in messages]}
    return Call("POST", path, body=body, key=write_key(idempotency_key))


def list_messages(
    conversation_id: str, *, after: str | None = None, limit: int | None = None
) -> Call[Messages]:
    """A conversation's messages in order, after the message id ``after`` (a fork's include
    its parent's up to the fork point)."""
    path = f"/v1/conversations/{segment(conversation_id)}/messages"
    return Call("GET", path, query(after=after, limit=limit))


def fork(
    conversation_id: str,
    *,
    through_message_id: str | None = None,
    strategy: Literal["reference", "cloning"] | None = None,
    idempotency_key: str | None = None,
) -> Call[Forked]:
    """Fork a conversation through a message (default: all it has now)."""
    body = fields(through_message_id=through_message_id, strategy=strategy)
    path = f"/v1/conversations/{segment(conversation_id)}/fork"
    return Call("POST", path, body=body, key=write_key(idempotency_key))


def compaction(
    conversation_id: str,
    *,
    through_message_id: str | None = None,
    reason: str | None = None,
    idempotency_key: str | None = None,
) -> Call[Forked]:
    """Announce that the app is about to compact the conversation (the answer names the
    conversation that continues it)."""
    body = fields(through_message_id=through_message_id, reason=reason)
    path = f"/v1/conversations/{segment(conversation_id)}/compaction"
    return Call("POST", path, body=body, key=write_key(idempotency_key))


# --- facts -------------------------------------------------------------------------------


class FactOptions(TypedDict, total=False):
    """What a fact may say besides its text (``POST /v1/facts``, ``supersede``)."""

    subject: str | None
    predicate: str | None
    object: str | None
    tags: Sequence[str] | None
    owner: Owner | None
    provenance: Provenance | None
    """Default ``user``; any other starts quarantined until validated."""
    valid_from: Time | None
    valid_to: Time | None
    confidence: float | None
    importance: float | None
    source_message_ids: Sequence[str] | None


def _fact_body(text: str, options: FactOptions) -> dict[str, Any]:
    values = {k: list(v) if isinstance(v, list | tuple) else v for k, v in options.items()}
    return {"text": text, **fields(**values)}


def add_fact(
    text: str,
    *,
    dedupe: bool | None = None,
    idempotency_key: str | None = None,
    **options: Unpack[FactOptions],
) -> Call[FactWriteOutcome]:
    """Write a fact, reconciled with what memory holds; the answer says what it did
    (``added``, ``updated``, ``deduplicated`` or ``conflict``). ``dedupe=False`` writes it
    as it is."""
    body = _fact_body(text, options) | fields(dedupe=dedupe)
    return Call("POST", "/v1/facts", body=body, key=write_key(idempotency_key))


def supersede_fact(
    fact_id: str, text: str, *, idempotency_key: str | None = None, **options: Unpack[FactOptions]
) -> Call[FactWriteOutcome]:
    """Replace a fact by a new one, ending the old one at the new ``valid_from``."""
    path = f"/v1/facts/{segment(fact_id)}/supersede"
    return Call("POST", path, body=_fact_body(text, options), key=write_key(idempotency_key))


def validate_fact(
    fact_id: str,
    *,
    note: str | None = None,
    force: bool | None = None,
    idempotency_key: str | None = None,
) -> Call[FactWritten]:
    """Vouch for a fact: a quarantined fact becomes active."""
    body = fields(note=note, force=force)
    path = f"/v1/facts/{segment(fact_id)}/validate"
    return Call("POST", path, body=body, key=write_key(idempotency_key))


def forget_fact(fact_id: str, *, reason: str | None = None) -> Call[FactWritten]:
    """Forget a fact: hidden from queries, kept in the log and its history (idempotent)."""
    return Call("DELETE", f"/v1/facts/{segment(fact_id)}", query(reason=reason))


def purge_fact(fact_id: str) -> Call[FactWritten]:
    """Erase a fact: its text is redacted from every event of the log (cannot be undone)."""
    return Call("POST", f"/v1/facts/{segment(fact_id)}/purge")


def get_fact(fact_id: str, *, known_at: Time | int | None = None) -> Call[Fact]:
    """One fact; with ``known_at`` (a time or a log position) as memoryd knew it then."""
    return Call("GET", f"/v1/facts/{segment(fact_id)}", query(known_at=known_at))


def list_facts(
    *,
    subject: str | None = None,
    as_of: Time | None = None,
    known_at: Time | int | None = None,
    status: Literal["active", "quarantined"] | None = None,
    tag: str | None = None,
    owner: Owner | None = None,
    limit: int | None = None,
    include_quarantined: bool | None = None,
    include_superseded: bool | None = None,
    include_archived: bool | None = None,
) -> Call[Facts]:
    """Query facts: true at ``as_of`` (valid time), as known at ``known_at`` (transaction
    time: a time or a log position)."""
    params = query(
        subject=subject,
        as_of=as_of,
        known_at=known_at,
        status=status,
        tag=tag,
        owner=owner,
        limit=limit,
        include_quarantined=include_quarantined,
        include_superseded=include_superseded,
        include_archived=include_archived,
    )
    return Call("GET", "/v1/facts", params)


def fact_history(fact_id: str) -> Call[FactHistory]:
    """The supersede chain through a fact, its versions and every decision that named it."""
    return Call("GET", f"/v1/facts/{segment(fact_id)}/history")


# --- search ------------------------------------------------------------------------------


def search(
    query: str,
    *,
    top_k: int | None = None,
    candidate_top_k: int | None = None,
    scope: Sequence[Scope] | None = None,
    conversation_id: str | None = None,
    as_of: Time | None = None,
    known_at: Time | None = None,
    include_superseded: bool | None = None,
    include_quarantined: bool | None = None,
    tags: Sequence[str] | None = None,
    owner: Owner | Sequence[Owner] | None = None,
    decay: Decay | None = None,
    trust_weighting: bool | None = None,
    expand_hops: int | None = None,
    graph_scoring: Literal["flat", "ppr"] | None = None,
    entity_match: bool | None = None,
    fusion: Fusion | None = None,
    explain: bool | None = None,
    iterative: Iterative | None = None,
    hyde: bool | None = None,
    multi_query: int | None = None,
) -> Call[SearchResult]:
    """Hybrid recall over the namespace's facts and messages (``POST /v1/search``), of one
    ``owner`` or any of several; ``iterative`` answers a hard question in more than one
    pass (``{}``: the defaults)."""
    body = {"query": query}
    body |= fields(
        top_k=top_k,
        candidate_top_k=candidate_top_k,
        scope=None if scope is None else list(scope),
        conversation_id=conversation_id,
        as_of=as_of,
        known_at=known_at,
        include_superseded=include_superseded,
        include_quarantined=include_quarantined,
        tags=None if tags is None else list(tags),
        owner=owner if owner is None or isinstance(owner, str) else list(owner),
        decay=decay,
        trust_weighting=trust_weighting,
        expand_hops=expand_hops,
        graph_scoring=graph_scoring,
        entity_match=entity_match,
        fusion=fusion,
        explain=explain,
        iterative=iterative,
        hyde=hyde,
        multi_query=multi_query,
    )
    return Call("POST", "/v1/search", body=body)


def context(
    conversation_id: str,
    *,
    query: str | None = None,
    max_chars: int | None = None,
    max_facts: int | None = None,
    max_messages: int | None = None,
    max_profile_lines: int | None = None,
    explain: bool | None = None,
) -> Call[Context]:
    """What to put in the prompt for the conversation's next turn: the current facts and the
    earlier messages recall ranks highest for ``query`` (default: the conversation's last
    turns), the learned-context block and the profile's first lines, cited and dated, rendered
    in ``text`` within ``max_chars`` (default 4000)."""
    body = {"conversation_id": conversation_id}
    body |= fields(
        query=query,
        max_chars=max_chars,
        max_facts=max_facts,
        max_messages=max_messages,
        max_profile_lines=max_profile_lines,
        explain=explain,
    )
    return Call("POST", "/v1/context", body=body)


# --- retrospective -----------------------------------------------------------------------


def run_retrospective(
    conversation_id: str, *, wait: bool = False, timeout: float | None = None
) -> Call[JSONObject]:
    """Schedule a retrospective of a conversation; with ``wait``, run it now and answer when
    it ends (``status``, ``fact_ids``), or with ``finished: false`` after ``timeout`` s."""
    path = f"/v1/conversations/{segment(conversation_id)}/retrospective:run"
    body = fields(wait=wait or None, timeout=timeout)
    limit = (timeout if timeout is not None else 60.0) + WAIT_MARGIN if wait else None
    return Call("POST", path, body=body, timeout=limit)


def retrospective(conversation_id: str) -> Call[JSONObject]:
    """A conversation's retrospective state: cursor, last attempt and success, runs."""
    return Call("GET", f"/v1/conversations/{segment(conversation_id)}/retrospective")


def retrospective_service() -> Call[JSONObject]:
    """The retrospective service's counters, queue and model budget (every namespace)."""
    return Call("GET", "/v1/retrospective")


# --- consolidation and review ------------------------------------------------------------


def consolidation_preview(
    *,
    stale_days: float | None = None,
    min_score: float | None = None,
    tau_days: float | None = None,
) -> Call[JSONObject]:
    """What consolidation would do (duplicates, stale, low-score, orphans); writes nothing."""
    body = fields(stale_days=stale_days, min_score=min_score, tau_days=tau_days)
    return Call("POST", "/v1/consolidation/preview", body=body)


def consolidation_analyze(
    *,
    stale_days: float | None = None,
    min_score: float | None = None,
    tau_days: float | None = None,
) -> Call[JSONObject]:
    """Make and store a consolidation plan."""
    body = fields(stale_days=stale_days, min_score=min_score, tau_days=tau_days)
    return Call("POST", "/v1/consolidation/analyze", body=body)


def consolidation_plan(plan_id: str) -> Call[JSONObject]:
    """A stored consolidation plan."""
    return Call("GET", f"/v1/consolidation/plans/{segment(plan_id)}")


def apply_consolidation_plan(
    plan_id: str, *, min_confidence: float | None = None, purge: bool | None = None
) -> Call[JSONObject]:
    """Apply exactly the stored plan, refusing items whose facts changed since; with
    ``purge`` its delete items erase the facts' text instead of forgetting them."""
    path = f"/v1/consolidation/plans/{segment(plan_id)}/apply"
    return Call("POST", path, body=fields(min_confidence=min_confidence, purge=purge))


def consolidation_log(*, after: int | None = None, limit: int | None = None) -> Call[JSONObject]:
    """Every consolidation action, with its plan, source and time."""
    return Call("GET", "/v1/consolidation/log", query(after=after, limit=limit))


def run_consolidation(
    *, phases: Sequence[Literal["light", "standard", "deep"]] | None = None
) -> Call[JSONObject]:
    """Run consolidation now (``409 busy`` while another run holds the lease)."""
    body = fields(phases=None if phases is None else list(phases))
    return Call("POST", "/v1/consolidation/run", body=body)


def consolidation_runs() -> Call[JSONObject]:
    """The latest consolidation runs."""
    return Call("GET", "/v1/consolidation/runs")


def insights(*, limit: int | None = None) -> Call[JSONObject]:
    """The insights reflection wrote, quarantined ones included."""
    return Call("GET", "/v1/insights", query(limit=limit))


def generate_insights() -> Call[JSONObject]:
    """Reflect now: the insights written and the ones dropped as duplicates."""
    return Call("POST", "/v1/insights/generate")


def delete_insight(fact_id: str, *, reason: str | None = None) -> Call[FactWritten]:
    """Forget an insight (a fact reflection did not write is not found)."""
    return Call("DELETE", f"/v1/insights/{segment(fact_id)}", query(reason=reason))


def restore_fact(fact_id: str) -> Call[JSONObject]:
    """Bring back a fact consolidation archived."""
    return Call("POST", f"/v1/consolidation/facts/{segment(fact_id)}/restore")


def learned_context() -> Call[JSONObject]:
    """The curated learned-context block."""
    return Call("GET", "/v1/consolidation/learned-context")


def blocks() -> Call[JSONObject]:
    """Every registered curated block (learned_context and [[consolidation.blocks]])."""
    return Call("GET", "/v1/blocks")


def block(name: str) -> Call[JSONObject]:
    """One curated block."""
    return Call("GET", f"/v1/blocks/{segment(name)}")


def set_block(name: str, text: str) -> Call[JSONObject]:
    """Write a curated block's text as the app (refused above its max_chars)."""
    return Call("PUT", f"/v1/blocks/{segment(name)}", body={"text": text})


def block_history(name: str, *, limit: int | None = None) -> Call[JSONObject]:
    """A curated block's writes, newest first."""
    return Call("GET", f"/v1/blocks/{segment(name)}/history", query(limit=limit))


def profile(*, subject: str | None = None) -> Call[JSONObject]:
    """The profile: current facts grouped by subject and attribute, each line citing them."""
    return Call("GET", "/v1/profile", query(subject=subject))


def review_items(
    *,
    status: Literal["pending", "approved", "rejected", "all"] | None = None,
    limit: int | None = None,
) -> Call[JSONObject]:
    """Queued actions awaiting a person's review."""
    return Call("GET", "/v1/review", query(status=status, limit=limit))


def approve_review_item(item_id: str) -> Call[JSONObject]:
    """Carry out a queued action."""
    return Call("POST", f"/v1/review/{segment(item_id)}/approve")


def reject_review_item(item_id: str, *, reason: str | None = None) -> Call[JSONObject]:
    """Reject a queued action."""
    return Call("POST", f"/v1/review/{segment(item_id)}/reject", body=fields(reason=reason))


# --- episodes ----------------------------------------------------------------------------


def episodes(
    *,
    conversation_id: str | None = None,
    status: Literal["quarantined", "active", "all"] | None = None,
    limit: int | None = None,
) -> Call[JSONObject]:
    """The episodes consolidation formed of the conversations' slices, newest first."""
    return Call(
        "GET", "/v1/episodes", query(conversation_id=conversation_id, status=status, limit=limit)
    )


def get_episode(episode_id: str) -> Call[JSONObject]:
    """One episode."""
    return Call("GET", f"/v1/episodes/{segment(episode_id)}")


def search_episodes(
    query: str,
    *,
    top_k: int | None = None,
    include_quarantined: bool | None = None,
    conversation_id: str | None = None,
) -> Call[JSONObject]:
    """Episodic recall: episodes ranked by recency x relevance x importance."""
    body = fields(
        query=query,
        top_k=top_k,
        include_quarantined=include_quarantined,
        conversation_id=conversation_id,
    )
    return Call("POST", "/v1/episodes/search", body=body)


def validate_episode(episode_id: str, *, note: str | None = None) -> Call[JSONObject]:
    """Vouch for an episode: a quarantined episode becomes active."""
    return Call("POST", f"/v1/episodes/{segment(episode_id)}/validate", body=fields(note=note))


# --- events, health ----------------------------------------------------------------------


def events(
    *, after: int | None = None, limit: int | None = None, stream: str | None = None
) -> Call[Events]:
    """A page of the namespace's events after position ``after``; pass the answer's
    ``last_position`` as the next ``after``."""
    return Call("GET", "/v1/events", query(after=after, limit=limit, stream=stream))


def health() -> Call[Health]:
    """Readiness and progress (retried while the daemon answers ``503 not_ready``)."""
    return Call("GET", "/v1/health")


def progress(position: int, *, wait: float | None = None) -> Call[Progress]:
    """How far the projections have folded towards ``position`` (waits up to ``wait`` s)."""
    limit = None if wait is None else wait + WAIT_MARGIN
    return Call("GET", "/v1/progress", query(position=position, wait=wait), timeout=limit)


def metrics() -> Call[str]:
    """The Prometheus text exposition."""
    return Call("GET", "/metrics", text=True)


def openapi() -> Call[JSONObject]:
    """The OpenAPI 3.1 document of API v1."""
    return Call("GET", "/v1/openapi.json")
