"""Of the hits that answer a question about the user's present alike, the newest first.

"who is my manager?" finds "Tom is the user's manager." (from what was said in March) and "my
old manager left, new one is Priya" (said in June). Both hold the question's word, and the
question asks what is so now: the later statement is the one that says it. Where memory knows
a fact was replaced, staleness already demotes what it came from; this is for what memory only
heard, a change the extractor did not read.

Hits answer alike when they hold the same words of the question (its terms, stopwords
dropped), or, facts holding none of them, state the attribute it asks for (``job`` for
"what's my job?"). Among such hits, the slots they occupy in the ranking are refilled newest
first: no hit moves past one that answers differently. Only facts about the user and the
user's own words saying something changed are reordered (an assistant's reply is no statement
of the user's present, a fact about the user's brother no answer about the user, a passing
mention of the same word no answer at all); only for a question in the first person and the
present tense ("where did I live before Leeds?", "when did I move?" keep their order), and only
in a read of what is true now.

A pure function of the question and the hits.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from daemon.recall.about import asked_about
from daemon.recall.engine import Hit
from daemon.recall.query import query_terms
from daemon.recall.time_cues import asks_when

_FIRST_PERSON = re.compile(r"\b(?:i|i'm|im|my|me|mine)\b", re.IGNORECASE)
_PAST = re.compile(
    r"\b(?:did|was|were|used\s+to|before|previous|previously|first|originally|former|formerly"
    r"|old|ex|last|ago|back\s+then|earlier|had|ever)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"\w+")
_SAYS_A_CHANGE = re.compile(
    r"\b(?:now|new|anymore|any\s+more|no\s+longer|switched|changed|moved|left|quit|started"
    r"|instead|these\s+days|used\s+to|(?:my|our)\s+old|ex|replaced|sold|stopped|gave\s+up"
    r"|transferred|promoted|got\s+rid\s+of|since|update)\b",
    re.IGNORECASE,
)


def applies(question: str) -> bool:
    """Whether ``question`` asks about the user's present."""
    return (
        _FIRST_PERSON.search(question) is not None
        and _PAST.search(question) is None
        and not asks_when(question)
    )


def _stem(word: str) -> str:
    word = word.casefold()
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _answers(hit: Hit, terms: frozenset[str], attributes: frozenset[str]) -> frozenset[str]:
    """The question's terms ``hit`` holds; for a fact that holds none, the asked attribute
    it states ("The user works as a nurse." for "what's my job?")."""
    held = terms & {_stem(w) for w in _WORD.findall(hit.text)}
    if not held and hit.kind == "fact":
        predicate = str(hit.metadata.get("predicate") or "")
        held = frozenset(f"@{a}" for a in attributes if a == predicate)
    return held


def _the_users_own(hit: Hit) -> bool:
    """A fact about the user ("Karim lives in Montreal." is his, and the engine already weighs
    it down for a question about the user: it must not move up), or a user's message that says
    something changed ("been using my evenings to work on my game" answers no "what do I do for
    work?" over the job memory holds)."""
    if hit.said_at is None:
        return False
    if hit.kind == "message":
        return hit.role == "user" and _SAYS_A_CHANGE.search(hit.text) is not None
    return hit.kind == "fact" and str(hit.metadata.get("subject") or "user") == "user"


def newest_first(question: str, hits: Sequence[Hit]) -> list[Hit]:
    """``hits`` with each group that answers ``question`` alike in newest-first order, in the
    places the group held (see the module's docstring)."""
    hits = list(hits)
    if not applies(question):
        return hits
    terms = frozenset(_stem(t) for t in query_terms(question))
    about = asked_about(question)
    attributes = frozenset(about.attributes) if about is not None else frozenset()
    groups: dict[frozenset[str], list[int]] = {}
    for i, hit in enumerate(hits):
        if not _the_users_own(hit):
            continue
        key = _answers(hit, terms, attributes)
        if key:
            groups.setdefault(key, []).append(i)
    out = list(hits)
    for slots in groups.values():
        if len(slots) < 2:
            continue
        # Newest first; equal times keep their ranked order.
        ordered = sorted(slots, key=lambda i: -(hits[i].said_at or 0))
        for slot, source in zip(slots, ordered, strict=True):
            out[slot] = hits[source]
    return out
