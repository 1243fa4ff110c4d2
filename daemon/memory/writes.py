"""Planning fact writes: read the claims, run the gate, reconcile, and build the append.

Every writer of facts (the API, a retrospective, consolidation) hands its drafts to
:meth:`MemoryWriter.plan`, which returns, per draft, the decision and the events that carry it
out, for the caller to append in one commit with its own events:

- ``added``: ``FactWritten`` + ``FactReconciled``;
- ``updated``: the same + one ``FactSuperseded`` per replaced fact (the old fact's valid time
  closes where the new one's begins, the moment the change was said);
- either of those + ``FactArchived`` when the fact only records an ending ("I quit Wayfair",
  "I used to smoke"): the log keeps it as the reason, current reads leave it out;
- ``deduplicated``: ``FactReconciled`` (on the existing fact's stream) + ``FactReinforced``;
- ``conflict``: the new fact quarantined + ``FactReconciled`` + a ``ReviewItemQueued`` for a
  person (approving it supersedes the old fact and validates the new one).

Drafts of one call are planned in order against the facts memory holds *and* the drafts
before them, so a conversation that states a fact and then changes it writes both and
supersedes the first. The candidates a draft is compared with are found by the claims stored
with each fact (same subject, related attribute, or the value a change names), the same
normalised text, and, for facts written before claims were recorded, the nearest texts.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Protocol

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from daemon.consolidation.facts_view import substantive_version
from daemon.consolidation.rules import gate_flags
from daemon.memory.reconcile import (
    RULES_ID,
    Known,
    Policy,
    Verdict,
    claims_of,
    reconcile,
    subject_key,
    value_key,
)
from events.consolidation_events import FactArchived, FactReinforced, ReviewItemQueued
from events.store.base import NO_STREAM, EventStore
from events.types import Event, FactReconciled, FactSuperseded, FactWritten, fact_stream
from plugins.extractors.claims import NOTE, Claim
from plugins.llm.remember import ALSO, CHANGED
from projections.facts import (
    KnownClaims,
    claims_of_facts,
    fact_versions_table,
    facts_about,
)

NearFn = Callable[[str, str], Awaitable[list[tuple[str, float]]]]
"""``near(namespace, text)`` -> ``[(fact id, cosine)]`` of the current facts nearest a text."""

HISTORY_REASON = "history: it only says what stopped being true"
"""Why a write that only records an ending is archived as it is written."""

RECENT = 20
"""Latest current facts compared too (facts written before claims were recorded)."""

# Attributes a claim is compared across: a new eating habit bears on a diet, a breakup on a
# partner, a plan carried out on the plan.
_RELATED: dict[str, tuple[str, ...]] = {
    "likes": ("likes", "preference", "hobby", "habit", "learning", "project", "favourite"),
    "preference": ("likes", "preference", "habit", "hobby"),
    "hobby": ("likes", "preference", "hobby", "habit", "learning", "project"),
    "habit": ("habit", "hobby", "diet", "likes", "preference", "trait"),
    "learning": ("learning", "hobby", "habit", "likes", "education"),
    "diet": ("diet", "habit"),
    "relationship": ("relationship", "partner"),
    "partner": ("partner", "relationship"),
    "trait": ("trait", "habit", "family"),
    "job": ("job", "employer"),
    "employer": ("employer", "job"),
    "family": ("family", "family_count", "partner"),
    "family_count": ("family_count", "family"),
    "condition": ("condition", "plan"),
}
_ANY = "*"


@dataclass(frozen=True, slots=True)
class Draft:
    """A fact someone wants memory to hold."""

    fact_id: str
    text: str
    valid_from: datetime
    valid_to: datetime | None = None
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None
    replaces: str | None = None
    """The value it replaces, as its writer said ("switched me from sertraline"): kept with its
    claims, since a fact's text ("The user takes escitalopram.") does not say it."""
    change: str | None = None
    """``new`` or ``also`` as its writer read it (see the remember tool): the fact's text does
    not say "now" or "also", and reconciliation needs to know."""
    tags: tuple[str, ...] = ()
    owner: str = "user"
    provenance: str = "user"
    status: str = "active"
    confidence: float = 1.0
    importance: float = 0.5
    source_message_ids: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    """Reasons from the caller to quarantine it (a source message the gate flagged)."""


