"""``memoryd consolidate preview|analyze|apply PLAN`` and ``memoryd review [approve|reject ID]``.

They talk to the running daemon (``/v1/consolidation/*`` and ``/v1/review``), with the
connection options of every client command (``--socket``, ``--url``,
``--token``/``--token-file``, ``-n``): the daemon's projections, embedder and model are the
ones that decide. On a terminal they print tables; otherwise (or with ``--json``) JSON.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

import orjson
from memoryd_client import AsyncMemorydClient

from daemon.cli.client_cmd import add_client_options, run_client


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``consolidate`` and ``review`` command groups."""
    group = subparsers.add_parser(
        "consolidate", help="preview, analyze and apply consolidation (running daemon)"
    )
    actions = group.add_subparsers(dest="consolidate_command", required=True, metavar="ACTION")
    for name, helptext in (
        ("preview", "show duplicates, stale and low-score facts (writes nothing)"),
        ("analyze", "make a plan and store it in the log"),
    ):
        sub = actions.add_parser(name, help=helptext)
        # None lets the daemon's [consolidation] settings decide (stale_days, min_score,
        # tau_days): a default here would override the operator's configuration
        for flag in ("--stale-days", "--min-score", "--tau-days"):
            sub.add_argument(flag, type=float, default=None, help="default: [consolidation]")
        add_client_options(sub)
        sub.set_defaults(handler=preview_command if name == "preview" else analyze_command)
    apply = actions.add_parser("apply", help="apply a stored plan exactly")
    apply.add_argument("plan_id", metavar="PLAN")
    apply.add_argument("--min-confidence", type=float, default=None)
    apply.add_argument(
        "--purge",
        action="store_true",
        help="delete items erase the facts' text from the log (cannot be undone)",
    )
    add_client_options(apply)
    apply.set_defaults(handler=apply_command)

    rev = subparsers.add_parser(
        "review", help="list, approve or reject queued agent actions (running daemon)"
    )
    rev.add_argument("decision", nargs="?", choices=("list", "approve", "reject"), default="list")
    rev.add_argument("item_id", nargs="?", metavar="ID")
    rev.add_argument("--reason", default=None)
    rev.add_argument("--all", action="store_true", help="list decided items too")
    add_client_options(rev)
    rev.set_defaults(handler=review_command)


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


async def _preview(args: argparse.Namespace, client: AsyncMemorydClient) -> int:
    data = await client.consolidation_preview(
        stale_days=args.stale_days, min_score=args.min_score, tau_days=args.tau_days
    )
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


async def preview_command(args: argparse.Namespace) -> int:
    """Print what consolidation would look at."""
    return await run_client(args, _preview)


def _plan_rows(items: Sequence[dict[str, Any]]) -> list[tuple[object, ...]]:
    return [
        (i["item_id"], i["action"], ", ".join(i["fact_ids"]), i["confidence"], i["reasoning"])
        for i in items
    ]


async def _analyze(args: argparse.Namespace, client: AsyncMemorydClient) -> int:
    data = await client.consolidation_analyze(
        stale_days=args.stale_days, min_score=args.min_score, tau_days=args.tau_days
    )
    if not _tty(args):
        _json(data)
        return 0
    items = data["recommendations"]
    print(f"plan {data['plan_id']} ({len(items)} items)")
    if items:
        print(table(("item", "action", "facts", "confidence", "reasoning"), _plan_rows(items)))
    print(f"apply with: memoryd consolidate apply {data['plan_id']}")
    return 0


async def analyze_command(args: argparse.Namespace) -> int:
    """Make a plan and store it."""
    return await run_client(args, _analyze)


async def _apply(args: argparse.Namespace, client: AsyncMemorydClient) -> int:
    data = await client.apply_consolidation_plan(
        args.plan_id, min_confidence=args.min_confidence, purge=args.purge or None
    )
    if not _tty(args):
        _json(data)
        return 0
    print(f"plan {data['plan_id']}: {len(data['applied'])} applied, {len(data['refused'])} refused")
    if data["refused"]:
        rows = [
            (r["item_id"], r["reason"], ", ".join(r.get("fact_ids", r.get("facts", []))))
            for r in data["refused"]
        ]
        print(table(("item", "refused because", "facts"), rows))
    return 0


async def apply_command(args: argparse.Namespace) -> int:
    """Apply a stored plan exactly."""
    return await run_client(args, _apply)


async def _review(args: argparse.Namespace, client: AsyncMemorydClient) -> int:
    if args.decision in ("approve", "reject"):
        if not args.item_id:
            print(f"memoryd: review {args.decision} needs an item ID", file=sys.stderr)
            return 2
        if args.decision == "approve":
            _json(await client.approve_review_item(args.item_id))
        else:
            _json(await client.reject_review_item(args.item_id, reason=args.reason or None))
        return 0
    data = await client.review_items(status="all" if args.all else "pending", limit=1000)
    if not _tty(args):
        _json(data)
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
        for i in data["items"]
    ]
    print(table(("item", "status", "agent", "verb", "facts", "text"), rows))
    return 0


async def review_command(args: argparse.Namespace) -> int:
    """List, approve or reject queued agent actions."""
    return await run_client(args, _review)
