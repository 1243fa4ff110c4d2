"""``memoryd retrospective run CONVERSATION | replay RUN | status CONVERSATION``.

The commands write their decision to the log (``RetrospectiveScheduled``, checked against the
version of the conversation's retrospective stream); a running daemon picks it up from there,
and a stopped one when it starts. ``status`` folds the conversation's streams and prints its
retrospective state as JSON.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import orjson

import events.daemon_events
import events.retrospective_events  # noqa: F401  (registers the retrospective events)
from daemon.cli import add_backend_options, backend_from_args, fail
from daemon.config import ConfigError, RetrospectiveConfig, default_config_path, load_config
from daemon.retrospective import triggers
from daemon.retrospective.service import (
    RetrospectiveError,
    decision_events,
    fold_conversation,
    replay_event,
)
from events.clock import SystemClock
from events.retrospective_events import RetrospectiveScheduled, retrospective_stream
from events.store.base import ConcurrencyError, EventStore, NewEvent

DEFAULT_NAMESPACE = "default"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``retrospective`` command group."""
    group = subparsers.add_parser("retrospective", help="run, replay and inspect retrospectives")
    actions = group.add_subparsers(dest="retrospective_command", required=True, metavar="ACTION")

    run = actions.add_parser("run", help="schedule a manual retrospective of a conversation")
    run.add_argument("conversation", metavar="CONVERSATION")
    _common(run)
    run.set_defaults(handler=run_command)

    replay = actions.add_parser("replay", help="re-run the slice of an abandoned run")
    replay.add_argument("run_id", metavar="RUN")
    _common(replay)
    replay.set_defaults(handler=replay_command)

    status = actions.add_parser("status", help="print a conversation's retrospective state")
    status.add_argument("conversation", metavar="CONVERSATION")
    _common(status)
    status.set_defaults(handler=status_command)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--namespace", default=DEFAULT_NAMESPACE)
    parser.add_argument(
        "--config",
        type=Path,
        default=None,
        help="configuration file (default: $MEMORYD_CONFIG or ~/.config/memoryd/memoryd.toml)",
    )
    add_backend_options(parser)


def _config(args: argparse.Namespace) -> RetrospectiveConfig:
    path = args.config if args.config is not None else default_config_path()
    return load_config(path).retrospective


def _print(data: object) -> None:
    sys.stdout.write(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n")


async def run_command(args: argparse.Namespace) -> int:
    """Append a manual decision for a conversation."""
    try:
        config = _config(args)
    except ConfigError as exc:
        return fail(str(exc))
    store = backend_from_args(args).open_store()
    await store.open()
    try:
        for _ in range(5):
            fold = await fold_conversation(store, args.namespace, args.conversation)
            conv = fold.get(args.namespace, args.conversation)
            if conv is None or conv.deleted:
                return fail(f"no conversation {args.conversation!r} in {args.namespace!r}")
            now = SystemClock().now()
            decision = triggers.manual(config, conv, now)
            if decision.action == "none":
                return fail(f"retrospectives are {decision.reason}")
            run_id, events = decision_events(conv, decision, now)
            try:
                await store.append(
                    args.namespace,
                    [NewEvent(e) for e in events],
                    expected_versions={
                        retrospective_stream(conv.conversation_id): conv.stream_version
                    },
                )
            except ConcurrencyError:
                continue
            _print(
                {
                    "action": decision.action,
                    "run_id": run_id,
                    "reason": decision.reason,
                    "not_before": None
                    if decision.not_before is None
                    else decision.not_before.isoformat(),
                }
            )
            return 0
        return fail("the conversation kept changing; try again")
    finally:
        await store.close()


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
    if not config.enabled:
        return fail("retrospectives are disabled")
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


async def status_command(args: argparse.Namespace) -> int:
    """Print a conversation's retrospective state."""
    store = backend_from_args(args).open_store(readonly=True)
    await store.open()
    try:
        fold = await fold_conversation(store, args.namespace, args.conversation)
    finally:
        await store.close()
    conv = fold.get(args.namespace, args.conversation)
    if conv is None:
        return fail(f"no conversation {args.conversation!r} in {args.namespace!r}")
    view = conv.view()
    view["unreviewed"] = len(conv.tail)
    view["pending_run_id"] = conv.pending_run_id
    view["running_run_id"] = conv.running_run_id
    _print(view)
    return 0
