"""What consolidation would look at, and what it recommends (no model, no writes).

:func:`preview` finds duplicates (exact, and near by cosine), contradicting pairs (the text
rules' and those a write's reconciliation left open), stale facts, low-salience facts and
orphans; :func:`recommendations` turns them into plan items by deterministic rules: duplicates
merge (keeping the fullest text), contradictions are kept and flagged, stale and low-salience
facts archive. A fact goes into one item at most.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from daemon.config import ConsolidationConfig, key_default
from daemon.consolidation.facts_view import FactView, current_facts, embed, similar_pairs
from daemon.consolidation.rules import judge_pair, normalise, salience
from daemon.memory.reconcile import contradiction
from plugins.embedders.base import Embedder
from projections.consolidation import links_of
from projections.facts import decisions_of

DAY_MICROS = 86_400 * 1_000_000


@dataclass(frozen=True, slots=True)
class PreviewSettings:
    """What preview and analyze look for."""

    stale_days: float = key_default(ConsolidationConfig, "stale_days")
    min_score: float = key_default(ConsolidationConfig, "min_score")
    tau_days: float = 30.0
    salience_weights: tuple[float, float, float] = (1.0, 1.0, 1.0)
    """Recency, importance and trust weights of salience."""
    near_duplicate: float = 0.95
    conflict_floor: float = 0.3
    """Pairs below this cosine are not compared for conflicts (cheap pre-filter)."""

    @classmethod
    def configured(
        cls,
        config: ConsolidationConfig,
        *,
        stale_days: float | None = None,
        min_score: float | None = None,
        tau_days: float | None = None,
    ) -> PreviewSettings:
        """The settings ``[consolidation]`` gives, each overridden where a request says."""
        return cls(
            stale_days=config.stale_days if stale_days is None else stale_days,
            min_score=config.min_score if min_score is None else min_score,
            tau_days=float(config.tau_days) if tau_days is None else tau_days,
            salience_weights=config.salience_weights.as_tuple(),
        )


@dataclass(slots=True)
class Preview:
    """What consolidation would look at."""

    duplicates: list[dict[str, Any]] = field(default_factory=list)
    stale: list[dict[str, Any]] = field(default_factory=list)
    low_score: list[dict[str, Any]] = field(default_factory=list)
    orphans: list[dict[str, Any]] = field(default_factory=list)
    conflicts: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "duplicates": self.duplicates,
            "stale": self.stale,
            "low_score": self.low_score,
            "orphans": self.orphans,
            "conflicts": self.conflicts,
        }


def fact_salience(
    view: FactView,
    now_micros: int,
    tau_days: float,
    weights: tuple[float, float, float] = (1.0, 1.0, 1.0),
) -> float:
    """Return a fact's salience now (time since its last activity decays it), its factors
    weighted by ``weights`` (recency, importance, trust)."""
    row, st = view.row, view.state
    return salience(
        days=(now_micros - _last_active(view)) / DAY_MICROS,
        tau_days=tau_days,
        recalls=st.recall_count,
        reinforcements=st.reinforcements,
        importance=row.importance,
        provenance=row.provenance,
        status=row.status,
        confidence=row.confidence,
        weights=weights,
    )


def idle_days(view: FactView, now_micros: int) -> float:
    """Return the days since a fact's last activity (written, recalled or reinforced)."""
    return (now_micros - _last_active(view)) / DAY_MICROS


def _last_active(view: FactView) -> int:
    return max(
        int(view.row.recorded_from.timestamp() * 1_000_000),
        view.state.last_recalled_at or 0,
        view.state.last_reinforced_at or 0,
    )


