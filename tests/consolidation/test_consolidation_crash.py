"""A process killed while applying a plan leaves the whole application or none of it."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from daemon.backend import Backend
from daemon.consolidation.apply import apply_plan
from events.clock import SystemClock
from tests.paths import REPO_ROOT

PAIRS = 250
TRIALS = 6


def _run_and_kill(data_dir: Path, delay: float) -> tuple[str, bool]:
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.consolidation_crash_child", str(data_dir), str(PAIRS)],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )
    assert child.stdout is not None
    try:
        line = child.stdout.readline().decode()
        assert line.startswith("ready "), line
        plan_id = line.split()[1]
        time.sleep(delay)
    finally:
        child.send_signal(signal.SIGKILL)
        out, _ = child.communicate(timeout=60)
    return plan_id, b"applied\n" in out


@pytest.mark.slow
async def test_sigkill_during_apply_is_all_or_nothing(tmp_path: Path) -> None:
    """The child is killed at a random point of the apply (~1.4 s of reading the facts'
    streams, then one append); whichever it was, the log holds all of it or none."""
    rng = random.Random(7)
    outcomes = Counter[str]()
    for trial in range(TRIALS):
        data_dir = tmp_path / f"t{trial}"
        plan_id, said_applied = _run_and_kill(data_dir, rng.uniform(0.9, 1.8))
        store = Backend(data_dir=data_dir).open_store()
        await store.open()
        try:
            types = Counter([e.event.event_type async for e in store.read()])
            applied = types["PlanApplied"]
            assert applied in (0, 1)
            if said_applied:
                assert applied == 1
            if applied:
                assert types["FactWritten"] == 3 * PAIRS  # sources + one merged fact per pair
                assert types["FactSuperseded"] == 2 * PAIRS
                outcomes["whole"] += 1
            else:
                assert types["FactWritten"] == 2 * PAIRS
                assert types["FactSuperseded"] == 0
                outcomes["none"] += 1
                # and the plan can still be applied, whole
                result = await apply_plan(store, "default", plan_id, SystemClock().now())
                assert len(result.applied) == PAIRS
        finally:
            await store.close()
    assert sum(outcomes.values()) == TRIALS
