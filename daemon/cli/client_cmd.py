"""Commands that talk to a running daemon: ``memoryd status``, ``messages``, ``facts``; and
what every such command shares (``recall``, ``retrospective run|status``, ``consolidate``,
``review``, the wait of ``events import --wait``).

They connect to the unix socket (``--socket``, default the one ``memoryd serve`` uses with
the same configuration) or to a TCP URL (``--url`` with a bearer token from ``--token``,
``--token-file`` or ``$MEMORYD_TOKEN``), in the namespace ``-n/--namespace`` (default
``$MEMORYD_NAMESPACE``, else ``default``), through the client library
(:class:`memoryd_client.AsyncMemorydClient`). Output is a table for people, ``--json`` for
scripts. When no daemon is listening they say so and exit with status 3; an API error exits
with status 1.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import orjson
from memoryd_client import ApiError, AsyncMemorydClient, DaemonUnavailable, Retry

from daemon.config import ConfigError, default_config_path, load_config
from daemon.paths import default_socket_path

EXIT_API_ERROR = 1
EXIT_NO_DAEMON = 3
TOKEN_ENV = "MEMORYD_TOKEN"
NAMESPACE_ENV = "MEMORYD_NAMESPACE"
TIMEOUT = 60.0
"""Seconds a command waits for an answer."""

READY_RETRY = Retry(attempts=15, backoff=0.1, max_backoff=1.0, reconnect=False)
"""A daemon still starting a part of itself answers ``503 not_ready``: a command run right
after ``memoryd serve`` asks again for about 10 s instead of failing for being early. Nothing
listening is said at once: a command line does not wait for a daemon that may never start."""

AT_ONCE = Retry(attempts=1, reconnect=False)
"""For ``memoryd status``, whose answer is how far a starting daemon has got."""


def default_socket() -> Path:
    """Return the socket ``memoryd serve`` would use with the same configuration."""
    try:
        return load_config(default_config_path()).server.socket
    except ConfigError:
        return default_socket_path()


def add_connection_options(parser: argparse.ArgumentParser) -> None:
    """Add the options that say where the daemon is and as whom to talk to it."""
    parser.add_argument("--socket", type=Path, default=None, help="daemon's unix socket")
    parser.add_argument("--url", default=None, help="daemon's TCP URL, e.g. http://127.0.0.1:8765")
    parser.add_argument(
        "--token",
        default=None,
        help=f"bearer token for --url (other users see it in ps: prefer --token-file or "
        f"${TOKEN_ENV})",
    )
    parser.add_argument(
        "--token-file", type=Path, default=None, help=f"bearer token file (or ${TOKEN_ENV})"
    )
    parser.add_argument(
        "-n",
        "--namespace",
        default=None,
        help=f"namespace (default: ${NAMESPACE_ENV}, else default)",
    )


def add_client_options(parser: argparse.ArgumentParser) -> None:
    """Add the connection options and ``--json`` to a command that talks to the daemon."""
    add_connection_options(parser)
    parser.add_argument("--json", action="store_true", help="print JSON for scripts")


@dataclass(frozen=True, slots=True)
class Connection:
    """Where the daemon is and as whom to talk to it, as the connection options say: the
    socket (``url`` is None), or ``url`` with ``token``; and the namespace."""

    socket: Path | None
    url: str | None
    token: str | None
    namespace: str


def connection_from_args(args: argparse.Namespace) -> Connection:
    """Resolve the connection options (with their environment defaults)."""
    namespace = args.namespace or os.environ.get(NAMESPACE_ENV) or "default"
    if args.url is None:
        socket = args.socket if args.socket is not None else default_socket()
        return Connection(socket, None, None, namespace)
    token = os.environ.get(TOKEN_ENV)
    if args.token_file is not None:
        token = args.token_file.read_text().strip()
    if args.token is not None:
        token = args.token
    return Connection(None, args.url.rstrip("/"), token, namespace)


def client_from_args(args: argparse.Namespace, retry: Retry | None = None) -> AsyncMemorydClient:
    """Build the client the options name (asking again as ``retry`` says, else
    :data:`READY_RETRY`)."""
    conn = connection_from_args(args)
    return AsyncMemorydClient(
        conn.socket,
        url=conn.url,
        token=conn.token,
        namespace=conn.namespace,
        timeout=TIMEOUT,
        retry=retry or READY_RETRY,
    )


# -- output ---------------------------------------------------------------------------------


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return ",".join(_cell(v) for v in value)
    if isinstance(value, dict):
        return orjson.dumps(value).decode()
    return " ".join(str(value).split())


def render_table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> str:
    """Return rows as an aligned text table; the last column is cut to the terminal width."""
    cells = [[_cell(row.get(c)) for c in columns] for row in rows]
    widths = [max([len(c), *(len(r[i]) for r in cells)]) for i, c in enumerate(columns)]
    if sys.stdout.isatty():
        total = shutil.get_terminal_size().columns
        used = sum(widths[:-1]) + 2 * (len(columns) - 1)
        widths[-1] = max(10, min(widths[-1], total - used))
    lines = ["  ".join(c.upper().ljust(w) for c, w in zip(columns, widths, strict=True)).rstrip()]
    for row in cells:
        parts = []
        for value, width in zip(row, widths, strict=True):
            text = value if len(value) <= width else value[: max(0, width - 1)] + "…"
            parts.append(text.ljust(width))
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)


def render_pairs(data: Mapping[str, Any]) -> str:
    """Return ``key: value`` lines."""
    width = max((len(k) for k in data), default=0)
    return "\n".join(f"{k.ljust(width)}  {_cell(v)}" for k, v in data.items())


def emit(args: argparse.Namespace, data: Any, text: str) -> None:
    if args.json:
        sys.stdout.write(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        print(text)


Action = Callable[[argparse.Namespace, AsyncMemorydClient], Awaitable[int]]
"""A command's work, given its arguments and a client: returns the exit status."""


