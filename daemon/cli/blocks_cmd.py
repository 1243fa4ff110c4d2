"""``memoryd blocks list|show NAME|set NAME TEXT``: the curated blocks of the running daemon
(``/v1/blocks``). ``set`` writes as the app; ``-`` as the text reads it from standard input.
On a terminal they print text; with ``--json`` JSON.
"""

from __future__ import annotations

import argparse
import sys

from memoryd_client import AsyncMemorydClient

from daemon.cli.client_cmd import add_client_options, client_command, emit, render_table

BLOCK_COLUMNS = ("name", "max_chars", "author", "at", "text")


async def _list(args: argparse.Namespace, client: AsyncMemorydClient) -> int:
    result = await client.blocks()
    emit(args, result, render_table(result["blocks"], BLOCK_COLUMNS))
    return 0


async def _show(args: argparse.Namespace, client: AsyncMemorydClient) -> int:
    block = await client.block(args.name)
    head = f"{block['name']} ({len(block['text'])}/{block['max_chars']} chars"
    head += f", by {block['author']} at {block['at']})" if block["author"] else ", never written)"
    emit(args, block, f"{head}\npurpose: {block['purpose']}\n\n{block['text']}")
    return 0


async def _set(args: argparse.Namespace, client: AsyncMemorydClient) -> int:
    text = sys.stdin.read() if args.text == "-" else args.text
    result = await client.set_block(args.name, text)
    emit(
        args, result, f"{result['name']}  {result['chars']} chars  (position {result['position']})"
    )
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``blocks`` command group."""
    group = subparsers.add_parser("blocks", help="read and write curated blocks (running daemon)")
    actions = group.add_subparsers(dest="blocks_command", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="every registered block")
    add_client_options(listing)
    listing.set_defaults(handler=client_command(_list))
    show = actions.add_parser("show", help="one block's text and purpose")
    show.add_argument("name", metavar="NAME")
    add_client_options(show)
    show.set_defaults(handler=client_command(_show))
    write = actions.add_parser("set", help="write a block's text (as the app)")
    write.add_argument("name", metavar="NAME")
    write.add_argument("text", metavar="TEXT", help="the new text (- reads standard input)")
    add_client_options(write)
    write.set_defaults(handler=client_command(_set))
