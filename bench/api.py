"""Benchmark: the HTTP API over the unix socket, against a real ``memoryd serve`` process.

Usage::

    .venv/bin/python -m bench.api [--seconds 5] [--clients 16] [--batch 1000]
        [--batch-clients 4] [--rate 1000] [--dir DIR] [--socket PATH [--pid PID]]
        [--phases single,paced,batch,read]

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

Every phase reports the CPU seconds the client (this process) and the daemon (when its pid is
known) spent in it, and the daemon's CPU per message with the fold that follows the phase: the
client and the daemon share this machine's cores, so a client that burns CPU slows the server it
measures. Every request is a pre-encoded HTTP/1.1 keep-alive request on a raw asyncio unix
stream (:class:`LeanConnection`), built before the clock starts. The load average before and
after is printed: on a machine others use, CPU per message varies less than throughput does.

Targets: single >= 2,000 acknowledged messages/s with 16 clients; batch >= 20,000
messages/s; p99 < 20 ms at 1,000 requests/s. Prints a table and a JSON line. Not run in CI.

The daemon's CPU includes its children (the projection process folds there). The client
freezes its own garbage before each phase, so that its collections do not count as the
server's latency.

Three runs in a row on this 2-core machine (load 0.3 -> 1.9), with the projections in their
own process (this version): single 3,649-3,965 acked/s, paced p99 9.0-13.8 ms, batch 23,035-39,183
msgs/s. With the projections folded on the API's loop (6630be7): single 1,771, paced p99 163
ms, batch 19,469. The read after the batch phase still answers 503 after 5 s: folding ~99,000
messages takes longer than read-your-writes waits.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import gc
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.calibration import calibration_seconds

PACED_WARM_CONNECTIONS = 32
PACED_MAX_CONNECTIONS = 256


def percentile(values: list[float], q: float) -> float:
    """Return the ``q`` quantile (0..1) of ``values`` (nearest rank)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))
    return ordered[index]


def encode_request(method: str, path: str, body: bytes = b"") -> bytes:
    """Return one HTTP/1.1 keep-alive request, ready to write."""
    head = (
        f"{method} {path} HTTP/1.1\r\nHost: memoryd\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


class LeanConnection:
    """A minimal HTTP/1.1 keep-alive client on one unix-socket connection.

    aiohttp's client costs more CPU per request than the server it measures, and both share
    this machine's cores; this one only writes a pre-encoded request and reads a
    Content-Length body.
    """

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    @classmethod
    async def open(cls, sock: Path) -> LeanConnection:
        """Connect to the daemon's socket."""
        reader, writer = await asyncio.open_unix_connection(str(sock), limit=2**22)
        return cls(reader, writer)

    async def send(self, raw: bytes) -> tuple[int, bytes]:
        """Send one encoded request (:func:`encode_request`) and return (status, body)."""
        self.writer.write(raw)
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head[9:12])
        at = head.lower().find(b"\r\ncontent-length:")
        length = 0 if at < 0 else int(head[at + 17 : head.index(b"\r\n", at + 2)])
        return status, await self.reader.readexactly(length)

    async def request(self, method: str, path: str, body: bytes = b"") -> tuple[int, bytes]:
        """Send one request and return (status, body)."""
        return await self.send(encode_request(method, path, body))

    async def close(self) -> None:
        """Close the connection."""
        self.writer.close()
        with contextlib.suppress(OSError):  # the daemon may have dropped it already
            await self.writer.wait_closed()


