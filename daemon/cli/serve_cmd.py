"""``memoryd serve``: run the daemon in the foreground."""

from __future__ import annotations

import argparse
from pathlib import Path

from daemon.config import default_config_path
from daemon.server import ServeOptions, async_serve


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``serve`` command."""
    parser = subparsers.add_parser(
        "serve",
        help="run the daemon (unix socket API; optional loopback TCP)",
        description=(
            "Run memoryd in the foreground. With no options it keeps its data in "
            "$STATE_DIRECTORY or $XDG_STATE_HOME/memoryd and listens on "
            "$RUNTIME_DIRECTORY/memoryd.sock or $XDG_RUNTIME_DIR/memoryd.sock "
            "(else <data dir>/memoryd.sock)."
        ),
    )
    parser.add_argument("--data-dir", type=Path, default=None, help="state directory")
    parser.add_argument("--socket", type=Path, default=None, help="unix socket path")
    parser.add_argument(
        "--http",
        default=None,
        metavar="HOST:PORT",
        help="also listen on TCP (loopback unless the config allows otherwise; bearer token)",
    )
    parser.add_argument(
        "--config",
        type=Path,
        default=None,
        help="configuration file (default: $MEMORYD_CONFIG, ~/.config/memoryd/memoryd.toml, "
        "/etc/memoryd/memoryd.toml)",
    )
    parser.add_argument("--database-url", default=None, help="e.g. postgresql+asyncpg://...")
    parser.set_defaults(handler=run)


def options_from_args(args: argparse.Namespace) -> ServeOptions:
    """Turn command-line options into config overrides."""
    overrides: dict[str, object] = {}
    if args.data_dir is not None:
        overrides["storage.data_dir"] = str(args.data_dir.absolute())
    if args.socket is not None:
        overrides["server.socket"] = str(args.socket.absolute())
    if args.http is not None:
        overrides["server.http"] = args.http
    if args.database_url is not None:
        overrides["storage.database_url"] = args.database_url
    config_path = args.config if args.config is not None else default_config_path()
    return ServeOptions(config_path=config_path, overrides=overrides)


async def run(args: argparse.Namespace) -> int:
    """Run the daemon until SIGTERM/SIGINT."""
    return await async_serve(options_from_args(args))
