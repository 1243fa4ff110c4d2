"""What a statement says in passing about a fact memory holds, whatever the statement is about.

"my older brother and I share a car" is about a car, yet it says the user has a brother, which
an "only child" fact denies; "walking my beagle at 6am" says there is a dog against "has no
pets"; "cast came off today" ends "has a broken leg"; "my manager at Meta wants slides" names
an employer as if memory knew it. The claims read from such a statement relate to none of
these facts, so reconciliation asks here, fact by fact, once the claims have had their say.

What is named against a fact that says there is none, or said as if known, is a contradiction
(:data:`CONTRADICTION`, queued for a person): nothing in the statement says it changed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from daemon.memory.named_change import NAMED_CHANGE, changed_by_name
from daemon.memory.relations import CONTRADICTION, Relation, kin_kind, positive, relate
from plugins.extractors import lexicon as lx
from plugins.extractors.claims import INJURY, Claim

Said = tuple[Relation, str, float]
"""A relation to the fact, the rule that found it, and its confidence."""


def said_in_passing(
    text: str, mentioned: Sequence[Claim], fact_text: str, fact: Sequence[Claim]
) -> Said | None:
    """How ``text`` bears on one known fact (its text and claims) by what it says in passing;
    ``mentioned`` is what the extractor reads of the text as mentions (``mentions(text)``)."""
    if _owned_named_against(text, fact):
        return "replaces", "a pet, car or allergy said to be none", CONTRADICTION
    if _kin_named_against(text, mentioned, fact):
        return "replaces", "a relative said to be none", CONTRADICTION
    if _ONLY_ONE_CHILD.search(fact_text) and _ANOTHER_CHILD.search(text):
        # "our second baby arrived!" against "has one daughter, Noor" ("my sister's second
        # baby" is hers).
        return "replaces", "one more child than said", 0.8
    ended = _ended(mentioned, fact) or _employer_named(mentioned, fact)
    if ended is None and (rule := changed_by_name(text, fact)) is not None:
        return "replaces", rule, NAMED_CHANGE
    return ended


def _kin_named_against(text: str, mentioned: Sequence[Claim], fact: Sequence[Claim]) -> bool:
    """ "my older brother and i share a car" against "is an only child": the way the user
    names a relative says there is one, whatever the sentence is about."""
    never_wed = any(
        c.attribute == "relationship" and c.value == "married" and c.negated for c in fact
    )
    if never_wed and _SPOUSE_NAMED.search(text):
        return True  # "my ex-husband and I still co-parent" against "has never been married"
    single = any(
        c.attribute == "relationship" and c.value == "single" and positive(c) for c in fact
    )
    if single and _PARTNER_NAMED.search(text):
        return True  # "my husband is cooking tonight" against "is single"
    nones = {
        kin_kind(old.qualifier or "")
        for old in fact
        if old.attribute == "family" and old.negated and not old.value and old.subject == "user"
    }
    if not nones:
        return False
    named = {
        kin_kind(c.qualifier or "")
        for c in mentioned
        if c.attribute == "family" or (c.attribute == "family_count" and c.value != "0")
    }
    return bool(nones & named)


def _owned_named_against(text: str, fact: Sequence[Claim]) -> bool:
    """ "walking my beagle at 6am" against "has no pets", "my Golf's MOT is due" against
    "doesn't own a car", "my bee sting allergy" against "no known allergies": the way the
    user names one says there is one (a change, "we adopted a cat", is read as a claim)."""
    none = {
        c.attribute
        for c in fact
        if c.negated and not c.change and c.subject == "user"
        if (c.attribute in ("pet", "allergy") and not c.value)
        or (c.attribute == "vehicle" and c.value in ("", "car"))
    }
    named = [m.group("kind").casefold() for m in _MY_THING.finditer(text)]
    return bool(
        ("pet" in none and any(lx.is_pet(k) for k in named))
        or ("vehicle" in none and any(k in ("car", *lx.CAR_BRANDS) for k in named))
        or ("allergy" in none and _MY_ALLERGY.search(text) is not None)
    )


def _ended(mentioned: Sequence[Claim], fact: Sequence[Claim]) -> Said | None:
    """ "cast came off today and the doctor cleared me" against "has a broken leg", "we
    welcomed our third" against "has two children": what ends a fact, said on the way."""
    ending = [
        c
        for c in mentioned
        if (c.attribute == "condition" and c.value == INJURY)
        or (c.attribute == "family_count" and c.change)
    ]
    for new in ending:
        for old in fact:
            relation, rule, confidence = relate(new, old)
            if relation == "replaces":
                return relation, rule, confidence
    return None


def _employer_named(mentioned: Sequence[Claim], fact: Sequence[Claim]) -> Said | None:
    """ "my manager at Meta wants slides" against "works at Google": an employer named on the
    way to something else is said as if memory knew it; nothing is said to have changed, so
    another employer is a contradiction, and the same one is said again."""
    named = [c for c in mentioned if c.attribute == "employer" and positive(c) and not c.change]
    for new in named:
        for old in fact:
            relation, rule, _ = relate(new, old)
            if relation == "replaces":
                return relation, f"{rule}, named in passing", CONTRADICTION
            if relation == "same":
                return relation, "the employer named in passing", 0.6
    return None


_SPOUSE_NAMED = re.compile(
    r"\bmy\s+(?:ex[\s-]?|late\s+|first\s+|former\s+)?(?:husband|wife|spouse|hubby)\b", re.I
)
_PARTNER_NAMED = re.compile(
    r"\bmy\s+(?:husband|wife|spouse|hubby|boyfriend|girlfriend|bf|gf|fianc[eé]e?|partner)\b"
    r"(?!\s+(?:and\s+i\s+)?(?:broke|split|left|divorced))",
    re.I,
)
_MY_THING = re.compile(
    r"\b(?:my|our)\s+(?:(?:two|three|four|\d)\s+)?(?:(?:old|little|rescue|senior|baby|sweet)\s+)?"
    r"(?P<kind>[a-z0-9-]+)(?:'s)?\b",
    re.IGNORECASE,
)
# "my bee sting allergy", "I'm allergic to latex", "I carry an EpiPen"; not "my son's allergy".
_MY_ALLERGY = re.compile(
    r"\bmy\s+(?![\w-]+'s\b)(?:[\w-]+\s+){0,2}?allerg(?:y|ies)\b|\bi'?m\s+allergic\b"
    r"|\bi\s+am\s+allergic\b|\bi\s+carry\s+an?\s+epi-?pen\b",
    re.IGNORECASE,
)
_ONLY_ONE_CHILD = re.compile(
    r"\b(?:one|a\s+single|an\s+only)\s+(?:child|kid|son|daughter|baby)\b", re.IGNORECASE
)
_ANOTHER_CHILD = re.compile(
    r"\b(?:our|my)\s+(?:second|third|fourth|new)\s+(?:baby|child|kid|son|daughter|little\s+one)\b"
    r"|\bwelcomed\s+our\s+(?:second|third|fourth)\b",
    re.IGNORECASE,
)
