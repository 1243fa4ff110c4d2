"""How many idle connections the daemon holds before another client sees an error, and what
that error is; whether the daemon serves again once they go; and how long an idle one lives.

Runs ``memoryd serve`` on a fresh data dir with a loopback TCP port. Opens idle connections
(TCP, no token, nothing sent: the cheapest flood) ``--step`` at a time up to ``--flood``; after
each step another client connects and asks ``GET /v1/health``. Reports the connections held
when that client first failed, how it failed, whether it is served again once the flood has
closed, and how many lines the daemon logged meanwhile. Then, with ``--idle-seconds``, it
checks that idle connections are closed by the daemon and how long that took.

``--nofile SOFT:HARD`` starts the daemon under that open-file limit (``1024:1024`` is a unit
without ``LimitNOFILE`` whose hard limit cannot be raised; the shipped units set 65536)::

    .venv/bin/python -m bench.connections [--flood 1200] [--max-connections 1000]
        [--nofile 1024:1024] [--idle-seconds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

MiB = 1024 * 1024


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _serve(
    data_dir: Path, port: int, log: Path, env: dict[str, str], nofile: tuple[int, int] | None
) -> subprocess.Popen[bytes]:
    memoryd = Path(sys.executable).with_name("memoryd")
    environ = {
        **os.environ,
        "MEMORYD_RETROSPECTIVE__ENABLED": "false",
        "STATE_DIRECTORY": str(data_dir),
        "RUNTIME_DIRECTORY": str(data_dir.parent),
        "MEMORYD_SERVER__HTTP": f"127.0.0.1:{port}",
        **env,
    }

    def limit() -> None:
        if nofile is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, nofile)

    with log.open("ab") as out:
        return subprocess.Popen(
            [str(memoryd), "serve"],
            env=environ,
            stdout=out,
            stderr=out,
            start_new_session=True,
            preexec_fn=limit,  # only setrlimit, before exec
        )


async def _health(port: int, timeout: float = 10.0) -> tuple[Any, float]:
    """Ask ``GET /v1/health`` on a new connection; return (status or error, seconds)."""
    began = time.perf_counter()
    try:
        async with asyncio.timeout(timeout):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"GET /v1/health HTTP/1.1\r\nHost: memoryd\r\nConnection: close\r\n\r\n")
            await writer.drain()
            answer = await reader.read()
            writer.close()
    except (TimeoutError, OSError) as exc:
        return f"{type(exc).__name__}: {exc}", time.perf_counter() - began
    head, _, body = answer.partition(b"\r\n\r\n")
    status: Any = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/") else head[:40]
    if status == 200:
        return 200, time.perf_counter() - began
    return f"{status!r} {body[:160].decode(errors='replace')}", time.perf_counter() - began


async def _until_up(port: int, process: subprocess.Popen[bytes]) -> None:
    for _ in range(600):
        if process.poll() is not None:
            raise RuntimeError(f"memoryd exited with {process.returncode}")
        status, _ = await _health(port, 1.0)
        if status == 200:
            return
        await asyncio.sleep(0.1)
    raise RuntimeError("memoryd did not become ready")


def _stop(process: subprocess.Popen[bytes]) -> int:
    process.send_signal(signal.SIGTERM)
    try:
        return process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        return process.wait()


async def flood(args: argparse.Namespace, nofile: tuple[int, int] | None) -> dict[str, Any]:
    """Hold idle connections until another client fails; then let them go."""
    with tempfile.TemporaryDirectory(prefix="memoryd-conn-") as tmp:
        data_dir, log, port = Path(tmp) / "data", Path(tmp) / "log", _free_port()
        env = {
            "MEMORYD_SERVER__MAX_CONNECTIONS": str(args.max_connections),
            "MEMORYD_SERVER__IDLE_TIMEOUT": "600s",  # the flood must outlive the test
        }
        process = _serve(data_dir, port, log, env, nofile)
        held: list[asyncio.StreamWriter] = []
        result: dict[str, Any] = {"nofile": nofile, "max_connections": args.max_connections}
        try:
            await _until_up(port, process)
            lines_before = len(log.read_bytes().splitlines())
            first_error = None
            while len(held) < args.flood:
                for _ in range(args.step):
                    try:
                        _, writer = await asyncio.open_connection("127.0.0.1", port)
                    except OSError as exc:
                        result["flood_connect_error"] = f"{type(exc).__name__}: {exc}"
                        break
                    held.append(writer)
                await asyncio.sleep(0.2)  # let the daemon accept them
                status, seconds = await _health(port)
                if status != 200:
                    first_error = (len(held), status, round(seconds, 3))
                    break
            result["held_when_another_client_first_failed"] = (
                None if first_error is None else (first_error[0])
            )
            result["that_client_got"] = None if first_error is None else first_error[1]
            result["its_answer_took_s"] = None if first_error is None else first_error[2]
            result["daemon_alive"] = process.poll() is None
            for writer in held:
                writer.close()
            held.clear()
            await asyncio.sleep(1.0)
            status, seconds = await _health(port)
            result["after_the_flood"] = (status, round(seconds, 3))
            lines = log.read_bytes().splitlines()[lines_before:]
            result["log_lines_during_flood"] = len(lines)
            result["accept_error_lines"] = sum(b"accept" in line.lower() for line in lines)
        finally:
            for writer in held:
                writer.close()
            result["exit_status"] = _stop(process)
        return result


async def idle(args: argparse.Namespace) -> dict[str, Any]:
    """Open idle connections and see when the daemon closes them."""
    with tempfile.TemporaryDirectory(prefix="memoryd-idle-") as tmp:
        data_dir, log, port = Path(tmp) / "data", Path(tmp) / "log", _free_port()
        env = {"MEMORYD_SERVER__IDLE_TIMEOUT": f"{args.idle_seconds}s"}
        process = _serve(data_dir, port, log, env, None)
        try:
            await _until_up(port, process)
            began = time.perf_counter()
            pairs = [await asyncio.open_connection("127.0.0.1", port) for _ in range(args.idle)]

            async def closed_after(reader: asyncio.StreamReader) -> float:
                with contextlib.suppress(OSError):
                    await reader.read()
                return time.perf_counter() - began

            async with asyncio.timeout(args.idle_seconds * 4 + 30):
                lived = await asyncio.gather(*(closed_after(r) for r, _ in pairs))
            for _, writer in pairs:
                writer.close()
        finally:
            exit_status = _stop(process)
        return {
            "idle_timeout_s": args.idle_seconds,
            "idle_connections": args.idle,
            "closed_by_daemon_after_s": [round(min(lived), 2), round(max(lived), 2)],
            "exit_status": exit_status,
        }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--flood", type=int, default=1200)
    parser.add_argument("--step", type=int, default=50)
    parser.add_argument("--max-connections", type=int, default=1000)
    parser.add_argument(
        "--nofile", action="append", default=[], help="SOFT:HARD for the daemon (repeatable)"
    )
    parser.add_argument("--idle", type=int, default=200, help="idle connections to time")
    parser.add_argument("--idle-seconds", type=int, default=5)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = args.flood + 256
    if soft < want:  # this process holds the flood too
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))
    limits: list[tuple[int, int] | None] = [None]
    for text in args.nofile:
        low, _, high = text.partition(":")
        limits.append((int(low), int(high or low)))
    for nofile in limits:
        print(json.dumps(await flood(args, nofile)), flush=True)
    if args.idle:
        print(json.dumps(await idle(args)), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
