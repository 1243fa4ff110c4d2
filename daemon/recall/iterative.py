"""Iterative recall: gate, passes, fusion across passes, offline or graded.

1. The gate (:mod:`daemon.recall.difficulty`) scores the question; an easy question takes
   one pass.
2. Pass 1 asks the question. When the question names people, it reads
   :data:`AUTHOR_DEPTH` hits deep, scores that pool again half by rank and half by the legs'
   scores (:mod:`daemon.recall.pool_mix`), and the messages those people said themselves have
   their score scaled by :data:`AUTHOR_FACTOR` (a question about Melanie's kids is answered by
   what Melanie said, which seldom says "Melanie"; the turns that greet her by name otherwise
   rank first). Time weighs the same way (:mod:`daemon.recall.time_cues`): when the
   question asks when, the messages that say when are scaled by :data:`WHEN_FACTOR`; when it
   names a day, a month or a year, pass 1 also reads as deep inside that span (so what was
   said then can join the pool) and what was said in it is scaled by :data:`WINDOW_FACTOR`.
   This applies to easy questions too: it costs no pass.
3. Passes 2.. (hard questions only) ask the reformulations :data:`STRATEGIES` names, made
   from pass 1's best hits (:mod:`daemon.recall.reformulate`), at most ``max_iterations``
   passes in all; they depend only on pass 1, so they run at once. No offline reformulation
   has yet helped on LoCoMo, so by default there is none and the loop stops after pass 1.
   With a ``grader`` (a model, :mod:`daemon.recall.grader`), a hard question is graded
   after each pass against the original question instead: sufficient stops, otherwise the
   grader's reformulation is the next pass; the cap reached unsatisfied sets ``abstain``; a
   failed call ends the graded passes and the offline ones (if any) follow.
4. The passes' rankings are fused by weighted RRF (pass 1 weighs 1, a later pass
   :data:`LATER_PASS_WEIGHT`), a document's fused score being the sum over the passes that
   found it; ``top_k`` caps the total.

Which reformulations run is :data:`STRATEGIES` (measured on LoCoMo: see ``bench/locomo.py``
and ``docs/performance.md``). Everything here takes plain arguments: the caller passes the
search function (the API's one applies its own post-ranking, such as the staleness scale).
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from daemon.recall.difficulty import DEFAULT_THRESHOLD, Difficulty, assess
from daemon.recall.engine import Hit
from daemon.recall.fusion import RRF_K
from daemon.recall.grader import Verdict
from daemon.recall.pool_mix import by_score, mix_pool, with_score
from daemon.recall.query import SearchRequest
from daemon.recall.reformulate import Reformulation, bridge_queries
from daemon.recall.time_cues import asks_when, named_window, says_when
from events.clock import from_micros
from projections.entities import canonical_key, extract_entities

DEFAULT_MAX_ITERATIONS = 3
MAX_ITERATIONS = 5
LATER_PASS_WEIGHT = 0.5
"""A later pass's RRF weight; pass 1 (the question as asked) weighs 1."""
AUTHOR_FACTOR = 1.3
"""Score factor of a message said by someone the question names (of the pool's mixed score,
:mod:`daemon.recall.pool_mix`; over rank fusion alone 1.25 was best)."""
AUTHOR_DEPTH = 60
"""How deep pass 1 reads when the question names someone, so their own words can move up."""
STRATEGIES: tuple[str, ...] = ()
"""The offline reformulations later passes ask, in order. None by default: on LoCoMo entity
bridging (``bridge``) measured no better than pass 1 alone (0.843 hit@10 with it, 0.858
without; multi-hop -0.035, open-domain -0.039, temporal -0.011) at three times the cost,
and feedback worse (see ``docs/performance.md``); ``bench/locomo.py`` measures bridging again
in every run."""

WHEN_FACTOR = 1.3
"""Score factor of a message that says when (:func:`~daemon.recall.time_cues.says_when`),
for a question that asks when: 80% of the turns that answer LoCoMo's when-questions say when,
15% of all turns do."""
WINDOW_FACTOR = 1.2
"""Score factor of a message said in the span of time the question names
(:func:`~daemon.recall.time_cues.named_window`)."""

Search = Callable[[SearchRequest], Awaitable[list[Hit]]]


