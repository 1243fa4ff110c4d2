"""Offline reformulation for iterative recall (issue 18): the next pass's queries, made from
the question and the texts the first pass found. No model.

- :func:`feedback_query` (pseudo-relevance feedback): the question plus the words that recur
  in the best hits and that the question does not already have;
- :func:`bridge_queries` (entity bridging): each entity named in the best hits and not in the
  question becomes a query with the question's own words, so that a fact about that entity
  (the second hop) can be found.

Both are pure functions of their arguments.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from daemon.recall.query import STOPWORDS, query_terms
from projections.entities import canonical_key, extract_entities

_WORD = re.compile(r"[^\W\d_]{3,}", re.UNICODE)
FEEDBACK_DOCS = 3
FEEDBACK_TERMS = 4
BRIDGE_DOCS = 5


@dataclass(frozen=True, slots=True)
class Reformulation:
    """One query for a later pass and where it came from (``feedback`` or ``bridge``)."""

    query: str
    source: str
    detail: str = ""


def _stem(word: str) -> str:
    """A crude plural/verb-ending fold, only to tell a question's word from a hit's."""
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def feedback_query(
    question: str,
    texts: Sequence[str],
    docs: int = FEEDBACK_DOCS,
    terms: int = FEEDBACK_TERMS,
) -> Reformulation | None:
    """The question plus up to ``terms`` words found in at least two of the first ``docs``
    texts (most texts first, then first seen), or None when no word recurs."""
    asked = {_stem(t) for t in query_terms(question)}
    counts: Counter[str] = Counter()
    first: dict[str, int] = {}
    for text in texts[:docs]:
        seen = set()
        for word in _WORD.findall(text.lower()):
            if word in STOPWORDS or _stem(word) in asked or word in seen:
                continue
            seen.add(word)
            first.setdefault(word, len(first))
            counts[word] += 1
    chosen = [w for w in sorted(counts, key=lambda w: (-counts[w], first[w])) if counts[w] >= 2]
    chosen = chosen[:terms]
    if not chosen:
        return None
    return Reformulation(f"{question} {' '.join(chosen)}", "feedback", " ".join(chosen))


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
