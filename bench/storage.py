"""Where a data dir's bytes go: the event log against the projections and the embedding cache.

Runs a real ``memoryd serve`` on a fresh data dir, writes ``--count`` messages of about
``--size`` bytes of English text each (LoCoMo turns when ``../shared/bench/locomo`` is there,
else the labelled turns in ``bench/data``) through ``POST /v1/conversations/{cid}/messages:batch``
(``--per-conversation`` turns each, a minute apart), waits until the fold and the embeddings
are done, stops the daemon and reports each file and, from SQLite's ``dbstat``, each table and
index, as bytes and as a multiple of the event log (``events.sqlite3``)::

    .venv/bin/python -m bench.storage [--sizes 40,4000] [--count 5000] [--json]

Retrospectives are off (no facts are extracted): the figures are those of messages alone.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import aiohttp

MiB = 1024 * 1024
LOCOMO = Path(__file__).resolve().parents[1] / ".." / "shared" / "bench" / "locomo"
LABELLED = Path(__file__).resolve().parent / "data" / "extraction_turns.jsonl"
MAX_BATCH_BYTES = 600_000
"""Text per ``messages:batch`` request (the body limit is 1 MiB)."""


# -- text ---------------------------------------------------------------------------------


def corpus_words() -> list[str]:
    """Return the words of real chat turns, in order (LoCoMo if present, else bench/data)."""
    texts: list[str] = []
    if LOCOMO.is_dir():
        for path in sorted(LOCOMO.glob("conv-*.json")):
            data = json.loads(path.read_text())
            conv = data.get("conversation", data)
            n = 1
            while f"session_{n}" in conv:
                texts.extend(t["text"] for t in conv[f"session_{n}"])
                n += 1
    else:
        for line in LABELLED.read_text().splitlines():
            if line.strip():
                texts.append(json.loads(line)["text"])
    return " ".join(texts).split()


def texts(size: int, words: list[str]) -> Iterator[str]:
    """Yield texts of about ``size`` bytes: consecutive corpus words, cut at a word."""
    i = 0
    while True:
        out: list[str] = []
        length = 0
        while not out or length + len(words[i % len(words)]) + 1 <= size:
            word = words[i % len(words)]
            out.append(word)
            length += len(word.encode()) + 1
            i += 1
        yield " ".join(out)


# -- the daemon ---------------------------------------------------------------------------


def serve(data_dir: Path, socket: Path, log: Path, **env: str) -> subprocess.Popen[bytes]:
    """Start ``memoryd serve`` on ``data_dir`` with its socket at ``socket``."""
    memoryd = Path(sys.executable).with_name("memoryd")
    environ = {
        **os.environ,
        "MEMORYD_RETROSPECTIVE__ENABLED": "false",
        "STATE_DIRECTORY": str(data_dir),
        "RUNTIME_DIRECTORY": str(socket.parent),
        **env,
    }
    with log.open("ab") as out:
        return subprocess.Popen(
            [str(memoryd), "serve"], env=environ, stdout=out, stderr=out, start_new_session=True
        )


def stop(process: subprocess.Popen[bytes], timeout: float = 120) -> int:
    """SIGTERM the daemon and wait; kill its process group if it does not stop in time."""
    if process.poll() is not None:
        return process.returncode
    process.send_signal(signal.SIGTERM)
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        raise


def session(socket: Path) -> aiohttp.ClientSession:
    """Return a client session on the daemon's unix socket."""
    return aiohttp.ClientSession(
        connector=aiohttp.UnixConnector(path=str(socket)),
        timeout=aiohttp.ClientTimeout(total=120),
    )


async def call(
    client: aiohttp.ClientSession, method: str, path: str, body: Any = None
) -> tuple[int, Any]:
    """Make one request; return its status and JSON body."""
    async with client.request(method, f"http://memoryd{path}", json=body) as resp:
        if resp.content_type == "application/json":
            return resp.status, await resp.json()
        return resp.status, await resp.text()


