"""HyDE and multi-query: more ways into the index, written by the model.

- ``hyde``: one call writes a short hypothetical answer; its nearest documents by meaning
  (the vector leg alone, the answer embedded) are fused in as a labelled pass.
- ``multi_query: N``: one call writes up to N-1 rewordings of the question; each is searched
  like the question and fused in by RRF.

Without a model both are no-ops that make no call (the answer's ``explain`` says so). Every
call is bounded by a timeout and goes through the provider it is given (budgeted by the
caller); a failure leaves the hits as they were and is reported, never raised.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from daemon.recall.engine import Hit
from daemon.recall.grader import ask, json_object
from daemon.recall.iterative import fuse_passes
from daemon.recall.query import SearchRequest
from plugins.llm.types import ChatMessage, CompletionRequest, LLMProvider

MODEL_PASS_WEIGHT = 0.5
"""RRF weight of a HyDE or reworded pass (the question's own ranking weighs 1)."""
MAX_MULTI_QUERY = 5
HYDE_SYSTEM = (
    "Write two or three sentences that would answer the question, as if quoting a note "
    "someone kept about it. Plain text only, no preamble."
)
MULTI_SYSTEM = (
    "Reword the question as different search queries that could find its answer. "
    'Reply with JSON only: {"queries": ["...", "..."]}.'
)

Search = Callable[[SearchRequest], Awaitable[list[Hit]]]


async def _ask(
    provider: LLMProvider, system: str, question: str, timeout: float
) -> tuple[str | None, str | None]:
    """The model's text (one line), or None and why not."""
    request = CompletionRequest(
        system=system, messages=[ChatMessage("user", question)], max_tokens=300
    )
    text, error = await ask(provider, request, timeout)
    if text is None:
        return None, error
    text = " ".join(text.split())
    return (text, None) if text else (None, "bad_output: empty answer")


def parse_rewordings(text: str, limit: int) -> list[str]:
    """The queries of ``{"queries": [...]}`` (at most ``limit``, distinct); ValueError when
    the answer is not that."""
    queries = json_object(text).get("queries")
    if not isinstance(queries, list) or not all(isinstance(q, str) for q in queries):
        raise ValueError('"queries" must be a list of strings')
    cleaned = [" ".join(q.split())[:4000] for q in queries]
    return list(dict.fromkeys(q for q in cleaned if q))[:limit]


async def with_model_passes(
    search: Search,
    req: SearchRequest,
    hits: list[Hit],
    provider: LLMProvider | None,
    *,
    hyde: bool,
    multi_query: int,
    timeout: float,
) -> tuple[list[Hit], dict[str, Any]]:
    """``hits`` with the HyDE and reworded passes fused in, and what happened (``explain``)."""
    info: dict[str, Any] = {}
    wanted = min(MAX_MULTI_QUERY, multi_query) - 1
    if not hyde and wanted <= 0:
        return hits, info
    if provider is None:
        if hyde:
            info["hyde"] = {"skipped": "no model"}
        if wanted > 0:
            info["multi_query"] = {"skipped": "no model"}
        return hits, info
    rankings: list[Sequence[Hit]] = [hits]
    weights = [1.0]
    calls = 0
    if hyde:
        calls += 1
        text, error = await _ask(provider, HYDE_SYSTEM, req.query, timeout)
        if text is None:
            info["hyde"] = {"error": error}
        else:
            leg = dataclasses.replace(req, query=text, legs=("vector",), explain=False)
            found = await search(leg)
            rankings.append(found)
            weights.append(MODEL_PASS_WEIGHT)
            info["hyde"] = {"text": text, "found": len(found)}
    if wanted > 0:
        calls += 1
        text, error = await _ask(provider, MULTI_SYSTEM + f" At most {wanted}.", req.query, timeout)
        queries: list[str] = []
        if text is not None:
            try:
                queries = [q for q in parse_rewordings(text, wanted) if q != req.query]
            except ValueError as exc:
                error = f"bad_output: {exc}"
        if error is not None:
            info["multi_query"] = {"error": error}
        else:
            found_each = await asyncio.gather(
                *(search(dataclasses.replace(req, query=q, explain=False)) for q in queries)
            )
            rankings.extend(found_each)
            weights.extend([MODEL_PASS_WEIGHT] * len(queries))
            info["multi_query"] = {
                "queries": [
                    {"query": q, "found": len(f)} for q, f in zip(queries, found_each, strict=True)
                ]
            }
    info["model_calls"] = calls
    if len(rankings) == 1:
        return hits, info
    return fuse_passes(rankings, weights, req.top_k), info
