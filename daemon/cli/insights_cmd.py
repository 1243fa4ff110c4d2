"""``memoryd insights list|generate|delete ID``: what reflection concluded about the user.

They talk to the running daemon (``/v1/insights``) with the connection options of every client
command; ``generate`` asks the daemon's model (within consolidation's daily budget) now,
whatever importance has accumulated. On a terminal they print text; with ``--json`` JSON.
"""

from __future__ import annotations

import argparse

from memoryd_client import AsyncMemorydClient

from daemon.cli.client_cmd import add_client_options, client_command, emit, render_table

INSIGHT_COLUMNS = ("fact_id", "status", "valid_from", "text")


async def _list(args: argparse.Namespace, client: AsyncMemorydClient) -> int:
    result = await client.insights(limit=args.limit)
    emit(args, result, render_table(result["insights"], INSIGHT_COLUMNS))
    return 0


async def _generate(args: argparse.Namespace, client: AsyncMemorydClient) -> int:
    result = await client.generate_insights()
    lines = [f"run {result['run_id']}: {result['status']}, {result['model_calls']} model calls"]
    lines += [f"{i['fact_id']}  cites {', '.join(i['cites'])}" for i in result["insights"]]
    lines += [f"duplicate of {d['duplicate_of']}: {d['text']}" for d in result["duplicates"]]
    emit(args, result, "\n".join(lines))
    return 0


async def _delete(args: argparse.Namespace, client: AsyncMemorydClient) -> int:
    result = await client.delete_insight(args.fact_id, reason=args.reason)
    emit(args, result, f"{result['fact_id']}  forgotten  (position {result['position']})")
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``insights`` command group."""
    group = subparsers.add_parser(
        "insights", help="list, generate and delete reflection's insights (running daemon)"
    )
    actions = group.add_subparsers(dest="insights_command", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="the insights, quarantined ones included")
    listing.add_argument("--limit", type=int, default=100)
    add_client_options(listing)
    listing.set_defaults(handler=client_command(_list))
    generate = actions.add_parser("generate", help="reflect now (uses the daemon's model)")
    add_client_options(generate)
    generate.set_defaults(handler=client_command(_generate))
    delete = actions.add_parser("delete", help="forget an insight")
    delete.add_argument("fact_id", metavar="ID")
    delete.add_argument("--reason", default=None)
    add_client_options(delete)
    delete.set_defaults(handler=client_command(_delete))
