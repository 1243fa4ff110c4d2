"""kill -9 under load: is every acknowledged write in the log, once, at gapless positions?

Each trial starts ``memoryd serve --data-dir D --socket D/memoryd.sock`` on a fresh temporary
data dir with the default configuration (SQLite, the projection process, retrospectives on),
and runs ``--writers`` concurrent clients over the unix socket. Each writes, in turn, a
message (its idempotency key in the body or in the ``Idempotency-Key`` header), a fact (header
key) and a ``messages:batch`` of 2-20 messages (header key), every text carrying a unique tag.
At a random moment (uniform in ``--kill-after``) the daemon's whole process group (the daemon
and its projection process) gets SIGKILL. Then:

1. ``memoryd projections verify`` on the data dir as the kill left it;
2. ``memoryd serve`` again; every request that was in flight at the kill (sent, no answer)
   is sent again, same key and body (a client's retry): it must succeed, and then counts as
   acknowledged; ``--replays`` acknowledged requests are sent again too and must answer the
   ids they answered first;
3. every acknowledged message (by id) and fact (its ``FactWritten``) must be in the log
   (``GET /v1/events``) and every message in its conversation's listing; no tag (a write's
   text) and no idempotency key may occur twice;
4. after a clean stop: ``memoryd events export`` must give positions 1..N and stream versions
   1..n per stream, and ``memoryd projections verify`` must say equal.

A last trial (``--child-trials``) kills only the projection process: the daemon must restart
it and go on acknowledging writes, and reads meanwhile must be answered (a 200 that says how
far behind it is via ``X-Memoryd-Behind``), not refused.

    .venv/bin/python -m bench.kill_trials [--trials 5] [--child-trials 1] [--writers 8]
        [--kill-after 2,8] [--seed 23] [--json]

Every daemon started is stopped (its process group killed) on the way out.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

MEMORYD = Path(sys.executable).with_name("memoryd")
WORDS = ["tea", "hiking", "Lisbon", "piano", "chess", "sushi", "jazz", "Oslo", "yoga"]
CONNECTION_ERRORS = (aiohttp.ClientError, ConnectionError, asyncio.TimeoutError)


@dataclass
class Write:
    """One request a writer made, and what it got."""

    kind: str  # message | fact | batch
    path: str
    body: dict[str, Any]
    headers: dict[str, str]
    key: str
    tags: list[str]
    answer: Any = None  # the 2xx body, once acknowledged


@dataclass
class Load:
    """What the writers did: acknowledged, in doubt (sent, no answer), refused."""

    acknowledged: list[Write] = field(default_factory=list)
    in_doubt: list[Write] = field(default_factory=list)
    refused: Counter[int] = field(default_factory=Counter)
    reads: Counter[str] = field(default_factory=Counter)
    slowest_read_s: float = 0.0


def environment() -> dict[str, str]:
    """The caller's environment without memoryd settings: the default configuration."""
    return {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("MEMORYD_") and k not in ("STATE_DIRECTORY", "RUNTIME_DIRECTORY")
    }


def serve(data_dir: Path) -> subprocess.Popen[bytes]:
    """Start ``memoryd serve`` on ``data_dir`` in its own process group."""
    with (data_dir.parent / "memoryd.log").open("ab") as out:
        return subprocess.Popen(
            [
                str(MEMORYD),
                "serve",
                "--data-dir",
                str(data_dir),
                "--socket",
                str(data_dir / "memoryd.sock"),
            ],
            env=environment(),
            stdout=out,
            stderr=out,
            start_new_session=True,
        )


