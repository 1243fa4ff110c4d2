"""Where the user works, said with the town: where they live, unless they said otherwise.

"I'm a social worker with the county up in Bemidji", "I teach Year 4 in Swansea", "I manage a
community pharmacy in the Gombe district of Kinshasa": people tell an assistant the town they
live in most often by the town they work in. The grammar reads the job; this reads the town
of the same sentence as the user's residence, when the turn says nothing else of where they
live (a turn that does, "I live in Winterthur, I only work in Zurich", keeps its own word).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from plugins.extractors import lexicon as lx
from plugins.extractors.claims import Claim
from plugins.extractors.claims.locations import is_place_like, place_value
from plugins.extractors.places import known_place

_WORK_ATTRIBUTES = frozenset({"job", "employer", "work", "work_field", "work_mode"})
_FIRST_PERSON = re.compile(r"^(?:\W*\w+\W+){0,3}?(?:i|i'm|im|i've|ive|my)\b", re.IGNORECASE)
_SOMEONE_OF_MINE = re.compile(r"\b(?:my|our)\s+(?P<who>[\w-]+(?:\s+[\w-]+)?)", re.IGNORECASE)
_IN_TOWN = re.compile(
    r"\b(?:(?:up|down|out|over|here|there)\s+)?[Ii]n\s+(?:the\s+[\w ]{2,30}?\s+of\s+)?"
    r"(?P<place>[A-Z][\w.'\u00c0-\u024f-]+(?:\s+[A-Z][\w.'\u00c0-\u024f-]+){0,2}"
    r"|[a-z][\w.-]*(?:\s+[a-z][\w.-]*){0,2})"
)
# Capitalised words after "in" that are no town: "in IT", "in March", "in Spanish".
_NOT_TOWNS = frozenset(
    lx.words(
        """
        it hr ict qa ai ml ux ui sales marketing finance accounts admin logistics retail
        healthcare education engineering construction hospitality tech software research
        year years grade class school university college hospital clinic
        """
    )
)
_INSTITUTION = re.compile(
    r"\s+(?:university|hospital|clinic|college|school|academy|institute|centre|center|hall"
    r"|station|airport|street|st|road|rd|avenue|ave|park|mall|market|district|county|office"
    r"|branch|site|plant|factory|headquarters|hq|campus|store|shop|warehouse)\b",
    re.IGNORECASE,
)


def workplace_town(sentences: Sequence[str], claims: Sequence[Claim]) -> list[Claim]:
    """The user's residence read from the town of a sentence that states their work, when
    ``claims`` (the turn's) hold no residence of the user."""
    own = [c for c in claims if c.subject == "user" and not (c.negated or c.past)]
    if any(c.attribute in ("residence", "origin") for c in claims if c.subject == "user"):
        return []
    values = [c.value.casefold() for c in own if c.attribute in _WORK_ATTRIBUTES and c.value]
    if not values:
        return []
    employers = [c.value.casefold() for c in own if c.attribute == "employer" and c.value]
    for sentence in sentences:
        low = sentence.casefold()
        if not _FIRST_PERSON.search(sentence) or not any(_said(v, low) for v in values):
            continue
        if any(
            lx.relation_of(word)
            for m in _SOMEONE_OF_MINE.finditer(low)
            for word in m["who"].split()
        ):
            continue  # "my husband works in Casablanca and I teach": whose town is unsure
        for match in _IN_TOWN.finditer(sentence):
            town = _town(match.group("place").rstrip("."), sentence[match.end() :])
            if town is not None and not any(e.startswith(town.casefold()) for e in employers):
                # "working in Infosys since 3 years": the employer, not a town.
                return [Claim("user", "residence", place_value(town))]
    return []


def _said(value: str, sentence: str) -> bool:
    """Whether ``sentence`` (lower case) says the work ``value``: as it is ("a social worker"),
    or by its last word's stem ("Year 4 teacher" of "I teach Year 4")."""
    head = re.sub(r"^(?:an?|the|their|my)\s+", "", value).strip()
    last = head.split()[-1] if head else ""
    return bool(head) and (head in sentence or (len(last) >= 5 and last[:5] in sentence))


def _town(place: str, after: str) -> str | None:
    """The town ``place`` names (a lower-case one: its longest known start), or None."""
    first = place.split()[0].casefold()
    if "'" in place or "\u2019" in place:
        return None  # "in Google's Dublin office": someone's, not a town
    if first in _NOT_TOWNS or first in lx.MONTHS or first in lx.WEEKDAYS:
        return None
    if first in lx.LANGUAGES or first in lx.NATIONALITIES or first in lx.NOT_NAMES:
        return None
    if place.islower():
        words = place.split()
        for n in range(len(words), 0, -1):
            if known_place(" ".join(words[:n])):
                return " ".join(words[:n])
        return None
    if _INSTITUTION.match(after):
        return None  # "in Queen Elizabeth Hospital": a workplace, not a town
    return place if is_place_like(place) else None