class CpuMeter:
    """CPU seconds spent by this process and (if its pid is known) the daemon's.

    The daemon's figure includes its child processes (the projection process folds there).
    """

    def __init__(self, daemon_pid: int | None) -> None:
        self.daemon_pid = daemon_pid
        self._tick = os.sysconf("SC_CLK_TCK")

    def daemon_seconds(self) -> float | None:
        """Return the user + system CPU seconds so far of the daemon and its children."""
        if self.daemon_pid is None:
            return None
        seconds = [self._seconds(pid) for pid in (self.daemon_pid, *self._children())]
        found = [s for s in seconds if s is not None]
        return sum(found) if found else None

    def _children(self) -> list[int]:
        children: list[int] = []
        for task in Path(f"/proc/{self.daemon_pid}/task").glob("*"):
            with contextlib.suppress(OSError):
                children.extend(int(p) for p in (task / "children").read_text().split())
        return children

    def _seconds(self, pid: int) -> float | None:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return None
        fields = stat[stat.rindex(")") + 2 :].split()
        return (int(fields[11]) + int(fields[12])) / self._tick

    def snapshot(self) -> tuple[float, float, float | None]:
        """Return (wall clock, client CPU, daemon CPU) now."""
        return time.perf_counter(), time.process_time(), self.daemon_seconds()

    def since(self, start: tuple[float, float, float | None]) -> dict[str, float | None]:
        """Return the CPU used since ``start`` (seconds, and as a share of one core)."""
        wall, client, daemon = self.snapshot()
        elapsed = wall - start[0]
        out: dict[str, float | None] = {
            "client_cpu_s": client - start[1],
            "client_cpu_share": (client - start[1]) / elapsed,
            "daemon_cpu_s": None,
            "daemon_cpu_share": None,
        }
        if daemon is not None and start[2] is not None:
            out["daemon_cpu_s"] = daemon - start[2]
            out["daemon_cpu_share"] = (daemon - start[2]) / elapsed
        return out


async def _get_json(sock: Path, path: str) -> tuple[int, Any]:
    conn = await LeanConnection.open(sock)
    try:
        status, body = await conn.request("GET", path)
    finally:
        await conn.close()
    return status, json.loads(body) if body else None


async def _wait_ready(sock: Path, proc: subprocess.Popen[bytes] | None) -> None:
    for _ in range(600):
        if proc is not None and proc.poll() is not None:
            raise SystemExit(f"memoryd exited with status {proc.returncode}")
        with contextlib.suppress(OSError, asyncio.IncompleteReadError):
            status, _ = await _get_json(sock, "/v1/health")
            if status == 200:
                return
        await asyncio.sleep(0.05)
    raise SystemExit("memoryd did not become ready")


def _single_request(n: int, i: int) -> bytes:
    body = json.dumps({"role": "user", "content": f"single {n}-{i}"}).encode()
    return encode_request("POST", f"/v1/conversations/single-{n}/messages", body)


async def bench_single(sock: Path, clients: int, seconds: float) -> dict[str, Any]:
    """Run ``clients`` closed-loop posters (one connection each) for ``seconds``."""
    latencies: list[float] = []
    acked = 0
    deadline = time.perf_counter() + seconds

    async def client(n: int) -> None:
        nonlocal acked
        conn = await LeanConnection.open(sock)
        i = 0
        raw = _single_request(n, i)
        try:
            while time.perf_counter() < deadline:
                start = time.perf_counter()
                status, _ = await conn.send(raw)
                latencies.append(time.perf_counter() - start)
                if status == 201:
                    acked += 1
                i += 1
                raw = _single_request(n, i)  # while no request is timed
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


def _batch_request(n: int, i: int, size: int) -> bytes:
    body = {
        "messages": [
            {"role": "user", "content": f"batch {n}-{i}-{j} " + "x" * 100} for j in range(size)
        ]
    }
    path = f"/v1/conversations/batch-{n}/messages:batch"
    return encode_request("POST", path, json.dumps(body).encode())


