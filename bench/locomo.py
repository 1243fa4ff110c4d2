"""Recall quality on LoCoMo: hit@1/5/10/20, evidence recall@k, search latency,
single-shot and through the iterative offline loop, per question category.

Usage::

    .venv/bin/python -m bench.locomo [--mode inprocess|api] [--data ../shared/bench/locomo]
        [--legs lexical,vector] [--embedder hashed|minilm] [--strategy rrf|weighted]
        [--weight vector=0.3] [--cache-dir DIR] [--json] [--ranked FILE]
        [--max-iterations 3] [--threshold 0.5] [--force-hard] [--strategies ""|bridge]
        [--later-weight 0.5] [--score-share 0.5] [--author-factor 1.3] [--conversations 1-3]

In-process, every question is asked three ways in the same run: single-shot, through the
iterative offline loop as shipped (the difficulty gate at ``--threshold``, the reformulations
``--strategies``: none by default) and through the loop with entity bridging on every question
(the gate skipped, ``--max-iterations`` passes); the table gives hit@10 and recall@10 per
LoCoMo category (multi-hop, temporal, open-domain, single-hop; adversarial questions have no
evidence and are not asked) and how many questions the gate let through. ``--score-share``
and ``--author-factor`` set pass 1's pool mix (:mod:`daemon.recall.pool_mix`) and the author
weighting (``--score-share 0 --author-factor 1.25``: the loop before the mix);
``--conversations 1-3`` asks only those files (1-based, name order), for the halves check.
``--mode api`` asks single-shot and iterative (as the options say) through ``POST /v1/search``.

Each conversation file becomes one conversation in one namespace: a turn is a message (``name``
= speaker, ``created_at`` = its session's date, ``metadata.dia_id``; an image turn's caption
is appended to its text). Every question whose category is not 5 and whose evidence is not
empty is asked with ``scope: ["messages"]`` inside its conversation, with ``top_k`` 20.

``inprocess`` appends the events to a SQLite store in a temporary data dir, folds them with
the search projection and asks the recall engine directly (what the daemon does behind the
API, minus HTTP). ``api`` starts ``memoryd serve`` on a temporary data dir and does the same
through ``POST /v1/messages:batch`` and ``POST /v1/search``. Latency is measured around each
search call. The embedding cache (``--cache-dir``) is kept between runs, so a second run of
a model-backed embedder does not re-embed. ``--ranked FILE`` writes each question's ranked
turns (one JSON line each), so two versions can be compared answer by answer. Uses no LLM.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.report import print_result
from daemon.recall.iterative import LATER_PASS_WEIGHT, STRATEGIES

DEFAULT_DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "bench" / "locomo"
KS = (1, 5, 10, 20)
NAMESPACE = "locomo"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
"""LoCoMo's question categories (5, adversarial, has no evidence to find and is not asked)."""


@dataclass(frozen=True, slots=True)
class Turn:
    """One LoCoMo turn."""

    dia_id: str
    speaker: str
    text: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class Question:
    """One question with its evidence turns."""

    question: str
    evidence: frozenset[str]
    category: int


@dataclass(frozen=True, slots=True)
class Conversation:
    """One LoCoMo conversation file."""

    conversation_id: str
    turns: list[Turn]
    questions: list[Question]


