"""``memoryd episodes list|search|validate``: what the conversations' slices were about.

They talk to the running daemon (``/v1/episodes``) with the connection options of every client
command. ``search`` ranks by recency x relevance x importance (validated episodes only unless
``--include-quarantined``); ``validate`` ends an episode's quarantine. On a terminal they print
text; with ``--json`` JSON.
"""

from __future__ import annotations

import argparse

from memoryd_client import AsyncMemorydClient

from daemon.cli.client_cmd import add_client_options, client_command, emit, render_table

EPISODE_COLUMNS = ("episode_id", "status", "importance", "conversation_id", "summary")
HIT_COLUMNS = ("episode_id", "score", "status", "importance", "summary")


async def _list(args: argparse.Namespace, client: AsyncMemorydClient) -> int:
    result = await client.episodes(
        conversation_id=args.conversation, status=args.status, limit=args.limit
    )
    emit(args, result, render_table(result["episodes"], EPISODE_COLUMNS))
    return 0


async def _search(args: argparse.Namespace, client: AsyncMemorydClient) -> int:
    result = await client.search_episodes(
        args.query,
        top_k=args.top_k,
        include_quarantined=args.include_quarantined or None,
        conversation_id=args.conversation,
    )
    rows = [{**h, "score": f"{h['score']:.4f}"} for h in result["episodes"]]
    emit(args, result, render_table(rows, HIT_COLUMNS))
    return 0


async def _validate(args: argparse.Namespace, client: AsyncMemorydClient) -> int:
    result = await client.validate_episode(args.episode_id, note=args.note)
    text = f"{result['episode_id']}  {result['status']}  (position {result['position']})"
    emit(args, result, text)
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``episodes`` command group."""
    group = subparsers.add_parser(
        "episodes", help="list, search and validate episodes (running daemon)"
    )
    actions = group.add_subparsers(dest="episodes_command", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="the episodes, newest first")
    listing.add_argument("--conversation", default=None, metavar="ID")
    listing.add_argument("--status", choices=("quarantined", "active", "all"), default=None)
    listing.add_argument("--limit", type=int, default=None)
    add_client_options(listing)
    listing.set_defaults(handler=client_command(_list))
    search = actions.add_parser("search", help="episodic recall: recency x relevance x importance")
    search.add_argument("query", metavar="QUERY")
    search.add_argument("--top-k", type=int, default=None)
    search.add_argument("--include-quarantined", action="store_true")
    search.add_argument("--conversation", default=None, metavar="ID")
    add_client_options(search)
    search.set_defaults(handler=client_command(_search))
    validate = actions.add_parser("validate", help="end an episode's quarantine")
    validate.add_argument("episode_id", metavar="ID")
    validate.add_argument("--note", default=None)
    add_client_options(validate)
    validate.set_defaults(handler=client_command(_validate))
