"""Benchmark: how well memory reconciles writes and extracts facts, no model.

Usage::

    .venv/bin/python -m bench.memory_quality reconcile [--api] [-v]
    .venv/bin/python -m bench.memory_quality extraction [-v]

``reconcile`` judges every pair of ``bench/data/reconcile_pairs.jsonl``: the ``existing`` facts
are known, the ``new`` one is written; right when the outcome is the expected one (``update``:
``updated``, or ``conflict``, superseding exactly the listed facts; ``noop``:
``deduplicated``; ``add``: ``added``). It prints the accuracy, per kind, and the supersedes
across different subjects (must be 0). With ``--api`` every pair goes through ``POST
/v1/facts`` of an in-process daemon, a namespace per pair, so candidate lookup is measured too.

``extraction`` runs the offline extractor over every turn of
``bench/data/extraction_turns.jsonl``: a fact is right when it is about the expected subject
and holds every expected keyword; precision is the share of extracted facts that are right,
recall the share of expected facts found. Not run in CI.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any

from daemon.memory.reconcile import Known, claims_of, reconcile
from plugins.extractors.statements import Statement, extract_statements
from plugins.llm.types import TranscriptEntry

DATA = Path(__file__).parent / "data"
_EXPECT = {"updated": "update", "conflict": "update", "deduplicated": "noop", "added": "add"}


def _load(name: str) -> list[dict[str, Any]]:
    text = (DATA / name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _judge_rules(pair: dict[str, Any]) -> tuple[str, list[int]]:
    known = [Known(str(i), t, claims_of(t)) for i, t in enumerate(pair["existing"])]
    verdict = reconcile(pair["new"], claims_of(pair["new"]), known)
    return verdict.outcome, sorted(int(i) for i in (*verdict.superseded, *verdict.conflicts_with))


async def _judge_api(pairs: list[dict[str, Any]]) -> list[tuple[str, list[int]]]:
    from tests.api_fixtures import api_client

    out: list[tuple[str, list[int]]] = []
    with tempfile.TemporaryDirectory(prefix="memoryd-quality-") as tmp:
        async with api_client(Path(tmp)) as api:
            for pair in pairs:
                ns = f"pair-{pair['id']}"
                ids: list[str] = []
                for text in pair["existing"]:
                    status, body = await api.call("POST", "/v1/facts", {"text": text}, namespace=ns)
                    assert status in (200, 201), body
                    ids.append(body["fact_id"])
                    api.clock.advance(timedelta(minutes=1))
                status, body = await api.call(
                    "POST", "/v1/facts", {"text": pair["new"]}, namespace=ns
                )
                assert status in (200, 201), body
                replaced = [*body.get("superseded", []), *body.get("conflicts_with", [])]
                out.append((body["outcome"], sorted(ids.index(f) for f in replaced if f in ids)))
    return out


def reconcile_report(args: argparse.Namespace) -> dict[str, Any]:
    pairs = _load(str(Path(args.file).resolve())) if args.file else _load("reconcile_pairs.jsonl")
    results = asyncio.run(_judge_api(pairs)) if args.api else [_judge_rules(p) for p in pairs]
    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    cross = 0
    wrong: list[str] = []
    for pair, (outcome, replaced) in zip(pairs, results, strict=True):
        # A conflict is right where the label says conflict; where it says update, a conflict
        # naming the facts the update replaces is counted as the update (queued, not lost).
        got = "conflict" if outcome == "conflict" and pair["expect"] == "conflict" else None
        got = got or _EXPECT[outcome]
        ok = got == pair["expect"] and (got != "update" or replaced == sorted(pair["supersedes"]))
        total[pair["kind"]] += 1
        right[pair["kind"]] += ok
        # A supersede crosses subjects when it replaces a fact the label does not: the label
        # itself may replace another person's fact ("Maya moved to Lisbon").
        if pair["subjects_differ"] and set(replaced) - set(pair["supersedes"]):
            cross += 1
        if not ok:
            wrong.append(
                f"{pair['id']} expected {pair['expect']} got {outcome} {replaced}: "
                f"{pair['existing']} <- {pair['new']!r}"
            )
    if args.verbose:
        print("\n".join(wrong))
    return {
        "mode": "api" if args.api else "rules",
        "accuracy": round(sum(right.values()) / len(pairs), 3),
        "right": f"{sum(right.values())}/{len(pairs)}",
        "cross_subject_supersedes": cross,
        "by_kind": {k: f"{right[k]}/{total[k]}" for k in sorted(total)},
    }


def _matches(statement: Statement, expected: dict[str, Any]) -> bool:
    subject = expected["subject"].casefold()
    said = statement.claim.subject.casefold()
    text = statement.text.casefold()
    if subject == "user":
        about = said == "user" or said.startswith("user's")
    else:
        about = said == subject or subject in text
    return about and all(k.casefold() in text for k in expected["keywords"])


def extraction_report(args: argparse.Namespace) -> dict[str, Any]:
    turns = _load("extraction_turns.jsonl")
    extracted = right = expected_total = found = 0
    wrong: list[str] = []
    for turn in turns:
        # Earlier turns (alternating speakers, the last one the other party's) give context;
        # only what the turn itself states is scored.
        other = "assistant" if turn["role"] == "user" else "user"
        context = turn.get("context", [])
        roles = [other if (len(context) - i) % 2 else turn["role"] for i in range(len(context))]
        entries = [
            TranscriptEntry(f"c{i}", r, t)
            for i, (r, t) in enumerate(zip(roles, context, strict=True))
        ]
        entries.append(TranscriptEntry("m", turn["role"], turn["text"]))
        statements = [s for s in extract_statements(entries) if s.message_id == "m"]
        expected = turn["facts"]
        extracted += len(statements)
        right += sum(any(_matches(s, e) for e in expected) for s in statements)
        expected_total += len(expected)
        hits = [any(_matches(s, e) for s in statements) for e in expected]
        found += sum(hits)
        misses = [e for e, hit in zip(expected, hits, strict=True) if not hit]
        extra = [s.text for s in statements if not any(_matches(s, e) for e in expected)]
        if misses or extra:
            wrong.append(f"{turn['id']} {turn['text']!r}\n    missed {misses}\n    extra {extra}")
    if args.verbose:
        print("\n".join(wrong))
    return {
        "precision": round(right / extracted, 3) if extracted else 1.0,
        "recall": round(found / expected_total, 3) if expected_total else 1.0,
        "extracted": extracted,
        "right": right,
        "expected": expected_total,
        "found": found,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    rec = sub.add_parser("reconcile")
    rec.add_argument("--api", action="store_true")
    rec.add_argument("--file", help="pairs to judge (default: bench/data/reconcile_pairs.jsonl)")
    rec.add_argument("-v", "--verbose", action="store_true")
    ext = sub.add_parser("extraction")
    ext.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    report = reconcile_report(args) if args.what == "reconcile" else extraction_report(args)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
