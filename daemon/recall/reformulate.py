"""Offline reformulation for iterative recall: the next pass's queries, made from
the question and the texts the first pass found. No model.

- :func:`bridge_queries` (entity bridging): each entity named in the best hits and not in the
  question becomes a query with the question's own words, so that a fact about that entity
  (the second hop) can be found.

A pure function of its arguments. Tried on LoCoMo and dropped (``docs/performance.md``):
pseudo-relevance feedback (the question plus the words recurring in the best three hits:
-0.001 hit@10 overall, temporal -0.022, with the gate skipped), the question without the
names it mentions (-0.009), the best hit's own text appended (+0.000, temporal -0.039).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from daemon.recall.query import STOPWORDS, query_terms
from projections.entities import canonical_key, extract_entities

BRIDGE_DOCS = 5


@dataclass(frozen=True, slots=True)
class Reformulation:
    """One query for a later pass and where it came from (``bridge``)."""

    query: str
    source: str
    detail: str = ""


def bridge_queries(
    question: str,
    texts: Sequence[str],
    limit: int,
    docs: int = BRIDGE_DOCS,
) -> list[Reformulation]:
    """Up to ``limit`` queries ``"<entity> <the question's words>"``, one per entity named in
    the first ``docs`` texts and not in the question (most mentioned first, then first seen)."""
    if limit <= 0:
        return []
    asked = {e.key for e in extract_entities(question)}
    asked |= {canonical_key(w) for w in question.split()}
    counts: Counter[str] = Counter()
    surface: dict[str, str] = {}
    first: dict[str, int] = {}
    for text in texts[:docs]:
        for entity in extract_entities(text):
            key = entity.key
            if not key or key in asked or key in STOPWORDS:
                continue
            surface.setdefault(key, entity.display)
            first.setdefault(key, len(first))
            counts[key] += 1
    words = " ".join(query_terms(question))
    ranked = sorted(counts, key=lambda k: (-counts[k], first[k]))[:limit]
    return [Reformulation(f"{surface[k]} {words}", "bridge", surface[k]) for k in ranked]
