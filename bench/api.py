"""Benchmark: the HTTP API over the unix socket, against a real ``memoryd serve`` process.

Usage::

    .venv/bin/python -m bench.api [--seconds 5] [--clients 16] [--batch 1000]
        [--batch-clients 4] [--rate 1000] [--dir DIR] [--socket PATH]

In one run (a fresh data dir and daemon unless ``--socket`` names a running one):

1. single: ``--clients`` concurrent clients, each POSTing one message at a time to its own
   conversation for ``--seconds``: acknowledged (201) messages per second, p50/p99 latency;
2. paced: open loop at ``--rate`` requests per second (each request starts on schedule,
   whether or not earlier ones have answered; latency measured from the scheduled start):
   p50/p99/max and the rate achieved;
3. batch: ``--batch-clients`` clients POSTing ``messages:batch`` of ``--batch`` messages:
   messages per second;
4. read: right after the batches, one GET of a conversation's messages (read-your-writes
   makes it wait, up to 5 s, for the projections to fold everything written).

Between phases the benchmark waits until the projections have caught up (reported as
``settle_after_*_s``), so one phase's backlog does not slow the next.

Targets (issue 3): single >= 2,000 acknowledged messages/s with 16 clients; batch >= 20,000
messages/s; p99 < 20 ms at 1,000 requests/s. Prints a table and a JSON line. Not run in CI.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp

BASE = "http://memoryd"
PACED_WARM_CONNECTIONS = 32
PACED_MAX_CONNECTIONS = 256


def percentile(values: list[float], q: float) -> float:
    """Return the ``q`` quantile (0..1) of ``values`` (nearest rank)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))
    return ordered[index]


class LeanConnection:
    """A minimal HTTP/1.1 keep-alive client on one unix-socket connection.

    aiohttp's client costs more CPU per request than the server it measures, and both share
    this machine's cores; this one only writes a request and reads a Content-Length body.
    """

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    @classmethod
    async def open(cls, sock: Path) -> LeanConnection:
        """Connect to the daemon's socket."""
        reader, writer = await asyncio.open_unix_connection(str(sock), limit=2**22)
        return cls(reader, writer)

    async def request(self, method: str, path: str, body: bytes = b"") -> tuple[int, bytes]:
        """Send one request and return (status, body)."""
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: memoryd\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        self.writer.write(head.encode() + body)
        raw = await self.reader.readuntil(b"\r\n\r\n")
        lines = raw.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        length = 0
        for line in lines[1:]:
            name, _, value = line.partition(":")
            if name.lower() == "content-length":
                length = int(value)
        return status, await self.reader.readexactly(length)

    async def close(self) -> None:
        """Close the connection."""
        self.writer.close()
        with contextlib.suppress(ConnectionError):
            await self.writer.wait_closed()


def _session(sock: Path, limit: int) -> aiohttp.ClientSession:
    connector = aiohttp.UnixConnector(path=str(sock), limit=limit)
    return aiohttp.ClientSession(connector=connector)


async def _wait_ready(sock: Path, proc: subprocess.Popen[bytes] | None) -> None:
    for _ in range(600):
        if proc is not None and proc.poll() is not None:
            raise SystemExit(f"memoryd exited with status {proc.returncode}")
        with contextlib.suppress(aiohttp.ClientError):
            async with _session(sock, 1) as http, http.get(f"{BASE}/v1/health") as resp:
                if resp.status == 200:
                    return
        await asyncio.sleep(0.05)
    raise SystemExit("memoryd did not become ready")


async def bench_single(sock: Path, clients: int, seconds: float) -> dict[str, Any]:
    """Run ``clients`` closed-loop posters (one connection each) for ``seconds``."""
    latencies: list[float] = []
    acked = 0
    deadline = time.perf_counter() + seconds

    async def client(n: int) -> None:
        nonlocal acked
        conn = await LeanConnection.open(sock)
        i = 0
        try:
            while time.perf_counter() < deadline:
                body = json.dumps({"role": "user", "content": f"single {n}-{i}"}).encode()
                start = time.perf_counter()
                status, _ = await conn.request(
                    "POST", f"/v1/conversations/single-{n}/messages", body
                )
                if status == 201:
                    acked += 1
                latencies.append(time.perf_counter() - start)
                i += 1
        finally:
            await conn.close()

    start = time.perf_counter()
    await asyncio.gather(*(client(n) for n in range(clients)))
    elapsed = time.perf_counter() - start
    return {
        "acked": acked,
        "per_second": acked / elapsed,
        "p50_ms": percentile(latencies, 0.5) * 1000,
        "p99_ms": percentile(latencies, 0.99) * 1000,
    }


