"""Fill a small filesystem through the API until writes are refused; restart; count losses.

Needs root (it mounts a tmpfs). For each message size it:

1. mounts a tmpfs of ``--size-mib`` (default 64) and runs ``memoryd serve`` with its data dir
   there (socket outside);
2. appends batches of messages until the daemon refuses one, recording every acknowledged
   message id;
3. reports how the refusal looked, the free space left, and the data dir's size as a multiple
   of the event log (``events.sqlite3``);
4. stops the daemon, restarts it on the same (nearly full) filesystem, waits until it is ready,
   and checks that every acknowledged message is listed and that writes are still refused.

    sudo .venv/bin/python -m bench.disk_full [--size-mib 64] [--sizes 40,4000]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import aiohttp

MiB = 1024 * 1024


async def _call(session: aiohttp.ClientSession, method: str, path: str, body: Any = None) -> Any:
    async with session.request(method, f"http://memoryd{path}", json=body) as resp:
        return resp.status, await resp.json()


async def _until_ready(socket: Path, process: subprocess.Popen[bytes]) -> None:
    for _ in range(1200):
        if process.poll() is not None:
            raise RuntimeError(f"memoryd exited with {process.returncode}")
        try:
            async with aiohttp.ClientSession(
                connector=aiohttp.UnixConnector(path=str(socket))
            ) as session:
                status, _ = await _call(session, "GET", "/v1/health")
                if status == 200:
                    return
        except (aiohttp.ClientError, FileNotFoundError):
            pass
        await asyncio.sleep(0.1)
    raise RuntimeError("memoryd did not become ready")


def _serve(data_dir: Path, socket: Path, log: Path) -> subprocess.Popen[bytes]:
    memoryd = Path(sys.executable).with_name("memoryd")
    env = {**os.environ, "MEMORYD_RETROSPECTIVE__ENABLED": "false"}
    with log.open("ab") as out:
        return subprocess.Popen(
            [str(memoryd), "serve"],
            env={**env, "STATE_DIRECTORY": str(data_dir), "RUNTIME_DIRECTORY": str(socket.parent)},
            stdout=out,
            stderr=out,
        )


def _stop(process: subprocess.Popen[bytes]) -> int:
    process.send_signal(signal.SIGTERM)
    return process.wait(timeout=120)


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


async def run_one(mount: Path, work: Path, text_size: int, batch: int) -> dict[str, Any]:
    data_dir, socket, log = mount / "data", work / "memoryd.sock", work / "memoryd.log"
    process = _serve(data_dir, socket, log)
    acknowledged: list[str] = []
    refusal: Any = None
    try:
        await _until_ready(socket, process)
        async with aiohttp.ClientSession(
            connector=aiohttp.UnixConnector(path=str(socket))
        ) as session:
            n = 0
            while refusal is None:
                messages = [
                    {"role": "user", "content": f"{n + i} " + "x" * text_size} for i in range(batch)
                ]
                n += batch
                status, body = await _call(
                    session, "POST", "/v1/conversations/c1/messages:batch", {"messages": messages}
                )
                if status == 201:
                    acknowledged.extend(r["message_id"] for r in body["results"])
                else:
                    refusal = (status, body["error"]["code"], body["error"]["message"])
            _, health = await _call(session, "GET", "/v1/health")
        free_at_refusal = shutil.disk_usage(mount).free
        log_bytes = (data_dir / "events.sqlite3").stat().st_size
        dir_bytes = _size(data_dir)
    finally:
        stopped = _stop(process)
    free_before_restart = shutil.disk_usage(mount).free
    process = _serve(data_dir, socket, log)
    try:
        await _until_ready(socket, process)
        async with aiohttp.ClientSession(
            connector=aiohttp.UnixConnector(path=str(socket))
        ) as session:
            listed: set[str] = set()
            after = None
            while True:
                query = "?limit=1000" + (f"&after={after}" if after else "")
                status, body = await _call(session, "GET", f"/v1/conversations/c1/messages{query}")
                page = body["messages"]
                listed.update(m["message_id"] for m in page)
                if len(page) < 1000:
                    break
                after = page[-1]["message_id"]
            status_after, body_after = await _call(
                session,
                "POST",
                "/v1/conversations/c1/messages",
                {"role": "user", "content": "after the restart"},
            )
    finally:
        restarted_stop = _stop(process)
    return {
        "text_bytes": text_size,
        "acknowledged": len(acknowledged),
        "lost": len(set(acknowledged) - listed),
        "refusal": refusal,
        "health_at_refusal": health.get("status"),
        "free_mib_at_refusal": round(free_at_refusal / MiB, 1),
        "free_mib_at_restart": round(free_before_restart / MiB, 1),
        "log_mib": round(log_bytes / MiB, 1),
        "data_dir_mib": round(dir_bytes / MiB, 1),
        "data_dir_over_log": round(dir_bytes / log_bytes, 2),
        "write_after_restart": (status_after, body_after.get("error", {}).get("code")),
        "exit_statuses": (stopped, restarted_stop),
    }


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size-mib", type=int, default=64)
    parser.add_argument("--sizes", default="40,4000", help="message text sizes in bytes")
    args = parser.parse_args()
    for text_size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as mount_dir, tempfile.TemporaryDirectory() as work:
            mount = Path(mount_dir)
            mount_args = ["mount", "-t", "tmpfs", "-o", f"size={args.size_mib}m", "tmpfs"]
            await asyncio.to_thread(subprocess.run, [*mount_args, str(mount)], check=True)
            try:
                batch = 500 if text_size < 1000 else 50
                print(await run_one(mount, Path(work), text_size, batch), flush=True)
            finally:
                await asyncio.to_thread(subprocess.run, ["umount", str(mount)], check=True)


if __name__ == "__main__":
    asyncio.run(main())
