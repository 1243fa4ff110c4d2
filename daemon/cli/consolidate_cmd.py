"""``memoryd consolidate preview|analyze|apply PLAN`` and ``memoryd review [approve|reject ID]``.

The commands work on the backend directly (like ``memoryd retrospective``): they fold the
projections up to the log's head (a second runner on the same database is safe), compute, and
append plans, applications and review decisions to the log, where a running daemon sees them.
On a terminal they print tables; otherwise JSON.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import AsyncIterator, Sequence
from typing import Any

import orjson

import events.consolidation_events  # noqa: F401  (registers the consolidation events)
from daemon.cli import add_backend_options, backend_from_args, fail
from daemon.consolidation import review
from daemon.consolidation.plans import PlanError, PreviewSettings, analyze, apply_plan, preview
from daemon.recall.service import make_embedder
from events.clock import SystemClock
from events.store.base import EventStore
from projections.consolidation import review_items
from projections.runner import ProjectionRunner

DEFAULT_NAMESPACE = "default"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``consolidate`` and ``review`` command groups."""
    group = subparsers.add_parser("consolidate", help="preview, analyze and apply consolidation")
    actions = group.add_subparsers(dest="consolidate_command", required=True, metavar="ACTION")
    for name, helptext in (
        ("preview", "show duplicates, stale and low-score facts (writes nothing)"),
        ("analyze", "make a plan and store it in the log"),
    ):
        sub = actions.add_parser(name, help=helptext)
        sub.add_argument("--stale-days", type=float, default=90.0)
        sub.add_argument("--min-score", type=float, default=0.1)
        sub.add_argument("--tau-days", type=float, default=30.0)
        _common(sub)
        sub.set_defaults(handler=preview_command if name == "preview" else analyze_command)
    apply = actions.add_parser("apply", help="apply a stored plan exactly")
    apply.add_argument("plan_id", metavar="PLAN")
    apply.add_argument("--min-confidence", type=float, default=None)
    _common(apply)
    apply.set_defaults(handler=apply_command)

    rev = subparsers.add_parser("review", help="list, approve or reject queued agent actions")
    rev.add_argument("decision", nargs="?", choices=("list", "approve", "reject"), default="list")
    rev.add_argument("item_id", nargs="?", metavar="ID")
    rev.add_argument("--reason", default=None)
    rev.add_argument("--all", action="store_true", help="list decided items too")
    _common(rev)
    rev.set_defaults(handler=review_command)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--namespace", default=DEFAULT_NAMESPACE)
    parser.add_argument("--embedder", default="hashed", help="embedder plugin (as the daemon's)")
    parser.add_argument("--json", action="store_true", help="JSON even on a terminal")
    add_backend_options(parser)


def _tty(args: argparse.Namespace) -> bool:
    return sys.stdout.isatty() and not args.json