@dataclass(slots=True)
class Planned:
    """One draft's decision and the events that carry it out."""

    draft: Draft
    verdict: Verdict
    events: list[Event]
    expected: dict[str, int]
    gate_flags: list[str]

    @property
    def fact_id(self) -> str:
        """The fact the write leaves current: the new one, or the one it restated."""
        if self.verdict.outcome == "deduplicated" and self.verdict.duplicate_of is not None:
            return self.verdict.duplicate_of
        return self.draft.fact_id

    def answer(self) -> dict[str, Any]:
        """The write's outcome as the API states it."""
        out: dict[str, Any] = {
            "fact_id": self.fact_id,
            "outcome": self.verdict.outcome,
            "superseded": list(self.verdict.superseded),
            "deduplicated": self.verdict.outcome == "deduplicated",
            "reason": self.verdict.reason,
        }
        if self.verdict.conflicts_with:
            out["conflicts_with"] = list(self.verdict.conflicts_with)
        if self.gate_flags:
            out["gate_flags"] = self.gate_flags
        if self.verdict.history:
            out["archived"] = True
        return out


class Judge(Protocol):
    """Decides a write with a model (one call), given the rules' verdict to fall back on."""

    async def decide(
        self, text: str, known: Sequence[Known], fallback: Verdict, provenance: str
    ) -> Verdict:
        """Return the model's verdict, or ``fallback`` when the model cannot decide."""
        ...


def claim_record(claim: Claim) -> dict[str, Any]:
    """The stored form of a claim (the event's and the projection's), keys included."""
    return {
        "subject": claim.subject,
        "subject_key": subject_key(claim.subject),
        "attribute": claim.attribute,
        "value": claim.value,
        "value_key": " ".join(value_key(claim.value)),
        "negated": claim.negated,
        "past": claim.past,
        "change": claim.change,
        "previous": claim.previous,
        "alternative": claim.alternative,
        "also": claim.also,
        "qualifier": claim.qualifier,
        "when": claim.when,
    }


def claim_from(record: Mapping[str, Any]) -> Claim:
    """Rebuild a claim from its stored form."""
    return Claim(
        subject=str(record.get("subject", "user")),
        attribute=str(record.get("attribute", "")),
        value=str(record.get("value", "")),
        negated=bool(record.get("negated", False)),
        past=bool(record.get("past", False)),
        change=bool(record.get("change", False)),
        previous=record.get("previous"),
        alternative=record.get("alternative"),
        also=bool(record.get("also", False)),
        qualifier=record.get("qualifier"),
        when=record.get("when"),
    )


def recorded_decision(
    fact: FactWritten,
    *,
    at: datetime,
    decided_by: str,
    reason: str,
    superseded: Sequence[str] = (),
) -> FactReconciled:
    """The decision record of a write its writer decided itself (a consolidation merge, an
    insight): the claims are read and stored as for any write, so later writes find it."""
    draft = Draft(
        fact_id=fact.fact_id,
        text=fact.text,
        valid_from=fact.valid_from,
        subject=fact.subject,
        predicate=fact.predicate,
        object=fact.object,
    )
    return FactReconciled(
        fact_id=fact.fact_id,
        outcome="updated" if superseded else "added",
        at=at,
        superseded=list(superseded),
        reason=reason,
        decided_by=decided_by,
        provenance=fact.provenance,
        claims=[claim_record(c) for c in draft_claims(draft)],
    )


def draft_claims(draft: Draft) -> tuple[Claim, ...]:
    """The claims a draft makes: read from its text, else its own subject/predicate/object.

    A note (what a user said that no rule read, see ``statements.notes``) makes none: its
    words, said over, are not a grammar's reading, so they replace nothing by rule."""
    if draft.predicate == NOTE:
        return ()
    claims = claims_of(draft.text)
    if claims and draft.replaces:
        claims = tuple(
            replace(c, previous=draft.replaces, change=True)
            if c.previous is None and (draft.predicate is None or c.attribute == draft.predicate)
            else c
            for c in claims
        )
    if claims and draft.change in (CHANGED, ALSO):
        said = {"change": True} if draft.change == CHANGED else {"also": True}
        claims = tuple(
            replace(c, **said)  # type: ignore[arg-type]
            if draft.predicate is None or c.attribute == draft.predicate
            else c
            for c in claims
        )
    if claims:
        return claims
    if draft.predicate and draft.object:
        return (
            Claim(draft.subject or "user", f"triple:{draft.predicate.casefold()}", draft.object),
        )
    return ()