async def bench_batch(sock: Path, clients: int, size: int, seconds: float) -> dict[str, Any]:
    """Run ``clients`` closed-loop batch posters for ``seconds``."""
    messages = 0
    latencies: list[float] = []
    deadline = time.perf_counter() + seconds

    async def client(n: int, http: aiohttp.ClientSession) -> None:
        nonlocal messages
        i = 0
        while time.perf_counter() < deadline:
            body = {
                "messages": [
                    {"role": "user", "content": f"batch {n}-{i}-{j} " + "x" * 100}
                    for j in range(size)
                ]
            }
            payload = json.dumps(body).encode()
            start = time.perf_counter()
            async with http.post(
                f"{BASE}/v1/conversations/batch-{n}/messages:batch",
                data=payload,
                headers={"Content-Type": "application/json"},
            ) as r:
                await r.read()
                if r.status != 201:
                    raise SystemExit(f"batch failed: {r.status} {await r.text()}")
            latencies.append(time.perf_counter() - start)
            messages += size
            i += 1

    async with _session(sock, clients) as http:
        start = time.perf_counter()
        await asyncio.gather(*(client(n, http) for n in range(clients)))
        elapsed = time.perf_counter() - start
    return {
        "messages": messages,
        "per_second": messages / elapsed,
        "p50_ms": percentile(latencies, 0.5) * 1000,
        "p99_ms": percentile(latencies, 0.99) * 1000,
    }


async def bench_paced(sock: Path, rate: float, seconds: float) -> dict[str, Any]:
    """Start ``rate`` POSTs per second on schedule; latency from each scheduled start.

    Open loop: a request whose turn comes takes an idle connection from the pool, or opens
    one (up to ``PACED_MAX_CONNECTIONS``), so a slow answer does not delay the next start;
    time spent waiting for a connection counts in the latency.
    """
    latencies: list[float] = []
    errors = 0
    total = int(rate * seconds)
    interval = 1.0 / rate
    idle: asyncio.Queue[LeanConnection] = asyncio.Queue()
    for _ in range(PACED_WARM_CONNECTIONS):
        idle.put_nowait(await LeanConnection.open(sock))
    opened = PACED_WARM_CONNECTIONS

    async def one(i: int, scheduled: float) -> None:
        nonlocal errors, opened
        if idle.empty() and opened < PACED_MAX_CONNECTIONS:
            opened += 1
            conn = await LeanConnection.open(sock)
        else:
            conn = await idle.get()  # waiting here counts in the latency
        body = json.dumps({"role": "user", "content": f"paced {i}"}).encode()
        try:
            status, _ = await conn.request(
                "POST", f"/v1/conversations/paced-{i % 64}/messages", body
            )
        except (OSError, asyncio.IncompleteReadError):
            errors += 1
            opened -= 1
            await conn.close()
            return
        if status != 201:
            errors += 1
        latencies.append(time.perf_counter() - scheduled)
        idle.put_nowait(conn)

    tasks = []
    start = time.perf_counter()
    for i in range(total):
        scheduled = start + i * interval
        delay = scheduled - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(one(i, scheduled)))
    await asyncio.gather(*tasks)
    elapsed = time.perf_counter() - start
    while not idle.empty():
        await idle.get_nowait().close()
    return {
        "requests": total,
        "errors": errors,
        "achieved_per_second": total / elapsed,
        "p50_ms": percentile(latencies, 0.5) * 1000,
        "p99_ms": percentile(latencies, 0.99) * 1000,
        "max_ms": max(latencies) * 1000,
        "connections": opened,
    }


