"""Who "my grandad" is, once the user has named him.

"I want to record my grandad Frank, he's 91", then weeks later "Recorded four hours with
Grandad. He turned 92 last week": the second turn speaks of "Grandad", and a fact about
"the user's grandad" would never meet "Frank is 91 years old." So when the transcript names
exactly one person for a relation ("Frank is the user's grandad."), what is said of that
relation unnamed is said of them. Two people of one relation (two sisters) are left as said:
which one is meant is not known.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from plugins.extractors import lexicon as lx
from plugins.extractors.claims.model import Claim

_NAMING = frozenset({"family", "partner"})


def named_relatives(claims: Sequence[Claim]) -> dict[str, str]:
    """The name of each relation the claims name exactly one person for (canonical relation
    to name: ``{"grandfather": "Frank"}``)."""
    names: dict[str, set[str]] = {}
    for claim in claims:
        if claim.subject != "user" or claim.attribute not in _NAMING or claim.negated:
            continue
        rel = lx.relation_of(claim.qualifier or "", canonical=True)
        if rel is None or not claim.value[:1].isupper() or " " in claim.value:
            continue
        names.setdefault(rel, set()).add(claim.value)
    return {rel: next(iter(found)) for rel, found in names.items() if len(found) == 1}


def by_name(claim: Claim, names: dict[str, str]) -> Claim:
    """``claim`` with an unnamed relative as its subject ("user's grandad", "Grandad") said as
    the one person of that relation ``names`` knows."""
    subject = claim.subject
    word = subject[len("user's ") :] if subject.startswith("user's ") else subject
    if word != subject or (word[:1].isupper() and " " not in word):
        rel = lx.relation_of(word, canonical=True)
        name = names.get(rel) if rel is not None else None
        if name is not None and name != subject:
            return replace(claim, subject=name)
    return claim
