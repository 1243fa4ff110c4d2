"""Fill a small filesystem through the API until writes are refused; restart; count losses.

Needs root (it mounts a tmpfs). For each message size, and for the reserve as configured
(``--reserve-mib``, default 32: writes are refused early) and off (``0``: the disk really fills
to the last byte), it:

1. mounts a tmpfs of ``--size-mib`` (default 64) and runs ``memoryd serve`` with its data dir
   there (socket outside);
2. appends batches of messages (English text, see ``bench/storage.py``) until the daemon
   refuses one, recording every acknowledged message id. A 507 that comes while the fold is
   behind (the reserve counts what the projections still need) is waited out as an importer
   would: the fold catches up, then the batch is sent again; the run ends at a 507 with the
   fold caught up (or unable to move). Reads (a list, a search, ``/v1/health``) must still
   be answered;
3. stops the daemon (it must exit 0), restarts it on the same nearly full filesystem, waits
   until it serves, and checks that every acknowledged message is in the log
   (``/v1/events``) and listed (unless the fold cannot move), and what a write gets;
4. reports the refusal, the free space at each step, the data dir's size as a multiple of
   the event log, and any 5xx other than 507.

    sudo .venv/bin/python -m bench.disk_full [--size-mib 64] [--sizes 40,4000] [--reserve-mib 32,0]

The mount and any daemon left behind are removed on the way out, whatever happened.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import aiohttp

from bench.storage import (
    MiB,
    batches,
    call,
    corpus_words,
    file_sizes,
    serve,
    session,
    stop,
    until_embedded,
    until_ready,
)

LIST_PAGE = 1000
LOG_PAGE = 1000


async def _listed(client: aiohttp.ClientSession, cid: str) -> tuple[int, set[str]]:
    """Return the status of listing a conversation and the message ids it lists."""
    listed: set[str] = set()
    after = None
    while True:
        query = f"?limit={LIST_PAGE}" + (f"&after={after}" if after else "")
        status, body = await call(client, "GET", f"/v1/conversations/{cid}/messages{query}")
        if status != 200:
            return status, listed
        page = body["messages"]
        listed.update(m["message_id"] for m in page)
        if len(page) < LIST_PAGE:
            return status, listed
        after = page[-1]["message_id"]


async def _post_batch(
    client: aiohttp.ClientSession, cid: str, messages: list[dict[str, Any]]
) -> tuple[int, Any]:
    return await call(
        client, "POST", f"/v1/conversations/{cid}/messages:batch", {"messages": messages}
    )


async def _logged_messages(client: aiohttp.ClientSession) -> set[str]:
    """Return the id of every message the log holds (``/v1/events``, page by page)."""
    found: set[str] = set()
    after = 0
    while True:
        status, body = await call(client, "GET", f"/v1/events?after={after}&limit={LOG_PAGE}")
        if status != 200:
            raise RuntimeError(f"reading the log failed: {status} {body}")
        for event in body["events"]:
            if event["event_type"] == "MessageAppended":
                found.add(event["data"]["message_id"])
        if not body["events"]:
            return found
        after = body["last_position"]


async def _fold_done(client: aiohttp.ClientSession, position: int, timeout: float) -> int:
    """Wait (bounded) for the fold to reach ``position``; return how far behind it stays."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    behind = position
    while loop.time() < deadline:
        status, body = await call(client, "GET", f"/v1/progress?position={position}&wait=5")
        if status == 200:
            behind = int(body["behind"])
            if body["done"]:
                return 0
    return behind