@dataclass(frozen=True, slots=True)
class IterativeOptions:
    """``iterative: {max_iterations, difficulty_threshold, force_hard}``."""

    max_iterations: int = DEFAULT_MAX_ITERATIONS
    difficulty_threshold: float = DEFAULT_THRESHOLD
    force_hard: bool = False

    def __post_init__(self) -> None:
        clamped = min(MAX_ITERATIONS, max(1, self.max_iterations))
        object.__setattr__(self, "max_iterations", clamped)


@dataclass(slots=True)
class PassTrace:
    """One pass: its query, where the query came from, and which hits it added."""

    query: str
    source: str
    detail: str = ""
    found: int = 0
    added: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """Return the ``explain`` form."""
        out: dict[str, Any] = {"query": self.query, "source": self.source}
        if self.detail:
            out["detail"] = self.detail
        out["found"] = self.found
        out["added"] = self.added
        return out


@dataclass(slots=True)
class IterativeResult:
    """The fused hits, the gate's verdict, each pass, and the authors the question names."""

    hits: list[Hit]
    difficulty: Difficulty
    passes: list[PassTrace]
    authors: list[str] = field(default_factory=list)
    by_authors: list[str] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)
    """The grader's verdict on each graded pass (none without a model)."""
    abstain: bool = False
    """The grader never found the hits sufficient within ``max_iterations`` passes."""
    rankings: list[list[Hit]] = field(default_factory=list)
    """Each later pass's hits, in pass order."""
    cues: TimeCues | None = None
    """What the question says about time (pass 1's weighting)."""

    def explain(self) -> dict[str, Any]:
        """Return the ``explain`` form: gate score and signals, each pass, the authors, the
        grader's verdicts and the model calls spent."""
        out: dict[str, Any] = {
            "gate": self.difficulty.to_json(),
            "passes": [p.to_json() for p in self.passes],
        }
        if self.verdicts:
            out["grader"] = [v.to_json() for v in self.verdicts]
        out["model_calls"] = len(self.verdicts)
        if self.cues:
            out["time"] = self.cues.to_json()
        if self.authors:
            out["authors"] = {
                "names": self.authors,
                "factor": AUTHOR_FACTOR,
                "hits": self.by_authors,
            }
        return out


def named_authors(question: str) -> list[str]:
    """The names in ``question`` a message's author could have (an entity's key, and its
    first word: "Melanie Smith" is also "melanie")."""
    names: dict[str, None] = {}
    for entity in extract_entities(question):
        names[entity.key] = None
        names[entity.key.split()[0]] = None
    return list(names)


def by_author(hit: Hit, names: Sequence[str]) -> bool:
    """Whether a hit is a message said by one of ``names``."""
    return hit.author is not None and _is_named(hit.author, tuple(names))


@functools.lru_cache(maxsize=4096)
def _is_named(author: str, names: tuple[str, ...]) -> bool:
    # A pool of 60 hits has a few authors: canonical_key once each, not once a hit.
    key = canonical_key(author)
    return bool(key) and (key in names or key.split()[0] in names)


def _scaled(hit: Hit, name: str, factor: float) -> Hit:
    """``hit`` with its score scaled by ``factor`` (and ``explain``'s multipliers naming it)."""
    signals = hit.signals
    if signals is not None:
        multipliers = {**signals.get("multipliers", {}), name: factor}
        signals = {**signals, "multipliers": multipliers, "final": hit.score * factor}
    return with_score(hit, hit.score * factor, signals)


def author_rerank(hits: Sequence[Hit], names: Sequence[str]) -> list[Hit]:
    """Scale the scores of the messages said by someone the question names by
    :data:`AUTHOR_FACTOR` and rank again (ties keep their order)."""
    return by_score(
        [_scaled(h, "author", AUTHOR_FACTOR) if by_author(h, names) else h for h in hits]
    )


