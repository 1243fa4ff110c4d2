"""Recall at scale (issue 5): N facts + N messages in one namespace.

Usage::

    .venv/bin/python -m bench.recall_scale [--facts 100000] [--messages 100000]
        [--queries 200] [--dir DIR] [--json]

Generates facts and messages from a fixed-seed vocabulary (names, places, topics), appends
them to a SQLite store, folds the search projection and embeds with the default (hashed)
embedder, then times hybrid searches (lexical + vector, default fusion) and ``expand_hops=1``
searches of random three-word queries. Reports index build time (fold and embedding
separately), search p50/p95, and the peak RSS of the process. Not run in CI.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import resource
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from daemon.backend import Backend
from daemon.recall.query import Filters, SearchRequest
from daemon.recall.service import RecallService, make_embedder
from events.clock import SystemClock
from events.store.base import NewEvent
from events.store.sqlite import sqlite_engine
from events.types import FactWritten, MessageAppended
from projections.runner import ProjectionRunner
from projections.search import SearchProjection

NAMES = [
    f"{a} {b}"
    for a in ("Ada", "Ben", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hana")
    for b in ("Moss", "Reyes", "Okafor", "Lind", "Tanaka")
]
PLACES = ["Lisbon", "Nairobi", "Osaka", "Quito", "Tromso", "Perth", "Lyon", "Austin"]
WORDS = (  # noqa: SIM905
    "garden coffee guitar marathon novel recipe budget meeting flight museum painting "
    "hiking tennis lecture project deadline concert puppy apartment bicycle camera "
    "surgery wedding festival podcast vaccine climate startup bakery chess violin"
).split()
T0 = datetime(2024, 1, 1, tzinfo=UTC)


def sentence(rng: random.Random) -> str:
    """Return one synthetic sentence naming a person, a place and a few topics."""
    topics = " and ".join(rng.sample(WORDS, 3))
    return f"{rng.choice(NAMES)} talked about {topics} in {rng.choice(PLACES)}"


def pct(values: Sequence[float], q: float) -> float:
    """Return the ``q`` quantile in milliseconds (nearest rank)."""
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


async def run(args: argparse.Namespace) -> dict[str, Any]:
    """Build the index and time searches."""
    rng = random.Random(7)
    with tempfile.TemporaryDirectory(prefix="memoryd-scale-") as tmp:
        data_dir = Path(args.dir or tmp)
        backend = Backend(data_dir)
        store = backend.open_store()
        await store.open()
        write = backend.projection_engine(write=True)
        read = backend.projection_engine(write=False)
        service = RecallService(
            read,
            sqlite_engine(data_dir / "embeddings.sqlite3", write=True),
            make_embedder(),
            SystemClock(),
        )
        try:
            batch: list[NewEvent] = []
            for i in range(args.facts):
                when = T0 + timedelta(minutes=i)
                batch.append(
                    NewEvent(FactWritten(fact_id=f"f{i}", text=sentence(rng), valid_from=when))
                )
            for i in range(args.messages):
                when = T0 + timedelta(minutes=i)
                batch.append(
                    NewEvent(
                        MessageAppended(
                            conversation_id=f"c{i // 200}",
                            message_id=f"m{i}",
                            role="user" if i % 2 else "assistant",
                            content=sentence(rng),
                            created_at=when,
                            name=rng.choice(NAMES).split()[0],
                        )
                    )
                )
            for i in range(0, len(batch), 10_000):
                await store.append("scale", batch[i : i + 10_000])
            runner = ProjectionRunner(store, write, [SearchProjection()])
            await runner.setup()
            t0 = time.perf_counter()
            await runner.catch_up()
            fold_s = time.perf_counter() - t0
            await service.cache.setup()
            t0 = time.perf_counter()
            await service.engine.refresh()
            await service.index.embed_pending()
            embed_s = time.perf_counter() - t0
            service.engine.set_position_source(lambda: runner.position)
            timings: dict[str, list[float]] = {"hybrid": [], "expand_hops=1": []}
            for _ in range(args.queries):
                query = f"{rng.choice(NAMES).split()[0]} {rng.choice(WORDS)} {rng.choice(PLACES)}"
                for name, hops in (("hybrid", 0), ("expand_hops=1", 1)):
                    req = SearchRequest(
                        query=query, filters=Filters(namespace="scale"), expand_hops=hops
                    )
                    t0 = time.perf_counter()
                    await service.engine.search(req)
                    timings[name].append(time.perf_counter() - t0)
        finally:
            await service.stop()
            await read.dispose()
            await write.dispose()
            await store.close()
    return {
        "facts": args.facts,
        "messages": args.messages,
        "fold_s": round(fold_s, 1),
        "embed_s": round(embed_s, 1),
        **{f"{k}_p50_ms": round(pct(v, 0.5), 2) for k, v in timings.items()},
        **{f"{k}_p95_ms": round(pct(v, 0.95), 2) for k, v in timings.items()},
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Run and print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--dir", default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = asyncio.run(run(args))
    print(
        json.dumps(result) if args.json else "\n".join(f"{k:>22}: {v}" for k, v in result.items())
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
