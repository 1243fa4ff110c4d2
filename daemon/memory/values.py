"""Comparing values and subjects: the keys two wordings of one thing share, and whether
one value is the other, narrower, broader or different ("NYC" and "New York City", "the 14th
of March" and "March 14", "Björn" and "bjorn")."""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

from plugins.extractors import lexicon as lx
from plugins.extractors.claims import stem
from projections.facts import subject_key as stored_subject_key
from projections.text import normalise

_FILLER = frozenset(
    [
        "a",
        "an",
        "the",
        "my",
        "our",
        "his",
        "her",
        "their",
        "some",
        "this",
        "that",
        "its",
        "of",
        "city",
        "town",
        "state",
        "county",
        "area",
        "old",
        "new",
        "used",
        "own",
        "pet",
    ]
)
_SYNONYMS = {
    **{k.replace(" ", ""): v for k, v in lx.CONDITION_ADJECTIVES.items() if " " not in k},
    "rn": "registered nurse",
    "np": "nurse practitioner",
    "gp": "general practitioner",
    "swe": "software engineer",
    "pm": "product manager",
    "emt": "emergency medical technician",
    "vet": "veterinarian",
    "dev": "developer",
    "prof": "professor",
    "uni": "university",
    "mum": "mother",
    "mom": "mother",
    "dad": "father",
    # Places by their short names ("NYC" is New York City; "city" is dropped as filler).
    "nyc": "new york",
    "la": "los angeles",
    "sf": "san francisco",
    "dc": "washington",
    "uk": "united kingdom",
    "usa": "united states",
    "msc": "master",
    "bsc": "bachelor",
    "phd": "doctorate",
    "expecting": "pregnant",  # "expecting a baby" is what "pregnant" says
    "t1d": "type 1 diabetes",
    "t2d": "type 2 diabetes",
    # A pet's kind by its short name ("Max, our lab" is the Labrador named Max).
    "lab": "labrador",
    "staffy": "staffordshire",
    "staffie": "staffordshire",
    "frenchie": "french bulldog",
    "sheltie": "shetland sheepdog",
    "westie": "west highland terrier",
    "yorkie": "yorkshire terrier",
    "kitty": "kitten",
    "uke": "ukulele",
    "sax": "saxophone",
}
_NUMBERS = {
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
    "ten": "10",
    "pair": "2",
    "couple": "2",
}
_MONTH_NUMBERS = {
    m: i + 1
    for i, names in enumerate(
        [
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ]
    )
    for m in names
}


def subject_key(subject: str | None) -> str:
    """Return the comparison key of a subject ("The user" and "user" are one, and so are
    "user's mum" and "user's mother")."""
    return stored_subject_key(lx.canonical_relations(subject or ""))


def value_key(value: str) -> tuple[str, ...]:
    """Return the comparison key of a value: its content words' stems, in order.

    Accents are folded ("Björn" is "bjorn"), number words are digits, and a date is
    ``month-day`` whichever way it was written ("the 14th of March", "March 14").
    """
    date = date_key(value)
    if date is not None:
        return (date,)
    folded = "".join(
        ch for ch in unicodedata.normalize("NFKD", value) if not unicodedata.combining(ch)
    )
    words: list[str] = []
    for w in normalise(folded).split():
        # One word for a thing: "asthmatic" is asthma, "RN" a registered nurse, "two" 2.
        words.extend(_SYNONYMS.get(w, _NUMBERS.get(w, w)).split())
    return tuple(stem(w) if not w.isdigit() else w for w in words if w not in _FILLER)


def date_key(text: str) -> str | None:
    """Return ``month-day`` for a text that names one day of a month ("June 3rd"), else None."""
    low = text.casefold()
    month = next((n for name, n in _MONTH_NUMBERS.items() if re.search(rf"\b{name}\b", low)), None)
    day = re.search(r"\b(\d{1,2})(?:st|nd|rd|th)?\b(?!\s*(?:am|pm|:))", low)
    if month is None or day is None or not 1 <= int(day.group(1)) <= 31:
        return None
    return f"{month:02d}-{int(day.group(1)):02d}"


def short_for(a: str, b: str) -> bool:
    """ "Seun" for "Oluwaseun", "Alex" for "Alexandra": one name the short form of the other
    (its start, three letters or more, or its end, four: "Ian" is not short for "Brian")."""
    a, b = a.strip(" .!"), b.strip(" .!")
    if " " in a or " " in b or not (a[:1].isupper() and b[:1].isupper()):
        return False
    short, long = sorted((a.casefold(), b.casefold()), key=len)
    if short == long:
        return False
    return (len(short) >= 3 and long.startswith(short)) or (
        len(short) >= 4 and long.endswith(short)
    )


ValueMatch = Literal["equal", "narrower", "broader", "differs"]


def match_values(new: str, old: str) -> ValueMatch:
    """Compare two values: equal, the new one ``narrower`` (more specific), broader, or not."""
    a, b = value_key(new), value_key(old)
    sa, sb = set(a), set(b)
    if sa == sb:
        return "equal"
    if not a or not b:
        return "differs"
    if sb < sa:
        return "narrower"
    if sa < sb:
        return "broader"
    return "differs"
