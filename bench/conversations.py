"""Benchmark: scripted conversations through a real daemon, as a chat app would use it.

Usage::

    .venv/bin/python -m bench.conversations [--file bench/data/conversations.jsonl] [-v]
        [--config FILE] [--keep DIR]

Starts ``memoryd serve`` on a temporary data dir with the default configuration (no model),
and for each conversation, in a namespace of its own: posts its turns (with their times),
runs a retrospective and waits for it (``POST .../retrospective:run {"wait": true}``), then
runs its checks through the public API:

- ``current``: some fact ``GET /v1/facts`` returns (what recall uses) holds every keyword;
- ``not_current``: none does;
- ``as_of``: some fact ``GET /v1/facts?as_of=T`` returns holds every keyword;
- ``recall``: in ``POST /v1/search`` hits, the first hit holding the ``above`` keywords ranks
  before the first holding the ``below`` keywords (or those are absent);
- ``recall_hit``: a hit in the top N holds the keywords.

Keywords match case-insensitively. Prints the share of checks passed, per type, and the
conversations with every check right. Not run in CI.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import quote

import aiohttp

DEFAULT_FILE = Path(__file__).parent / "data" / "conversations.jsonl"


class Daemon:
    """``memoryd serve`` in a temporary data dir, talked to over its unix socket."""

    def __init__(self, data_dir: Path, config: Path | None) -> None:
        self.data_dir = data_dir
        self.socket = data_dir / "memoryd.sock"
        args = [
            str(Path(sys.executable).parent / "memoryd"),
            "serve",
            "--data-dir",
            str(data_dir),
            "--socket",
            str(self.socket),
        ]
        if config is not None:
            args += ["--config", str(config)]
        env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYD_")}
        env.setdefault("XDG_CONFIG_HOME", str(data_dir / "no-config"))
        self.log = (data_dir / "daemon.log").open("wb")
        self.process = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT, env=env)
        self.session: aiohttp.ClientSession | None = None

    async def start(self) -> None:
        self.session = aiohttp.ClientSession(connector=aiohttp.UnixConnector(str(self.socket)))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.socket.exists():
                try:
                    status, _ = await self.call("GET", "/v1/health", namespace="default")
                    if status == 200:
                        return
                except aiohttp.ClientError:
                    pass
            await asyncio.sleep(0.2)
        raise RuntimeError("the daemon did not start; see daemon.log")

    async def call(
        self, method: str, path: str, body: Any = None, *, namespace: str
    ) -> tuple[int, Any]:
        assert self.session is not None
        for _ in range(100):
            async with self.session.request(
                method,
                f"http://memoryd{path}",
                json=body,
                headers={"X-Memoryd-Namespace": namespace},
            ) as resp:
                payload = await resp.json(content_type=None)
                if resp.status == 503:
                    await asyncio.sleep(0.2)
                    continue
                return resp.status, payload
        raise RuntimeError(f"{path}: still 503")

    async def stop(self) -> None:
        if self.session is not None:
            await self.session.close()
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()


def _holds(text: str, keywords: list[str]) -> bool:
    low = text.casefold()
    return all(k.casefold() in low for k in keywords)


async def run_conversation(
    daemon: Daemon, conv: dict[str, Any]
) -> list[tuple[dict[str, Any], bool, str]]:
    ns = f"bench-{conv['id']}"
    cid = conv["id"]
    for turn in conv["turns"]:
        status, body = await daemon.call(
            "POST",
            f"/v1/conversations/{cid}/messages",
            {
                "role": turn["role"],
                "content": turn["text"],
                "created_at": turn["at"],
            },
            namespace=ns,
        )
        if status != 201:
            raise RuntimeError(f"message: {status} {body}")
    status, run = await daemon.call(
        "POST", f"/v1/conversations/{cid}/retrospective:run", {"wait": True}, namespace=ns
    )
    if status != 200:
        raise RuntimeError(f"retrospective: {status} {run}")
    _, current = await daemon.call("GET", "/v1/facts?limit=1000", namespace=ns)
    texts = [f["text"] for f in current["facts"]]
    out: list[tuple[dict[str, Any], bool, str]] = []
    for check in conv["checks"]:
        kind = check["type"]
        if kind == "current":
            ok = any(_holds(t, check["keywords"]) for t in texts)
            out.append((check, ok, "; ".join(texts)))
        elif kind == "not_current":
            hit = [t for t in texts if _holds(t, check["keywords"])]
            out.append((check, not hit, "; ".join(hit)))
        elif kind == "as_of":
            _, then = await daemon.call(
                "GET", f"/v1/facts?limit=1000&as_of={quote(check['at'])}", namespace=ns
            )
            then_texts = [f["text"] for f in then["facts"]]
            ok = any(_holds(t, check["keywords"]) for t in then_texts)
            out.append((check, ok, "; ".join(then_texts)))
        elif kind in ("recall", "recall_hit"):
            _, found = await daemon.call(
                "POST", "/v1/search", {"query": check["query"], "top_k": 10}, namespace=ns
            )
            hits = [h["text"] for h in found["hits"]]
            if kind == "recall_hit":
                top = hits[: int(check.get("top", 3))]
                ok = any(_holds(h, check["keywords"]) for h in top)
            else:
                above = next((i for i, h in enumerate(hits) if _holds(h, check["above"])), None)
                below = next((i for i, h in enumerate(hits) if _holds(h, check["below"])), None)
                ok = above is not None and (below is None or above < below)
            out.append((check, ok, " | ".join(hits[:5])))
        else:
            raise ValueError(f"unknown check type {kind!r}")
    return out


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    convs = [json.loads(line) for line in args.file.read_text().splitlines() if line.strip()]
    with tempfile.TemporaryDirectory(prefix="memoryd-conv-") as tmp:
        data_dir = args.keep or Path(tmp)
        data_dir.mkdir(parents=True, exist_ok=True)
        daemon = Daemon(data_dir, args.config)
        try:
            await daemon.start()
            passed: Counter[str] = Counter()
            total: Counter[str] = Counter()
            perfect = 0
            failures: list[str] = []
            for conv in convs:
                results = await run_conversation(daemon, conv)
                perfect += all(ok for _, ok, _ in results)
                for check, ok, seen in results:
                    total[check["type"]] += 1
                    passed[check["type"]] += ok
                    if not ok:
                        failures.append(f"{conv['id']} {json.dumps(check)}\n    saw: {seen}")
        finally:
            await daemon.stop()
    summary = {
        "checks": f"{sum(passed.values())}/{sum(total.values())}",
        "share": round(sum(passed.values()) / max(1, sum(total.values())), 3),
        "conversations_all_right": f"{perfect}/{len(convs)}",
        "by_type": {k: f"{passed[k]}/{total[k]}" for k in sorted(total)},
    }
    if args.verbose:
        print("\n".join(failures))
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--file", type=Path, default=DEFAULT_FILE)
    parser.add_argument("--config", type=Path, default=None)
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument(
        "--keep", type=Path, default=None, help="use and keep this data dir (for an audit)"
    )
    args = parser.parse_args()
    print(json.dumps(asyncio.run(main_async(args)), indent=2))


if __name__ == "__main__":
    main()
