"""``memoryd config check FILE``, ``memoryd config show`` and ``memoryd config keys``."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from daemon.config import Config, ConfigError, default_config_path, describe_keys, load_config


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``config`` command group."""
    parser = subparsers.add_parser("config", help="check and show the configuration")
    commands = parser.add_subparsers(dest="config_command", required=True, metavar="COMMAND")

    check = commands.add_parser(
        "check",
        help="validate a config file (exit 0 when valid, 1 listing every error)",
        description="Validate FILE together with the MEMORYD_* environment overrides.",
    )
    check.add_argument("file", type=Path, help="the memoryd.toml to check")
    check.add_argument("--json", action="store_true", help="print the effective config as JSON")
    check.add_argument(
        "--no-env", action="store_true", help="ignore MEMORYD_<SECTION>__<KEY> variables"
    )
    check.set_defaults(handler=_check)

    show = commands.add_parser(
        "show",
        help="print the configuration the daemon would run with",
        description="Print the effective configuration (file + environment + defaults) as TOML.",
    )
    show.add_argument(
        "--config",
        type=Path,
        default=None,
        help="config file (default: $MEMORYD_CONFIG, then the usual places)",
    )
    show.add_argument("--json", action="store_true", help="print JSON instead of TOML")
    show.add_argument("--no-env", action="store_true", help="ignore MEMORYD_* overrides")
    show.set_defaults(handler=_show)

    keys = commands.add_parser("keys", help="list every key with its type, default and meaning")
    keys.set_defaults(handler=_keys)


def _env(args: argparse.Namespace) -> dict[str, str]:
    if not args.no_env:
        return dict(os.environ)
    return {k: v for k, v in os.environ.items() if not k.startswith("MEMORYD_")}


def _report_errors(label: str, error: ConfigError) -> int:
    count = len(error.errors)
    print(f"{label}: {count} problem{'s' if count != 1 else ''}", file=sys.stderr)
    for line in error.errors:
        print(f"  {line}", file=sys.stderr)
    return 1


def _report_adjustments(config: Config) -> None:
    for adj in config.adjustments:
        print(f"note: {adj.key}: {adj.given} -> {adj.used} ({adj.reason})", file=sys.stderr)


async def _check(args: argparse.Namespace) -> int:
    try:
        config = load_config(args.file, _env(args))
    except ConfigError as exc:
        return _report_errors(str(args.file), exc)
    _report_adjustments(config)
    if args.json:
        print(json.dumps(config.to_dict(), indent=2))
    else:
        print(f"{args.file}: OK")
    return 0


async def _show(args: argparse.Namespace) -> int:
    env = _env(args)
    path = args.config if args.config is not None else default_config_path(env)
    try:
        config = load_config(path, env)
    except ConfigError as exc:
        return _report_errors(str(path) if path else "configuration", exc)
    _report_adjustments(config)
    if args.json:
        print(json.dumps(config.to_dict(), indent=2))
    else:
        source = str(path) if path else "no file (defaults and environment)"
        print(f"# effective memoryd configuration; read from: {source}")
        print(to_toml(config.to_dict()), end="")
    return 0


async def _keys(args: argparse.Namespace) -> int:
    for key, kind, default, doc in describe_keys():
        print(f"{key}  ({kind}, default {default})\n    {doc}")
    return 0


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    # JSON string escapes are valid TOML basic-string escapes.
    return json.dumps(str(value))


def to_toml(document: dict[str, dict[str, Any]]) -> str:
    """Render the effective config (from ``Config.to_dict``) as TOML; unset keys as comments."""
    out: list[str] = []

    def table(name: str, values: dict[str, Any]) -> None:
        out.append(f"[{name}]")
        nested: list[tuple[str, dict[str, Any]]] = []
        for key, value in values.items():
            if isinstance(value, dict):
                nested.append((f"{name}.{key}", value))
            elif value is None:
                out.append(f"# {key} is unset")
            else:
                out.append(f"{key} = {_toml_value(value)}")
        out.append("")
        for sub_name, sub_values in nested:
            table(sub_name, sub_values)

    for section, values in document.items():
        table(section, values)
    return "\n".join(out)