@dataclass(frozen=True, slots=True)
class TimeCues:
    """What a question says about time: whether it asks when, and the span it names."""

    asks_when: bool
    window: tuple[int, int] | None

    @classmethod
    def of(cls, question: str) -> TimeCues:
        """The cues of ``question`` (a cue whose factor is 1 is off)."""
        window = named_window(question) if WINDOW_FACTOR != 1.0 else None
        return cls(WHEN_FACTOR != 1.0 and asks_when(question), window)

    def __bool__(self) -> bool:
        return self.asks_when or self.window is not None

    def to_json(self) -> dict[str, Any]:
        """Return the ``explain`` form."""
        out: dict[str, Any] = {}
        if self.asks_when:
            out["asks_when"] = {"factor": WHEN_FACTOR}
        if self.window is not None:
            start, end = (from_micros(t).isoformat() for t in self.window)
            out["window"] = {"from": start, "to": end, "factor": WINDOW_FACTOR}
        return out


def time_rerank(hits: Sequence[Hit], cues: TimeCues) -> list[Hit]:
    """Scale by :data:`WHEN_FACTOR` the messages that say when (when the question asks when)
    and by :data:`WINDOW_FACTOR` the documents said in the span the question names, and rank
    again (ties keep their order)."""
    if not cues:
        return list(hits)
    out: list[Hit] = []
    for hit in hits:
        if cues.asks_when and hit.kind == "message" and says_when(hit.text):
            hit = _scaled(hit, "when", WHEN_FACTOR)
        if cues.window is not None and cues.window[0] <= hit.created_at < cues.window[1]:
            hit = _scaled(hit, "window", WINDOW_FACTOR)
        out.append(hit)
    return by_score(out)


def reformulations(
    question: str,
    texts: Sequence[str],
    limit: int,
    strategies: Sequence[str] = STRATEGIES,
) -> list[Reformulation]:
    """Up to ``limit`` distinct later-pass queries from pass 1's hit texts, in the order of
    ``strategies`` (each strategy gets one query before any gets a second)."""
    if limit <= 0:
        return []
    per: dict[str, list[Reformulation]] = {}
    for name in strategies:
        if name == "bridge":
            per[name] = bridge_queries(question, texts, limit)
        else:
            raise ValueError(f"unknown strategy {name!r}")
    out: list[Reformulation] = []
    seen = {question}
    depth = 0
    while len(out) < limit and any(depth < len(v) for v in per.values()):
        for name in strategies:
            queries = per[name]
            if depth < len(queries) and queries[depth].query not in seen and len(out) < limit:
                seen.add(queries[depth].query)
                out.append(queries[depth])
        depth += 1
    return out


def fuse_passes(
    rankings: Sequence[Sequence[Hit]],
    weights: Sequence[float],
    top_k: int,
    k: int = RRF_K,
) -> list[Hit]:
    """Weighted RRF over the passes' rankings (one document once, by ``doc_id``); each hit
    keeps the fields of its best pass and takes the fused score. Ties: the earlier pass's
    earlier hit first."""
    fused: dict[int, float] = {}
    best: dict[int, Hit] = {}
    place: dict[int, tuple[int, int]] = {}
    for p, (ranking, weight) in enumerate(zip(rankings, weights, strict=True)):
        for rank, hit in enumerate(ranking, start=1):
            fused[hit.doc_id] = fused.get(hit.doc_id, 0.0) + weight / (k + rank)
            if hit.doc_id not in best:
                best[hit.doc_id] = hit
                place[hit.doc_id] = (p, rank)
    ranked = sorted(fused, key=lambda d: (-fused[d], place[d]))[:top_k]
    return [dataclasses.replace(best[d], score=fused[d]) for d in ranked]


Grader = Callable[[str, Sequence[Hit]], Awaitable[Verdict]]
"""Judges hits against the original question (see :mod:`daemon.recall.grader`)."""


