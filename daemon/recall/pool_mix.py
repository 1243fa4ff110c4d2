"""Pass 1's pool scored again: part rank fusion, part score fusion of the same legs.

RRF keeps only each leg's ranks, so a message whose bm25 is twice the next one's and a
message one hair ahead of it are the same step apart. Over a pool read deep (the iterative
loop's pass 1 when the question names people, :mod:`daemon.recall.iterative`) the scores say
more: each hit's score becomes ``(1 - share) * rrf / best_rrf + share * multipliers *
sum(weight * leg_score)``, a leg's score taken over the pool's best for that leg, except the
legs whose score is a similarity on a fixed scale (the vector leg's cosine), taken as it is.
``multipliers`` is what trust, decay or staleness made of the hit's fused score, so both
parts carry them.

LoCoMo (``docs/performance.md``): with :data:`SCORE_SHARE` 0.5 and the author factor 1.3
chosen on conversations 1-3, hit@10 of the iterative path 0.853 -> 0.858 (0.875 -> 0.880 on
1-3, 0.836 -> 0.842 on 4-6), no category down. The leg scores come from ``explain``'s
signals; a hit without them keeps its rank-fusion part alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from daemon.recall.engine import Hit

SCORE_SHARE = 0.5
"""The score fusion's share of a pool hit's new score (0: ranks alone, as RRF gives)."""
BOUNDED_LEGS = frozenset({"vector"})
"""Legs whose score is a similarity on a fixed scale (cosine), not divided by the pool's best."""


def _legs(hit: Hit) -> dict[str, Any]:
    legs = (hit.signals or {}).get("legs")
    return legs if isinstance(legs, dict) else {}


def _best_per_leg(hits: Sequence[Hit]) -> dict[str, float]:
    best: dict[str, float] = {}
    for hit in hits:
        for name, leg in _legs(hit).items():
            best[name] = max(best.get(name, 0.0), float(leg["score"]))
    return best


def _score_part(hit: Hit, best: dict[str, float]) -> float | None:
    """The hit's score fusion with its multipliers, or None without leg scores."""
    signals = hit.signals
    legs = _legs(hit)
    if signals is None or not legs:
        return None
    part = 0.0
    for name, leg in legs.items():
        score = float(leg["score"])
        if name not in BOUNDED_LEGS:
            if best.get(name, 0.0) <= 0.0:
                continue
            score /= best[name]
        part += float(leg.get("weight", 1.0)) * score
    fused = float(signals.get("fused", 0.0))
    return part * (hit.score / fused if fused > 0.0 else 1.0)


def mix_pool(hits: Sequence[Hit], share: float | None = None, explain: bool = True) -> list[Hit]:
    """``hits`` scored ``(1 - share) * rank fusion + share * score fusion`` (see the module;
    ``share`` by default :data:`SCORE_SHARE`) and ranked again, ties in their order. With
    ``explain`` their signals say both parts; without, the hits come back without signals."""
    share = SCORE_SHARE if share is None else share
    top = max((h.score for h in hits), default=0.0)
    if share <= 0.0 or top <= 0.0:
        return [h if explain else with_score(h, h.score, None) for h in hits]
    best = _best_per_leg(hits)
    mixed: list[Hit] = []
    for hit in hits:
        rank_part = hit.score / top
        score_part = _score_part(hit, best)
        if score_part is None:
            score = (1.0 - share) * rank_part
        else:
            score = (1.0 - share) * rank_part + share * score_part
        signals = hit.signals if explain else None
        if signals is not None:
            pool = {"rank_part": rank_part, "score_part": score_part, "share": share}
            signals = {**signals, "pool": pool, "final": score}
        mixed.append(with_score(hit, score, signals))
    return by_score(mixed)


def by_score(hits: Sequence[Hit]) -> list[Hit]:
    """``hits`` ranked by score, best first (a stable sort: ties keep their order)."""
    return sorted(hits, key=lambda h: -h.score)


def with_score(hit: Hit, score: float, signals: dict[str, Any] | None) -> Hit:
    """A copy of ``hit`` with ``score`` and ``signals`` (``dataclasses.replace`` costs several
    times as much, and a pool is 60 hits)."""
    return Hit(
        hit.doc_id,
        hit.kind,
        hit.id,
        hit.text,
        score,
        hit.created_at,
        hit.conversation_id,
        hit.metadata,
        signals,
        hit.author,
    )
