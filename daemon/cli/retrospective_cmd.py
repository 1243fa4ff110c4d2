"""``memoryd retrospective run CONVERSATION | status CONVERSATION | replay RUN``.

``run`` and ``status`` talk to the running daemon (``POST`` and ``GET
/v1/conversations/{cid}/retrospective``), with the connection options of every client command
(``--socket``, ``--url``, ``--token``/``--token-file``, ``-n``). ``run --wait`` runs it now and
answers when it is done. ``replay`` has no API yet: it writes its decision
(``RetrospectiveScheduled``, checked against the version of the conversation's retrospective
stream) to the log of ``--data-dir``/``--database-url``, where a running daemon picks it up,
and a stopped one when it starts.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import orjson
from memoryd_client import AsyncMemorydClient

from daemon.cli import add_backend_options, backend_from_args, fail
from daemon.cli.client_cmd import (
    add_client_options,
    emit,
    render_pairs,
    render_table,
    run_client,
)
from daemon.config import ConfigError, RetrospectiveConfig, default_config_path, load_config
from daemon.retrospective.service import RetrospectiveError, fold_conversation, replay_event
from events.clock import SystemClock
from events.retrospective_events import RetrospectiveScheduled, retrospective_stream
from events.store.base import ConcurrencyError, EventStore, NewEvent

DEFAULT_NAMESPACE = "default"
DEFAULT_WAIT = 60.0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``retrospective`` command group."""
    group = subparsers.add_parser("retrospective", help="run, replay and inspect retrospectives")
    actions = group.add_subparsers(dest="retrospective_command", required=True, metavar="ACTION")

    run = actions.add_parser(
        "run", help="ask the running daemon for a retrospective of a conversation"
    )
    run.add_argument("conversation", metavar="CONVERSATION")
    run.add_argument(
        "--wait", action="store_true", help="run it now (no cooldown) and wait until it is done"
    )
    run.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_WAIT,
        help=f"seconds to wait with --wait (default {DEFAULT_WAIT:g})",
    )
    add_client_options(run)
    run.set_defaults(handler=run_command)

    status = actions.add_parser(
        "status", help="a conversation's retrospective state (running daemon)"
    )
    status.add_argument("conversation", metavar="CONVERSATION")
    add_client_options(status)
    status.set_defaults(handler=status_command)

    replay = actions.add_parser(
        "replay", help="re-run the slice of an abandoned run (writes to the log directly)"
    )
    replay.add_argument("run_id", metavar="RUN")
    replay.add_argument("-n", "--namespace", default=DEFAULT_NAMESPACE)
    replay.add_argument(
        "--config",
        type=Path,
        default=None,
        help="configuration file (default: $MEMORYD_CONFIG or ~/.config/memoryd/memoryd.toml)",
    )
    add_backend_options(replay)
    replay.set_defaults(handler=replay_command)


def _config(args: argparse.Namespace) -> RetrospectiveConfig:
    path = args.config if args.config is not None else default_config_path()
    return load_config(path).retrospective


def _print(data: object) -> None:
    sys.stdout.write(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n")


RUN_COLUMNS = ("run_id", "trigger", "status", "facts_written", "error")


async def _run(args: argparse.Namespace, client: AsyncMemorydClient) -> int:
    result = await client.run_retrospective(
        args.conversation, wait=args.wait, timeout=args.timeout if args.wait else None
    )
    text = render_pairs(
        {k: v for k, v in result.items() if k in ("action", "run_id", "reason", "not_before")}
    )
    if args.wait:
        text += "\n" + render_pairs(
            {k: result.get(k) for k in ("status", "finished", "fact_ids", "error")}
        )
    emit(args, result, text)
    return 0


async def run_command(args: argparse.Namespace) -> int:
    """Ask the daemon for a manual retrospective of a conversation (and wait, with --wait)."""
    return await run_client(args, _run)


async def _status(args: argparse.Namespace, client: AsyncMemorydClient) -> int:
    result = await client.retrospective(args.conversation)
    head = {k: result.get(k) for k in ("conversation_id", "cursor", "last_attempt_at")}
    head["last_success_at"] = result.get("last_success_at")
    head["remembered"] = len(result.get("remembered") or [])
    text = render_pairs(head) + "\n\n" + render_table(result.get("runs") or [], RUN_COLUMNS)
    emit(args, result, text)
    return 0


async def status_command(args: argparse.Namespace) -> int:
    """Print a conversation's retrospective state, as the daemon has folded it."""
    return await run_client(args, _status)


async def _conversation_of_run(store: EventStore, namespace: str, run_id: str) -> str | None:
    """Find the conversation a run belongs to (a scan of the namespace's log)."""
    async for stored in store.read(namespace=namespace):
        event = stored.event
        if isinstance(event, RetrospectiveScheduled) and event.run_id == run_id:
            return event.conversation_id
    return None


async def replay_command(args: argparse.Namespace) -> int:
    """Schedule a re-run of an abandoned run's slice."""
    try:
        config = _config(args)
    except ConfigError as exc:
        return fail(str(exc))
    store = backend_from_args(args).open_store()
    await store.open()
    try:
        conversation = await _conversation_of_run(store, args.namespace, args.run_id)
        if conversation is None:
            return fail(f"no run {args.run_id!r} in {args.namespace!r}")
        for _ in range(5):
            fold = await fold_conversation(store, args.namespace, conversation)
            conv = fold.get(args.namespace, conversation)
            run = None if conv is None else conv.runs.get(args.run_id)
            if conv is None or run is None:
                return fail(f"no run {args.run_id!r} in {args.namespace!r}")
            try:
                new_id, event = replay_event(config, conv, run, SystemClock().now())
            except RetrospectiveError as exc:
                return fail(exc.message)
            try:
                await store.append(
                    args.namespace,
                    [NewEvent(event)],
                    expected_versions={retrospective_stream(conversation): conv.stream_version},
                )
            except ConcurrencyError:
                continue
            _print({"action": "schedule", "run_id": new_id, "replay_of": args.run_id})
            return 0
        return fail("the conversation kept changing; try again")
    finally:
        await store.close()
