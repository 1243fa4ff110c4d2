"""``memoryd episodes list|search|validate`` against a daemon on a real unix socket."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from memoryd_client import AsyncMemorydClient

from daemon.cli.client_cmd import EXIT_API_ERROR
from tests.cli.test_client_cli import daemon_at, memoryd

SAID = (
    "I moved to Lisbon last month with my sister Ana.",
    "That sounds exciting!",
    "My new job is at a design studio in Alfama.",
    "How do you like the studio?",
)


async def test_episodes_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    async with daemon_at(tmp_path) as sock:
        for n, text in enumerate(SAID):
            role = "user" if n % 2 == 0 else "assistant"
            assert await memoryd("messages", "add", "c1", text, "--role", role, *sock) == 0
        async with AsyncMemorydClient(sock[1]) as client:
            run = await client.run_consolidation(phases=["standard"])
        assert run["stats"]["episodes"] == 1
        capsys.readouterr()

        assert await memoryd("episodes", "list", "--conversation", "c1", *sock, "--json") == 0
        [episode] = orjson.loads(capsys.readouterr().out)["episodes"]
        assert episode["status"] == "quarantined"
        assert await memoryd("episodes", "search", "Lisbon", *sock, "--json") == 0
        assert orjson.loads(capsys.readouterr().out)["episodes"] == []
        assert await memoryd("episodes", "search", "Lisbon", "--include-quarantined", *sock) == 0
        assert episode["episode_id"] in capsys.readouterr().out
        assert await memoryd("episodes", "validate", episode["episode_id"], *sock) == 0
        assert "active" in capsys.readouterr().out
        assert await memoryd("episodes", "search", "Lisbon", *sock, "--json") == 0
        [hit] = orjson.loads(capsys.readouterr().out)["episodes"]
        assert hit["episode_id"] == episode["episode_id"]
        assert await memoryd("episodes", "list", "--status", "active", *sock) == 0
        assert episode["episode_id"] in capsys.readouterr().out

        assert await memoryd("episodes", "validate", "nope", *sock) == EXIT_API_ERROR
        assert "404 not_found" in capsys.readouterr().err
        assert await memoryd("episodes", "validate", episode["episode_id"], *sock) == EXIT_API_ERROR
        assert "409 already_active" in capsys.readouterr().err
