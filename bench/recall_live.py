"""Recall right after an append: the chat app's turn (write the user's message, then recall).

Usage::

    .venv/bin/python -m bench.recall_live --dir DIR [--rounds 100]

``DIR`` is a data dir built by ``bench.recall_scale`` (for example ``--facts 100000
--messages 100000 --dir DIR``); it is copied to a temporary dir first and left as it was.
Each round appends one message to a conversation of the scale namespace, folds it into the
search projection, then times a hybrid search (which first brings the in-memory indexes up
to the fold: the refresh a search after a write always pays), then embeds the new message
as the daemon's background indexer would. Reports p50/p95 of the search, of the fold and of
the embedding, after five rounds of warm-up. Not run in CI.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import tempfile
import time
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

from bench.calibration import calibration_seconds
from bench.recall_scale import T0, Corpus, index_scale_dir, pct, scale_dir
from bench.report import print_result
from daemon.recall.query import Filters, SearchRequest
from events.store.base import NewEvent
from events.types import MessageAppended

WARMUP = 5


async def run(source: Path, rounds: int) -> dict[str, Any]:
    """Copy ``source``, then append, fold and search ``rounds`` times."""
    with tempfile.TemporaryDirectory(prefix="memoryd-live-") as tmp:
        data_dir = Path(tmp) / "data"
        shutil.copytree(source, data_dir)
        timings: dict[str, list[float]] = {"search": [], "fold": [], "embed": []}
        async with scale_dir(data_dir) as (store, write, service):
            runner, _, _ = await index_scale_dir(store, write, service)
            corpus = Corpus()  # the scale corpus's words: queries find what it holds
            for i in range(rounds + WARMUP):
                message = MessageAppended(
                    conversation_id="live",
                    message_id=f"live-{i}",
                    role="user" if i % 2 else "assistant",
                    content=corpus.sentence(),
                    created_at=T0 + timedelta(days=400, minutes=i),
                    name="Ada",
                )
                await store.append("scale", [NewEvent(message)])
                t0 = time.perf_counter()
                await runner.catch_up()
                t1 = time.perf_counter()
                request = SearchRequest(query=corpus.query(), filters=Filters(namespace="scale"))
                await service.engine.search(request)
                t2 = time.perf_counter()
                await service.index.embed_pending()
                t3 = time.perf_counter()
                if i >= WARMUP:
                    timings["fold"].append(t1 - t0)
                    timings["search"].append(t2 - t1)
                    timings["embed"].append(t3 - t2)
    return {
        "calibration_s": round(calibration_seconds(), 2),
        "rounds": rounds,
        **{f"{k}_p50_ms": round(pct(v, 0.5), 2) for k, v in timings.items()},
        **{f"{k}_p95_ms": round(pct(v, 0.95), 2) for k, v in timings.items()},
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Run and print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dir", type=Path, required=True, help="a bench.recall_scale data dir")
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = asyncio.run(run(args.dir, args.rounds))
    print_result(result, as_json=args.json, width=16)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