async def fill(
    mount: Path, work: Path, text_size: int, reserve_mib: int, words: list[str]
) -> dict[str, Any]:
    """One run on a fresh mount: fill, read, stop, restart, check."""
    data_dir, socket, log = mount / "data", work / "memoryd.sock", work / "memoryd.log"
    env = {"MEMORYD_STORAGE__RESERVED_SPACE": str(reserve_mib * MiB)}
    acknowledged: dict[str, set[str]] = {}
    refusal: Any = None
    other_errors: list[Any] = []
    result: dict[str, Any] = {"text_bytes": text_size, "reserve_mib": reserve_mib}
    process = serve(data_dir, socket, log, **env)
    try:
        await until_ready(socket, process)
        async with session(socket) as client:
            last = 0
            waited_out = 0
            for cid, messages in batches(text_size, 10**9, 20_000, words):
                status, body = await _post_batch(client, cid, messages)
                if status == 507 and await _fold_done(client, last, 120) == 0:
                    waited_out += 1  # refused while the fold was behind: it has caught up
                    status, body = await _post_batch(client, cid, messages)
                if status == 201:
                    acknowledged.setdefault(cid, set()).update(
                        r["message_id"] for r in body["results"]
                    )
                    last = max(r["position"] for r in body["results"])
                    continue
                if status == 507:
                    refusal = (status, body["error"]["code"], body["error"]["message"])
                    break
                other_errors.append((status, body))
                if len(other_errors) > 3:
                    break
            result["refusals_waited_out"] = waited_out
            result["free_mib_at_refusal"] = round(shutil.disk_usage(mount).free / MiB, 1)
            _, health = await call(client, "GET", "/v1/health")
            result["health_at_refusal"] = (health.get("status"), health.get("reason"))
            result["fold_behind_at_refusal"] = health.get("projection_lag")
            reads = [(await _listed(client, cid))[0] for cid in sorted(acknowledged)]
            search, _ = await call(client, "POST", "/v1/search", {"query": "what was said"})
            result["reads_while_full"] = {"lists": sorted(set(reads)), "search": search}
            result["fold_behind_after_wait"] = await _fold_done(client, last, 120)
            # The embedding cache fills in the background too: measured full, when it can.
            result["embedded"] = await until_embedded(client, timeout=120)
    finally:
        result["exit_status"] = stop(process)
    result["free_mib_at_restart"] = round(shutil.disk_usage(mount).free / MiB, 1)
    sizes = file_sizes(data_dir)  # no dbstat: SQLite may not open a file on a full disk
    log_bytes = sizes["events.sqlite3"] + sizes.get("events.sqlite3-wal", 0)
    result["log_mib"] = round(log_bytes / MiB, 2)
    result["data_dir_over_log"] = round(sum(sizes.values()) / log_bytes, 2)
    result["files_mib"] = {name: round(size / MiB, 2) for name, size in sizes.items()}
    process = serve(data_dir, socket, log, **env)
    try:
        await until_ready(socket, process)
        async with session(socket) as client:
            _, health = await call(client, "GET", "/v1/health")
            result["health_after_restart"] = (health.get("status"), health.get("reason"))
            in_log = await _logged_messages(client)
            result["lost_from_log"] = sum(len(ids - in_log) for ids in acknowledged.values())
            not_listed = 0
            for cid, ids in sorted(acknowledged.items()):
                status, listed = await _listed(client, cid)
                not_listed += len(ids - listed)
            result["not_listed_after_restart"] = not_listed
            status, body = await call(
                client,
                "POST",
                "/v1/conversations/c0/messages",
                {"role": "user", "content": "after the restart"},
            )
            result["write_after_restart"] = (status, body.get("error", {}).get("message"))
    finally:
        result["exit_status_after_restart"] = stop(process)
    result["acknowledged"] = sum(len(ids) for ids in acknowledged.values())
    result["refusal"] = refusal
    result["other_errors"] = other_errors
    return result


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size-mib", type=int, default=64)
    parser.add_argument("--sizes", default="40,4000", help="message text sizes in bytes")
    parser.add_argument("--reserve-mib", default="32,0", help="storage.reserved_space values")
    args = parser.parse_args()
    words = corpus_words()
    for text_size in (int(s) for s in args.sizes.split(",")):
        for reserve in (int(r) for r in args.reserve_mib.split(",")):
            with tempfile.TemporaryDirectory() as mount_dir, tempfile.TemporaryDirectory() as work:
                mount = Path(mount_dir)
                mount_args = ["mount", "-t", "tmpfs", "-o", f"size={args.size_mib}m", "tmpfs"]
                await asyncio.to_thread(subprocess.run, [*mount_args, str(mount)], check=True)
                try:
                    result = await fill(mount, Path(work), text_size, reserve, words)
                    print(json.dumps(result), flush=True)
                except Exception:
                    print(f"--- the daemon's log:\n{(Path(work) / 'memoryd.log').read_text()}")
                    raise
                finally:
                    # Lazily: a process still holding a file does not leave the mount behind.
                    await asyncio.to_thread(subprocess.run, ["umount", "-l", str(mount)])


if __name__ == "__main__":
    asyncio.run(main())
