"""``memoryd mcp``: serve the running daemon's memory to an MCP client over stdio.

An MCP client (Claude Desktop, an IDE, an agent framework) starts ``memoryd mcp`` and speaks
MCP on its stdin and stdout; each tool call is a call of the daemon's API
(:mod:`daemon.mcp_server`). It takes the connection options of every command that talks to
the daemon (``--socket``, or ``--url`` with a token; ``-n/--namespace``, default
``$MEMORYD_NAMESPACE``). It starts whether or not the daemon is up: until one answers, its
tools answer an error that says to start it. Needs the ``mcp`` extra and the client library
(``pip install -e '.[mcp]' ./clients/python``; ``make setup`` installs both).
"""

from __future__ import annotations

import argparse
import sys

from daemon.cli.client_cmd import add_connection_options, connection_from_args

MISSING = (
    "memoryd mcp needs the MCP SDK and the client library: "
    "pip install -e '.[mcp]' ./clients/python (from the memoryd checkout; make setup does it)"
)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``mcp`` command."""
    parser = subparsers.add_parser(
        "mcp",
        help="an MCP server over stdio for the running daemon (for MCP clients)",
        description=(
            "Speak MCP on stdin/stdout, with tools that remember, recall and forget facts, "
            "show a fact's history, add messages, get a conversation's context and work the "
            "review queue of the running daemon. MCP clients start it themselves; see "
            "docs/integrations.md."
        ),
    )
    add_connection_options(parser)
    parser.set_defaults(handler=mcp_cmd)


async def mcp_cmd(args: argparse.Namespace) -> int:
    """Serve MCP on stdio until the client closes stdin."""
    try:
        from memoryd_client import AsyncMemorydClient, MemorydError, Retry

        from daemon.mcp_server import build_server
    except ImportError as exc:
        print(f"memoryd: {MISSING} ({exc})", file=sys.stderr)
        return 2
    conn = connection_from_args(args)
    # A tool call waits out a daemon restart for a second or two, not the client's 10 s.
    retry = Retry(attempts=5)
    async with AsyncMemorydClient(
        conn.socket, url=conn.url, token=conn.token, namespace=conn.namespace, retry=retry
    ) as client:
        try:
            await client.health()
        except MemorydError as exc:
            print(
                f"memoryd mcp: the daemon does not answer yet ({exc}); the tools will say "
                "so until it does (start it with `memoryd serve`)",
                file=sys.stderr,
            )
        await build_server(client, conn.namespace).run_stdio_async()
    return 0
