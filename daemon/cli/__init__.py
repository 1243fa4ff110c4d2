"""The ``memoryd`` command line: one module per command group, each with ``register()``.

Every command that opens a store takes ``--data-dir`` and ``--database-url``; by default the
``[storage]`` the daemon's configuration names (``memoryd.toml``, the environment), else
``$STATE_DIRECTORY`` or ``$XDG_STATE_HOME/memoryd`` and SQLite in it.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import os
import sys
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any, Protocol, cast

from daemon.backend import Backend
from daemon.config import ConfigError, default_config_path, load_config

CommandHandler = Callable[[argparse.Namespace], Coroutine[Any, Any, int]]

# Each module defines ``register(subparsers)`` and sets ``handler=`` on its parsers.
COMMAND_MODULES: tuple[str, ...] = (
    "daemon.cli.events_cmd",
    "daemon.cli.projections_cmd",
    "daemon.cli.serve_cmd",
    "daemon.cli.client_cmd",
    "daemon.cli.db_cmd",
    "daemon.cli.store_cmd",
    "daemon.cli.config_cmd",
    "daemon.cli.retrospective_cmd",
    "daemon.cli.recall_cmd",
    "daemon.cli.consolidate_cmd",
    "daemon.cli.insights_cmd",
    "daemon.cli.episodes_cmd",
    "daemon.cli.blocks_cmd",
    "daemon.cli.doctor_cmd",
    "daemon.cli.mcp_cmd",
    "daemon.cli.inspect_cmd",
)


class _Registrar(Protocol):
    def register(self, subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
        """Add this module's commands."""


def add_backend_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--data-dir`` and ``--database-url`` to a command that opens a store."""
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="state directory (default: storage.data_dir from memoryd.toml, else $STATE_DIRECTORY "
        "or $XDG_STATE_HOME/memoryd)",
    )
    parser.add_argument(
        "--database-url",
        default=None,
        help="database URL, e.g. postgresql+asyncpg://user@host/db (default: SQLite in data dir)",
    )


class CommandError(Exception):
    """A command cannot go on: the message is for a person (exit status 2)."""


def backend_from_args(args: argparse.Namespace) -> Backend:
    """Build the backend a command's options name; what they leave out comes from the
    configuration the daemon runs with (``memoryd.toml``, ``MEMORYD_STORAGE__*``), so a
    command opens the store the daemon writes."""
    given = {"storage.data_dir": args.data_dir, "storage.database_url": args.database_url}
    overrides = {key: str(value) for key, value in given.items() if value is not None}
    try:
        config = load_config(default_config_path(), None, overrides)
    except ConfigError as exc:
        raise CommandError(str(exc)) from None
    return Backend(data_dir=config.storage.data_dir, database_url=config.storage.database_url)


class IntermixedParser(argparse.ArgumentParser):
    """A parser that takes options anywhere among the positionals.

    Plain argparse matches an optional positional as soon as it meets the first positional,
    so ``messages add c1 --role assistant "text"`` left "text" unrecognised. A command's own
    parser (one without subcommands) parses intermixed instead.
    """

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        if self._subparsers is not None or getattr(self, "_intermixing", False):
            return super().parse_known_args(args, namespace)
        self._intermixing = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._intermixing = False


def build_parser() -> argparse.ArgumentParser:
    """Build the full argument parser."""
    parser = argparse.ArgumentParser(
        prog="memoryd", description="memoryd: a memory daemon", allow_abbrev=False
    )
    subparsers = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=IntermixedParser
    )
    for name in COMMAND_MODULES:
        module: _Registrar = importlib.import_module(name)
        module.register(cast("argparse._SubParsersAction[argparse.ArgumentParser]", subparsers))
    return parser


def fail(message: str) -> int:
    """Print an error for a person and return the exit status for it."""
    print(f"memoryd: {message}", file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``memoryd`` command."""
    # Whatever a command creates (databases, their journals, exports) is the user's alone.
    os.umask(os.umask(0o077) | 0o077)
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: CommandHandler = args.handler
    try:
        return asyncio.run(handler(args))
    except CommandError as exc:
        return fail(str(exc))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