async def find_pairs(
    views: Sequence[FactView], embedder: Embedder, settings: PreviewSettings
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Return (duplicate groups/pairs, conflicting pairs) among ``views`` (no model)."""
    duplicates: list[dict[str, Any]] = []
    conflicts: list[dict[str, Any]] = []
    groups: dict[str, list[str]] = {}
    for v in views:
        groups.setdefault(normalise(v.row.text), []).append(v.fact_id)
    exact_members: set[str] = set()
    for ids in groups.values():
        if len(ids) > 1:
            duplicates.append({"fact_ids": ids, "similarity": 1.0, "kind": "exact"})
            exact_members.update(ids[1:])
    vectors = await embed(embedder, [v.row.text for v in views])
    floor = min(settings.conflict_floor, settings.near_duplicate)
    for i, j, cosine in similar_pairs(vectors, floor):
        a, b = views[i], views[j]
        if a.fact_id in exact_members or b.fact_id in exact_members:
            continue
        if normalise(a.row.text) == normalise(b.row.text):
            continue
        # The grammar knows which attributes hold one value at a time: "speaks Spanish" and
        # "speaks German" are both true, "lives in Boston" and "lives in Berlin" are not.
        read = contradiction(a.row.text, b.row.text)
        verdict = judge_pair(
            a.row.text,
            b.row.text,
            cosine,
            duplicate_cosine=settings.near_duplicate,
            triple_a=(a.row.subject, a.row.predicate, a.row.object) if read is None else _NO_TRIPLE,
            triple_b=(b.row.subject, b.row.predicate, b.row.object) if read is None else _NO_TRIPLE,
        )
        conflict, reason = (
            (verdict.conflict, verdict.reason) if read is None else (bool(read), read)
        )
        pair = [a.fact_id, b.fact_id]
        if verdict.duplicate and not conflict:
            duplicates.append({"fact_ids": pair, "similarity": round(cosine, 6), "kind": "near"})
        elif conflict:
            conflicts.append({"fact_ids": pair, "similarity": round(cosine, 6), "reason": reason})
    return duplicates, conflicts


async def preview(
    conn: AsyncConnection,
    namespace: str,
    embedder: Embedder,
    now: datetime,
    settings: PreviewSettings,
) -> Preview:
    """Return duplicates, stale, low-score facts, orphans and conflicts (no writes)."""
    views = await current_facts(conn, namespace)
    out = Preview()
    out.duplicates, out.conflicts = await find_pairs(views, embedder, settings)
    out.conflicts += await _reconciliation_conflicts(
        conn, namespace, views, out.conflicts, embedder
    )
    now_us = int(now.timestamp() * 1_000_000)
    for v in views:
        idle = idle_days(v, now_us)
        if idle >= settings.stale_days:
            out.stale.append({"fact_id": v.fact_id, "days": round(idle, 3)})
        score = fact_salience(v, now_us, settings.tau_days, settings.salience_weights)
        if score < settings.min_score:
            out.low_score.append({"fact_id": v.fact_id, "score": round(score, 6)})
        if (
            not v.row.tags
            and not v.row.source_message_ids
            and v.state.recall_count == 0
            and v.state.category is None
            and v.row.supersedes is None
            and not await links_of(conn, namespace, v.fact_id)
        ):
            out.orphans.append({"fact_id": v.fact_id})
    return out


_NO_TRIPLE: tuple[None, None, None] = (None, None, None)


async def _reconciliation_conflicts(
    conn: AsyncConnection,
    namespace: str,
    views: Sequence[FactView],
    found: Sequence[dict[str, Any]],
    embedder: Embedder,
) -> list[dict[str, Any]]:
    """Conflicts a write's reconciliation queued for a person whose facts are both still
    current: preview shows every open contradiction, not only those the text rules see."""
    current = {v.fact_id: v for v in views}
    seen = {frozenset(c["fact_ids"]) for c in found}
    decisions = await decisions_of(conn, namespace, list(current), roles=("written",))
    out: list[dict[str, Any]] = []
    for fact_id, made in decisions.items():
        for decision in made:
            if decision["outcome"] != "conflict":
                continue
            for other in decision["conflicts_with"]:
                pair = frozenset((other, fact_id))
                if other not in current or pair in seen:
                    continue
                seen.add(pair)
                vectors = await embed(
                    embedder, [current[other].row.text, current[fact_id].row.text]
                )
                out.append(
                    {
                        "fact_ids": [other, fact_id],
                        "similarity": round(float(vectors[0] @ vectors[1]), 6),
                        "reason": f"reconciliation: {decision['reason']}",
                    }
                )
    return out


def recommendations(result: Preview, views: dict[str, FactView]) -> list[dict[str, Any]]:
    """Turn a preview into plan items with the deterministic rules."""
    items: list[dict[str, Any]] = []
    claimed: set[str] = set()

    def add(
        action: str, fact_ids: list[str], confidence: float, reasoning: str, **extra: Any
    ) -> None:
        items.append(
            {
                "item_id": f"i{len(items) + 1}",
                "action": action,
                "fact_ids": fact_ids,
                "confidence": round(confidence, 6),
                "reasoning": reasoning,
                **extra,
            }
        )

    for dup in sorted(result.duplicates, key=lambda d: -float(d["similarity"])):
        ids = [i for i in dup["fact_ids"] if i not in claimed]
        if len(ids) < 2:
            continue
        claimed.update(ids)
        rows = [views[i].row for i in ids]
        best = max(rows, key=lambda r: (len(r.text), r.importance, -r.written_position))
        kind = dup.get("kind", "near")
        add(
            "merge",
            ids,
            float(dup["similarity"]),
            f"{kind} duplicates (similarity {dup['similarity']}); keep the fullest text",
            target=best.fact_id,
            merged_text=best.text,
            inputs={"similarity": dup["similarity"], "kind": kind},
        )
    for conflict in result.conflicts:
        ids = [i for i in conflict["fact_ids"] if i not in claimed]
        if len(ids) < 2:
            continue
        claimed.update(ids)
        add(
            "keep",
            ids,
            0.5,
            f"possible contradiction ({conflict['reason']}); needs a judge or a person",
            inputs=conflict,
        )
    archives = [
        *((stale, 0.8, f"no activity for {stale['days']} days") for stale in result.stale),
        *((low, 0.6, f"salience {low['score']} below the floor") for low in result.low_score),
    ]
    for found, confidence, reasoning in archives:
        if found["fact_id"] in claimed:
            continue
        claimed.add(found["fact_id"])
        add("archive", [found["fact_id"]], confidence, reasoning, inputs=found)
    return items