async def iterative_search(
    search: Search,
    req: SearchRequest,
    options: IterativeOptions,
    strategies: Sequence[str] = STRATEGIES,
    later_weight: float = LATER_PASS_WEIGHT,
    grader: Grader | None = None,
) -> IterativeResult:
    """Answer ``req`` with the gated loop (see the module's docstring); with ``grader``, a
    hard question's passes follow the grader's verdicts instead of the offline strategies."""
    difficulty = assess(req.query, options.difficulty_threshold, options.force_hard)
    authors = named_authors(req.query) if AUTHOR_FACTOR != 1.0 else []
    cues = TimeCues.of(req.query)
    if authors or cues:
        first = await _weighted_first_pass(search, req, authors, cues)
    else:
        first = await search(req)
    passes = [PassTrace(req.query, "question", found=len(first), added=[h.id for h in first])]
    result = IterativeResult(list(first[: req.top_k]), difficulty, passes, authors, cues=cues)
    offline = difficulty.hard and options.max_iterations > 1 and bool(first)
    if difficulty.hard and grader is not None:
        offline = await _graded_passes(search, req, options, first, later_weight, grader, result)
        offline = offline and options.max_iterations > len(result.passes)
    if offline:
        texts = [h.text for h in first]
        left = options.max_iterations - len(result.passes)
        later = reformulations(req.query, texts, left, strategies)
        if later:
            found = await asyncio.gather(
                *(search(dataclasses.replace(req, query=r.query, explain=False)) for r in later)
            )
            for r, hits in zip(later, found, strict=True):
                _add_pass(result, PassTrace(r.query, r.source, r.detail), hits)
            _fuse(result, req, first, later_weight)
    result.by_authors = [h.id for h in result.hits if authors and by_author(h, authors)]
    return result


async def _weighted_first_pass(
    search: Search, req: SearchRequest, authors: list[str], cues: TimeCues
) -> list[Hit]:
    """Pass 1 read :data:`AUTHOR_DEPTH` deep (and as deep again inside the span the question
    names: the message that tells of "1 May" is seldom among the best of the whole
    conversation), mixed (:mod:`daemon.recall.pool_mix`), then weighted by author and time."""
    depth = max(req.top_k, AUTHOR_DEPTH)
    # explain: the pool is scored again from the legs' scores, which only it carries.
    deep = dataclasses.replace(
        req, top_k=depth, candidate_top_k=max(req.candidate_top_k, depth), explain=True
    )
    if cues.window is None:
        found = await search(deep)
    else:
        inside = dataclasses.replace(
            deep, filters=dataclasses.replace(req.filters, said_between=cues.window)
        )
        found, more = await asyncio.gather(search(deep), search(inside))
        seen = {h.doc_id for h in found}
        found = found + [h for h in more if h.doc_id not in seen]
    pool = mix_pool(found, explain=req.explain)
    return time_rerank(author_rerank(pool, authors), cues)[: req.top_k]


async def _graded_passes(
    search: Search,
    req: SearchRequest,
    options: IterativeOptions,
    first: list[Hit],
    later_weight: float,
    grader: Grader,
    result: IterativeResult,
) -> bool:
    """Grade, reformulate, search, until sufficient or ``max_iterations`` passes; return
    whether the loop should go on offline (the grader failed)."""
    while True:
        verdict = await grader(req.query, result.hits)
        result.verdicts.append(verdict)
        if verdict.error is not None:
            return True
        if verdict.sufficient:
            return False
        asked = {p.query for p in result.passes}
        query = verdict.reformulation
        if len(result.passes) >= options.max_iterations or not query or query in asked:
            result.abstain = True  # the cap, or nothing new to ask, without sufficiency
            return False
        hits = await search(dataclasses.replace(req, query=query, explain=False))
        _add_pass(result, PassTrace(query, "grader"), hits)
        _fuse(result, req, first, later_weight)


def _add_pass(result: IterativeResult, trace: PassTrace, hits: list[Hit]) -> None:
    trace.found = len(hits)
    result.passes.append(trace)
    result.rankings.append(hits)


def _fuse(result: IterativeResult, req: SearchRequest, first: list[Hit], weight: float) -> None:
    """Fuse pass 1 and the later passes into ``result.hits``; say what each pass added."""
    rankings: list[Sequence[Hit]] = [first, *result.rankings]
    weights = [1.0] + [weight] * len(result.rankings)
    fused = fuse_passes(rankings, weights, req.top_k)
    returned = {h.doc_id for h in fused}
    seen = {h.doc_id for h in first}
    passes = result.passes
    passes[0].added = [h.id for h in first if h.doc_id in returned]
    for trace, hits in zip(passes[1:], result.rankings, strict=True):
        trace.added = [h.id for h in hits if h.doc_id not in seen and h.doc_id in returned]
        seen.update(h.doc_id for h in hits)
    result.hits = fused
