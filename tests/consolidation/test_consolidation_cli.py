"""``memoryd consolidate preview|analyze|apply`` and ``memoryd review`` against a daemon."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest

from daemon.backend import Backend
from daemon.cli.client_cmd import EXIT_API_ERROR, EXIT_NO_DAEMON
from daemon.cli.consolidate_cmd import table
from events.store.base import NewEvent
from events.types import FactWritten
from tests.api_fixtures import make_config, running
from tests.cli.test_client_cli import memoryd


async def _seed(data_dir: Path) -> None:
    store = Backend(data_dir=data_dir).open_store()
    await store.open()
    t = datetime(2026, 1, 1, tzinfo=UTC)
    try:
        await store.append(
            "default",
            [
                NewEvent(FactWritten(fact_id="a", text="Alice likes tea", valid_from=t)),
                NewEvent(FactWritten(fact_id="b", text="alice likes tea.", valid_from=t)),
            ],
        )
    finally:
        await store.close()


def test_table_renders_columns() -> None:
    text = table(("a", "bb"), [("x", 1), ("long", 22)])
    assert text.splitlines()[0] == "a     bb"
    assert text.splitlines()[3] == "long  22"


async def test_preview_analyze_apply_review(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = make_config(tmp_path)
    await _seed(config.storage.data_dir)
    sock = ["--socket", str(config.server.socket)]
    async with running(config):
        assert await memoryd("consolidate", "preview", *sock, "--json") == 0
        preview = orjson.loads(capsys.readouterr().out)
        assert preview["duplicates"][0]["fact_ids"] == ["a", "b"]
        assert await memoryd("consolidate", "analyze", *sock) == 0  # not a terminal: JSON
        plan = orjson.loads(capsys.readouterr().out)
        assert plan["recommendations"][0]["action"] == "merge"
        assert await memoryd("consolidate", "apply", plan["plan_id"], *sock) == 0
        applied = orjson.loads(capsys.readouterr().out)
        assert applied["applied"] == ["i1"]
        # The daemon's own reads see what the command wrote through it.
        assert await memoryd("facts", "list", *sock, "--json") == 0
        assert len(orjson.loads(capsys.readouterr().out)["facts"]) == 1
        assert await memoryd("consolidate", "apply", plan["plan_id"], *sock) == EXIT_API_ERROR
        assert "already applied" in capsys.readouterr().err
        assert await memoryd("review", *sock, "--json") == 0
        assert orjson.loads(capsys.readouterr().out) == {"items": []}
        assert await memoryd("review", "approve", "nope", *sock) == EXIT_API_ERROR
        assert "404" in capsys.readouterr().err
        # Another namespace has nothing to consolidate.
        assert await memoryd("consolidate", "preview", *sock, "-n", "other", "--json") == 0
        assert orjson.loads(capsys.readouterr().out)["duplicates"] == []
    assert await memoryd("consolidate", "preview", *sock) == EXIT_NO_DAEMON
    assert "no memoryd is listening" in capsys.readouterr().err


async def test_review_approve_and_reject(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = make_config(tmp_path)
    sock = ["--socket", str(config.server.socket)]

    async def conflict(old: str, new: str) -> str:
        """Two extracted facts that conflict: the second waits in the review queue."""
        for text in (old, new):
            assert await memoryd("facts", "add", text, "--provenance", "extraction", *sock) == 0
        capsys.readouterr()
        assert await memoryd("review", *sock, "--json") == 0
        [item] = orjson.loads(capsys.readouterr().out)["items"]
        return str(item["item_id"])

    async with running(config):
        item = await conflict("The user reads the Guardian.", "The user reads the FT now.")
        assert await memoryd("review", "approve", item, *sock) == 0
        assert orjson.loads(capsys.readouterr().out)["item_id"] == item
        item = await conflict("The user drinks oat milk.", "The user drinks soy milk now.")
        assert await memoryd("review", "reject", item, "--reason", "both true", *sock) == 0
        assert orjson.loads(capsys.readouterr().out)["status"] == "rejected"
        assert await memoryd("review", "reject", *sock) == 2
        assert "needs an item ID" in capsys.readouterr().err
        assert await memoryd("review", "--all", *sock, "--json") == 0
        items = orjson.loads(capsys.readouterr().out)["items"]
        assert {i["status"] for i in items} == {"approved", "rejected"}