@dataclass(slots=True)
class _Overlay:
    """What the drafts planned so far in one call did (written, replaced)."""

    written: dict[str, Known] = field(default_factory=dict)
    statuses: dict[str, str] = field(default_factory=dict)
    replaced: set[str] = field(default_factory=set)


class MemoryWriter:
    """Plans fact writes against the facts projection (see the module docstring)."""

    def __init__(
        self,
        reads: Callable[[], Awaitable[AsyncEngine]],
        store: EventStore,
        *,
        policy: Policy | None = None,
        near: NearFn | None = None,
        judge: Judge | None = None,
        now: Callable[[], datetime],
    ) -> None:
        self.reads = reads
        self.store = store
        self.policy = policy or Policy()
        self.near = near
        self.judge = judge
        self.now = now

    async def plan(self, namespace: str, drafts: Sequence[Draft]) -> list[Planned]:
        """Decide every draft, in order; return what to append for each."""
        overlay = _Overlay()
        out: list[Planned] = []
        engine = await self.reads()
        for draft in drafts:
            async with engine.connect() as conn:
                planned = await self._plan_one(conn, namespace, draft, overlay)
            out.append(planned)
        return out

    def unreconciled(self, draft: Draft) -> Planned:
        """Plan a write the caller wants made as it is (``dedupe: false``): no comparison."""
        draft, flags, claims = self._prepare(draft)
        verdict = Verdict("added", reason="written without reconciliation", decided_by="none")
        return self._finish(draft, claims, verdict, flags, {})

    def forced(self, draft: Draft, superseded: Sequence[str], *, decided_by: str) -> Planned:
        """Plan a write whose effect the caller decided (an explicit supersede)."""
        draft, flags, claims = self._prepare(draft)
        verdict = Verdict(
            "updated",
            superseded=tuple(superseded),
            reason="superseded as asked",
            decided_by=decided_by,
        )
        return self._finish(draft, claims, verdict, flags, {})

    def _prepare(self, draft: Draft) -> tuple[Draft, list[str], tuple[Claim, ...]]:
        """Run the gate and read the claims; fill the subject, predicate and object."""
        flags = [*gate_flags(draft.text, draft.provenance), *draft.flags]
        if flags:
            draft = replace(draft, status="quarantined")
        claims = draft_claims(draft)
        if claims and not draft.subject:
            first = claims[0]
            draft = replace(
                draft,
                subject=first.subject,
                predicate=draft.predicate or first.attribute,
                object=draft.object or first.value or None,
            )
        return draft, flags, claims

    async def _plan_one(
        self, conn: AsyncConnection, namespace: str, draft: Draft, overlay: _Overlay
    ) -> Planned:
        draft, flags, claims = self._prepare(draft)
        known, statuses, similarity, valid_from = await self._candidates(
            conn, namespace, draft, claims, overlay
        )
        verdict = reconcile(
            draft.text,
            claims,
            known,
            provenance=draft.provenance,
            policy=self.policy,
            similarity=similarity,
        )
        if self.judge is not None and known:
            verdict = await self.judge.decide(draft.text, known, verdict, draft.provenance)
        verdict = _respect_quarantine(verdict, draft, statuses)
        planned = self._finish(draft, claims, verdict, flags, valid_from)
        for old_id in verdict.superseded:
            stream = await self.store.read_stream(namespace, fact_stream(old_id))
            if stream and old_id not in overlay.written:
                planned.expected[fact_stream(old_id)] = stream[-1].stream_version
        if verdict.conflicts_with:
            # The review item remembers the versions it was raised on: approving it later is
            # refused if those facts changed meanwhile.
            seen = {draft.fact_id: 1}
            for old_id in verdict.conflicts_with:
                stream = await self.store.read_stream(namespace, fact_stream(old_id))
                seen[old_id] = substantive_version(stream)
            planned.events = [
                replace(e, based_on=seen) if isinstance(e, ReviewItemQueued) else e
                for e in planned.events
            ]
        self._remember(overlay, draft, claims, verdict)
        return planned

    async def _candidates(
        self,
        conn: AsyncConnection,
        namespace: str,
        draft: Draft,
        claims: Sequence[Claim],
        overlay: _Overlay,
    ) -> tuple[list[Known], dict[str, str], dict[str, float], dict[str, datetime]]:
        subjects = {subject_key(c.subject) for c in claims}
        attributes: set[str] = set()
        values: set[str] = set()
        for claim in claims:
            if claim.attribute in ("any", "alive", "switch"):
                attributes.add(_ANY)
            attributes.update(_RELATED.get(claim.attribute, (claim.attribute,)))
            if claim.attribute.startswith("verb:"):
                attributes.add("plan")
            for named in (claim.previous, claim.alternative):
                if named:
                    values.add(" ".join(value_key(named)))
            if claim.attribute == "alive" and claim.negated:
                subjects.add("user")
            if (
                claim.attribute == "employer"
                and claim.negated
                and subject_key(claim.subject) != "user"
            ):
                # "Dana left the company" may end "Dana is the user's manager".
                subjects.add("user")
                attributes.add("family")
        found: list[KnownClaims] = []
        if subjects:
            found = await facts_about(
                conn,
                namespace,
                sorted(subjects),
                [] if _ANY in attributes else sorted(attributes),
                sorted(values),
                any_attribute=_ANY in attributes,
            )
        similarity: dict[str, float] = {}
        legacy: list[str] = []
        if self.near is not None:
            for fact_id, cosine in await self.near(namespace, draft.text):
                similarity[fact_id] = cosine
                legacy.append(fact_id)
        legacy.extend(await _latest(conn, namespace))
        have = {k.fact_id for k in found}
        extra = [f for f in dict.fromkeys(legacy) if f not in have]
        found.extend(await _current_rows(conn, namespace, extra))
        known: list[Known] = []
        statuses: dict[str, str] = {}
        for row in found:
            if row.fact_id in overlay.replaced:
                continue
            stored = tuple(claim_from(c) for c in row.claims)
            known.append(Known(row.fact_id, row.text, stored or claims_of(row.text)))
            statuses[row.fact_id] = row.status
        for fact_id, fact in overlay.written.items():
            if fact_id not in overlay.replaced and fact_id not in statuses:
                known.append(fact)
                statuses[fact_id] = overlay.statuses[fact_id]
        valid_from = {row.fact_id: row.valid_from for row in found if row.valid_from is not None}
        return known, statuses, similarity, valid_from

    def _finish(
        self,
        draft: Draft,
        claims: Sequence[Claim],
        verdict: Verdict,
        flags: list[str],
        valid_from: Mapping[str, datetime],
    ) -> Planned:
        now = self.now()
        decision = FactReconciled(
            fact_id=draft.fact_id,
            outcome=verdict.outcome,
            at=now,
            superseded=list(verdict.superseded),
            conflicts_with=list(verdict.conflicts_with),
            reason=verdict.reason,
            confidence=round(verdict.confidence, 6),
            decided_by=verdict.decided_by,
            provenance=draft.provenance,
            policy_threshold=self.policy.threshold(draft.provenance),
            gate_flags=flags,
            claims=[claim_record(c) for c in claims],
            candidates=[
                {
                    "fact_id": m.fact_id,
                    "relation": m.relation,
                    "rule": m.rule,
                    "confidence": round(m.confidence, 6),
                }
                for m in verdict.matches
                if m.relation != "none"
            ],
        )
        expected: dict[str, int] = {}
        if verdict.outcome == "deduplicated" and verdict.duplicate_of is not None:
            existing = verdict.duplicate_of
            events: list[Event] = [
                replace(decision, fact_id=existing, proposed_text=draft.text),
                FactReinforced(
                    fact_id=existing,
                    at=now,
                    reason="duplicate",
                    similarity=round(verdict.confidence, 6),
                    duplicate_text=draft.text,
                ),
            ]
            return Planned(draft, verdict, events, expected, flags)
        status = "quarantined" if verdict.outcome == "conflict" else draft.status
        written = FactWritten(
            fact_id=draft.fact_id,
            text=draft.text,
            valid_from=draft.valid_from,
            valid_to=draft.valid_to,
            subject=draft.subject,
            predicate=draft.predicate,
            object=draft.object,
            tags=list(dict.fromkeys(draft.tags)),
            owner=draft.owner,  # type: ignore[arg-type]
            provenance=draft.provenance,  # type: ignore[arg-type]
            status=status,  # type: ignore[arg-type]
            confidence=draft.confidence,
            importance=draft.importance,
            source_message_ids=list(draft.source_message_ids),
        )
        events = [written, decision]
        expected[written.stream_id] = NO_STREAM
        for old_id in verdict.superseded:
            # The old fact stops being true where the new one starts (never before it began).
            at = max(draft.valid_from, valid_from.get(old_id, draft.valid_from))
            events.append(FactSuperseded(old_fact_id=old_id, new_fact_id=draft.fact_id, at=at))
        if verdict.history:
            events.append(FactArchived(fact_id=draft.fact_id, at=now, reason=HISTORY_REASON))
        if verdict.outcome == "conflict":
            item_id = "conflict-" + hashlib.sha256(draft.fact_id.encode()).hexdigest()[:24]
            events.append(
                ReviewItemQueued(
                    item_id=item_id,
                    at=now,
                    agent="reconciliation",
                    action={
                        "verb": "CONFLICT",
                        "fact_ids": [*verdict.conflicts_with, draft.fact_id],
                        "texts": [verdict.reason],
                        "validate": draft.fact_id,
                    },
                )
            )
        return Planned(draft, verdict, events, expected, flags)

    def _remember(
        self, overlay: _Overlay, draft: Draft, claims: Sequence[Claim], verdict: Verdict
    ) -> None:
        overlay.replaced.update(verdict.superseded)
        if verdict.outcome == "deduplicated" or verdict.history:
            return
        overlay.written[draft.fact_id] = Known(draft.fact_id, draft.text, tuple(claims))
        overlay.statuses[draft.fact_id] = (
            "quarantined" if verdict.outcome == "conflict" else draft.status
        )