async def until_ready(socket: Path, process: subprocess.Popen[bytes], timeout: float = 300) -> None:
    """Wait until ``/v1/health`` answers 200 (or says ``degraded`` while serving)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"memoryd exited with {process.returncode}")
        try:
            async with session(socket) as client:
                status, _ = await call(client, "GET", "/v1/health")
                if status == 200:
                    return
        except (aiohttp.ClientError, FileNotFoundError, ConnectionError):
            pass
        await asyncio.sleep(0.1)
    raise RuntimeError("memoryd did not become ready")


def batches(
    size: int, count: int, per_conversation: int, words: list[str]
) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """Yield ``(conversation_id, messages)`` requests for ``count`` messages in all."""
    source = texts(size, words)
    start = datetime(2024, 1, 1, tzinfo=UTC)
    n = 0
    per_batch = max(1, min(1000, MAX_BATCH_BYTES // (size + 200)))
    while n < count:
        conv, turn = divmod(n, per_conversation)
        todo = min(per_batch, per_conversation - turn, count - n)
        messages = [
            {
                "role": "user" if (turn + i) % 2 == 0 else "assistant",
                "content": next(source),
                "created_at": (start + timedelta(days=conv, minutes=turn + i)).isoformat(),
            }
            for i in range(todo)
        ]
        yield f"c{conv}", messages
        n += todo


async def until_folded(client: aiohttp.ClientSession, position: int) -> None:
    """Wait until the projections hold ``position`` and every document has its vector."""
    while True:
        status, body = await call(client, "GET", f"/v1/progress?position={position}&wait=10")
        if status == 200 and body["done"]:
            break
    await until_embedded(client, timeout=None)


async def until_embedded(client: aiohttp.ClientSession, timeout: float | None) -> bool:
    """Wait (up to ``timeout`` seconds) until every search document has its vector."""
    # The vector index follows the projection when a search asks; it then embeds (and
    # caches) every new document in the background.
    status, body = await call(client, "POST", "/v1/search", {"query": "what was said"})
    if status != 200:
        raise RuntimeError(f"search failed: {status} {body}")
    loop = asyncio.get_running_loop()
    deadline = None if timeout is None else loop.time() + timeout
    while deadline is None or loop.time() < deadline:
        status, text = await call(client, "GET", "/metrics")
        figures = dict(
            line.split(" ", 1)
            for line in str(text).splitlines()
            if line.startswith("memoryd_recall_")
        )
        embedded = float(figures.get("memoryd_recall_embedded_documents", "0"))
        if 0 < embedded >= float(figures.get("memoryd_recall_documents", "1")):
            return True
        await asyncio.sleep(0.2)
    return False


# -- measuring ----------------------------------------------------------------------------


def file_sizes(data_dir: Path) -> dict[str, int]:
    """Return each file's size (``-wal`` and ``-shm`` included), by name."""
    return {p.name: p.stat().st_size for p in sorted(data_dir.iterdir()) if p.is_file()}


def table_sizes(database: Path) -> dict[str, int]:
    """Return the bytes of each table and index of a SQLite file (``dbstat``), largest first."""
    uri = f"file:{database}?mode=ro"
    with sqlite3.connect(uri, uri=True) as conn:
        rows = conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name").fetchall()
        free = conn.execute("PRAGMA freelist_count").fetchone()[0]
        page = conn.execute("PRAGMA page_size").fetchone()[0]
    out = {str(name): int(size) for name, size in rows}
    if free:
        out["(free pages)"] = int(free) * int(page)
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))


def text_columns(database: Path) -> dict[str, int]:
    """Return the bytes of the search documents' text columns (what ``search_docs`` repeats
    of the log: the text, its indexed form, and the neighbouring turns)."""
    uri = f"file:{database}?mode=ro"
    with sqlite3.connect(uri, uri=True) as conn:
        row = conn.execute(
            "SELECT sum(length(CAST(text AS BLOB))), sum(length(CAST(body AS BLOB))), "
            "sum(length(CAST(near AS BLOB))), sum(length(CAST(metadata_json AS BLOB))) "
            "FROM search_docs"
        ).fetchone()
    names = ("text", "body", "near", "metadata_json")
    return dict(zip(names, [int(v or 0) for v in row], strict=True))


def breakdown(data_dir: Path) -> dict[str, Any]:
    """Return the files, the tables of each database, and the ratios to the event log."""
    files = file_sizes(data_dir)
    log_bytes = files["events.sqlite3"] + files.get("events.sqlite3-wal", 0)
    total = sum(files.values())
    tables = {
        name: table_sizes(data_dir / name)
        for name in ("events.sqlite3", "projections.sqlite3", "embeddings.sqlite3")
        if (data_dir / name).exists()
    }
    return {
        "log_mib": round(log_bytes / MiB, 2),
        "data_dir_mib": round(total / MiB, 2),
        "data_dir_over_log": round(total / log_bytes, 2),
        "files_over_log": {name: round(size / log_bytes, 2) for name, size in files.items()},
        "search_docs_columns_over_log": {
            name: round(size / log_bytes, 3)
            for name, size in text_columns(data_dir / "projections.sqlite3").items()
        },
        "tables_over_log": {
            db: {name: round(size / log_bytes, 3) for name, size in sizes.items()}
            for db, sizes in tables.items()
        },
    }


async def measure(size: int, count: int, per_conversation: int, words: list[str]) -> dict[str, Any]:
    """Fill a fresh data dir through a real daemon and return its breakdown."""
    with tempfile.TemporaryDirectory(prefix="memoryd-storage-") as tmp:
        data_dir, socket, log = Path(tmp) / "data", Path(tmp) / "memoryd.sock", Path(tmp) / "log"
        process = serve(data_dir, socket, log)
        text_bytes = 0
        try:
            await until_ready(socket, process)
            async with session(socket) as client:
                last = 0
                for cid, messages in batches(size, count, per_conversation, words):
                    text_bytes += sum(len(m["content"].encode()) for m in messages)
                    status, body = await call(
                        client,
                        "POST",
                        f"/v1/conversations/{cid}/messages:batch",
                        {"messages": messages},
                    )
                    if status != 201:
                        raise RuntimeError(f"write refused: {status} {body}")
                    last = max(r["position"] for r in body["results"])
                await until_folded(client, last)
        finally:
            stop(process)
        return {
            "text_bytes": size,
            "messages": count,
            "mean_text_bytes": round(text_bytes / count),
            **breakdown(data_dir),
        }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="40,4000", help="message text sizes in bytes")
    parser.add_argument("--count", type=int, default=5000, help="messages per size")
    parser.add_argument("--per-conversation", type=int, default=50)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    words = corpus_words()
    for size in (int(s) for s in args.sizes.split(",")):
        result = await measure(size, args.count, args.per_conversation, words)
        print(json.dumps(result, indent=None if args.json else 2), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