async def bench_read(sock: Path) -> dict[str, Any]:
    """Time one read that must wait for the projections to fold every write."""
    async with _session(sock, 1) as http:
        start = time.perf_counter()
        async with http.get(f"{BASE}/v1/conversations/single-0/messages?limit=100") as r:
            await r.read()
            status = r.status
        first = time.perf_counter() - start
        start = time.perf_counter()
        async with http.get(f"{BASE}/v1/health") as r:
            health = await r.json()
        return {
            "status": status,
            "first_read_ms": first * 1000,
            "health_ms": (time.perf_counter() - start) * 1000,
            "last_position": health.get("last_position"),
        }


async def run(
    args: argparse.Namespace, sock: Path, proc: subprocess.Popen[bytes] | None
) -> dict[str, Any]:
    """Run every phase against the daemon on ``sock``."""
    await _wait_ready(sock, proc)
    results: dict[str, Any] = {}
    results["single"] = await bench_single(sock, args.clients, args.seconds)
    results["settle_after_single_s"] = await _wait_projected(sock)
    results["paced"] = await bench_paced(sock, args.rate, args.seconds)
    results["settle_after_paced_s"] = await _wait_projected(sock)
    results["batch"] = await bench_batch(sock, args.batch_clients, args.batch, args.seconds)
    results["read"] = await bench_read(sock)
    results["settle_after_batch_s"] = await _wait_projected(sock)
    return results


async def _wait_projected(sock: Path) -> float:
    """Wait until the projections have folded every write; return how long that took.

    Phases run one after another on a settled daemon, so one phase's projection backlog does
    not slow the next one down.
    """
    start = time.perf_counter()
    async with _session(sock, 1) as http:
        while True:
            async with http.get(f"{BASE}/v1/health") as resp:
                health = await resp.json()
            if resp.status == 200 and health["projection_lag"] == 0:
                return time.perf_counter() - start
            await asyncio.sleep(0.1)


def run_daemon_and_bench(args: argparse.Namespace) -> dict[str, Any]:
    """Start a daemon on a fresh data dir (unless given a socket) and run the benchmark."""
    if args.socket is not None:
        return asyncio.run(run(args, args.socket, None))
    with tempfile.TemporaryDirectory(prefix="memoryd-bench-", dir=args.dir) as tmp:
        data = Path(tmp) / "data"
        sock = Path(tmp) / "memoryd.sock"
        memoryd = str(Path(sys.executable).with_name("memoryd"))
        env = {**os.environ, "MEMORYD_LOGGING__LEVEL": "warning"}
        proc = subprocess.Popen(
            [memoryd, "serve", "--data-dir", str(data), "--socket", str(sock)],
            env=env,
            stdout=subprocess.DEVNULL,
        )
        try:
            return asyncio.run(run(args, sock, proc))
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=60)


def main() -> None:
    """Parse options, run, print a table and a JSON line."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--batch-clients", type=int, default=4)
    parser.add_argument("--rate", type=float, default=1000.0)
    parser.add_argument("--dir", type=Path, default=None, help="where the temporary data dir goes")
    parser.add_argument("--socket", type=Path, default=None, help="use a running daemon")
    args = parser.parse_args()
    results = run_daemon_and_bench(args)
    s, b, p, r = results["single"], results["batch"], results["paced"], results["read"]
    print(f"{'phase':<10} {'figure':>28} {'target':>16}")
    print(f"{'single':<10} {s['per_second']:>16,.0f} acked/s   {'>= 2,000/s':>16}")
    print(f"{'':<10} p50 {s['p50_ms']:.1f} ms, p99 {s['p99_ms']:.1f} ms")
    print(f"{'batch':<10} {b['per_second']:>16,.0f} msgs/s    {'>= 20,000/s':>16}")
    print(f"{'':<10} p50 {b['p50_ms']:.1f} ms, p99 {b['p99_ms']:.1f} ms per batch")
    print(
        f"{'paced':<10} p99 {p['p99_ms']:>8.1f} ms at {p['achieved_per_second']:,.0f}/s "
        f"{'p99 < 20 ms':>16}"
    )
    print(f"{'':<10} p50 {p['p50_ms']:.1f} ms, max {p['max_ms']:.1f} ms, errors {p['errors']}")
    print(
        f"{'read':<10} first read after writes {r['first_read_ms']:.0f} ms (status {r['status']})"
    )
    print(json.dumps(results))


if __name__ == "__main__":
    main()
