"""Iterative recall, offline (issue 18): gate, passes, fusion across passes.

1. The gate (:mod:`daemon.recall.difficulty`) scores the question; an easy question gets the
   single-shot answer, unchanged.
2. Pass 1 asks the question. Passes 2.. ask offline reformulations made from pass 1's best
   hits (:mod:`daemon.recall.reformulate`), at most ``max_iterations`` passes in all; they
   depend only on pass 1, so they run at once.
3. The passes' rankings are fused by weighted RRF (pass 1 weighs 1, a later pass
   :data:`LATER_PASS_WEIGHT`), a document's fused score being the sum over the passes that
   found it; ``top_k`` caps the total.

Which reformulations run is :data:`STRATEGIES` (measured on LoCoMo: see ``bench/locomo.py``
and ``docs/performance.md``). Everything here takes plain arguments: the caller passes the
search function (the API's one applies its own post-ranking, such as the staleness scale).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from daemon.recall.difficulty import DEFAULT_THRESHOLD, Difficulty, assess
from daemon.recall.engine import Hit
from daemon.recall.fusion import RRF_K
from daemon.recall.query import SearchRequest
from daemon.recall.reformulate import Reformulation, bridge_queries

DEFAULT_MAX_ITERATIONS = 3
MAX_ITERATIONS = 5
LATER_PASS_WEIGHT = 0.5
"""A later pass's RRF weight; pass 1 (the question as asked) weighs 1."""
STRATEGIES: tuple[str, ...] = ("bridge",)
"""The offline reformulations used, in order (``bridge`` is the one kept)."""

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
    """The fused hits, the gate's verdict and each pass."""

    hits: list[Hit]
    difficulty: Difficulty
    passes: list[PassTrace]

    def explain(self) -> dict[str, Any]:
        """Return the ``explain`` form: gate score and signals, each pass."""
        return {
            "gate": self.difficulty.to_json(),
            "passes": [p.to_json() for p in self.passes],
        }


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


async def iterative_search(
    search: Search,
    req: SearchRequest,
    options: IterativeOptions,
    strategies: Sequence[str] = STRATEGIES,
    later_weight: float = LATER_PASS_WEIGHT,
) -> IterativeResult:
    """Answer ``req`` with the gated offline loop (see the module's docstring)."""
    difficulty = assess(req.query, options.difficulty_threshold, options.force_hard)
    first = await search(req)
    passes = [PassTrace(req.query, "question", found=len(first), added=[h.id for h in first])]
    if not difficulty.hard or options.max_iterations <= 1 or not first:
        return IterativeResult(list(first[: req.top_k]), difficulty, passes)
    texts = [h.text for h in first]
    later = reformulations(req.query, texts, options.max_iterations - 1, strategies)
    if not later:
        return IterativeResult(list(first[: req.top_k]), difficulty, passes)
    results = await asyncio.gather(
        *(search(dataclasses.replace(req, query=r.query, explain=False)) for r in later)
    )
    rankings: list[Sequence[Hit]] = [first]
    weights = [1.0]
    for reformulation, hits in zip(later, results, strict=True):
        rankings.append(hits)
        weights.append(later_weight)
        passes.append(PassTrace(reformulation.query, reformulation.source, reformulation.detail))
    fused = fuse_passes(rankings, weights, req.top_k)
    returned = {h.doc_id for h in fused}
    seen = {h.doc_id for h in first}
    passes[0].added = [h.id for h in first if h.doc_id in returned]
    for trace, hits in zip(passes[1:], results, strict=True):
        trace.found = len(hits)
        new = [h for h in hits if h.doc_id not in seen and h.doc_id in returned]
        trace.added = [h.id for h in new]
        seen.update(h.doc_id for h in hits)
    return IterativeResult(fused, difficulty, passes)