async def bench_batch(sock: Path, clients: int, size: int, seconds: float) -> dict[str, Any]:
    """Run ``clients`` closed-loop batch posters (one connection each) for ``seconds``."""
    messages = 0
    latencies: list[float] = []
    deadline = time.perf_counter() + seconds

    async def client(n: int) -> None:
        nonlocal messages
        conn = await LeanConnection.open(sock)
        i = 0
        raw = _batch_request(n, i, size)
        try:
            while time.perf_counter() < deadline:
                start = time.perf_counter()
                status, answer = await conn.send(raw)
                latencies.append(time.perf_counter() - start)
                if status != 201:
                    raise SystemExit(f"batch failed: {status} {answer.decode()}")
                messages += size
                i += 1
                raw = _batch_request(n, i, size)  # while no request is timed
        finally:
            await conn.close()

    start = time.perf_counter()
    await asyncio.gather(*(client(n) for n in range(clients)))
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
    errors: collections.Counter[str] = collections.Counter()
    total = int(rate * seconds)
    interval = 1.0 / rate
    requests = [
        encode_request(
            "POST",
            f"/v1/conversations/paced-{i % 64}/messages",
            json.dumps({"role": "user", "content": f"paced {i}"}).encode(),
        )
        for i in range(total)
    ]
    idle: asyncio.Queue[LeanConnection] = asyncio.Queue()
    for _ in range(PACED_WARM_CONNECTIONS):
        idle.put_nowait(await LeanConnection.open(sock))
    opened = PACED_WARM_CONNECTIONS

    async def one(i: int, scheduled: float) -> None:
        nonlocal opened
        if idle.empty() and opened < PACED_MAX_CONNECTIONS:
            opened += 1
            conn = await LeanConnection.open(sock)
        else:
            conn = await idle.get()  # waiting here counts in the latency
        try:
            status, _ = await conn.send(requests[i])
        except (OSError, asyncio.IncompleteReadError) as exc:
            errors[f"{type(exc).__name__} {getattr(exc, 'errno', '')}".strip()] += 1
            opened -= 1
            await conn.close()
            return
        if status != 201:
            errors[str(status)] += 1
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
        "errors": sum(errors.values()),
        "error_kinds": dict(errors),
        "achieved_per_second": total / elapsed,
        "p50_ms": percentile(latencies, 0.5) * 1000,
        "p99_ms": percentile(latencies, 0.99) * 1000,
        "max_ms": max(latencies) * 1000,
        "connections": opened,
    }


async def bench_read(sock: Path) -> dict[str, Any]:
    """Time one read that must wait for the projections to fold every write."""
    start = time.perf_counter()
    status, _ = await _get_json(sock, "/v1/conversations/single-0/messages?limit=100")
    first = time.perf_counter() - start
    start = time.perf_counter()
    _, health = await _get_json(sock, "/v1/health")
    return {
        "status": status,
        "first_read_ms": first * 1000,
        "health_ms": (time.perf_counter() - start) * 1000,
        "last_position": health.get("last_position"),
    }


PHASES = ("single", "paced", "batch", "read")


async def run(args: argparse.Namespace, sock: Path, pid: int | None) -> dict[str, Any]:
    """Run the chosen phases against the daemon on ``sock`` (process ``pid`` if known)."""
    results: dict[str, Any] = {
        "load_average_before": os.getloadavg(),
        "calibration_s": calibration_seconds(),
    }
    cpu = CpuMeter(pid)
    phases = args.phases
    for phase in phases:
        # The client's own garbage collections would show up as server latency.
        gc.collect()
        gc.freeze()
        mark = cpu.snapshot()
        if phase == "single":
            results[phase] = await bench_single(sock, args.clients, args.seconds)
        elif phase == "paced":
            results[phase] = await bench_paced(sock, args.rate, args.seconds)
        elif phase == "batch":
            results[phase] = await bench_batch(sock, args.batch_clients, args.batch, args.seconds)
        else:
            results[phase] = await bench_read(sock)
        results[phase].update(cpu.since(mark))
        if phase != "batch" or "read" not in phases:  # the read measures the batch's backlog
            results[f"settle_after_{phase}_s"] = await _wait_projected(sock)
            # Work deferred past the phase (folding its writes) is still the phase's cost.
            settled = cpu.since(mark)["daemon_cpu_s"]
            results[phase]["daemon_cpu_with_settle_s"] = settled
    # Other work on the machine shows in every figure; a load near the core count means busy.
    results["load_average_after"] = os.getloadavg()
    return results