def parse_session_date(text: str) -> datetime:
    """Parse ``"1:56 pm on 8 May, 2023"`` (taken as UTC)."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def load_conversations(folder: Path) -> list[Conversation]:
    """Load every ``conv-*.json`` in ``folder``."""
    out = []
    for path in sorted(folder.glob("conv-*.json")):
        data = json.loads(path.read_text())
        conv = data.get("conversation", data)
        turns: list[Turn] = []
        n = 1
        while f"session_{n}" in conv:
            when = parse_session_date(conv[f"session_{n}_date_time"])
            for t in conv[f"session_{n}"]:
                text = t["text"]
                if t.get("blip_caption"):
                    text = f"{text} [image: {t['blip_caption']}]"
                turns.append(Turn(t["dia_id"], t["speaker"], text, when))
            n += 1
        questions = [
            Question(q["question"], frozenset(q["evidence"]), int(q["category"]))
            for q in data["qa"]
            if q.get("category") != 5 and q.get("evidence")
        ]
        out.append(Conversation(path.stem, turns, questions))
    return out


@dataclass
class Scores:
    """Accumulated measures."""

    n: int = 0
    hits: dict[int, int] = field(default_factory=lambda: dict.fromkeys(KS, 0))
    recall: dict[int, float] = field(default_factory=lambda: dict.fromkeys(KS, 0.0))
    latencies: list[float] = field(default_factory=list)
    by_category: dict[int, list[float]] = field(default_factory=dict)
    ranked: list[list[str]] = field(default_factory=list)
    gated: int = 0
    """Questions the difficulty gate sent through more than one pass (iterative only)."""

    def add(
        self, question: Question, ranked: Sequence[str], seconds: float, gated: bool = False
    ) -> None:
        """Score one answer list (``gated``: the difficulty gate let it take more passes)."""
        self.n += 1
        self.gated += gated
        self.latencies.append(seconds)
        self.ranked.append(list(ranked))
        for k in KS:
            found = set(ranked[:k]) & question.evidence
            self.hits[k] += bool(found)
            self.recall[k] += len(found) / len(question.evidence)
        cat = self.by_category.setdefault(question.category, [0.0, 0.0, 0.0, 0.0])
        found = set(ranked[:10]) & question.evidence
        cat[0] += bool(found)
        cat[1] += len(found) / len(question.evidence)
        cat[2] += 1
        cat[3] += gated

    def summary(self) -> dict[str, Any]:
        """Return the figures."""
        lat = sorted(self.latencies)
        p95 = lat[min(len(lat) - 1, max(0, round(0.95 * len(lat)) - 1))] if lat else 0.0
        return {
            "questions": self.n,
            **{f"hit@{k}": round(self.hits[k] / max(1, self.n), 3) for k in KS},
            **{f"recall@{k}": round(self.recall[k] / max(1, self.n), 3) for k in KS},
            "gated_hard": self.gated,
            "p50_ms": round(1000 * statistics.median(lat), 2) if lat else 0.0,
            "p95_ms": round(1000 * p95, 2),
            "hit@10_by_category": {
                str(c): round(a / n, 3) for c, (a, _, n, _) in sorted(self.by_category.items())
            },
            "by_category": {
                CATEGORIES.get(c, str(c)): {
                    "questions": int(n),
                    "hit@10": round(a / n, 3),
                    "recall@10": round(r / n, 3),
                    "gated_hard": int(g),
                }
                for c, (a, r, n, g) in sorted(self.by_category.items())
            },
        }


def category_table(runs: dict[str, Scores]) -> str:
    """Return hit@10 and recall@10 per category for each run (single-shot first), as text."""
    names = list(runs)
    summaries = {name: runs[name].summary() for name in names}
    head = "  ".join(f"{n[:14]:>14}" for n in names)
    lines = [f"{'category':<12} {'n':>4}  hit@10: {head}   recall@10: {head}   gated"]
    categories = [*summaries["single"]["by_category"], "overall"]
    for cat in categories:
        rows = [
            summaries[n] if cat == "overall" else summaries[n]["by_category"][cat] for n in names
        ]
        hit = "  ".join(f"{r['hit@10']:>14.3f}" for r in rows)
        rec = "  ".join(f"{r['recall@10']:>14.3f}" for r in rows)
        gated = rows[1]["gated_hard"] if len(rows) > 1 else 0
        n = rows[0]["questions"]
        lines.append(f"{cat:<12} {n:>4}          {hit}              {rec}   {gated}")
    return "\n".join(lines)


def parse_weights(items: Sequence[str]) -> dict[str, float]:
    """Parse ``leg=weight`` options."""
    out = {}
    for item in items:
        name, _, value = item.partition("=")
        out[name] = float(value)
    return out


async def run_inprocess(args: argparse.Namespace, convs: list[Conversation]) -> dict[str, Scores]:
    """Ingest through the store and the search projection; ask the engine directly, each
    question single-shot and then through the iterative offline loop."""
    from daemon.backend import Backend
    from daemon.recall.iterative import IterativeOptions, iterative_search
    from daemon.recall.query import Filters, Fusion, SearchRequest
    from daemon.recall.service import RecallService, make_embedder
    from events.clock import SystemClock
    from events.store.base import NewEvent
    from events.store.sqlite import sqlite_engine
    from events.types import MessageAppended
    from projections.runner import ProjectionRunner
    from projections.search import SearchProjection

    with tempfile.TemporaryDirectory(prefix="memoryd-locomo-") as tmp:
        if args.keep:
            tmp = args.keep
        backend = Backend(Path(tmp))
        store = backend.open_store()
        await store.open()
        write = backend.projection_engine(write=True)
        read = backend.projection_engine(write=False)
        cache_dir = Path(args.cache_dir)
        cache_db = sqlite_engine(cache_dir / "embeddings.sqlite3", write=True)
        service = RecallService(read, cache_db, make_embedder(args.embedder), SystemClock())
        try:
            for conv in convs:
                events = [
                    NewEvent(
                        MessageAppended(
                            conversation_id=conv.conversation_id,
                            message_id=t.dia_id,
                            role="user",
                            content=t.text,
                            created_at=t.created_at,
                            name=t.speaker,
                            metadata={"dia_id": t.dia_id},
                        )
                    )
                    for t in conv.turns
                ]
                await store.append(NAMESPACE, events)
            runner = ProjectionRunner(store, write, [SearchProjection()])
            service.engine.set_position_source(lambda: runner.position)
            await runner.setup()
            started = time.perf_counter()
            await runner.catch_up()
            await service.cache.setup()
            await service.engine.refresh()
            await service.index.embed_pending()
            build = time.perf_counter() - started
            print(f"indexed in {build:.1f} s", file=sys.stderr)
            legs = tuple(args.legs.split(","))
            fusion = Fusion(args.strategy, parse_weights(args.weight))
            strategies = tuple(s for s in args.strategies.split(",") if s)
            # As shipped (or as the options say), and with entity bridging on every question:
            # the offline reformulation measured in each run, so a held-out set says too.
            variants = {
                "iterative": (
                    IterativeOptions(args.max_iterations, args.threshold, args.force_hard),
                    strategies,
                ),
                "iterative_bridging": (
                    IterativeOptions(args.max_iterations, force_hard=True),
                    ("bridge",),
                ),
            }
            runs = {"single": Scores(), **{name: Scores() for name in variants}}
            for conv in convs:
                for q in conv.questions:
                    req = SearchRequest(
                        query=q.question,
                        filters=Filters(
                            namespace=NAMESPACE,
                            scope=("messages",),
                            conversation_id=conv.conversation_id,
                        ),
                        top_k=20,
                        legs=legs,
                        fusion=fusion,
                    )
                    t0 = time.perf_counter()
                    hits = await service.engine.search(req)
                    elapsed = time.perf_counter() - t0
                    runs["single"].add(q, [str(h.metadata.get("dia_id")) for h in hits], elapsed)
                    for name, (options, passes) in variants.items():
                        t0 = time.perf_counter()
                        result = await iterative_search(
                            service.engine.search, req, options, passes, args.later_weight
                        )
                        elapsed = time.perf_counter() - t0
                        ranked = [str(h.metadata.get("dia_id")) for h in result.hits]
                        runs[name].add(q, ranked, elapsed, gated=result.difficulty.hard)
            return runs
        finally:
            await service.stop()
            await read.dispose()
            await write.dispose()
            await store.close()


def apply_ablation(args: argparse.Namespace) -> None:
    """Set the projection's and the engine's knobs that the ablation options name."""
    from daemon.recall import iterative, lexical, pool_mix
    from projections.search import documents

    if args.context_window is not None:
        documents.CONTEXT_WINDOW = args.context_window
    if args.near_weight is not None:
        lexical.LEXICAL_NEAR_WEIGHT = args.near_weight
    if args.no_dates:
        documents.INDEX_DATES = False
    if args.score_share is not None:
        pool_mix.SCORE_SHARE = args.score_share
    if args.author_factor is not None:
        iterative.AUTHOR_FACTOR = args.author_factor
    if args.when_factor is not None:
        iterative.WHEN_FACTOR = args.when_factor
    if args.window_factor is not None:
        iterative.WINDOW_FACTOR = args.window_factor


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mode", choices=("inprocess", "api"), default="inprocess")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--legs", default="lexical,vector")
    parser.add_argument("--embedder", default="hashed")
    parser.add_argument("--strategy", choices=("rrf", "weighted"), default="weighted")
    parser.add_argument("--weight", action="append", default=[], metavar="LEG=W")
    parser.add_argument("--cache-dir", default=str(Path(tempfile.gettempdir()) / "memoryd-bench"))
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--keep", default=None, help="build in this data dir and keep it")
    parser.add_argument("--ranked", type=Path, default=None, help="write the ranked turns here")
    # Ablation knobs (module settings of the projection and the engine; defaults as shipped).
    parser.add_argument("--context-window", type=int, default=None, help="turns each side")
    parser.add_argument("--near-weight", type=float, default=None, help="bm25 weight of context")
    parser.add_argument("--no-dates", action="store_true", help="do not index dates as words")
    # The iterative offline loop, run on every question after the single shot.
    parser.add_argument("--max-iterations", type=int, default=3)
    parser.add_argument("--threshold", type=float, default=0.5, help="difficulty threshold")
    parser.add_argument("--force-hard", action="store_true", help="skip the difficulty gate")
    parser.add_argument(
        "--strategies", default=",".join(STRATEGIES), help="offline reformulations, in order"
    )
    parser.add_argument("--later-weight", type=float, default=LATER_PASS_WEIGHT)
    parser.add_argument(
        "--score-share", type=float, default=None, help="pass 1 pool's score-fusion share"
    )
    parser.add_argument("--author-factor", type=float, default=None)
    parser.add_argument("--when-factor", type=float, default=None, help="see iterative.WHEN_FACTOR")
    parser.add_argument("--window-factor", type=float, default=None, help="see WINDOW_FACTOR")
    parser.add_argument(
        "--conversations",
        default=None,
        metavar="FIRST-LAST",
        help="only these conversation files, 1-based in name order (1-3: the first half)",
    )
    args = parser.parse_args(argv)
    Path(args.cache_dir).mkdir(parents=True, exist_ok=True)
    apply_ablation(args)
    convs = load_conversations(args.data.resolve())
    if args.conversations:
        first, _, last = args.conversations.partition("-")
        convs = convs[int(first) - 1 : int(last or first)]
    if args.mode == "api":
        from bench.locomo_api import run_api

        runs = asyncio.run(run_api(args, convs))
    else:
        runs = asyncio.run(run_inprocess(args, convs))
    single = runs["single"]
    if args.ranked is not None:
        args.ranked.write_text("".join(json.dumps(r) + "\n" for r in single.ranked))
    summary = {
        "mode": args.mode,
        "context_window": args.context_window,
        "near_weight": args.near_weight,
        "dates": not args.no_dates,
        "legs": args.legs,
        "embedder": args.embedder,
        "strategy": args.strategy,
        "weights": parse_weights(args.weight),
        **single.summary(),
    }
    for name in ("iterative", "iterative_bridging"):
        deep = runs.get(name)
        if deep is None:
            continue
        summary[name] = {
            "max_iterations": args.max_iterations,
            "difficulty_threshold": "skipped" if name != "iterative" else args.threshold,
            "force_hard": args.force_hard or name != "iterative",
            "strategies": args.strategies if name == "iterative" else "bridge",
            "later_weight": args.later_weight,
            **deep.summary(),
        }
    if "iterative" in runs and not args.json:
        print(category_table(runs))
    print_result(summary, as_json=args.json, width=20)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
