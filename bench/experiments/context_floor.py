"""Benchmark: where ``POST /v1/context`` spends its time, and the least its steps can cost.

Usage::

    .venv/bin/python -m bench.recall_scale --facts 100000 --messages 100000 --dir DIR  # first
    .venv/bin/python -m bench.experiments.context_floor --dir DIR [--queries 100] [--json]

Serves DIR's ``scale`` namespace with the real HTTP app in this process (as ``bench.recall_scale
--context`` does) and sends ``POST /v1/context`` for the bench's queries, with the query and
without one (a random conversation's last four turns stand for it). Each request is timed at
the client, and its steps inside the daemon with timers wrapped around them (summed over the
request): reading the last turns (``turns``), the two searches (``searches``, end to end),
and within them the vector leg's scans of the matrix (``scan``) and the lexical leg's bm25
sums (``sums``). Then the floor of each step, on the same data and queries:

- ``http_floor``: the same request to a handler that answers the same JSON at once, through
  the same middlewares: what the HTTP round trip costs whatever the handler does;
- ``sql_floor``: ``SELECT 1`` on the app's read engine: the thread hop every read pays;
- ``scan_floor``: one scan of the query's dimensions of the vector matrix, as one numpy
  product over every row (no blocks, no threads, no masks): an exact vector leg cannot read
  less;
- ``sums_floor``: the lexical leg once, over every row (the postings of the query's terms
  added up once, as the two searches now share them).

The sum of the floors (one HTTP round trip; the reads that cannot overlap a search: the
staleness lookup, and without a query the last turns; one scan; one sum) is the least this
design can cost a request: p50 and p95 of that sum are printed as ``bound``. Not run in CI.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import random
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from sqlalchemy import text

import daemon.api.context as context_module
from bench.calibration import calibration_seconds
from bench.recall_scale import NAMES, WARMUP, Corpus, pct
from bench.report import print_result
from daemon.api.keys import RECALL, STATE
from daemon.api.state import AppSettings
from daemon.app import build_app
from daemon.backend import Backend
from daemon.recall.lexical import LexicalIndex
from daemon.recall.vector_scan import VectorScan
from daemon.recall.vectors import VectorIndex

NAMESPACE = "scale"
Spans = dict[str, list[float]]


def timed(spans: Spans, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` (a function or coroutine function), adding each call's seconds to ``spans``."""
    if asyncio.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def awaited(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return await fn(*args, **kwargs)
            finally:
                spans[name].append(time.perf_counter() - t0)

        return awaited

    @functools.wraps(fn)
    def called(*args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            spans[name].append(time.perf_counter() - t0)

    return called


def bench_queries(count: int, conversations: int) -> list[tuple[str, str]]:
    """The bench's queries (the corpus drawn as ``bench.recall_scale`` draws it) and a random
    conversation for each."""
    corpus = Corpus()
    for _ in range(100_000):
        corpus.sentence()
    for _ in range(100_000):
        corpus.sentence()
        corpus.rng.choice(NAMES)
    rng = random.Random(3)
    return [(corpus.query(), f"c{rng.randrange(conversations)}") for _ in range(count)]


def scan_floor(index: VectorIndex, vector: Any) -> float:
    """Seconds of one product of the query's non-zero dimensions with every row (all of
    them for a dense query)."""
    q = np.asarray(vector, dtype=np.float32).reshape(-1)
    used = np.flatnonzero(q)
    n = index.size
    if used.size * 2 > q.size:
        weights, rows = q, index.by_dim[:, :n]
    else:  # a copy of the rows read: the product below reads them once, like the matrix
        weights, rows = q[used], index.by_dim[used, :n]
    t0 = time.perf_counter()
    weights @ rows
    return time.perf_counter() - t0


def sums_floor(lexical: LexicalIndex, query: str) -> float:
    """Seconds of the lexical leg once, every row admitted, nothing kept from before."""
    words = query.split()
    mask = np.ones(lexical._slot_version.shape[0], dtype=np.bool_)
    with lexical.lock:
        lexical._kept = {}
    t0 = time.perf_counter()
    lexical.search(words, mask, np.arange(mask.shape[0], dtype=np.int64), 60)
    return time.perf_counter() - t0


async def run(args: argparse.Namespace) -> dict[str, Any]:
    """Time the requests, their steps and the floors."""
    queries = bench_queries(args.queries + WARMUP, max(1, args.messages // 200))
    spans: Spans = defaultdict(list)
    app = build_app(
        AppSettings(
            backend=Backend(data_dir=Path(args.dir)), tcp_requires_token=False, request_timeout=None
        )
    )
    answers: dict[str, Any] = {}

    async def canned(request: web.Request) -> web.Response:
        await request.read()
        return web.json_response(answers[request.headers["X-Answer"]])

    app.router.add_post("/v1/canned", canned)
    for name, step in (("recent_messages", "turns"), ("ranked", "searches")):
        setattr(context_module, name, timed(spans, step, getattr(context_module, name)))
    VectorScan.scores = timed(spans, "scan", VectorScan.scores)  # type: ignore[method-assign]
    LexicalIndex._accumulate = timed(spans, "sums", LexicalIndex._accumulate)  # type: ignore[method-assign]
    headers = {"X-Memoryd-Namespace": NAMESPACE}
    async with TestClient(TestServer(app)) as client:
        await app[STATE].ready.wait()
        for _ in range(1200):  # the index loads its vectors in the background
            if app[RECALL].progress.done:
                break
            await asyncio.sleep(0.5)
        service = app[RECALL]
        reads = await app[STATE].async_reads()

        async def post(path: str, body: dict[str, Any], extra: dict[str, str]) -> Any:
            t0 = time.perf_counter()
            resp = await client.post(path, json=body, headers={**headers, **extra})
            answer = await resp.json()
            assert resp.status == 200, answer
            return time.perf_counter() - t0, answer

        async def sql_floor() -> float:
            t0 = time.perf_counter()
            async with reads.connect() as conn:
                await conn.execute(text("SELECT 1"))
            return time.perf_counter() - t0

        for query, cid in queries[:WARMUP]:
            await post("/v1/context", {"conversation_id": cid, "query": query}, {})
        result: dict[str, Any] = {}
        for mode in ("query", "last_turns"):
            floors: Spans = defaultdict(list)
            for query, cid in queries[WARMUP:]:
                body = {"conversation_id": cid}
                if mode == "query":
                    body["query"] = query
                spans.clear()
                elapsed, answer = await post("/v1/context", body, {})
                floors["total"].append(elapsed)
                for name in ("turns", "searches", "scan", "sums"):
                    floors[name].append(sum(spans.get(name, [])))
                answers[cid] = answer
                floors["http_floor"].append((await post("/v1/canned", body, {"X-Answer": cid}))[0])
                floors["sql_floor"].append(await sql_floor())
                vector = (await service.index.embedder.embed([answer["query"]]))[0]
                floors["scan_floor"].append(scan_floor(service.index, vector))
                assert service.index.lexical is not None
                floors["sums_floor"].append(sums_floor(service.index.lexical, answer["query"]))
            # The staleness lookup, and without a query the last turns before any search.
            hops = 2 if mode == "last_turns" else 1
            floors["bound"] = [
                http + hops * sql + scan + sums
                for http, sql, scan, sums in zip(
                    floors["http_floor"],
                    floors["sql_floor"],
                    floors["scan_floor"],
                    floors["sums_floor"],
                    strict=True,
                )
            ]
            for name, values in floors.items():
                result[f"{mode}_{name}_p50_ms"] = round(pct(values, 0.5), 2)
                result[f"{mode}_{name}_p95_ms"] = round(pct(values, 0.95), 2)
    return {"calibration_s": round(calibration_seconds(), 2), **result}


def main(argv: Sequence[str] | None = None) -> int:
    """Run and print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dir", required=True)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    print_result(asyncio.run(run(args)), as_json=args.json, width=34)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