def _respect_quarantine(verdict: Verdict, draft: Draft, statuses: Mapping[str, str]) -> Verdict:
    """A trusted write restating an unverified (quarantined) fact replaces it rather than
    being folded into it: the user saying it again is what makes it trusted."""
    if verdict.outcome != "deduplicated" or verdict.duplicate_of is None:
        return verdict
    if statuses.get(verdict.duplicate_of) != "quarantined" or draft.status != "active":
        return verdict
    return replace(
        verdict,
        outcome="updated",
        superseded=(verdict.duplicate_of,),
        duplicate_of=None,
        reason=f"restates an unverified fact, now from a trusted source ({verdict.reason})",
    )


async def _latest(conn: AsyncConnection, namespace: str) -> list[str]:
    v = fact_versions_table.c
    result = await conn.execute(
        sa.select(v.fact_id)
        .where(
            v.namespace == namespace,
            v.recorded_to.is_(None),
            v.superseded_by.is_(None),
            v.forgotten.is_(False),
            v.archived.is_(False),
        )
        .order_by(v.written_position.desc())
        .limit(RECENT)
    )
    return [str(r[0]) for r in result]


async def _current_rows(
    conn: AsyncConnection, namespace: str, fact_ids: Sequence[str]
) -> list[KnownClaims]:
    if not fact_ids:
        return []
    v = fact_versions_table.c
    rows = (
        await conn.execute(
            sa.select(v.fact_id, v.text, v.status, v.valid_from).where(
                v.namespace == namespace,
                v.fact_id.in_(list(fact_ids)),
                v.recorded_to.is_(None),
                v.superseded_by.is_(None),
                v.forgotten.is_(False),
                v.archived.is_(False),
            )
        )
    ).all()
    return await claims_of_facts(
        conn, namespace, [(r.fact_id, r.text, r.status, r.valid_from) for r in rows]
    )


__all__ = ["RULES_ID", "Draft", "Judge", "MemoryWriter", "Planned", "claim_from", "claim_record"]
