"""Helpers for the projection tests: a store + runner in a data dir, random event sequences,
and naive in-memory reference models of the message and fact projections.

The models are written from the rules in the projection modules' docstrings, in a different
shape from the implementation: the fact model re-folds the *prefix* of the log recorded by
``known_at`` (no versions at all), the message model computes a conversation's view
recursively from dictionaries.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hypothesis import strategies as st
from sqlalchemy.ext.asyncio import AsyncEngine

from daemon.backend import Backend
from events.clock import ManualClock, from_micros, to_micros
from events.store.base import EventStore, NewEvent, StoredEvent
from events.types import (
    ConversationDeleted,
    ConversationForked,
    Event,
    FactForgotten,
    FactPurged,
    FactSuperseded,
    FactValidated,
    FactWritten,
    ForkStrategy,
    MessageAppended,
)
from projections.base import Projection
from projections.facts import FactRow, FactsProjection
from projections.messages import (
    MAX_FORK_DEPTH,
    ConversationRow,
    MessageRow,
    MessagesProjection,
)
from projections.runner import ProjectionRunner

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def at(seconds: float) -> datetime:
    """Return ``T0`` plus some seconds."""
    return T0 + timedelta(seconds=seconds)


@dataclass
class Env:
    """An open store and a runner on the projection database of one data dir."""

    backend: Backend
    clock: ManualClock
    store: EventStore
    engine: AsyncEngine
    runner: ProjectionRunner

    async def append(self, namespace: str, *events: Event) -> list[int]:
        """Append events in one transaction."""
        return await self.store.append(namespace, [NewEvent(e) for e in events])

    async def fold(self) -> int:
        """Catch the runner up to the head."""
        return await self.runner.catch_up()

    async def restart_runner(self, batch_size: int | None = None) -> ProjectionRunner:
        """Replace the runner by a fresh one (as after a daemon restart)."""
        await self.engine.dispose()
        self.engine = self.backend.projection_engine(write=True)
        self.runner = ProjectionRunner(
            self.store,
            self.engine,
            list(self.runner.projections),
            batch_size=batch_size or self.runner.batch_size,
        )
        await self.runner.setup()
        return self.runner


@contextlib.asynccontextmanager
async def open_env(
    data_dir: Path,
    projections: Sequence[Projection] | None = None,
    *,
    batch_size: int = 2000,
    clock: ManualClock | None = None,
    database_url: str | None = None,
) -> AsyncIterator[Env]:
    """Open a store and a set-up runner in ``data_dir`` (or at ``database_url``)."""
    backend = Backend(data_dir, database_url)
    clock = clock or ManualClock(T0)
    store = backend.open_store(clock=clock)
    await store.open()
    engine = backend.projection_engine(write=True)
    if projections is None:  # this module's own projections; others test theirs
        projections = [MessagesProjection(), FactsProjection()]
    runner = ProjectionRunner(store, engine, projections, batch_size=batch_size)
    env = Env(backend, clock, store, engine, runner)
    try:
        await runner.setup()
        yield env
    finally:
        await env.engine.dispose()
        await store.close()


def message(cid: str, mid: str, content: Any = "text", **kw: Any) -> MessageAppended:
    """Build a MessageAppended with defaults."""
    kw.setdefault("role", "user")
    kw.setdefault("created_at", T0)
    return MessageAppended(conversation_id=cid, message_id=mid, content=content, **kw)


def fact(fid: str, text: str = "", **kw: Any) -> FactWritten:
    """Build a FactWritten with defaults."""
    kw.setdefault("valid_from", T0)
    return FactWritten(fact_id=fid, text=text or f"fact {fid}", **kw)


# -- random logs ---------------------------------------------------------------------------

NAMESPACES = ("a", "b")
CONVS = ("c0", "c1", "c2", "c3", "c4", "c5")
MSGS = ("m0", "m1", "m2", "m3", "m4")
FACTS = ("f0", "f1", "f2", "f3")
TAGS = ("x", "y")
OWNERS_FOR_QUERY = (None, "user", "agent", "shared")
STRATEGIES: tuple[ForkStrategy, ...] = ("reference", "cloning")
VALID_TIMES = tuple(at(s) for s in (0, 10, 20, 30, 40))


def _maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(st.none(), strategy)


message_events = st.builds(
    MessageAppended,
    conversation_id=st.sampled_from(CONVS),
    message_id=st.sampled_from(MSGS),
    role=st.sampled_from(("user", "assistant", "tool", "system")),
    content=st.one_of(
        st.text(max_size=8),
        st.just([{"type": "text", "text": "block"}, {"type": "tool_use", "name": "t", "id": "1"}]),
    ),
    created_at=st.sampled_from(VALID_TIMES),
    name=_maybe(st.sampled_from(("alice", "bot"))),
    metadata=st.one_of(st.just({}), st.just({"k": [1, 2]})),
    finalized=st.booleans(),
)
fact_written = st.builds(
    FactWritten,
    fact_id=st.sampled_from(FACTS),
    text=st.text(min_size=1, max_size=6),
    valid_from=st.sampled_from(VALID_TIMES),
    valid_to=_maybe(st.sampled_from(VALID_TIMES)),
    subject=_maybe(st.just("s")),
    predicate=_maybe(st.just("p")),
    object=_maybe(st.just("o")),
    tags=st.lists(st.sampled_from(TAGS), max_size=3),
    owner=st.sampled_from(("user", "agent", "shared")),
    provenance=st.sampled_from(("user", "tool", "extraction")),
    status=st.sampled_from(("active", "quarantined")),
    confidence=st.sampled_from((0.5, 1.0)),
    importance=st.sampled_from((0.25, 0.5)),
    source_message_ids=st.lists(st.sampled_from(MSGS), max_size=2),
)


@dataclass(frozen=True)
class Append:
    """One append of a random log: advance the clock, then append events in one commit."""

    namespace: str
    events: tuple[Event, ...]
    advance: int
    """Seconds the clock moves before this append (0: same recorded_at as the last one)."""
    fold_after: bool
    """Fold the projections incrementally after this append."""
    restart_after: bool


def _pick(draw: st.DrawFn, known: Sequence[str], every: Sequence[str], label: str) -> str:
    """Mostly an id already in use (so events meet), sometimes any id."""
    if known and draw(st.integers(0, 9), label=f"{label}-fresh") < 8:
        return draw(st.sampled_from(sorted(known)), label=label)
    return draw(st.sampled_from(every), label=label)


@st.composite
def _event(draw: st.DrawFn, seen: dict[str, dict[str, set[str]]], namespace: str) -> Event:
    """One random event biased towards ids the log already used in ``namespace``."""
    known = seen.setdefault(namespace, {"convs": set(), "msgs": set(), "facts": set()})
    kind = draw(
        st.sampled_from(
            ("message",) * 4
            + ("fork",) * 2
            + ("delete", "fact", "fact", "fact", "supersede", "validate", "forget", "purge")
        ),
        label="kind",
    )
    if kind == "message":
        cid = _pick(draw, list(known["convs"]), CONVS, "conversation")
        mid = _pick(draw, list(known["msgs"]), MSGS, "message")
        known["convs"].add(cid)
        known["msgs"].add(mid)
        return draw(message_events.map(lambda m: replace(m, conversation_id=cid, message_id=mid)))
    if kind == "fork":
        parent = _pick(draw, list(known["convs"]), CONVS, "parent")
        fresh = [c for c in CONVS if c not in known["convs"]]
        fork_id = draw(st.sampled_from(fresh or CONVS), label="fork")
        known["convs"].add(fork_id)
        through = draw(
            st.one_of(st.none(), st.none(), st.sampled_from(sorted(known["msgs"]) or MSGS)),
            label="through",
        )
        strategy = draw(st.sampled_from(STRATEGIES), label="strategy")
        return ConversationForked(
            fork_id=fork_id,
            parent_conversation_id=parent,
            through_message_id=through,
            strategy=strategy,
        )
    if kind == "delete":
        return ConversationDeleted(
            conversation_id=_pick(draw, list(known["convs"]), CONVS, "deleted")
        )
    if kind == "fact":
        fid = draw(st.sampled_from(FACTS), label="fact")
        known["facts"].add(fid)
        return draw(fact_written.map(lambda f: replace(f, fact_id=fid)))
    fid = _pick(draw, list(known["facts"]), FACTS, "changed")
    if kind == "supersede":
        return FactSuperseded(
            old_fact_id=fid,
            new_fact_id=_pick(draw, list(known["facts"]), FACTS, "new"),
            at=draw(st.sampled_from(VALID_TIMES), label="at"),
        )
    if kind == "validate":
        return FactValidated(fact_id=fid, by="user", note=draw(_maybe(st.just("ok")), label="note"))
    if kind == "forget":
        return FactForgotten(fact_id=fid, reason=draw(_maybe(st.just("why")), label="why"))
    return FactPurged(fact_id=fid)


@st.composite
def logs(draw: st.DrawFn, max_appends: int = 14) -> list[Append]:
    """A random log of appends over two namespaces."""
    seen: dict[str, dict[str, set[str]]] = {}
    out = []
    for _ in range(draw(st.integers(3, max_appends), label="appends")):
        namespace = draw(st.sampled_from(NAMESPACES), label="namespace")
        count = draw(st.integers(1, 4), label="events")
        events = tuple(draw(_event(seen, namespace)) for _ in range(count))
        out.append(
            Append(
                namespace=namespace,
                events=events,
                advance=draw(st.sampled_from((0, 0, 1, 5)), label="advance"),
                fold_after=draw(st.booleans(), label="fold"),
                restart_after=draw(st.integers(0, 3), label="restart") == 0,
            )
        )
    return out


async def play(env: Env, log: Sequence[Append], batch_sizes: Sequence[int]) -> None:
    """Append a random log, folding (and restarting the runner) where it says."""
    sizes = iter(list(batch_sizes) or [2000])
    for item in log:
        env.clock.advance(timedelta(seconds=item.advance))
        await env.append(item.namespace, *item.events)
        if item.restart_after:
            await env.restart_runner(next(sizes, 3))
        if item.fold_after:
            env.runner.batch_size = next(sizes, 3)
            await env.fold()
    await env.fold()


# -- the fact model ------------------------------------------------------------------------


@dataclass
class _ModelFact:
    fields: dict[str, Any]
    incarnation: int
    """Position of the FactWritten that started this life of the fact id."""


class FactModel:
    """Facts as a plain fold: the belief at K is the fold of the events recorded by K."""

    def __init__(self, events: Sequence[StoredEvent]) -> None:
        self.events = list(events)
        # A purged incarnation of a fact id leaves no trace at any time.
        self.purged = self._purged_incarnations()
        self.states: list[dict[tuple[str, str], _ModelFact]] = []
        facts: dict[tuple[str, str], _ModelFact] = {}
        for e in self.events:
            self._step(facts, e)
            self.states.append(
                {k: _ModelFact(dict(f.fields), f.incarnation) for k, f in facts.items()}
            )

    def _purged_incarnations(self) -> set[tuple[str, str, int]]:
        out: set[tuple[str, str, int]] = set()
        alive: dict[tuple[str, str], int] = {}
        for e in self.events:
            ev = e.event
            key = (e.namespace, getattr(ev, "fact_id", ""))
            if isinstance(ev, FactWritten) and key not in alive:
                alive[key] = e.position
            elif isinstance(ev, FactPurged) and key in alive:
                out.add((*key, alive.pop(key)))
        return out

    @staticmethod
    def _step(facts: dict[tuple[str, str], _ModelFact], e: StoredEvent) -> None:
        ev = e.event
        ns = e.namespace

        def change(fid: str, **values: Any) -> None:
            f = facts.get((ns, fid))
            if f is not None:
                f.fields.update(values, position=e.position, recorded_from=e.recorded_at)

        if isinstance(ev, FactWritten):
            if (ns, ev.fact_id) in facts:
                return
            facts[(ns, ev.fact_id)] = _ModelFact(
                {
                    "fact_id": ev.fact_id,
                    "text": ev.text.replace("\x00", "\ufffd"),  # documented: NUL -> U+FFFD
                    "subject": ev.subject,
                    "predicate": ev.predicate,
                    "object": ev.object,
                    "tags": list(ev.tags),
                    "owner": ev.owner,
                    "provenance": ev.provenance,
                    "status": ev.status,
                    "confidence": ev.confidence,
                    "importance": ev.importance,
                    "valid_from": ev.valid_from,
                    "valid_to": ev.valid_to,
                    "recorded_from": e.recorded_at,
                    "recorded_to": None,
                    "superseded_by": None,
                    "supersedes": None,
                    "forgotten": False,
                    "source_message_ids": list(ev.source_message_ids),
                    "validated_by": None,
                    "position": e.position,
                    "written_position": e.position,
                    "validation_note": None,
                    "forgotten_reason": None,
                    "namespace": ns,
                },
                e.position,
            )
        elif isinstance(ev, FactSuperseded):
            old = facts.get((ns, ev.old_fact_id))
            if old is None or ev.old_fact_id == ev.new_fact_id:
                return
            end = old.fields["valid_to"]
            change(
                ev.old_fact_id,
                valid_to=ev.at if end is None else min(end, ev.at),
                superseded_by=ev.new_fact_id,
            )
            change(ev.new_fact_id, supersedes=ev.old_fact_id)
        elif isinstance(ev, FactValidated):
            change(ev.fact_id, status="active", validated_by=ev.by, validation_note=ev.note)
        elif isinstance(ev, FactForgotten):
            change(ev.fact_id, forgotten=True, forgotten_reason=ev.reason)
        elif isinstance(ev, FactPurged):
            facts.pop((ns, ev.fact_id), None)

    def _next_change(self, key: tuple[str, str], version: int) -> StoredEvent | None:
        """The first later event after which the fact is another version."""
        for e, state in zip(self.events, self.states, strict=True):
            if e.position <= version:
                continue
            now = state.get(key)
            if now is None or now.fields["position"] != version:
                return e
        return None

    def believed(self, known_at: datetime | None) -> list[FactRow]:
        """Every fact version believed at ``known_at`` (None: now), purged lives removed."""
        shown = [
            i for i, e in enumerate(self.events) if known_at is None or e.recorded_at <= known_at
        ]
        if not shown:
            return []
        out = []
        for key, f in self.states[shown[-1]].items():
            if (*key, f.incarnation) in self.purged:
                continue
            fields = dict(f.fields)
            closing = None if known_at is None else self._next_change(key, fields["position"])
            fields["recorded_to"] = None if closing is None else closing.recorded_at
            fields["closed_position"] = None if closing is None else closing.position
            out.append(FactRow(**fields))
        return out

    def query(
        self,
        namespace: str,
        *,
        as_of: datetime | None = None,
        known_at: datetime | None = None,
        status: str | None = None,
        tag: str | None = None,
        owner: str | None = None,
        include_quarantined: bool = False,
        include_superseded: bool = False,
    ) -> list[FactRow]:
        """The answer ``query_facts`` must give."""
        out = []
        for f in self.believed(known_at):
            if f.namespace != namespace or f.forgotten:
                continue
            if as_of is not None:
                if not (f.valid_from <= as_of and (f.valid_to is None or as_of < f.valid_to)):
                    continue
            elif f.superseded_by is not None and not include_superseded:
                continue
            if status is not None:
                if f.status != status:
                    continue
            elif not include_quarantined and f.status != "active":
                continue
            if owner is not None and f.owner != owner:
                continue
            if tag is not None and tag not in f.tags:
                continue
            out.append(f)
        return sorted(out, key=lambda f: (f.written_position, f.fact_id))


# -- the message model ---------------------------------------------------------------------


@dataclass
class _ModelConv:
    created: int
    parent: str | None = None
    through_id: str | None = None
    through: int | None = None
    strategy: str | None = None
    deleted: bool = False
    deleted_at: int | None = None
    own: dict[str, MessageRow] = field(default_factory=dict)


class MessageModel:
    """Conversations as dictionaries; a view is computed recursively on every read."""

    def __init__(self, events: Sequence[StoredEvent]) -> None:
        self.convs: dict[tuple[str, str], _ModelConv] = {}
        for e in events:
            ev = e.event
            if isinstance(ev, MessageAppended):
                self._append(e, ev)
            elif isinstance(ev, ConversationForked):
                self._fork(e, ev)
            elif isinstance(ev, ConversationDeleted):
                conv = self.convs.get((e.namespace, ev.conversation_id))
                if conv is not None and not conv.deleted:
                    conv.deleted = True
                    conv.deleted_at = e.position
                    conv.own.clear()

    def view(
        self,
        ns: str,
        cid: str,
        bound: int | None = None,
        depth: int = 0,
        seen: frozenset[str] = frozenset(),
    ) -> tuple[dict[str, MessageRow], bool, bool]:
        """(visible messages by id, orphaned, truncated) of a conversation, cut at ``bound``."""
        conv = self.convs[(ns, cid)]
        out = {k: m for k, m in conv.own.items() if bound is None or m.position <= bound}
        orphaned = truncated = False
        if conv.strategy == "reference" and conv.parent is not None:
            parent = self.convs.get((ns, conv.parent))
            if conv.parent in seen | {cid} or depth >= MAX_FORK_DEPTH:
                truncated = True
            elif parent is None or parent.deleted:
                orphaned = True
            else:
                assert conv.through is not None
                cut = conv.through if bound is None else min(bound, conv.through)
                above, orphaned, truncated = self.view(
                    ns, conv.parent, cut, depth + 1, seen | {cid}
                )
                for k, m in above.items():
                    out.setdefault(k, m)
        return out, orphaned, truncated

    def visible(self, ns: str, cid: str) -> list[MessageRow]:
        """The messages ``list_messages`` must return."""
        conv = self.convs.get((ns, cid))
        if conv is None or conv.deleted:
            return []
        return sorted(self.view(ns, cid)[0].values(), key=lambda m: m.position)

    def conversation(self, ns: str, cid: str) -> ConversationRow | None:
        """The row ``get_conversation`` must return."""
        conv = self.convs.get((ns, cid))
        if conv is None:
            return None
        _, orphaned, truncated = self.view(ns, cid)
        shown = self.visible(ns, cid)
        return ConversationRow(
            conversation_id=cid,
            parent_conversation_id=conv.parent,
            through_message_id=conv.through_id,
            strategy=conv.strategy,
            deleted=conv.deleted,
            orphaned=orphaned,
            message_count=len(shown),
            last_message_at=shown[-1].created_at if shown else None,
            created_position=conv.created,
            through_position=conv.through,
            deleted_position=conv.deleted_at,
            lineage_truncated=truncated,
            namespace=ns,
        )

    def _append(self, e: StoredEvent, ev: MessageAppended) -> None:
        key = (e.namespace, ev.conversation_id)
        conv = self.convs.setdefault(key, _ModelConv(created=e.position))
        if conv.deleted:
            return
        old = conv.own.get(ev.message_id)
        if old is not None:
            place = old.position
        else:
            place = e.position
            inherited = self.view(e.namespace, ev.conversation_id)[0].get(ev.message_id)
            if inherited is not None:
                place = inherited.position
        conv.own[ev.message_id] = MessageRow(
            conversation_id=ev.conversation_id,
            message_id=ev.message_id,
            role=ev.role,
            name=ev.name,
            content=ev.content,
            created_at=ev.created_at,
            metadata=ev.metadata,
            finalized=ev.finalized,
            position=place,
            updated_position=e.position,
            namespace=e.namespace,
        )

    def _fork(self, e: StoredEvent, ev: ConversationForked) -> None:
        ns = e.namespace
        if (ns, ev.fork_id) in self.convs:
            return
        parent = self.convs.get((ns, ev.parent_conversation_id))
        shown = (
            {m.message_id: m for m in self.visible(ns, ev.parent_conversation_id)}
            if parent is not None
            else {}
        )
        if ev.through_message_id is None:
            through = e.position
        else:
            found = shown.get(ev.through_message_id)
            through = found.position if found is not None else 0
        conv = _ModelConv(
            created=e.position,
            parent=ev.parent_conversation_id,
            through_id=ev.through_message_id,
            through=through,
            strategy=ev.strategy,
        )
        if ev.strategy == "cloning":
            for m in shown.values():
                if m.position <= through:
                    conv.own[m.message_id] = dataclasses.replace(
                        m, conversation_id=ev.fork_id, updated_position=e.position
                    )
        self.convs[(ns, ev.fork_id)] = conv


def micros_round(when: datetime) -> datetime:
    """Round-trip a time through the tables' microsecond integers."""
    return from_micros(to_micros(when))