def _unavailable(exc: DaemonUnavailable) -> str:
    if isinstance(exc.__cause__, httpx.ConnectError):
        return f"no memoryd is listening on {exc.address}; start one with `memoryd serve`"
    return str(exc)


async def run_client(args: argparse.Namespace, action: Action, retry: Retry | None = None) -> int:
    """Run ``action(args, client)``; turn a missing daemon or an API error into the exit
    status and message every client command gives."""
    try:
        async with client_from_args(args, retry) as client:
            return await action(args, client)
    except DaemonUnavailable as exc:
        print(f"memoryd: {_unavailable(exc)}", file=sys.stderr)
        return EXIT_NO_DAEMON
    except ApiError as exc:
        if args.json:
            err = {"error": {"code": exc.code, "message": exc.message, "details": exc.details}}
            sys.stdout.write(orjson.dumps(err).decode() + "\n")
        print(f"memoryd: {exc.status} {exc.code}: {exc.message}", file=sys.stderr)
        return EXIT_API_ERROR


def client_command(action: Action) -> Callable[[argparse.Namespace], Awaitable[int]]:
    """The handler that runs ``action`` with a client of the running daemon."""

    async def command(args: argparse.Namespace) -> int:
        return await run_client(args, action)

    return command


# -- status ---------------------------------------------------------------------------------


async def _status(args: argparse.Namespace, client: AsyncMemorydClient) -> int:
    health: Mapping[str, Any]
    try:
        health = await client.health()
    except ApiError as exc:
        if exc.code != "not_ready":
            raise
        health = exc.details
    data: dict[str, Any] = {"address": client.endpoint.address, **health}
    try:
        data["retrospective"] = await client.retrospective_service()
    except ApiError as exc:  # not started yet, or an older daemon: health still counts
        data["retrospective"] = {"error": {"code": exc.code, "message": exc.message}}
    health_pairs = {k: v for k, v in data.items() if k != "retrospective"}
    text = render_pairs(health_pairs) + "\n\n" + render_retrospective(data["retrospective"])
    emit(args, data, text)
    return 0 if health.get("status") == "ok" else EXIT_API_ERROR


def _limit(used: Any, limit: Any) -> str:
    return f"{used} / {'unlimited' if limit is None else limit}"


def render_retrospective(snapshot: Mapping[str, Any]) -> str:
    """Return the ``GET /v1/retrospective`` answer for ``memoryd status``: the service, the
    model's usage against its daily budget, and the counters as a table."""
    error = snapshot.get("error")
    if isinstance(error, Mapping):
        return f"retrospective  unavailable: {error.get('message', error.get('code'))}"
    model = snapshot.get("model")
    service = {
        "retrospective": "enabled" if snapshot.get("enabled") else "disabled",
        "leading": snapshot.get("leading"),
        "llm": f"{snapshot.get('provider')}" + (f" ({model})" if model else ""),
        "pending": snapshot.get("pending"),
        "running": snapshot.get("running"),
    }
    budget = snapshot.get("budget")
    if isinstance(budget, Mapping):
        service["llm calls today"] = _limit(budget.get("calls"), budget.get("calls_per_day"))
        service["llm tokens today"] = _limit(budget.get("tokens"), budget.get("tokens_per_day"))
        state = "exceeded" if budget.get("exceeded") else "within"
        if budget.get("resume_at"):
            state += f", resumes at {budget['resume_at']}"
        service["llm budget"] = f"{state} (reset {budget.get('reset')}, {budget.get('on_exceed')})"
    else:
        service["llm budget"] = "none (no daily limit for this provider)"
    counters = snapshot.get("counters") or {}
    rows = [{"counter": name, "value": value} for name, value in counters.items()]
    return render_pairs(service) + "\n\n" + render_table(rows, ("counter", "value"))


