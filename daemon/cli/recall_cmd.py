"""``memoryd recall "query"``: search a running daemon (``POST /v1/search``).

Prints a table of hits (rank, kind, score, id, conversation, text), or the API's JSON with
``--json``; ``--explain`` adds each hit's leg ranks and multipliers to the table. ``--deep``
answers through the iterative offline loop (``iterative`` in the request; with ``--explain``
the gate's score and signals and each pass's query and what it added are printed first);
``--hyde`` and ``--multi-query N`` ask for the model-written passes (no-ops without a model).
"""

from __future__ import annotations

import argparse
from typing import Any

from memoryd_client import AsyncMemorydClient
from memoryd_client.types import Iterative, SearchResult

from daemon.cli.client_cmd import add_client_options, emit, render_table, run_client


def _iterative(args: argparse.Namespace) -> Iterative | None:
    """The ``iterative`` option ``--deep`` and its refinements ask for."""
    if not (args.deep or args.max_iterations is not None or args.force_hard):
        return None
    iterative: Iterative = {}
    if args.max_iterations is not None:
        iterative["max_iterations"] = args.max_iterations
    if args.force_hard:
        iterative["force_hard"] = True
    return iterative


async def search(args: argparse.Namespace, client: AsyncMemorydClient) -> SearchResult:
    """Search as the options describe (an option left out keeps the daemon's default)."""
    return await client.search(
        args.query,
        top_k=args.top_k,
        scope=[args.scope] if args.scope else None,
        conversation_id=args.conversation_id or None,
        as_of=args.as_of or None,
        known_at=args.known_at or None,
        owner=args.owner or None,
        tags=args.tag or None,
        include_superseded=args.include_superseded or None,
        include_quarantined=args.include_quarantined or None,
        decay=None if args.decay_days is None else {"tau_days": args.decay_days},
        expand_hops=args.expand_hops or None,
        graph_scoring=args.graph_scoring if args.expand_hops else None,
        entity_match=args.entity_match or None,
        explain=args.explain or None,
        iterative=_iterative(args),
        hyde=args.hyde or None,
        multi_query=args.multi_query,
    )


def _passes(explained: dict[str, Any]) -> str:
    """The gate's verdict and each pass, one line each."""
    gate = explained["gate"]
    signals = " ".join(f"{k}={v:.2f}" for k, v in gate["signals"].items() if v)
    verdict = "hard" if gate["hard"] else "easy"
    forced = " (forced)" if gate.get("forced") else ""
    lines = [f"gate: {gate['score']:.2f} {verdict}{forced} {signals}".rstrip()]
    for n, one in enumerate(explained["passes"], start=1):
        added = ", ".join(one["added"]) or "nothing"
        lines.append(f"pass {n} ({one['source']}): {one['query']!r} added {added}")
    authors = explained.get("authors")
    if authors:
        said = ", ".join(authors["hits"]) or "none of the hits"
        names = ", ".join(authors["names"])
        lines.append(f"authors: {names} (x{authors['factor']}): {said}")
    return "\n".join(lines)


def _explain(signals: dict[str, Any] | None) -> str:
    if not signals:
        return ""
    legs = " ".join(f"{k}#{v['rank']}" for k, v in signals.get("legs", {}).items())
    mult = " ".join(f"{k}x{v:.2f}" for k, v in signals.get("multipliers", {}).items())
    graph = signals.get("graph")
    hop = f" hop{graph['hop']}" if graph else ""
    return f"{legs} {mult}{hop}".strip()


async def _recall(args: argparse.Namespace, client: AsyncMemorydClient) -> int:
    result = await search(args, client)
    rows = []
    for rank, hit in enumerate(result["hits"], start=1):
        rows.append(
            {
                "rank": rank,
                "kind": hit["kind"],
                "score": f"{hit['score']:.4f}",
                "id": hit["id"],
                "conversation": hit.get("conversation_id"),
                "why": _explain(hit.get("signals")),
                "text": hit["text"],
            }
        )
    columns = ["rank", "kind", "score", "id", "conversation", "text"]
    if args.explain:
        columns.insert(5, "why")
    text = render_table(rows, columns) if rows else "no hits"
    if "iterative" in result:
        text = f"{_passes(result['iterative'])}\n{text}"
    emit(args, result, text)
    return 0


async def recall_cmd(args: argparse.Namespace) -> int:
    """Run ``memoryd recall``."""
    return await run_client(args, _recall)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``recall``."""
    parser = subparsers.add_parser("recall", help="search memory (running daemon)")
    add_client_options(parser)
    parser.add_argument("query", help="what to recall")
    parser.add_argument("-k", "--top-k", type=int, default=10)
    parser.add_argument("--scope", choices=("facts", "messages"), default=None)
    parser.add_argument("--conversation", dest="conversation_id", default=None)
    parser.add_argument("--as-of", default=None, help="valid time (ISO 8601)")
    parser.add_argument("--known-at", default=None, help="transaction time (ISO 8601)")
    parser.add_argument(
        "--owner",
        action="append",
        choices=("user", "agent", "shared"),
        default=None,
        help="any of these owners (repeat for more than one)",
    )
    parser.add_argument("--tag", action="append", default=None, help="any of these tags")
    parser.add_argument("--include-superseded", action="store_true")
    parser.add_argument("--include-quarantined", action="store_true")
    parser.add_argument("--decay-days", type=float, default=None, help="decay tau in days")
    parser.add_argument("--expand-hops", type=int, choices=(0, 1, 2), default=0)
    parser.add_argument("--graph-scoring", choices=("flat", "ppr"), default="flat")
    parser.add_argument("--entity-match", action="store_true")
    parser.add_argument("--explain", action="store_true", help="show why each hit ranks")
    parser.add_argument(
        "--deep", action="store_true", help="iterative recall: more passes for a hard question"
    )
    parser.add_argument(
        "--max-iterations", type=int, default=None, help="passes at most with --deep (1-5)"
    )
    parser.add_argument(
        "--force-hard", action="store_true", help="with --deep: skip the difficulty gate"
    )
    parser.add_argument(
        "--hyde", action="store_true", help="with a model: add a hypothetical answer's neighbours"
    )
    parser.add_argument(
        "--multi-query", type=int, default=None, help="with a model: N-1 rewordings (1-5)"
    )
    parser.set_defaults(handler=recall_cmd)
