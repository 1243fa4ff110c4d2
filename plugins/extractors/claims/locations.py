"""Telling places and organisations apart in a value."""

from __future__ import annotations

import re

from plugins.extractors import lexicon as lx
from plugins.extractors.claims.phrases import has_date
from plugins.extractors.places import known_place

# "a two-room apartment in Belgrano", "our HDB flat in Tampines": the home, then the place.
_HOME_IN = re.compile(
    r"^(?:(?:a|an|the|our|my|their)\s+)?(?:[\w-]+\s+){0,3}?(?:apartment|flat|house|studio|condo"
    r"|bungalow|cottage|room|dorm|place|home|townhouse|semi)\s+(?:in|on|near)\s+(?=\S)",
    re.IGNORECASE,
)


def place_value(value: str) -> str:
    home = _HOME_IN.match(value)
    if home is not None:
        value = value[home.end() :]
    value = re.sub(r"^(?:the\s+)?(?:city|town|village)\s+of\s+", "", value, flags=re.I)
    # "transferred to Tokyo office", "posted to the Lagos branch": the place the office is in.
    value = re.sub(
        r"^(?:the\s+|our\s+)?((?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?)\s+(?:office|branch"
        r"|hq|headquarters|site|campus|plant|depot|store)\b",
        r"\1",
        value,
        flags=re.I,
    )
    # "Berlin to lead our new office there": the place, not why.
    value = re.sub(r"\s+(?:in order\s+)?to\s+(?!the\b)[a-z]+\b.*$", "", value)
    if value.islower() and known_place(value):
        # "leeds" is Leeds, however it was typed; "the uk" is the UK.
        words = value.split()
        return " ".join(
            w
            if i and w in ("the", "of", "upon", "on", "de", "la")
            else w.upper()
            if w in ("uk", "usa", "us", "nyc", "dc")
            else w.capitalize()
            for i, w in enumerate(words)
        )
    return value


# Where people work that is not an employer's name ("a nurse at the hospital").
_WORKPLACE_NOUNS = frozenset(
    [
        "home",
        "work",
        "school",
        "uni",
        "university",
        "college",
        "church",
        "night",
        "nights",
        "weekends",
        "hospital",
        "clinic",
        "office",
        "store",
        "shop",
        "restaurant",
        "cafe",
        "bar",
        "hotel",
        "factory",
        "warehouse",
        "startup",
        "company",
        "firm",
        "agency",
        "bank",
        "gym",
        "library",
        "airport",
        "station",
        "lab",
        "farm",
        "site",
    ]
)


def bare_org(org: str) -> bool:
    """An employer typed in lower case with no article: "shopify", "deloitte uk"."""
    words = org.split()
    return (
        1 <= len(words) <= 2
        and org.islower()
        and words[0] not in lx.NOT_NAMES
        and words[0] not in _WORKPLACE_NOUNS
        and words[-1] not in _WORKPLACE_NOUNS
        and not has_date(org)
    )


def lower_case_place(rest: str) -> re.Match[str] | None:
    """ "in portland now", "home in oslo": a known place typed in lower case."""
    match = re.match(
        r"^(?:(?:back|over|out|up|down)\s+)?(?:home\s+)?in\s+(?P<where>[a-z][\w\-.]*"
        r"(?:\s+[a-z][\w\-.]*){0,2}?)(?=\s+(?:now|for|since|these|this|at|with|and|but)\b|[,.!?]|$)",
        rest,
    )
    return match if match is not None and known_place(match.group("where")) else None


def is_place_like(value: str) -> bool:
    """Return True for a value that looks like a place name ("London", "New York", "LA"),
    or is a known place typed in lower case ("leeds")."""
    if known_place(value):
        return True
    words = value.split()
    return (
        bool(words)
        and all(w[:1].isupper() for w in words)
        and len(words) <= 3
        and not any(
            w.casefold() in ("inc", "inc.", "ltd", "llc", "corp", "co", "bank", "labs", "group")
            for w in words
        )
    )
