"""The client commands against a daemon on a real unix socket."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import orjson
import pytest

from daemon.cli import build_parser
from daemon.cli.client_cmd import (
    EXIT_API_ERROR,
    EXIT_NO_DAEMON,
    render_retrospective,
    render_table,
)
from tests.api_fixtures import make_config, running


async def memoryd(*argv: str) -> int:
    """Run one ``memoryd`` command in this event loop (``main`` would start its own)."""
    args: argparse.Namespace = build_parser().parse_args(list(argv))
    status: int = await args.handler(args)
    return status


@contextlib.asynccontextmanager
async def daemon_at(tmp_path: Path) -> AsyncIterator[list[str]]:
    """A daemon running on a fresh data dir; yields the options that reach its socket."""
    config = make_config(tmp_path)
    async with running(config):
        yield ["--socket", str(config.server.socket)]


async def test_commands_against_a_running_daemon(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with daemon_at(tmp_path) as sock:
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
        assert await memoryd("facts", "add", "secret is 42", *sock, "--json") == 0
        secret = orjson.loads(capsys.readouterr().out)["fact_id"]
        assert await memoryd("facts", "purge", secret, *sock) != 0
        assert "--yes" in capsys.readouterr().err
        assert await memoryd("facts", "purge", secret, "--yes", *sock) == 0
        assert "purged" in capsys.readouterr().out
        assert await memoryd("facts", "show", secret, *sock) == EXIT_API_ERROR
        assert "404 not_found" in capsys.readouterr().err

        # No model configured: reflection has nothing to say, and says so.
        assert await memoryd("insights", "generate", *sock, "--json") == 0
        assert orjson.loads(capsys.readouterr().out)["insights"] == []
        assert await memoryd("insights", "list", *sock, "--json") == 0
        assert orjson.loads(capsys.readouterr().out) == {"insights": []}
        assert await memoryd("insights", "delete", fact["fact_id"], *sock) == EXIT_API_ERROR
        assert "404 not_found" in capsys.readouterr().err

        assert await memoryd("blocks", "set", "learned_context", "Prefers tea.", *sock) == 0
        assert "12 chars" in capsys.readouterr().out
        assert await memoryd("blocks", "show", "learned_context", *sock) == 0
        assert "Prefers tea." in capsys.readouterr().out
        assert await memoryd("blocks", "list", *sock, "--json") == 0
        [block] = orjson.loads(capsys.readouterr().out)["blocks"]
        assert (block["name"], block["author"]) == ("learned_context", "app")
        assert await memoryd("blocks", "set", "diary", "x", *sock) == EXIT_API_ERROR
        assert "404 unknown_block" in capsys.readouterr().err

        # Namespaces are kept apart here too.
        assert await memoryd("facts", "list", *sock, "-n", "other", "--json") == 0
        assert orjson.loads(capsys.readouterr().out) == {"facts": []}

        assert await memoryd("facts", "show", "nope", *sock) == EXIT_API_ERROR
        err = capsys.readouterr().err
        assert "404 not_found" in err
        assert await memoryd("facts", "add", "x", "--owner", "bob", *sock) == EXIT_API_ERROR
        assert "owner" in capsys.readouterr().err


async def test_every_write_and_query_option_reaches_the_daemon(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with daemon_at(tmp_path) as sock:
        add = ["messages", "add", "c1", "hi", "--name", "ann", "--metadata", '{"app": "x"}']
        written = []
        for _ in range(2):  # the same key writes once
            assert await memoryd(*add, "--idempotency-key", "k1", *sock, "--json") == 0
            written.append(orjson.loads(capsys.readouterr().out))
        assert written[0] == written[1]
        assert await memoryd("messages", "add", "c1", "bye", *sock) == 0
        assert await memoryd("messages", "add", "c1", "x", "--metadata", "{", *sock) == 2
        assert "--metadata is not JSON" in capsys.readouterr().err
        assert await memoryd("messages", "list", "c1", "--limit", "1", *sock, "--json") == 0
        [message] = orjson.loads(capsys.readouterr().out)["messages"]
        assert (message["name"], message["metadata"]) == ("ann", {"app": "x"})
        after = ["--after", message["message_id"]]
        assert await memoryd("messages", "list", "c1", *after, *sock, "--json") == 0
        assert [m["content"] for m in orjson.loads(capsys.readouterr().out)["messages"]] == ["bye"]

        fact = ["facts", "add", "Ann works at Acme", "--subject", "Ann", "--predicate", "works_at"]
        fact += ["--object", "Acme", "--owner", "agent", "--provenance", "tool"]
        fact += ["--valid-from", "2026-01-01T00:00:00+00:00", "--confidence", "0.5"]
        fact += ["--importance", "0.7", "--idempotency-key", "f1", *sock, "--json"]
        assert await memoryd(*fact) == 0
        written = orjson.loads(capsys.readouterr().out)
        assert await memoryd(*fact) == 0
        assert orjson.loads(capsys.readouterr().out)["fact_id"] == written["fact_id"]
        # Not from the user: quarantined, so listed only with --all or --status.
        assert await memoryd("facts", "list", "--owner", "agent", *sock, "--json") == 0
        assert orjson.loads(capsys.readouterr().out)["facts"] == []
        for extra in (["--all"], ["--status", "quarantined"]):
            assert await memoryd("facts", "list", "--subject", "Ann", *extra, *sock, "--json") == 0
            [listed] = orjson.loads(capsys.readouterr().out)["facts"]
            assert (listed["fact_id"], listed["owner"]) == (written["fact_id"], "agent")
            assert (listed["confidence"], listed["importance"]) == (0.5, 0.7)

        # An API error is the API's error body on stdout with --json.
        assert await memoryd("facts", "show", "nope", *sock, "--json") == EXIT_API_ERROR
        captured = capsys.readouterr()
        assert orjson.loads(captured.out)["error"]["code"] == "not_found"
        assert captured.err.startswith("memoryd: 404 not_found: ")


async def test_the_namespace_comes_from_the_flag_else_the_environment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    async with daemon_at(tmp_path) as sock:
        monkeypatch.setenv("MEMORYD_NAMESPACE", "from-env")
        assert await memoryd("facts", "add", "likes tea", *sock) == 0
        assert await memoryd("facts", "add", "likes coffee", *sock, "-n", "flag") == 0
        monkeypatch.delenv("MEMORYD_NAMESPACE")
        capsys.readouterr()
        texts = {}
        for namespace in ("from-env", "flag", "default"):
            assert await memoryd("facts", "list", *sock, "-n", namespace, "--json") == 0
            listed = orjson.loads(capsys.readouterr().out)["facts"]
            texts[namespace] = [f["text"] for f in listed]
        assert texts == {"from-env": ["likes tea"], "flag": ["likes coffee"], "default": []}


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


async def test_status_shows_retrospective_counters_and_llm_use(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with daemon_at(tmp_path) as sock:
        for _ in range(200):  # the service starts in the background once the log is folded
            assert await memoryd("status", *sock, "--json") == 0
            data = orjson.loads(capsys.readouterr().out)
            if "counters" in data["retrospective"]:
                break
            assert data["retrospective"]["error"]["code"] == "not_ready"
            await asyncio.sleep(0.025)
        retro = data["retrospective"]
        assert data["status"] == "ok"
        assert retro["enabled"] is False  # tests.api_fixtures.make_config turns them off
        assert retro["provider"] == "offline-extractor"
        assert retro["counters"]["succeeded"] == 0
        assert "budget" not in retro  # the offline extractor has no daily budget

        assert await memoryd("status", *sock) == 0
        out = capsys.readouterr().out
        lines = out.splitlines()
        assert any(line.split()[:2] == ["retrospective", "disabled"] for line in lines)
        assert any(line.split()[:2] == ["llm", "offline-extractor"] for line in lines)
        assert "none (no daily limit for this provider)" in out
        header = next(i for i, line in enumerate(lines) if line.split() == ["COUNTER", "VALUE"])
        counters = dict(line.split() for line in lines[header + 1 :])
        assert counters["succeeded"] == "0"
        assert set(counters) == set(retro["counters"])


def test_status_renders_the_llm_budget() -> None:
    snapshot = {
        "enabled": True,
        "provider": "openai",
        "model": "m1",
        "pending": 2,
        "running": 1,
        "leading": True,
        "counters": {"succeeded": 4, "calls": 7},
        "budget": {
            "reset": "utc",
            "on_exceed": "pause",
            "calls": 7,
            "tokens": 1234,
            "calls_per_day": 10,
            "tokens_per_day": None,
            "exceeded": True,
            "resume_at": "2026-12-02T00:00:00+00:00",
        },
    }
    text = render_retrospective(snapshot)
    pairs = {line[:16].strip(): line[16:].strip() for line in text.splitlines()[:9]}
    assert pairs["llm"] == "openai (m1)"
    assert pairs["llm calls today"] == "7 / 10"
    assert pairs["llm tokens today"] == "1234 / unlimited"
    assert (
        pairs["llm budget"] == "exceeded, resumes at 2026-12-02T00:00:00+00:00 (reset utc, pause)"
    )
    assert text.splitlines()[-2].split() == ["succeeded", "4"]
    unavailable = {"error": {"code": "not_ready", "message": "retrospectives are starting"}}
    assert render_retrospective(unavailable) == (
        "retrospective  unavailable: retrospectives are starting"
    )


def test_options_may_come_after_the_positionals() -> None:
    from daemon.cli import build_parser

    args = build_parser().parse_args(
        ["messages", "add", "c1", "--role", "assistant", "the text", "--socket", "/tmp/s"]
    )
    assert (args.conversation, args.text, args.role) == ("c1", "the text", "assistant")
    assert str(args.socket) == "/tmp/s"
    args = build_parser().parse_args(["recall", "what", "-k", "3", "--json"])
    assert (args.query, args.top_k, args.json) == ("what", 3, True)


DAEMON_COMMANDS = {
    "status",
    "messages add",
    "messages list",
    "facts list",
    "facts show",
    "facts history",
    "facts add",
    "facts purge",
    "recall",
    "retrospective run",
    "retrospective status",
    "consolidate preview",
    "consolidate analyze",
    "consolidate apply",
    "review",
    "insights list",
    "insights generate",
    "insights delete",
    "episodes list",
    "episodes search",
    "episodes validate",
    "blocks list",
    "blocks show",
    "blocks set",
    "mcp",
    "inspect",
}
"""What a running daemon serves: these talk to it (README, "The command line")."""
SPEAKS_MCP = {"mcp"}
"""Its stdout is the MCP protocol: it has no ``--json``."""
STORAGE_COMMANDS = {
    "serve",
    "events tail",
    "events export",
    "events import",
    "projections rebuild",
    "projections verify",
    "replay",
    "db upgrade",
    "db status",
    "doctor",
    "retrospective replay",
}
"""What works on the log and projections themselves: these open the data dir or database."""


def _leaf_commands() -> dict[str, argparse.ArgumentParser]:
    from daemon.cli import build_parser

    out: dict[str, argparse.ArgumentParser] = {}

    def walk(parser: argparse.ArgumentParser, path: tuple[str, ...]) -> None:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            out[" ".join(path)] = parser
        for action in subs:
            for name, sub in action.choices.items():
                walk(sub, (*path, name))

    walk(build_parser(), ())
    return out


def _options(parser: argparse.ArgumentParser) -> set[str]:
    return {o for a in parser._actions for o in a.option_strings}


def test_one_rule_for_which_commands_talk_to_the_daemon() -> None:
    commands = _leaf_commands()
    connection = {"--socket", "--url", "--token", "--token-file", "-n", "--namespace"}
    backend = {"--data-dir", "--database-url"}
    talking = {name for name, parser in commands.items() if "--url" in _options(parser)}
    assert talking == DAEMON_COMMANDS
    for name in DAEMON_COMMANDS:
        options = _options(commands[name])
        assert connection <= options, name
        assert ("--json" in options) == (name not in SPEAKS_MCP), name
        assert not backend & options, name
    for name in STORAGE_COMMANDS:
        options = _options(commands[name])
        assert backend <= options, name
    # The rest take neither: the configuration and copies between stores (--from/--to).
    others = set(commands) - DAEMON_COMMANDS - STORAGE_COMMANDS
    assert others == {"config check", "config show", "config keys", "store copy"} | {
        "store verify",
        "store digest",
    }
    for name in others:
        assert not (backend | {"--socket", "--url"}) & _options(commands[name]), name


def test_consolidate_preview_and_analyze_leave_their_thresholds_to_the_daemon() -> None:
    # a CLI default would override [consolidation] stale_days / min_score / tau_days
    for action in ("preview", "analyze"):
        args = build_parser().parse_args(["consolidate", action])
        assert (args.stale_days, args.min_score, args.tau_days) == (None, None, None)
        args = build_parser().parse_args(["consolidate", action, "--min-score", "0.2"])
        assert args.min_score == 0.2
