"""The client commands against a daemon on a real unix socket."""

from __future__ import annotations

import argparse
from pathlib import Path

import orjson
import pytest

from daemon.cli import build_parser
from daemon.cli.client_cmd import EXIT_API_ERROR, EXIT_NO_DAEMON, render_table
from tests.api_fixtures import make_config, running


async def memoryd(*argv: str) -> int:
    """Run one ``memoryd`` command in this event loop (``main`` would start its own)."""
    args: argparse.Namespace = build_parser().parse_args(list(argv))
    status: int = await args.handler(args)
    return status


async def test_commands_against_a_running_daemon(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = make_config(tmp_path)
    sock = ["--socket", str(config.server.socket)]
    async with running(config):
        assert await memoryd("status", *sock) == 0
        out = capsys.readouterr().out
        assert "status" in out
        assert "ok" in out

        assert await memoryd("messages", "add", "c1", "hello there", *sock, "--json") == 0
        added = orjson.loads(capsys.readouterr().out)
        assert added["position"] == 1
        assert await memoryd("messages", "add", "c1", "again", "--role", "assistant", *sock) == 0
        assert "position 2" in capsys.readouterr().out
        assert await memoryd("messages", "list", "c1", *sock) == 0
        table = capsys.readouterr().out.splitlines()
        assert table[0].split() == ["POSITION", "MESSAGE_ID", "ROLE", "CREATED_AT", "CONTENT"]
        assert "hello there" in table[1]
        assert table[2].split()[2] == "assistant"

        assert await memoryd("facts", "add", "likes tea", "--tag", "drink", *sock, "--json") == 0
        fact = orjson.loads(capsys.readouterr().out)
        assert await memoryd("facts", "list", "--tag", "drink", *sock, "--json") == 0
        listed = orjson.loads(capsys.readouterr().out)
        assert [f["fact_id"] for f in listed["facts"]] == [fact["fact_id"]]
        assert await memoryd("facts", "show", fact["fact_id"], *sock) == 0
        assert "likes tea" in capsys.readouterr().out
        assert await memoryd("facts", "history", fact["fact_id"], *sock) == 0
        assert "supersede chain" in capsys.readouterr().out

        # Namespaces are kept apart here too.
        assert await memoryd("facts", "list", *sock, "-n", "other", "--json") == 0
        assert orjson.loads(capsys.readouterr().out) == {"facts": []}

        assert await memoryd("facts", "show", "nope", *sock) == EXIT_API_ERROR
        err = capsys.readouterr().err
        assert "404 not_found" in err
        assert await memoryd("facts", "add", "x", "--owner", "bob", *sock) == EXIT_API_ERROR
        assert "owner" in capsys.readouterr().err


async def test_no_daemon_listening_is_said_plainly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "none.sock"
    assert await memoryd("status", "--socket", str(missing)) == EXIT_NO_DAEMON
    err = capsys.readouterr().err
    assert f"no memoryd is listening on unix:{missing}" in err
    assert "memoryd serve" in err


def test_table_rendering() -> None:
    text = render_table(
        [{"a": 1, "b": ["x", "y"], "c": None}, {"a": 22, "b": [], "c": "long\ntext"}],
        ("a", "b", "c"),
    )
    assert text.splitlines() == ["A   B    C", "1   x,y", "22       long text"]