async def status_cmd(args: argparse.Namespace) -> int:
    """Show whether the daemon is up, how far it is, and its retrospectives and model use."""
    return await run_client(args, _status, AT_ONCE)


# -- messages -------------------------------------------------------------------------------

MESSAGE_COLUMNS = ("position", "message_id", "role", "created_at", "content")


async def _messages_add(args: argparse.Namespace, client: AsyncMemorydClient) -> int:
    text = args.text if args.text not in (None, "-") else sys.stdin.read()
    metadata = None
    if args.metadata:
        try:
            metadata = orjson.loads(args.metadata)
        except orjson.JSONDecodeError as exc:
            print(f"memoryd: --metadata is not JSON: {exc}", file=sys.stderr)
            return 2
    result = await client.add_message(
        args.conversation,
        args.role,
        text,
        name=args.name or None,
        metadata=metadata,
        idempotency_key=args.idempotency_key or None,
    )
    emit(args, result, f"{result['message_id']}  (position {result['position']})")
    return 0


async def _messages_list(args: argparse.Namespace, client: AsyncMemorydClient) -> int:
    result = await client.list_messages(
        args.conversation, after=args.after or None, limit=args.limit
    )
    emit(args, result, render_table(result["messages"], MESSAGE_COLUMNS))
    return 0


async def messages_add_cmd(args: argparse.Namespace) -> int:
    """Append a message to a conversation."""
    return await run_client(args, _messages_add)


async def messages_list_cmd(args: argparse.Namespace) -> int:
    """List a conversation's messages."""
    return await run_client(args, _messages_list)


# -- facts ----------------------------------------------------------------------------------

FACT_COLUMNS = ("fact_id", "status", "owner", "valid_from", "tags", "text")


async def _facts_list(args: argparse.Namespace, client: AsyncMemorydClient) -> int:
    result = await client.list_facts(
        subject=args.subject or None,
        as_of=args.as_of or None,
        known_at=args.known_at or None,
        status=args.status or None,
        tag=args.tag or None,
        owner=args.owner or None,
        limit=args.limit,
        include_quarantined=args.all or None,
        include_superseded=args.include_superseded or None,
    )
    emit(args, result, render_table(result["facts"], FACT_COLUMNS))
    return 0


async def _facts_show(args: argparse.Namespace, client: AsyncMemorydClient) -> int:
    result = await client.get_fact(args.fact_id)
    emit(args, result, render_pairs(result))
    return 0


async def _facts_history(args: argparse.Namespace, client: AsyncMemorydClient) -> int:
    result = await client.fact_history(args.fact_id)
    columns = ("fact_id", "status", "valid_from", "valid_to", "superseded_by", "text")
    text = (
        "supersede chain:\n"
        + render_table(result["chain"], columns)
        + "\n\nversions of this fact:\n"
        + render_table(
            result["versions"], ("position", "status", "recorded_from", "forgotten", "text")
        )
        + "\n\ndecisions that named it:\n"
        + render_table(
            result.get("decisions", []), ("position", "role", "outcome", "decided_by", "reason")
        )
    )
    emit(args, result, text)
    return 0


async def _facts_add(args: argparse.Namespace, client: AsyncMemorydClient) -> int:
    result = await client.add_fact(
        args.text,
        idempotency_key=args.idempotency_key or None,
        tags=args.tag or None,
        subject=args.subject,
        predicate=args.predicate,
        object=args.object,
        owner=args.owner,
        provenance=args.provenance,
        valid_from=args.valid_from,
        valid_to=args.valid_to,
        confidence=args.confidence,
        importance=args.importance,
    )
    replaced = ", ".join(result.get("superseded") or result.get("conflicts_with") or [])
    outcome = result.get("outcome", "added") + (f" ({replaced})" if replaced else "")
    emit(args, result, f"{result['fact_id']}  {outcome}  (position {result['position']})")
    return 0


