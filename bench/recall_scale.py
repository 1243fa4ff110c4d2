"""Recall at scale: N facts + N messages in one namespace.

Usage::

    .venv/bin/python -m bench.recall_scale [--facts 100000] [--messages 100000]
        [--queries 200] [--dir DIR] [--reuse] [--breakdown] [--against REV] [--context]
        [--json]

Generates facts and messages from a fixed-seed corpus (20,000 pseudo-words drawn with Zipf's
law like the content words of natural text, 2,000 people, 200 places), appends
them to a SQLite store, folds the search projection and embeds with the default (hashed)
embedder, then times hybrid searches (lexical + vector, default fusion), ``expand_hops=1``
searches and iterative searches (as shipped, one pass that reads 60 deep because
the queries name a person, and with entity bridging forced on, the optional offline
reformulation: pass 1 and two bridging passes) of queries made of a first name and three
words. Reports index build time (fold
and embedding separately), search p50/p95 (after five warm-up searches on other queries,
whose times are listed apart), and the peak RSS of the process; ``--breakdown``
adds the p50/p95 of the lexical and vector legs run alone on the same queries; ``--against
REV`` times commit REV's ``daemon/recall`` engine and vector index on the same data and
queries, alternating with this tree's (the fairest before/after on a shared machine), and
REV's iterative loop (``daemon/recall/iterative.py``) over this tree's engine, alternating
with this tree's loop;
``--context`` then serves the same data dir with the real HTTP app (in this process, behind
aiohttp's test client) and times ``POST /v1/context`` on the same queries, with the query and
without one (the conversation's last turns stand for it), then ``POST /v1/search`` single-shot,
and scoped to facts (top 10) and to messages (top 14) as the context call's two searches
are, on the queries and on the last turns' text the context call searched for (``_turns``).
Not run in CI.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import inspect
import random
import resource
import subprocess
import sys
import tempfile
import time
import types
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient, TestServer
from sqlalchemy.ext.asyncio import AsyncEngine

from bench.calibration import calibration_seconds
from bench.report import print_result
from daemon.api.keys import RECALL, STATE
from daemon.api.state import AppSettings
from daemon.app import build_app
from daemon.backend import Backend
from daemon.recall.iterative import STRATEGIES, IterativeOptions, iterative_search
from daemon.recall.lexical import LexicalIndex
from daemon.recall.lexical_leg import lexical_leg
from daemon.recall.query import Filters, SearchRequest
from daemon.recall.service import RecallService, make_embedder
from events.clock import SystemClock
from events.store.base import EventStore, NewEvent
from events.store.sqlite import sqlite_engine
from events.types import FactWritten, MessageAppended
from projections.runner import ProjectionRunner
from projections.search import SearchProjection

WARMUP = 5
"""Searches run (and reported) before the timed ones."""
_SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in ("a", "e", "i", "o", "u", "ai", "ou")]
FIRST = [
    "Ada",
    "Ben",
    "Cleo",
    "Dev",
    "Eli",
    "Fay",
    "Gus",
    "Hana",
    "Ivo",
    "Jun",
    "Kai",
    "Lea",
    "Mo",
    "Nia",
    "Oto",
    "Pia",
    "Quin",
    "Ravi",
    "Sol",
    "Tea",
    "Uma",
    "Vik",
    "Wes",
    "Xia",
    "Yara",
    "Zed",
    "Anouk",
    "Bram",
    "Cyra",
    "Dara",
    "Emre",
    "Fenna",
    "Goran",
    "Hiro",
    "Ines",
    "Jonas",
    "Kira",
    "Lior",
    "Mira",
    "Nils",
]
LAST = [
    "Moss",
    "Reyes",
    "Okafor",
    "Lind",
    "Tanaka",
    "Novak",
    "Silva",
    "Haas",
    "Berg",
    "Costa",
    "Dubois",
    "Eriksen",
    "Fischer",
    "Garcia",
    "Horvat",
    "Ivanova",
    "Jensen",
    "Kowalski",
    "Larsen",
    "Meyer",
    "Nakamura",
    "Olsen",
    "Petrov",
    "Quispe",
    "Rossi",
    "Sato",
    "Torres",
    "Urban",
    "Vargas",
    "Weber",
    "Xu",
    "Yilmaz",
    "Zhang",
    "Abbas",
    "Bauer",
    "Chen",
    "Diaz",
    "Engel",
    "Ferreira",
    "Grant",
    "Hughes",
    "Ito",
    "Jovanovic",
    "Kim",
    "Lopez",
    "Mensah",
    "Nguyen",
    "Ortiz",
    "Park",
    "Quinn",
]
NAMES = [f"{a} {b}" for a in FIRST for b in LAST]
PLACES = [f"{a.capitalize()}{b}ville" for a in _SYLLABLES[:20] for b in _SYLLABLES[20:30]]
T0 = datetime(2024, 1, 1, tzinfo=UTC)


class Corpus:
    """A fixed-seed corpus: Zipf-distributed pseudo-words (like the content words of natural
    text: the ``stopwords`` most frequent ranks are left out), people, places."""

    def __init__(self, seed: int = 7, vocabulary: int = 20_000, stopwords: int = 150) -> None:
        self.rng = random.Random(seed)
        words: list[str] = []
        seen: set[str] = set()
        while len(words) < vocabulary:
            word = "".join(self.rng.choices(_SYLLABLES, k=self.rng.choice((2, 3, 3, 4))))
            if word not in seen:
                seen.add(word)
                words.append(word)
        self.words = words
        # The most frequent ranks are function words, which queries and the index drop as
        # stopwords: leave them out, as a content-word distribution.
        weights = [1.0 / (rank + 1 + stopwords) ** 1.07 for rank in range(vocabulary)]
        total = 0.0
        self.cumulative = []
        for w in weights:
            total += w
            self.cumulative.append(total)

    def draw(self, k: int) -> list[str]:
        """Return ``k`` words drawn by frequency."""
        return self.rng.choices(self.words, cum_weights=self.cumulative, k=k)

    def sentence(self) -> str:
        """Return one document: a person, a place and a dozen words."""
        words = self.draw(self.rng.randint(8, 16))
        return f"{self.rng.choice(NAMES)} {' '.join(words)} in {self.rng.choice(PLACES)}"

    def query(self) -> str:
        """Return a query: a first name and three words."""
        return f"{self.rng.choice(FIRST)} {' '.join(self.draw(3))}"


def pct(values: Sequence[float], q: float) -> float:
    """Return the ``q`` quantile in milliseconds (nearest rank)."""
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def breakdown(service: RecallService, queries: Sequence[str]) -> dict[str, list[float]]:
    """Time each leg of the same queries alone, one after the other (no overlap)."""
    engine = service.engine
    index = service.index
    sync = engine._sync_engine()
    assert sync is not None, "the breakdown is for the SQLite backend"
    out: dict[str, list[float]] = {"lexical leg": [], "vector leg": []}
    with sync.connect() as conn:
        for query in queries:
            req = SearchRequest(query=query, filters=Filters(namespace="scale"))
            t0 = time.perf_counter()
            lexical_leg(conn, req, index, engine._submit_query)
            out["lexical leg"].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            vector = index.embedder.embed_sync([query])[0]  # type: ignore[attr-defined]
            index.search(vector, req.filters, req.candidate_top_k)
            out["vector leg"].append(time.perf_counter() - t0)
    return out


def _module_at(rev: str, path: str, name: str, renames: dict[str, str]) -> types.ModuleType:
    """Load ``path`` as it is at commit ``rev`` under the module name ``name``."""
    source = subprocess.run(
        ["git", "show", f"{rev}:{path}"],
        cwd=Path(__file__).resolve().parents[1],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for old, new in renames.items():
        source = source.replace(old, new)
    module = types.ModuleType(name)
    module.__file__ = path
    sys.modules[name] = module  # dataclasses look their module up while being created
    exec(compile(source, f"{rev}:{path}", "exec"), module.__dict__)
    return module


def _loop_at(rev: str, name: str) -> tuple[Any, Any]:
    """Return ``iterative_search`` and ``IterativeOptions`` as they are at commit ``rev``."""
    module = _module_at(rev, "daemon/recall/iterative.py", name, {})
    return module.iterative_search, module.IterativeOptions


async def compare(
    service: RecallService, rev: str, queries: Sequence[str]
) -> tuple[dict[str, list[float]], int]:
    """Time commit ``rev``'s engine and vector index against this tree's on the same data and
    queries, alternating which goes first (so both see the same machine load); also return
    how many searches' hits (ids, in order) differ between the two."""
    tag = rev[:12]
    vectors = _module_at(rev, "daemon/recall/vectors.py", f"_scale_{tag}_vectors", {})
    engine = _module_at(
        rev,
        "daemon/recall/engine.py",
        f"_scale_{tag}_engine",
        {"from daemon.recall.vectors import": f"from _scale_{tag}_vectors import"},
    )
    # A revision with the in-memory lexical postings gets them too (it takes ``lexical=``).
    lexical = {}
    if "lexical" in inspect.signature(vectors.VectorIndex).parameters:
        lexical["lexical"] = LexicalIndex()
    index = vectors.VectorIndex(service.index.embedder, service.index.cache, **lexical)
    # The same projection-position source as this tree's engine: without one, an engine
    # asks the tables for changes before every search (a few ms the other side never pays).
    other = engine.RecallEngine(
        service.engine.engine, index, SystemClock(), service.engine.position_source
    )
    await other.refresh()
    engines = {"this": service.engine, tag: other}
    # REV's iterative loop over this tree's engine: what the loop itself changed.
    loops = {
        "this": (iterative_search, IterativeOptions),
        tag: _loop_at(rev, f"_scale_{tag}_iterative"),
    }
    kinds = ("hybrid", "hops=1", "iterative")
    out: dict[str, list[float]] = {f"{n} {k}": [] for n in engines for k in kinds}
    differing = 0
    try:
        for i, query in enumerate(queries):
            for kind, hops in (("hybrid", 0), ("hops=1", 1)):
                req = SearchRequest(
                    query=query, filters=Filters(namespace="scale"), expand_hops=hops
                )
                found = {}
                for name in sorted(engines, reverse=i % 2 == 1):
                    t0 = time.perf_counter()
                    hits = await engines[name].search(req)
                    out[f"{name} {kind}"].append(time.perf_counter() - t0)
                    found[name] = [h.id for h in hits]
                differing += found["this"] != found[tag]
            req = SearchRequest(query=query, filters=Filters(namespace="scale"))
            for name in sorted(loops, reverse=i % 2 == 1):
                loop, options = loops[name]
                t0 = time.perf_counter()
                await loop(service.engine.search, req, options())
                out[f"{name} iterative"].append(time.perf_counter() - t0)
    finally:
        other.close()
    return out, differing


