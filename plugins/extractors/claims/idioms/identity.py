"""Idioms for who the user is: the age a birthday brought, a surname taken back, a first or
native language, what they are said as a standpoint, and the kinds of person one is rather
than likes."""

from __future__ import annotations

import re

from plugins.extractors import lexicon as lx
from plugins.extractors.claims.model import TURNING, Claim
from plugins.extractors.claims.phrases import diet_of, with_article

# "a morning person", "a positive person", "a private person": what the user is like, not likes.
NOT_LIKED_KINDS = frozenset(
    [
        "morning",
        "night",
        "evening",
        "people",
        "early",
        "positive",
        "negative",
        "happy",
        "patient",
        "private",
        "shy",
        "quiet",
        "nice",
        "good",
        "kind",
        "busy",
        "organized",
        "organised",
        "practical",
        "creative",
        "sensitive",
        "calm",
        "anxious",
    ]
)


# "it was my 35th birthday yesterday", "celebrated my 40th": the age the birthday brought.
_NTH_BIRTHDAY = re.compile(
    r"\bcelebrat\w*\s+my\s+(?P<a>\d{1,3})(?:st|nd|rd|th)\b"
    r"|\bmy\s+(?P<b>\d{1,3})(?:st|nd|rd|th)\s+(?:birthday|bday|b-day)\b",
    re.IGNORECASE,
)
_AHEAD = re.compile(
    r"\b(?:next|coming|upcoming|tomorrow|soon|will|going\s+to|gonna|plan\w*|is\s+on"
    r"|'s\s+on|in\s+(?:a|\d+|two|three)\s+(?:days?|weeks?|months?))\b",
    re.IGNORECASE,
)


def birthday_age(text: str) -> list[Claim] | None:
    said = _NTH_BIRTHDAY.search(text)
    if said is None:
        return None
    n = int(said.group("a") or said.group("b"))
    if not 0 < n < 120:
        return None
    # A birthday still to come brings its age then; one had is the age now.
    return [
        Claim(
            "user", "age", str(n), change=True, qualifier=TURNING if _AHEAD.search(text) else None
        )
    ]


_MAIDEN_NAME = re.compile(
    r"\b(?:going back to|went back to|back to|taking back|took back|reverting to|reverted to)"
    r"\s+my\s+maiden\s+name,?\s+(?P<name>[A-Z][\w'-]+)"
)


def maiden_name(text: str) -> list[Claim] | None:
    maiden = _MAIDEN_NAME.search(text)
    if maiden is None:
        return None
    return [Claim("user", "surname", maiden.group("name"), change=True)]


# "Spanish is my first language": the user's native language.
_FIRST_LANGUAGE = re.compile(
    r"^(?P<lang>(?-i:[A-Z])[a-z]+)\s+is\s+my\s+(?:first|native|mother|home)\s+"
    r"(?:language|tongue)\b",
    re.IGNORECASE,
)


def first_language(text: str) -> list[Claim] | None:
    first = _FIRST_LANGUAGE.match(text)
    if first is None:
        return None
    return [Claim("user", "native_language", first.group("lang").capitalize())]


# "As a veggie, what do I order?", "as a nurse I see this a lot": what the user is, said as
# the standpoint of what follows.
_AS_A = re.compile(r"^as\s+an?\s+(?P<x>[\w-]+(?:\s+[\w-]+)?)\s*(?:,|$|\s+(?:i|we)\b)", re.I)


def as_a(text: str) -> list[Claim] | None:
    standpoint = _AS_A.match(text)
    if standpoint is None:
        return None
    what = standpoint.group("x").casefold()
    diet = diet_of(what)
    if diet is not None:
        return [Claim("user", "diet", diet)]
    if lx.is_occupation(what):
        return [Claim("user", "job", with_article(what))]
    return None


# "Native Portuguese speaker, fluent in English": languages said as a note.
_NATIVE_SPEAKER = re.compile(r"^(?:a\s+)?native\s+(?P<lang>(?-i:[A-Z])[a-z]+)\s+speaker\b", re.I)


def native_speaker(text: str) -> list[Claim] | None:
    native = _NATIVE_SPEAKER.match(text)
    if native is None:
        return None
    return [Claim("user", "native_language", native.group("lang"))]