def _json(data: object) -> None:
    sys.stdout.write(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n")


def table(headers: Sequence[str], rows: Sequence[Sequence[object]], width: int = 60) -> str:
    """Render rows as a plain text table (cells cut at ``width``)."""
    cells = [
        [str(c) if len(str(c)) <= width else str(c)[: width - 1] + "…" for c in r] for r in rows
    ]
    widths = [max([len(h), *(len(r[i]) for r in cells)]) for i, h in enumerate(headers)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))
    out = [line, "  ".join("-" * w for w in widths)]
    out.extend("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in cells)
    return "\n".join(out)


def _settings(args: argparse.Namespace) -> PreviewSettings:
    return PreviewSettings(
        stale_days=args.stale_days, min_score=args.min_score, tau_days=args.tau_days
    )


@contextlib.asynccontextmanager
async def _folded(args: argparse.Namespace, store: EventStore) -> AsyncIterator[ProjectionRunner]:
    """Yield a runner caught up with ``store``'s log (its engine disposed afterwards)."""
    async with backend_from_args(args).open_runner(store=store) as runner:
        await runner.catch_up()
        yield runner


async def preview_command(args: argparse.Namespace) -> int:
    """Print what consolidation would look at."""
    store = backend_from_args(args).open_store(readonly=False)
    await store.open()
    try:
        async with _folded(args, store) as runner, runner.engine.connect() as conn:
            result = await preview(
                conn,
                args.namespace,
                make_embedder(args.embedder),
                SystemClock().now(),
                _settings(args),
            )
    finally:
        await store.close()
    data = result.to_json()
    if not _tty(args):
        _json(data)
        return 0
    for name in ("duplicates", "conflicts"):
        print(f"{name}: {len(data[name])}")
        rows = [
            (", ".join(d["fact_ids"]), d["similarity"], d.get("reason", "")) for d in data[name]
        ]
        if rows:
            print(table(("facts", "similarity", "reason"), rows))
    for name, key in (("stale", "days"), ("low_score", "score")):
        print(f"{name}: {len(data[name])}")
        if data[name]:
            print(table(("fact", key), [(d["fact_id"], d[key]) for d in data[name]]))
    print(f"orphans: {len(data['orphans'])}")
    return 0


def _plan_rows(items: Sequence[dict[str, Any]]) -> list[tuple[object, ...]]:
    return [
        (i["item_id"], i["action"], ", ".join(i["fact_ids"]), i["confidence"], i["reasoning"])
        for i in items
    ]


async def analyze_command(args: argparse.Namespace) -> int:
    """Make a plan and store it."""
    store = backend_from_args(args).open_store()
    await store.open()
    try:
        async with _folded(args, store) as runner, runner.engine.connect() as conn:
            plan, position = await analyze(
                store,
                conn,
                args.namespace,
                make_embedder(args.embedder),
                SystemClock().now(),
                _settings(args),
            )
    finally:
        await store.close()
    if not _tty(args):
        _json({"plan_id": plan.plan_id, "recommendations": plan.items, "position": position})
        return 0
    print(f"plan {plan.plan_id} ({len(plan.items)} items)")
    if plan.items:
        print(table(("item", "action", "facts", "confidence", "reasoning"), _plan_rows(plan.items)))
    print(f"apply with: memoryd consolidate apply {plan.plan_id}")
    return 0


async def apply_command(args: argparse.Namespace) -> int:
    """Apply a stored plan exactly."""
    store = backend_from_args(args).open_store()
    await store.open()
    try:
        result = await apply_plan(
            store,
            args.namespace,
            args.plan_id,
            SystemClock().now(),
            min_confidence=args.min_confidence,
        )
    except PlanError as exc:
        return fail(str(exc))
    finally:
        await store.close()
    if not _tty(args):
        _json(result.to_json())
        return 0
    print(f"plan {result.plan_id}: {len(result.applied)} applied, {len(result.refused)} refused")
    if result.refused:
        rows = [
            (r["item_id"], r["reason"], ", ".join(r.get("fact_ids", r.get("facts", []))))
            for r in result.refused
        ]
        print(table(("item", "refused because", "facts"), rows))
    return 0


async def review_command(args: argparse.Namespace) -> int:
    """List, approve or reject queued agent actions."""
    store = backend_from_args(args).open_store()
    await store.open()
    try:
        now = SystemClock().now()
        if args.decision in ("approve", "reject"):
            if not args.item_id:
                return fail(f"review {args.decision} needs an item ID")
            try:
                if args.decision == "approve":
                    result = await review.approve(store, args.namespace, args.item_id, now, "cli")
                    _json({"item_id": args.item_id, **result.to_json()})
                else:
                    position = await review.reject(
                        store, args.namespace, args.item_id, now, "cli", args.reason
                    )
                    _json({"item_id": args.item_id, "status": "rejected", "position": position})
            except PlanError as exc:
                return fail(str(exc))
            return 0
        async with _folded(args, store) as runner, runner.engine.connect() as conn:
            items = await review_items(
                conn, args.namespace, status=None if args.all else "pending", limit=1000
            )
    finally:
        await store.close()
    if not _tty(args):
        _json({"items": items})
        return 0
    rows = [
        (
            i["item_id"],
            i["status"],
            i["agent"],
            i["verb"],
            ", ".join(i["action"].get("fact_ids", [])),
            " | ".join(i["action"].get("texts", [])),
        )
        for i in items
    ]
    print(table(("item", "status", "agent", "verb", "facts", "text"), rows))
    return 0
