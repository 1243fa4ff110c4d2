"""``memoryd inspect [--open]``: print (and open) the inspector's one-time login URL.

The daemon serves the pages on its loopback TCP listener, opening one if none is configured
(``daemon.inspector``). The URL carries a token good for one visit within five minutes; the
visit trades it for a session cookie. Asked over the unix socket, the session sees every
namespace; asked over TCP (``--url`` with a token), it sees the token's namespaces.
"""

from __future__ import annotations

import argparse
import webbrowser
from typing import Any

from memoryd_client import AsyncMemorydClient, Call

from daemon.cli.client_cmd import add_client_options, emit, run_client


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``inspect`` command."""
    parser = subparsers.add_parser(
        "inspect",
        help="open the inspector: web pages of what the memory believes, when and why",
        description=(
            "Print a one-time loopback URL for the inspector (facts, time travel, the event "
            "log, conversations, review, health); --open opens it in the default browser."
        ),
    )
    add_client_options(parser)
    parser.add_argument("--open", action="store_true", help="open the URL in a browser")
    parser.set_defaults(handler=inspect_cmd)


async def inspect_cmd(args: argparse.Namespace) -> int:
    """Ask the daemon for a login URL; print it, and open it with ``--open``."""
    return await run_client(args, _inspect)


async def _inspect(args: argparse.Namespace, client: AsyncMemorydClient) -> int:
    # A session is one visit's grant, not a write to replay: asked once, never retried.
    answer: dict[str, Any] = await client.send(Call("POST", "/inspect/session"))
    url = str(answer["url"])
    emit(args, answer, f"{url}\n(good for one visit within {answer['expires_in']:.0f} s)")
    if args.open:
        webbrowser.open(url)
    return 0
