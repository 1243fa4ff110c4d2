"""Crash safety: SIGKILL an appending child at random moments, then check the log.

After every kill: each acknowledged append is in the log at the positions it was given, no
batch is partly visible, positions are gapless, retrying an acknowledged append with its
idempotency keys writes nothing, and the projections the child was folding catch up to exactly
what a rebuild from position 0 gives. The data dir carries over from trial to trial, so each
child also restarts on the log and projections its killed predecessor left behind.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from daemon.backend import Backend
from events.store.sqlite import SqliteEventStore, sqlite_engine
from projections.runner import ProjectionRunner
from tests.crash_child import batch_events, batch_of
from tests.paths import REPO_ROOT

TRIALS = 24


@dataclass(frozen=True, slots=True)
class Ack:
    batch_id: str
    first: int
    size: int


def run_child_until_killed(data_dir: Path, trial: int, rng: random.Random) -> list[Ack]:
    """Start the child, let it append for a random while, SIGKILL it, return its acks."""
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.crash_child", str(data_dir), f"t{trial}"],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )
    assert child.stdout is not None
    try:
        assert child.stdout.readline() == b"ready\n"
        time.sleep(rng.uniform(0.0, 0.3))
    finally:
        child.send_signal(signal.SIGKILL)
        out, _ = child.communicate(timeout=30)
    assert child.returncode == -signal.SIGKILL
    acks = []
    # A line cut short by the kill was never a complete acknowledgement.
    for line in out.decode().splitlines(keepends=True):
        if line.endswith("\n"):
            _, batch_id, first, size = line.split()
            acks.append(Ack(batch_id, int(first), int(size)))
    return acks


@pytest.mark.slow
async def test_sigkill_loses_no_acknowledged_event(tmp_path: Path) -> None:
    rng = random.Random(20260101)
    acked: list[Ack] = []
    for trial in range(TRIALS):
        acked.extend(run_child_until_killed(tmp_path, trial, rng))

        store = SqliteEventStore.in_data_dir(tmp_path)
        await store.open()
        try:
            events = [e async for e in store.read()]
            head = await store.head()
            # Gapless positions.
            assert [e.position for e in events] == list(range(1, head + 1))
            by_position = {e.position: e for e in events}
            # Every acknowledged batch is there, whole, where the append said it was.
            for ack in acked:
                for offset in range(ack.size):
                    stored = by_position[ack.first + offset]
                    assert batch_of(stored) == (ack.batch_id, offset, ack.size)
            # No batch is partly visible, acknowledged or not; and none is there twice.
            sizes = Counter((batch_id, size) for batch_id, _, size in map(batch_of, events))
            assert all(count == size for (_, size), count in sizes.items())
            # Retrying acknowledged appends returns their positions and writes nothing.
            for ack in rng.sample(acked, min(3, len(acked))):
                retry = batch_events(ack.batch_id, ack.size)
                assert await store.append("default", retry) == list(
                    range(ack.first, ack.first + ack.size)
                )
            assert await store.head() == head

            # The projections the child was folding catch up to what a rebuild gives.
            live = ProjectionRunner(store, Backend(tmp_path).projection_engine(write=True))
            scratch = ProjectionRunner(
                store, sqlite_engine(tmp_path / f"scratch-{trial}.sqlite3", write=True)
            )
            try:
                await live.setup()
                assert await live.catch_up() == head
                assert await scratch.rebuild() == head
                assert await live.digest() == await scratch.digest()
            finally:
                await live.engine.dispose()
                await scratch.engine.dispose()
        finally:
            await store.close()
    print(f"{len(acked)} acknowledged appends, head {head}")
    assert len(acked) > TRIALS  # the children did get work acknowledged
