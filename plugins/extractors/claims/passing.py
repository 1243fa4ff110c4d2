"""Facts said in passing, inside a sentence about something else ("I make 68k as a UX designer
at Shopify", "it's so cold here in Christchurch")."""

from __future__ import annotations

import re

from plugins.extractors import lexicon as lx
from plugins.extractors.claims.locations import place_value
from plugins.extractors.claims.model import Claim
from plugins.extractors.claims.phrases import with_article
from plugins.extractors.claims.values import clean_value, vague
from plugins.extractors.places import known_place

_CAPITALISED = r"(?-i:[A-Z])[\w&'.-]+(?:\s+(?-i:[A-Z])[\w&'.-]+){0,3}"

# "I make 68k as a UX designer at Shopify", "I've spent 3 years as a nurse at St Mary's", "As a
# recruiter at Microsoft I see ...": the job and the employer, whatever the sentence is about.
_AS_A_JOB_AT = re.compile(
    r"^(?:(?:i|i'm|i\s+am|i've|i\s+have)\b[^,;]*?\b)?as\s+an?\s+(?P<job>[\w -]{2,40}?)"
    rf"\s+(?:at|for|with)\s+(?P<org>{_CAPITALISED})",
    re.IGNORECASE,
)

_PAST = re.compile(r"\b(?:spent|was|were|used\s+to|had\s+been|worked)\b", re.IGNORECASE)

# "it's SO cold here in Christchurch", "here in Leeds we ...": where the user is living, unless
# the sentence says it is a trip.
_HERE_IN = re.compile(
    rf"\bhere\s+in\s+(?P<where>{_CAPITALISED}|[a-z][\w'-]+(?:\s+[a-z][\w'-]+)?)", re.IGNORECASE
)
ON_A_TRIP = re.compile(
    r"\b(?:visit\w*|trip|holiday|vacation|travel\w*"
    r"|for\s+(?:the|a|one|two|three|\d+)\s+(?:week(?:end)?|day|night|month)s?"
    r"|conference|business|staying(?!\s+(?:here|put|on)\b)|hotel|airbnb|layover|stopover)\b",
    re.IGNORECASE,
)


# "I accepted the offer from Monzo": the employer to be ("my husband accepted an offer from
# Meta" is his).
_OFFER_FROM = re.compile(
    r"(?:^\W*|\b(?:i|i've|ive|we|we've)\s+)(?:(?:just|finally|officially|have|already)\s+)*"
    rf"(?:accepted|took|signed)\s+(?:the|an|their|a)\s+(?:job\s+)?offer\s+(?:from|at|with)\s+"
    rf"(?P<org>{_CAPITALISED})",
    re.IGNORECASE,
)


def passing_claims(text: str) -> list[Claim] | None:
    """A job at an employer, or where the user lives, said in passing."""
    job_at = _AS_A_JOB_AT.match(text)
    if job_at is not None and lx.is_occupation(job_at.group("job")):
        org = clean_value(job_at.group("org"))
        past = _PAST.search(text[: job_at.start("job")]) is not None
        job = with_article(clean_value(job_at.group("job")))
        out = [Claim("user", "job", job, past=past)]
        if not vague(org) and not known_place(org):
            out.append(Claim("user", "employer", org, past=past))
        return out
    offer = _OFFER_FROM.search(text)
    if offer is not None and not known_place(offer.group("org")):
        return [Claim("user", "employer", clean_value(offer.group("org")), change=True)]
    visit = _VISIT_ME_IN.search(text)
    if visit is not None and not vague(clean_value(visit.group("where"))):
        # "my sister is coming to visit me in Amman": where the user is, for the visitor.
        return [Claim("user", "residence", place_value(clean_value(visit.group("where"))))]
    here = here_in(text)
    return None if here is None else [here[0]]


_VISIT_ME_IN = re.compile(
    rf"\b(?:visit(?:ing|s)?|see|seeing|stay(?:ing)?\s+with)\s+me\s+(?:here\s+)?in\s+"
    rf"(?P<where>{_CAPITALISED})",
    re.IGNORECASE,
)


def here_in(text: str) -> tuple[Claim, str] | None:
    """Where "here in X" says the user lives, and the text without those words.

    The rest of the sentence still says what it says ("im a caregiver here in taipei for an
    elderly lady" is a caregiver, and lives in Taipei), so a reader parses it on its own.
    """
    here = _HERE_IN.search(text)
    if here is None or ON_A_TRIP.search(text):
        return None
    place = place_value(clean_value(here.group("where")))
    for candidate in (place, place.rsplit(" ", 1)[0]):  # "here in dhaka the data is slow"
        # A name with a capital is a place whether or not the list holds it ("Mirissa").
        if not vague(candidate) and (known_place(candidate) or candidate[:1].isupper()):
            end = here.start("where") + len(candidate)
            after = text[end:]
            joiner = ", " if after.lstrip().startswith(",") else " "  # keep the clause apart
            rest = f"{text[: here.start()].rstrip(' ,')}{joiner}{after.lstrip(' ,')}".strip(" ,")
            claim = Claim("user", "residence", candidate[:1].upper() + candidate[1:])
            return claim, rest
    return None