async def through_api(
    data_dir: Path, queries: Sequence[str], conversations: int, rng: random.Random
) -> tuple[dict[str, list[float]], float]:
    """Serve ``data_dir`` with the HTTP app and time ``POST /v1/context`` (with each query, and
    without one for a random conversation) and then ``POST /v1/search`` on the same queries;
    also return the seconds the app took to be ready (its projections folded, its index
    loaded and every document embedded)."""
    settings = AppSettings(
        backend=Backend(data_dir=data_dir),
        tcp_requires_token=False,
        request_timeout=None,
        projector="inline",
    )
    app = build_app(settings)
    headers = {"X-Memoryd-Namespace": "scale"}
    out: dict[str, list[float]] = {
        "context_query": [],
        "context_last_turns": [],
        "api_search": [],
        "api_search_facts": [],
        "api_search_messages": [],
        "api_search_facts_turns": [],
        "api_search_messages_turns": [],
    }
    started = time.perf_counter()
    async with TestClient(TestServer(app)) as client:
        await app[STATE].ready.wait()
        for _ in range(1200):  # the index embeds in the background (here: from the cache)
            if app[RECALL].progress.done:
                break
            await asyncio.sleep(0.5)
        else:
            raise AssertionError(f"still embedding after 10 minutes: {app[RECALL].progress}")
        ready_s = time.perf_counter() - started

        async def post(name: str | None, path: str, body: dict[str, Any]) -> dict[str, Any]:
            t0 = time.perf_counter()
            resp = await client.post(path, json=body, headers=headers)
            answer = await resp.json()
            elapsed = time.perf_counter() - t0
            assert resp.status == 200, answer
            if path == "/v1/context" and "query" not in body:
                assert answer["query_source"] == "recent_turns", answer
            if name is not None:
                out[name].append(elapsed)
            result: dict[str, Any] = answer
            return result

        cids = [f"c{rng.randrange(conversations)}" for _ in queries]
        for cid in cids[:WARMUP]:  # warm-up, untimed
            await post(None, "/v1/context", {"conversation_id": cid})
        turns: list[str] = []  # what each context call without a query searched for
        for query, cid in zip(queries, cids, strict=True):
            await post("context_query", "/v1/context", {"conversation_id": cid, "query": query})
            answer = await post("context_last_turns", "/v1/context", {"conversation_id": cid})
            turns.append(answer["query"])
        # After the context calls: a search records its recall (an event to append and fold),
        # which the context call does not; that work stays out of the context figures.
        for query, text in zip(queries, turns, strict=True):
            await post("api_search", "/v1/search", {"query": query})
            for suffix, what in (("", query), ("_turns", text)):
                facts = {"query": what, "scope": ["facts"]}
                await post(f"api_search_facts{suffix}", "/v1/search", facts)
                messages = {"query": what, "scope": ["messages"], "top_k": 14}
                await post(f"api_search_messages{suffix}", "/v1/search", messages)
    return out, ready_s


