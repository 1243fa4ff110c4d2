"""The standard phase's extraction: the retrospectives of conversations with unreviewed messages.

The standard phase is "the retrospective's extraction, plus reconciliation". Consolidation
does not extract facts itself: it asks the retrospective service, through its manual trigger
(:meth:`RetrospectiveService.request_run`, the same path as ``POST
/v1/conversations/{cid}/retrospective:run``), for a run of every conversation in the namespace
that has reviewable (finalized, not yet reviewed) messages, no retrospective pending or
running, and that the manual trigger would schedule (a request it would skip is not made).
Each request is a decision the retrospective service appends to the conversation's
retrospective stream (fenced by that stream's version); the consolidation run lists the
requests in its completion (``action: retrospective``).

The retrospectives run asynchronously (they call a model, under their own budget and
concurrency), so the facts they write are reconciled by the *next* consolidation run: the
standard phase reconciles the facts written since the previous run's activity position.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from daemon.retrospective import triggers
from daemon.retrospective.service import RetrospectiveError, RetrospectiveService

MAX_REQUESTS = 50
"""Most conversations one consolidation run asks a retrospective for."""

Retrospect = Callable[[str], Awaitable[list[dict[str, Any]]]]
"""``namespace -> requests made`` (each ``{conversation_id, action, run_id, reason, ...}``)."""


async def request_retrospectives(
    service: RetrospectiveService, namespace: str, limit: int = MAX_REQUESTS
) -> list[dict[str, Any]]:
    """Request a retrospective of each conversation of ``namespace`` with unreviewed messages."""
    if not service.config.enabled:
        return []
    await service.sync()
    out: list[dict[str, Any]] = []
    for (ns, cid), conv in sorted(service.fold.conversations.items(), key=lambda kv: kv[0]):
        if len(out) >= limit:
            break
        if ns != namespace or conv.deleted or not conv.reviewable_count():
            continue
        if conv.pending_run_id is not None or conv.running_run_id is not None:
            continue
        if triggers.manual(service.config, conv, service.clock.now()).action != "schedule":
            # e.g. no user message in the tail: a request would only log a skip, and that
            # event would count as activity and trigger the next consolidation run
            continue
        try:
            result = await service.request_run(ns, cid)
        except RetrospectiveError as exc:
            out.append({"conversation_id": cid, "action": "refused", "reason": exc.code})
            continue
        out.append({"conversation_id": cid, **result.to_json()})
    return out
