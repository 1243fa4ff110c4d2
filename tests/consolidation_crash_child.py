"""The child of the consolidation crash test: make a big plan, then apply it until SIGKILLed.

Usage: ``python -m tests.consolidation_crash_child DATA_DIR PAIRS``. It writes ``PAIRS`` pairs
of duplicate facts, stores a plan merging each pair (read straight from the log, no
projections needed), prints ``ready <plan id>``, applies the plan (one append of
``3 * PAIRS + 1`` events) and prints ``applied``.
"""

from __future__ import annotations

import asyncio
import sys
from datetime import UTC, datetime
from pathlib import Path

from daemon.backend import Backend
from daemon.consolidation.apply import apply_plan
from daemon.consolidation.plans import append_plan, build_plan
from events.store.base import NewEvent
from events.types import FactWritten

T0 = datetime(2026, 1, 1, tzinfo=UTC)


async def main(data_dir: Path, pairs: int) -> None:
    store = Backend(data_dir=data_dir).open_store()
    await store.open()
    facts = [
        NewEvent(FactWritten(fact_id=f"f{i}-{k}", text=f"fact number {i}", valid_from=T0))
        for i in range(pairs)
        for k in (0, 1)
    ]
    await store.append("default", facts)
    items = [
        {
            "item_id": f"i{i}",
            "action": "merge",
            "fact_ids": [f"f{i}-0", f"f{i}-1"],
            "merged_text": f"fact number {i}",
            "confidence": 1.0,
            "reasoning": "exact duplicates",
        }
        for i in range(pairs)
    ]
    plan = await build_plan(store, "default", items, T0)
    await append_plan(store, "default", plan)
    print(f"ready {plan.plan_id}", flush=True)
    await apply_plan(store, "default", plan.plan_id, T0)
    print("applied", flush=True)
    await store.close()


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), int(sys.argv[2])))