@contextlib.asynccontextmanager
async def scale_dir(data_dir: Path) -> AsyncIterator[tuple[EventStore, AsyncEngine, RecallService]]:
    """Open a data dir's store, its projections' write engine and a recall service over them
    (the default embedder, the dir's embedding cache); close them all after."""
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
        yield store, write, service
    finally:
        await service.stop()
        await read.dispose()
        await write.dispose()
        await store.close()


async def index_scale_dir(
    store: EventStore, write: AsyncEngine, service: RecallService
) -> tuple[ProjectionRunner, float, float]:
    """Fold the search projection, then load and embed the recall index; return the runner
    (the engine follows its position) and the seconds the fold and the index took."""
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
    return runner, fold_s, embed_s


async def run(args: argparse.Namespace) -> dict[str, Any]:
    """Build the index and time searches."""
    corpus = Corpus()
    rng = corpus.rng
    with tempfile.TemporaryDirectory(prefix="memoryd-scale-") as tmp:
        async with scale_dir(Path(args.dir or tmp)) as (store, write, service):
            batch: list[NewEvent] = []
            for i in range(args.facts):
                when = T0 + timedelta(minutes=i)
                batch.append(
                    NewEvent(FactWritten(fact_id=f"f{i}", text=corpus.sentence(), valid_from=when))
                )
            for i in range(args.messages):
                when = T0 + timedelta(minutes=i)
                batch.append(
                    NewEvent(
                        MessageAppended(
                            conversation_id=f"c{i // 200}",
                            message_id=f"m{i}",
                            role="user" if i % 2 else "assistant",
                            content=corpus.sentence(),
                            created_at=when,
                            name=rng.choice(NAMES).split()[0],
                        )
                    )
                )
            if args.reuse and await store.head() > 0:
                batch = []  # the data dir already holds the corpus: time the searches again
            for i in range(0, len(batch), 10_000):
                await store.append("scale", batch[i : i + 10_000])
            _, fold_s, embed_s = await index_scale_dir(store, write, service)
            timings: dict[str, list[float]] = {
                "hybrid": [],
                "expand_hops=1": [],
                "hybrid_about": [],
                "iterative": [],
                "iterative_bridging": [],
                "iterative_when_in_month": [],
            }
            queries = [corpus.query() for _ in range(args.queries)]
            # The first searches after a load start thread pools and connections and build
            # the namespace's filter mask: timed apart, on queries of their own.
            first_ms: list[float] = []
            for query in [corpus.query() for _ in range(WARMUP)]:
                t0 = time.perf_counter()
                await service.engine.search(
                    SearchRequest(query=query, filters=Filters(namespace="scale"))
                )
                first_ms.append(round(1000 * (time.perf_counter() - t0), 1))
            for query in queries:
                # "about": a question that asks for an attribute (the about leg runs and the
                # subject weighs the best twice top_k).
                for name, hops, asked in (
                    ("hybrid", 0, query),
                    ("expand_hops=1", 1, query),
                    ("hybrid_about", 0, f"Where does {query} live?"),
                ):
                    req = SearchRequest(
                        query=asked, filters=Filters(namespace="scale"), expand_hops=hops
                    )
                    t0 = time.perf_counter()
                    await service.engine.search(req)
                    timings[name].append(time.perf_counter() - t0)
                # The time cues' worst case: a question that asks when and names a month
                # (two deep reads at once, then the time weighting).
                month = f"{T0:%B %Y}"
                for name, force, passes, asked in (
                    ("iterative", False, STRATEGIES, query),
                    ("iterative_bridging", True, ("bridge",), query),
                    ("iterative_when_in_month", False, STRATEGIES, f"When did {query} in {month}?"),
                ):
                    req = SearchRequest(query=asked, filters=Filters(namespace="scale"))
                    t0 = time.perf_counter()
                    await iterative_search(
                        service.engine.search, req, IterativeOptions(force_hard=force), passes
                    )
                    timings[name].append(time.perf_counter() - t0)
            if args.breakdown:
                timings.update(breakdown(service, queries))
            differing: int | None = None
            if args.against:
                against, differing = await compare(service, args.against, queries)
                timings.update(against)
        api_ready_s: float | None = None
        if args.context:  # the recall service above is closed: one index in memory at a time
            api, api_ready_s = await through_api(
                Path(args.dir or tmp), queries, max(1, args.messages // 200), rng
            )
            timings.update(api)
    return {
        "calibration_s": round(calibration_seconds(), 2),
        "facts": args.facts,
        "messages": args.messages,
        "fold_s": round(fold_s, 1),
        "embed_s": round(embed_s, 1),
        **{f"{k}_p50_ms": round(pct(v, 0.5), 2) for k, v in timings.items()},
        **{f"{k}_p95_ms": round(pct(v, 0.95), 2) for k, v in timings.items()},
        "first_searches_ms": first_ms,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        **({} if differing is None else {"searches_with_other_hits": differing}),
        **({} if api_ready_s is None else {"api_ready_s": round(api_ready_s, 1)}),
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Run and print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--dir", default=None)
    parser.add_argument(
        "--reuse", action="store_true", help="with --dir: keep an existing corpus and index"
    )
    parser.add_argument(
        "--breakdown", action="store_true", help="also time the lexical and vector legs alone"
    )
    parser.add_argument(
        "--against",
        metavar="REV",
        help="also time commit REV's recall engine on the same data, alternating queries",
    )
    parser.add_argument(
        "--context",
        action="store_true",
        help="also time POST /v1/context and POST /v1/search through the HTTP app",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = asyncio.run(run(args))
    print_result(result, as_json=args.json, width=22)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
