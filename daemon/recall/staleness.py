"""Messages whose facts were replaced rank below what is true now.

"I live in Boston" stays in the conversation after "we moved to Seattle" superseded the fact
it gave; a search for where the user lives should answer with Seattle first. A message counts
as replaced when every fact it was a source of has been superseded (the facts projection
knows: :func:`projections.facts.replaced_sources`). Its score is scaled down, not removed: it
is still what was said, and a question about the past may want it.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from dataclasses import replace

from daemon.recall.engine import Hit
from daemon.recall.query import SearchRequest

REPLACED_FACTOR = 0.8
"""A replaced message's score is multiplied by this before the hits are ranked again."""

HEADROOM = 5
"""Extra hits a search asks for, so a current fact below a replaced message can move up."""


def applies(req: SearchRequest) -> bool:
    """Whether the search asks what is true now, over messages (not a time-travel read)."""
    f = req.filters
    return (
        "message" in f.kinds and f.as_of is None and f.known_at is None and not f.include_superseded
    )


def demote(hits: Sequence[Hit], replaced: Set[str], top_k: int) -> list[Hit]:
    """Scale down the replaced messages' scores, rank again (ties keep their order), cut."""
    scored = [
        replace(hit, score=hit.score * REPLACED_FACTOR)
        if hit.kind == "message" and hit.id in replaced
        else hit
        for hit in hits
    ]
    order = sorted(range(len(scored)), key=lambda i: -scored[i].score)
    return [scored[i] for i in order][:top_k]