async def _facts_purge(args: argparse.Namespace, client: AsyncMemorydClient) -> int:
    if not args.yes:
        print(
            f"memoryd: purging erases what {args.fact_id} said for good; add --yes", file=sys.stderr
        )
        return 2
    result = await client.purge_fact(args.fact_id)
    emit(args, result, f"{result['fact_id']}  purged  (position {result['position']})")
    return 0


async def facts_list_cmd(args: argparse.Namespace) -> int:
    """Query facts."""
    return await run_client(args, _facts_list)


async def facts_show_cmd(args: argparse.Namespace) -> int:
    """Show one fact."""
    return await run_client(args, _facts_show)


async def facts_history_cmd(args: argparse.Namespace) -> int:
    """Show a fact's supersede chain and versions."""
    return await run_client(args, _facts_history)


async def facts_add_cmd(args: argparse.Namespace) -> int:
    """Write a fact."""
    return await run_client(args, _facts_add)


async def facts_purge_cmd(args: argparse.Namespace) -> int:
    """Erase a fact's text from the whole log."""
    return await run_client(args, _facts_purge)


# -- registration ---------------------------------------------------------------------------


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``status``, ``messages`` and ``facts``."""
    status = subparsers.add_parser("status", help="is the daemon up, how far has it got")
    add_client_options(status)
    status.set_defaults(handler=status_cmd)

    messages = subparsers.add_parser("messages", help="add and list messages (running daemon)")
    msub = messages.add_subparsers(dest="messages_command", required=True, metavar="COMMAND")
    add = msub.add_parser("add", help="append a message")
    add_client_options(add)
    add.add_argument("conversation", help="conversation id")
    add.add_argument("text", nargs="?", default=None, help="content (default or '-': stdin)")
    add.add_argument("--role", default="user", choices=("user", "assistant", "tool", "system"))
    add.add_argument("--name", default=None)
    add.add_argument("--metadata", default=None, help="a JSON object")
    add.add_argument("--idempotency-key", default=None)
    add.set_defaults(handler=messages_add_cmd)
    lst = msub.add_parser("list", help="list a conversation's messages")
    add_client_options(lst)
    lst.add_argument("conversation", help="conversation id")
    lst.add_argument("--after", default=None, help="a message id")
    lst.add_argument("--limit", type=int, default=100)
    lst.set_defaults(handler=messages_list_cmd)

    facts = subparsers.add_parser("facts", help="query and add facts (running daemon)")
    fsub = facts.add_subparsers(dest="facts_command", required=True, metavar="COMMAND")
    flist = fsub.add_parser("list", help="query facts (default: current, active)")
    add_client_options(flist)
    flist.add_argument("--tag", default=None)
    flist.add_argument("--owner", default=None)
    flist.add_argument("--status", default=None)
    flist.add_argument("--as-of", default=None, help="valid time (ISO 8601)")
    flist.add_argument(
        "--known-at", default=None, help="transaction time (ISO 8601) or a log position"
    )
    flist.add_argument("--subject", default=None, help="facts about this subject (user, a name)")
    flist.add_argument("--all", action="store_true", help="include quarantined facts")
    flist.add_argument("--include-superseded", action="store_true")
    flist.add_argument("--limit", type=int, default=100)
    flist.set_defaults(handler=facts_list_cmd)
    show = fsub.add_parser("show", help="show one fact")
    add_client_options(show)
    show.add_argument("fact_id")
    show.set_defaults(handler=facts_show_cmd)
    history = fsub.add_parser("history", help="a fact's supersede chain and versions")
    add_client_options(history)
    history.add_argument("fact_id")
    history.set_defaults(handler=facts_history_cmd)
    fadd = fsub.add_parser("add", help="write a fact")
    add_client_options(fadd)
    fadd.add_argument("text")
    fadd.add_argument("--tag", action="append", default=None, help="repeatable")
    fadd.add_argument("--subject", default=None)
    fadd.add_argument("--predicate", default=None)
    fadd.add_argument("--object", default=None)
    fadd.add_argument("--owner", default=None)
    fadd.add_argument("--provenance", default=None)
    fadd.add_argument("--valid-from", default=None)
    fadd.add_argument("--valid-to", default=None)
    fadd.add_argument("--confidence", type=float, default=None)
    fadd.add_argument("--importance", type=float, default=None)
    fadd.add_argument("--idempotency-key", default=None)
    fadd.set_defaults(handler=facts_add_cmd)
    purge = fsub.add_parser("purge", help="erase a fact's text from the whole log (for good)")
    add_client_options(purge)
    purge.add_argument("fact_id")
    purge.add_argument("--yes", action="store_true", help="yes, erase it (cannot be undone)")
    purge.set_defaults(handler=facts_purge_cmd)
