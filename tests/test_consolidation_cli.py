"""``memoryd consolidate preview|analyze|apply`` and ``memoryd review`` on a data dir."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest

from daemon.backend import Backend
from daemon.cli import main
from daemon.cli.consolidate_cmd import table
from events.store.base import NewEvent
from events.types import FactWritten


def _seed(data_dir: Path) -> None:
    async def go() -> None:
        store = Backend(data_dir=data_dir).open_store()
        await store.open()
        t = datetime(2026, 1, 1, tzinfo=UTC)
        await store.append(
            "default",
            [
                NewEvent(FactWritten(fact_id="a", text="Alice likes tea", valid_from=t)),
                NewEvent(FactWritten(fact_id="b", text="alice likes tea.", valid_from=t)),
            ],
        )
        await store.close()

    asyncio.run(go())


def test_table_renders_columns() -> None:
    text = table(("a", "bb"), [("x", 1), ("long", 22)])
    assert text.splitlines()[0] == "a     bb"
    assert text.splitlines()[3] == "long  22"


def test_preview_analyze_apply(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    _seed(data)
    assert main(["consolidate", "preview", "--data-dir", str(data), "--json"]) == 0
    preview = orjson.loads(capsys.readouterr().out)
    assert preview["duplicates"][0]["fact_ids"] == ["a", "b"]
    assert main(["consolidate", "analyze", "--data-dir", str(data), "--json"]) == 0
    plan = orjson.loads(capsys.readouterr().out)
    assert plan["recommendations"][0]["action"] == "merge"
    assert main(["consolidate", "apply", plan["plan_id"], "--data-dir", str(data)]) == 0
    applied = orjson.loads(capsys.readouterr().out)
    assert applied["applied"] == ["i1"]
    assert main(["consolidate", "apply", plan["plan_id"], "--data-dir", str(data)]) == 2
    assert "already applied" in capsys.readouterr().err
    assert main(["review", "--data-dir", str(data), "--json"]) == 0
    assert orjson.loads(capsys.readouterr().out) == {"items": []}
    assert main(["review", "approve", "nope", "--data-dir", str(data)]) == 2
