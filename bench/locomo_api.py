"""The API mode of :mod:`bench.locomo`: ingest and ask through the HTTP API.

The application is built exactly as ``memoryd serve`` builds it (store, projection runner,
recall service, recall recorder) on a temporary data dir and served on a local TCP port by
aiohttp's test server; every write and every search is a real HTTP request.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
from aiohttp.test_utils import TestClient, TestServer

from daemon.api.state import AppSettings
from daemon.app import build_app
from daemon.backend import Backend

if TYPE_CHECKING:
    from bench.locomo import Conversation, Scores

NAMESPACE = "locomo"
BATCH = 500


async def _call(client: TestClient[Any, Any], path: str, body: Any) -> Any:
    for _ in range(600):
        resp = await client.post(
            path,
            data=orjson.dumps(body),
            headers={"Content-Type": "application/json", "X-Memoryd-Namespace": NAMESPACE},
        )
        payload = orjson.loads(await resp.read())
        if resp.status == 503:  # projections still folding the ingest: wait, then ask again
            await asyncio.sleep(0.5)
            continue
        if resp.status >= 300:
            raise RuntimeError(f"{path}: {resp.status} {payload}")
        return payload
    raise RuntimeError(f"{path}: still 503 after 5 minutes")


async def run_api(args: argparse.Namespace, convs: list[Conversation]) -> dict[str, Scores]:
    """Ingest every conversation through the API and ask every question through it, single
    shot and with ``iterative`` (the options the arguments give)."""
    from bench.locomo import Scores

    with tempfile.TemporaryDirectory(prefix="memoryd-locomo-api-") as tmp:
        settings = AppSettings(
            backend=Backend(Path(tmp)), tcp_requires_token=False, projector="inline"
        )
        app = build_app(settings)
        async with TestClient(TestServer(app)) as client:
            for conv in convs:
                cid = conv.conversation_id
                for i in range(0, len(conv.turns), BATCH):
                    turns = conv.turns[i : i + BATCH]
                    messages = [
                        {
                            "role": "user",
                            "content": t.text,
                            "name": t.speaker,
                            "created_at": t.created_at.isoformat(),
                            "metadata": {"dia_id": t.dia_id},
                        }
                        for t in turns
                    ]
                    await _call(
                        client, f"/v1/conversations/{cid}/messages:batch", {"messages": messages}
                    )
            # Fold everything before timing searches (read-your-writes would wait anyway).
            await _call(client, "/v1/search", {"query": "warm up", "top_k": 1})
            runs = {"single": Scores(), "iterative": Scores()}
            iterative = {
                "max_iterations": args.max_iterations,
                "difficulty_threshold": args.threshold,
                "force_hard": args.force_hard,
            }
            legs = args.legs.split(",")
            fusion: dict[str, Any] = {"strategy": args.strategy}
            weights = {k: float(v) for k, _, v in (w.partition("=") for w in args.weight)}
            # The API runs every leg; a leg left out of --legs weighs 0 in the fusion.
            weights.update({leg: 0.0 for leg in ("lexical", "vector") if leg not in legs})
            if weights:
                fusion = {"strategy": "weighted", "weights": weights}
            for conv in convs:
                for q in conv.questions:
                    body: dict[str, Any] = {
                        "query": q.question,
                        "scope": ["messages"],
                        "conversation_id": conv.conversation_id,
                        "top_k": 20,
                    }
                    if weights or args.strategy != "weighted":
                        body["fusion"] = fusion
                    for name, extra in (("single", {}), ("iterative", {"iterative": iterative})):
                        t0 = time.perf_counter()
                        answer = await _call(
                            client, "/v1/search", {**body, **extra, "explain": True}
                        )
                        elapsed = time.perf_counter() - t0
                        ranked = [str(h["metadata"].get("dia_id")) for h in answer["hits"]]
                        gated = bool(answer.get("iterative", {}).get("gate", {}).get("hard"))
                        runs[name].add(q, ranked, elapsed, gated=gated)
            return runs
