"""Fusion of ranked legs and the post-fusion multipliers (pure arithmetic, property-tested).

- :class:`Candidate`: a document of the fused pool, with what decided its score.
- :func:`rrf`: reciprocal rank fusion, ``score(d) = sum_leg w_leg / (k + rank_leg(d))`` with
  1-based ranks, ``k = 60`` by default and ``w_leg = 1`` for plain RRF.
- :func:`trust_multiplier`: quarantined x0.3, foreign provenance (tool, imported, reflection)
  x0.8, both multiply.
- :func:`decay_multiplier`: ``exp(-elapsed_days / (tau_days * max(0.5, strength)))``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

RRF_K = 60
QUARANTINE_FACTOR = 0.3
FOREIGN_FACTOR = 0.8
FOREIGN_PROVENANCES = frozenset({"tool", "imported", "reflection"})
MICROS_PER_DAY = 86_400 * 1_000_000


@dataclass(frozen=True, slots=True)
class LegHit:
    """One document's place in one leg: 1-based rank and the leg's own score."""

    rank: int
    score: float


@dataclass(slots=True)
class Candidate:
    """A document in a search's pool: its fused score, what each leg gave it, the multipliers
    weighing applied, how graph expansion reached it, and its final score."""

    doc_id: int
    fused: float
    legs: dict[str, LegHit] = field(default_factory=dict)
    multipliers: dict[str, float] = field(default_factory=dict)
    graph: dict[str, Any] | None = None
    score: float = 0.0


def rrf(
    legs: Mapping[str, Sequence[int]],
    weights: Mapping[str, float] | None = None,
    k: int = RRF_K,
) -> dict[int, float]:
    """Fuse ranked lists of document ids; a missing weight counts as 1."""
    if k < 0:
        raise ValueError("k must be >= 0")
    fused: dict[int, float] = {}
    for name, ranking in legs.items():
        weight = 1.0 if weights is None else float(weights.get(name, 1.0))
        if weight == 0.0:
            continue
        for rank, doc in enumerate(ranking, start=1):
            fused[doc] = fused.get(doc, 0.0) + weight / (k + rank)
    return fused


def order(scores: Mapping[int, float]) -> list[int]:
    """Return ids by descending score; ties broken by the larger (newer) id."""
    return sorted(scores, key=lambda d: (-scores[d], -d))


def trust_multiplier(quarantined: bool, provenance: str) -> float:
    """Return the trust factor of a hit."""
    factor = 1.0
    if quarantined:
        factor *= QUARANTINE_FACTOR
    if provenance in FOREIGN_PROVENANCES:
        factor *= FOREIGN_FACTOR
    return factor


def decay_multiplier(elapsed_micros: int, tau_days: float, strength: float = 1.0) -> float:
    """Return ``exp(-elapsed_days / (tau_days * max(0.5, strength)))`` (future times: 1)."""
    if tau_days <= 0:
        raise ValueError("tau_days must be > 0")
    elapsed_days = max(0, elapsed_micros) / MICROS_PER_DAY
    return math.exp(-elapsed_days / (tau_days * max(0.5, strength)))
