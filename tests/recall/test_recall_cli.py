"""``memoryd recall`` against a daemon on a real unix socket."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from daemon.cli.client_cmd import EXIT_API_ERROR
from tests.api_fixtures import make_config, running
from tests.cli.test_client_cli import memoryd


async def test_recall_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = make_config(tmp_path)
    sock = ["--socket", str(config.server.socket)]
    async with running(config):
        assert await memoryd("messages", "add", "c1", "we adopted a greyhound", *sock) == 0
        assert await memoryd("facts", "add", "Ann owns a greyhound", "--tag", "pets", *sock) == 0
        capsys.readouterr()
        assert await memoryd("recall", "greyhound", *sock, "--json") == 0
        out = capsys.readouterr().out
        hits = orjson.loads(out[out.index('{\n  "hits"') :])["hits"]
        assert {h["kind"] for h in hits} == {"message", "fact"}
        assert await memoryd("recall", "greyhound", "--tag", "pets", "--explain", *sock) == 0
        table = [
            line for line in capsys.readouterr().out.splitlines() if line.startswith(("RANK", "1 "))
        ]
        assert table[0].split() == ["RANK", "KIND", "SCORE", "ID", "CONVERSATION", "WHY", "TEXT"]
        assert len(table) == 2
        assert "lexical#1" in table[1]
        assert "Ann owns a greyhound" in table[1]
        assert await memoryd("recall", "greyhound", "--scope", "messages", *sock) == 0
        assert "we adopted a greyhound" in capsys.readouterr().out
        assert await memoryd("recall", "greyhound", "-k", "0", *sock) == EXIT_API_ERROR
        assert "top_k" in capsys.readouterr().err


async def test_recall_deep(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = make_config(tmp_path)
    sock = ["--socket", str(config.server.socket)]
    async with running(config):
        assert await memoryd("messages", "add", "c1", "Ann adopted Rex at Paws Shelter", *sock) == 0
        assert await memoryd("facts", "add", "Paws Shelter is in Lyon", *sock) == 0
        assert await memoryd("facts", "add", "Ann owns a cat", "--owner", "agent", *sock) == 0
        capsys.readouterr()
        question = "When did Ann adopt her dog?"
        assert await memoryd("recall", question, "--deep", "--explain", *sock) == 0
        out = capsys.readouterr().out
        assert "gate: " in out
        assert "hard" in out
        assert "pass 1 (question)" in out
        assert "pass 2" not in out  # no offline reformulation is on by default
        assert "authors: ann" in out
        assert (
            await memoryd("recall", "cat", "--deep", "--explain", "--max-iterations", "1", *sock)
            == 0
        )
        assert "gate: 0.00 easy" in capsys.readouterr().out
        assert await memoryd("recall", "cat", "--owner", "agent", "--owner", "user", *sock) == 0
        assert "Ann owns a cat" in capsys.readouterr().out
        args = ("recall", "cat", "--hyde", "--multi-query", "3", "--explain", "--json")
        assert await memoryd(*args, *sock) == 0
        out = capsys.readouterr().out
        answer = orjson.loads(out[out.index('{\n  "hits"') :])
        assert answer["model_passes"]["hyde"] == {"skipped": "no model"}