async def _wait_projected(sock: Path) -> float:
    """Wait until the projections have folded every write; return how long that took.

    Phases run one after another on a settled daemon, so one phase's projection backlog does
    not slow the next one down.
    """
    start = time.perf_counter()
    while True:
        status, health = await _get_json(sock, "/v1/health")
        if status == 200 and health["projection_lag"] == 0:
            return time.perf_counter() - start
        await asyncio.sleep(0.1)


async def _ready_and_run(
    args: argparse.Namespace, sock: Path, proc: subprocess.Popen[bytes] | None, pid: int | None
) -> dict[str, Any]:
    await _wait_ready(sock, proc)
    return await run(args, sock, pid)


def run_daemon_and_bench(args: argparse.Namespace) -> dict[str, Any]:
    """Start a daemon on a fresh data dir (unless given a socket) and run the benchmark."""
    if args.socket is not None:
        return asyncio.run(_ready_and_run(args, args.socket, None, args.pid))
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
            return asyncio.run(_ready_and_run(args, sock, proc, proc.pid))
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=60)


def _phase_list(text: str) -> tuple[str, ...]:
    phases = tuple(p.strip() for p in text.split(",") if p.strip())
    unknown = [p for p in phases if p not in PHASES]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown phase(s) {unknown}; choose from {PHASES}")
    return phases


def _cpu_text(figures: dict[str, Any], count: int) -> str:
    text = f"client CPU {figures['client_cpu_share']:.0%}"
    daemon = figures.get("daemon_cpu_s")
    if daemon is not None:
        text += f", daemon CPU {figures['daemon_cpu_share']:.0%}"
    text += " of one core"
    if daemon is not None and count:
        text += f"; daemon {daemon / count * 1e6:,.0f} us CPU per message"
        settled = figures.get("daemon_cpu_with_settle_s")
        if settled is not None:
            text += f" ({settled / count * 1e6:,.0f} with the fold after the phase)"
    return text


def _latency(figures: dict[str, Any]) -> str:
    return f"p50 {figures['p50_ms']:.1f} ms, p99 {figures['p99_ms']:.1f} ms"


def print_table(results: dict[str, Any]) -> None:
    """Print the figures next to the targets."""
    load = results["load_average_before"][0], results["load_average_after"][0]
    print(f"calibration: a 10M-step Python loop took {results['calibration_s']:.2f} s")
    print(f"load average (1 min) {load[0]:.2f} before, {load[1]:.2f} after; {os.cpu_count()} cores")
    print(f"{'phase':<10} {'figure':>34} {'target':>14}")

    def row(phase: str, figure: str, target: str, detail: str) -> None:
        print(f"{phase:<10} {figure:>34} {target:>14}")
        print(f"{'':<10} {detail}")

    if (s := results.get("single")) is not None:
        detail = f"{_latency(s)}; {_cpu_text(s, s['acked'])}"
        row("single", f"{s['per_second']:,.0f} acked/s", ">= 2,000/s", detail)
    if (p := results.get("paced")) is not None:
        figure = f"p99 {p['p99_ms']:.1f} ms at {p['achieved_per_second']:,.0f}/s"
        errors = f"errors {p['errors']} {p['error_kinds'] or ''}".strip()
        detail = f"{_latency(p)}, max {p['max_ms']:.1f} ms, {errors}; "
        row("paced", figure, "p99 < 20 ms", detail + _cpu_text(p, p["requests"]))
    if (b := results.get("batch")) is not None:
        detail = f"{_latency(b)} per batch; {_cpu_text(b, b['messages'])}"
        row("batch", f"{b['per_second']:,.0f} msgs/s", ">= 20,000/s", detail)
    if (r := results.get("read")) is not None:
        row(
            "read",
            f"first read after writes {r['first_read_ms']:.0f} ms",
            "",
            f"status {r['status']}",
        )


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
    parser.add_argument("--pid", type=int, default=None, help="the running daemon's pid (CPU)")
    parser.add_argument(
        "--phases", type=_phase_list, default=PHASES, help="comma-separated, run in that order"
    )
    args = parser.parse_args()
    results = run_daemon_and_bench(args)
    print_table(results)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