def kill_group(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL the daemon's process group (the daemon and its projection process)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def stop(process: subprocess.Popen[bytes], timeout: float = 60) -> int:
    """SIGTERM the daemon and wait; SIGKILL its group if it does not stop in time."""
    process.send_signal(signal.SIGTERM)
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(process)
        raise


def children(pid: int) -> list[int]:
    """Return the pids of a process's children."""
    text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    return [int(p) for p in text.split()]


def session(socket: Path) -> aiohttp.ClientSession:
    return aiohttp.ClientSession(
        connector=aiohttp.UnixConnector(path=str(socket)),
        timeout=aiohttp.ClientTimeout(total=60),
    )


async def call(
    client: aiohttp.ClientSession,
    method: str,
    path: str,
    body: Any = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, Any, dict[str, str]]:
    """Make one request; return its status, JSON body and headers."""
    async with client.request(
        method, f"http://memoryd{path}", json=body, headers=headers or {}
    ) as resp:
        data = await resp.json() if resp.content_type == "application/json" else await resp.text()
        return resp.status, data, dict(resp.headers)


async def until_ready(
    socket: Path, process: subprocess.Popen[bytes], timeout: float = 300
) -> float:
    """Wait until ``/v1/health`` answers 200; return how long that took."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if process.poll() is not None:
            raise RuntimeError(f"memoryd exited with {process.returncode}")
        with contextlib.suppress(*CONNECTION_ERRORS, FileNotFoundError):
            async with session(socket) as client:
                status, _, _ = await call(client, "GET", "/v1/health")
                if status == 200:
                    return time.monotonic() - start
        await asyncio.sleep(0.05)
    raise RuntimeError("memoryd did not become ready")


def make_write(trial: int, writer: int, n: int, rng: random.Random) -> Write:
    """The ``n``th request of one writer: a message, a fact or a batch, in turn."""
    tag = f"kt{trial}w{writer}n{n}"
    key = f"key-{tag}"
    cid = f"c{writer}-{n // 60}"
    word = rng.choice(WORDS)
    kind = ("message", "fact", "batch")[n % 3]
    if kind == "message":
        body: dict[str, Any] = {"role": "user", "content": f"{tag}: I really like {word}."}
        headers: dict[str, str] = {}
        if n % 2:
            body["idempotency_key"] = key
        else:
            headers["Idempotency-Key"] = key
        return Write(kind, f"/v1/conversations/{cid}/messages", body, headers, key, [tag])
    if kind == "fact":
        body = {"text": f"{tag}: Person {tag} likes {word}", "subject": f"Person {tag}"}
        return Write(kind, "/v1/facts", body, {"Idempotency-Key": key}, key, [tag])
    size = rng.randint(2, 20)
    tags = [f"{tag}b{i}" for i in range(size)]
    messages = [
        {"role": ("user", "assistant")[i % 2], "content": f"{t}: we talked about {word}."}
        for i, t in enumerate(tags)
    ]
    path = f"/v1/conversations/{cid}/messages:batch"
    return Write(kind, path, {"messages": messages}, {"Idempotency-Key": key}, key, tags)


async def send(client: aiohttp.ClientSession, write: Write) -> tuple[int, Any]:
    status, body, _ = await call(client, "POST", write.path, write.body, write.headers)
    return status, body


async def writer(
    socket: Path, trial: int, index: int, load: Load, until: asyncio.Event, seed: int
) -> None:
    """Write until ``until`` is set (or the daemon is gone); record every outcome."""
    rng = random.Random(seed * 1000 + index)
    async with session(socket) as client:
        for n in itertools.count():
            if until.is_set():
                return
            write = make_write(trial, index, n, rng)
            try:
                status, body = await send(client, write)
            except CONNECTION_ERRORS:
                load.in_doubt.append(write)
                return
            if status in (200, 201):
                write.answer = body
                load.acknowledged.append(write)
            else:
                load.refused[status] += 1


async def reader(socket: Path, load: Load, until: asyncio.Event) -> None:
    """List a conversation now and then; count how reads were answered."""
    async with session(socket) as client:
        while not until.is_set():
            start = time.monotonic()
            try:
                status, _, headers = await call(client, "GET", "/v1/conversations/c0-0/messages")
            except CONNECTION_ERRORS:
                return
            load.slowest_read_s = max(load.slowest_read_s, time.monotonic() - start)
            behind = int(headers.get("X-Memoryd-Behind", "0"))
            load.reads[f"{status}{' behind' if behind else ''}"] += 1
            await asyncio.sleep(0.02)


def ids_of(write: Write) -> list[str]:
    """The message or fact ids an acknowledged write answered."""
    answer = write.answer
    if write.kind == "batch":
        return [r["message_id"] for r in answer["results"]]
    return [answer["message_id"] if write.kind == "message" else answer["fact_id"]]


def position_of(write: Write) -> int:
    """The log position an acknowledged write answered (a batch: its last)."""
    answer = write.answer
    if write.kind == "batch":
        return max(int(r["position"]) for r in answer["results"])
    return int(answer["position"])


async def read_log(client: aiohttp.ClientSession) -> list[dict[str, Any]]:
    """Every event of the default namespace, through ``GET /v1/events``."""
    events: list[dict[str, Any]] = []
    after = 0
    while True:
        status, body, _ = await call(client, "GET", f"/v1/events?after={after}&limit=1000")
        if status != 200:
            raise RuntimeError(f"GET /v1/events: {status} {body}")
        if not body["events"]:
            return events
        events.extend(body["events"])
        after = body["last_position"]


async def listed(client: aiohttp.ClientSession, cid: str) -> set[str]:
    found: set[str] = set()
    after = ""
    while True:
        query = "?limit=1000" + (f"&after={after}" if after else "")
        status, body, _ = await call(client, "GET", f"/v1/conversations/{cid}/messages{query}")
        if status != 200:
            return found
        found.update(m["message_id"] for m in body["messages"])
        if len(body["messages"]) < 1000:
            return found
        after = body["messages"][-1]["message_id"]


def text_of(event: dict[str, Any]) -> str:
    data = event["data"]
    if event["event_type"] == "MessageAppended":
        content = data["content"]
        return content if isinstance(content, str) else json.dumps(content)
    if event["event_type"] == "FactWritten":
        return str(data["text"])
    return ""


async def check_log(client: aiohttp.ClientSession, load: Load) -> dict[str, Any]:
    """Lost, duplicated and unlisted writes, from the log and the listings."""
    events = await read_log(client)
    messages = {e["data"]["message_id"] for e in events if e["event_type"] == "MessageAppended"}
    facts = {e["data"]["fact_id"] for e in events if e["event_type"] == "FactWritten"}
    lost = 0
    conversations: dict[str, set[str]] = {}
    for write in load.acknowledged:
        found = messages if write.kind != "fact" else facts
        lost += sum(1 for i in ids_of(write) if i not in found)
        if write.kind != "fact":
            cid = write.path.split("/")[3].split(":")[0]
            conversations.setdefault(cid, set()).update(ids_of(write))
    unlisted = 0
    for cid, ids in conversations.items():
        unlisted += len(ids - await listed(client, cid))
    # Only the writers' own events (their keys): a retrospective may quote a tag in a fact.
    ours = [e for e in events if (e["idempotency_key"] or "").startswith("key-")]
    tags = Counter(text.split(":")[0] for text in map(text_of, ours) if text)
    keys = Counter(e["idempotency_key"] for e in ours)
    return {
        "lost": lost,
        "unlisted": unlisted,
        "duplicates": sum(n - 1 for n in tags.values() if n > 1)
        + sum(n - 1 for n in keys.values() if n > 1),
        "tags_in_log": len(tags),
    }


def export_check(data_dir: Path) -> dict[str, Any]:
    """Positions 1..N and stream versions 1..n, from ``memoryd events export``."""
    out = subprocess.run(
        [str(MEMORYD), "events", "export", "--data-dir", str(data_dir)],
        env=environment(),
        capture_output=True,
        check=True,
    ).stdout
    records = [json.loads(line) for line in out.splitlines() if line.strip()]
    positions = [r["position"] for r in records]
    versions: dict[str, list[int]] = {}
    for r in records:
        versions.setdefault(r["stream_id"], []).append(r["stream_version"])
    streams_gapless = all(v == list(range(1, len(v) + 1)) for v in versions.values())
    return {
        "events": len(records),
        "gapless": positions == list(range(1, len(records) + 1)) and streams_gapless,
    }


def verify(data_dir: Path) -> str:
    """``memoryd projections verify``: 'equal' or what it said."""
    done = subprocess.run(
        [str(MEMORYD), "projections", "verify", "--data-dir", str(data_dir)],
        env=environment(),
        capture_output=True,
        text=True,
    )
    said = (done.stdout + done.stderr).strip()
    return "equal" if done.returncode == 0 and "equal" in said else f"rc {done.returncode}: {said}"


async def run_load(
    load: Load, socket: Path, trial: int, writers: int, seed: int, moment: float, on_moment: Any
) -> None:
    """Run the writers (and a reader) into ``load``; call ``on_moment`` after ``moment`` s."""
    until = asyncio.Event()
    tasks = [
        asyncio.create_task(writer(socket, trial, i, load, until, seed)) for i in range(writers)
    ]
    tasks.append(asyncio.create_task(reader(socket, load, until)))
    await asyncio.sleep(moment)
    await on_moment(until)
    await asyncio.gather(*tasks)


async def retry(socket: Path, load: Load, replays: int, rng: random.Random) -> dict[str, Any]:
    """Send in-doubt requests again (they then count as acknowledged) and replay a sample."""
    failed: list[Any] = []
    mismatched = 0
    committed = 0
    async with session(socket) as client:
        _, health, _ = await call(client, "GET", "/v1/health")
        for write in load.in_doubt:
            status, body = await send(client, write)
            if status in (200, 201):
                write.answer = body
                load.acknowledged.append(write)
                # Answered from the log by its key: it was committed before the kill.
                committed += position_of(write) <= health["last_position"]
            else:
                failed.append((status, body))
        sample = rng.sample(load.acknowledged, min(replays, len(load.acknowledged)))
        for write in sample:
            status, body = await send(client, write)
            again = Write(write.kind, write.path, write.body, write.headers, write.key, [], body)
            if status not in (200, 201) or ids_of(again) != ids_of(write):
                mismatched += 1
    return {
        "in_doubt_committed": committed,
        "retry_failed": failed,
        "replayed": len(sample),
        "replay_mismatched": mismatched,
    }


def prepare(
    trial: int, args: argparse.Namespace, work: Path
) -> tuple[random.Random, Path, Path, float]:
    """A trial's random source, data dir, socket and moment of the kill."""
    rng = random.Random(args.seed + trial)
    data_dir = work / "data"
    data_dir.mkdir()
    low, high = (float(x) for x in args.kill_after.split(","))
    return rng, data_dir, data_dir / "memoryd.sock", rng.uniform(low, high)


def finish(result: dict[str, Any], load: Load, data_dir: Path) -> dict[str, Any]:
    """Add the counts, the export's continuity and ``projections verify`` (daemon stopped)."""
    result["acknowledged"] = len(load.acknowledged)
    result["acknowledged_messages_and_facts"] = sum(len(ids_of(w)) for w in load.acknowledged)
    result.update(export_check(data_dir))
    result["verify"] = verify(data_dir)
    return result


async def kill_trial(trial: int, args: argparse.Namespace, work: Path) -> dict[str, Any]:
    """Writers, kill -9 of the group at a random moment, restart, check."""
    rng, data_dir, socket, moment = prepare(trial, args, work)
    result: dict[str, Any] = {"trial": trial, "kill_after_s": round(moment, 2)}
    process = serve(data_dir)
    try:
        await until_ready(socket, process)

        async def kill(until: asyncio.Event) -> None:
            kill_group(process)
            until.set()

        load = Load()
        await run_load(load, socket, trial, args.writers, args.seed + trial, moment, kill)
    finally:
        kill_group(process)
    result["acknowledged_before_kill"] = len(load.acknowledged)
    result["in_doubt"] = len(load.in_doubt)
    result["refused"] = dict(load.refused)
    result["verify_after_kill"] = verify(data_dir)
    process = serve(data_dir)
    try:
        result["restart_s"] = round(await until_ready(socket, process), 2)
        result.update(await retry(socket, load, args.replays, rng))
        async with session(socket) as client:
            result.update(await check_log(client, load))
    finally:
        result["exit_status"] = stop(process)
    return finish(result, load, data_dir)


async def child_trial(trial: int, args: argparse.Namespace, work: Path) -> dict[str, Any]:
    """Writers and a reader; kill -9 only the projection process; writes must go on."""
    _, data_dir, socket, moment = prepare(trial, args, work)
    result: dict[str, Any] = {"trial": f"{trial} (child)", "kill_after_s": round(moment, 2)}
    process = serve(data_dir)
    try:
        await until_ready(socket, process)
        before: list[int] = []
        load = Load()

        async def kill_child(until: asyncio.Event) -> None:
            before.extend(children(process.pid))
            for pid in before:
                os.kill(pid, signal.SIGKILL)
            result["acknowledged_at_kill"] = len(load.acknowledged)
            await asyncio.sleep(args.child_window)
            until.set()

        await run_load(load, socket, trial, args.writers, args.seed + trial, moment, kill_child)
        result["daemon_alive"] = process.poll() is None
        after = children(process.pid) if process.poll() is None else []
        result["child_restarted"] = bool(after) and not set(after) & set(before)
        result["acknowledged_after_child_kill"] = (
            len(load.acknowledged) - result["acknowledged_at_kill"]
        )
        result["in_doubt"] = len(load.in_doubt)
        result["refused"] = dict(load.refused)
        result["reads"] = dict(load.reads)
        result["slowest_read_s"] = round(load.slowest_read_s, 2)
        async with session(socket) as client:
            result.update(await check_log(client, load))
    finally:
        result["exit_status"] = stop(process) if process.poll() is None else process.returncode
        kill_group(process)
    return finish(result, load, data_dir)


def in_flight(result: dict[str, Any]) -> str:
    if "in_doubt_committed" not in result:
        return str(result["in_doubt"])
    return f"{result['in_doubt']} ({result['in_doubt_committed']} committed before the kill)"


def table(results: list[dict[str, Any]]) -> str:
    head = (
        "| trial | killed at | acknowledged (requests / items) | in flight, retried | lost "
        "| duplicates | unlisted | gapless | verify after kill | verify after restart |"
    )
    lines = [head, "|" + "---|" * 10]
    for r in results:
        lines.append(
            f"| {r['trial']} | {r['kill_after_s']} s | {r['acknowledged']} / "
            f"{r['acknowledged_messages_and_facts']} | {in_flight(r)} | {r['lost']} "
            f"| {r['duplicates']} | {r['unlisted']} | {'yes' if r['gapless'] else 'NO'} "
            f"| {r.get('verify_after_kill', '-')} | {r['verify']} |"
        )
    return "\n".join(lines)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--child-trials", type=int, default=1)
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--kill-after", default="2,8", help="seconds: low,high (uniform)")
    parser.add_argument("--child-window", type=float, default=5, help="writes after the kill")
    parser.add_argument("--replays", type=int, default=200)
    parser.add_argument("--seed", type=int, default=23)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = []
    for trial in range(1, args.trials + args.child_trials + 1):
        with tempfile.TemporaryDirectory(prefix="memoryd-kill-") as work:
            run = kill_trial if trial <= args.trials else child_trial
            try:
                result = await run(trial, args, Path(work))
            except Exception:
                log = Path(work) / "memoryd.log"
                print(f"--- the daemon's log:\n{log.read_text()[-5000:]}", file=sys.stderr)
                raise
        print(json.dumps(result), file=sys.stderr if not args.json else sys.stdout, flush=True)
        results.append(result)
    if not args.json:
        print(table(results))


if __name__ == "__main__":
    asyncio.run(main())
