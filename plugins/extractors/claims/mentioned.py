"""What the user's way of naming things presupposes ("my boss Linda", "my 2012 Honda Civic"), even
in a question or a story about something else."""

from __future__ import annotations

import re

from plugins.extractors import lexicon as lx
from plugins.extractors.claims.model import Claim
from plugins.extractors.claims.phrases import relation_claim
from plugins.extractors.claims.subjects import NAME_TOKEN, REL_WORD, is_name
from plugins.extractors.places import known_place

# Relations whose bare mention ("my teenage son wants a motorbike") is worth remembering;
# "my friend" or "my boss" without a name says too little to keep.
_KEPT_BARE = frozenset(
    [
        "son",
        "daughter",
        "child",
        "kid",
        "baby",
        "sister",
        "brother",
        "twin",
        "wife",
        "husband",
        "partner",
        "boyfriend",
        "girlfriend",
        "fiance",
        "fiancee",
        "fiancé",
        "fiancée",
        "stepson",
        "stepdaughter",
        "grandson",
        "granddaughter",
    ]
)

_MENTION = re.compile(
    r"\b(?:my|our)\s+(?:(?:little|big|older|younger|oldest|youngest|eldest|baby|teenage|teen"
    r"|new|adult|grown|twin|toddler|infant|newborn|\d+[- ]?(?:yo|year[- ]old))\s+)?"
    rf"(?P<rel>{REL_WORD})(?!['\w-])"
    rf"(?:,?\s+(?P<names>(?-i:{NAME_TOKEN})(?:\s*(?:,|and|&)\s*(?-i:{NAME_TOKEN}))*))?",
    re.IGNORECASE,
)

_CAR_MENTION = re.compile(
    r"\b(?:my|our)\s+(?:(?:old|new|trusty|used|little|\d{4})\s+)*"
    r"(?P<car>(?P<brand>[a-z]+)(?:\s+(?P<model>(?-i:[A-Z0-9])[\w-]*))?)",
    re.IGNORECASE,
)

_PHONE_MENTION = re.compile(
    r"\b(?:my|our)\s+(?:(?:old|new|trusty)\s+)*(?P<phone>(?:iphone|pixel|galaxy|oneplus"
    r"|samsung(?:\s+galaxy)?)(?:\s+(?:\d+\w*|pro|max|plus|mini|ultra|se|s\d+\w*))*)\b",
    re.IGNORECASE,
)

PHONE_CASE = {"iphone": "iPhone", "oneplus": "OnePlus", "pixel": "Pixel", "galaxy": "Galaxy"}

_SAID_OF = re.compile(
    r"\b(?:is|are|was|were|like|basically|practically|literally|as|kinda|such)\s+$", re.IGNORECASE
)

_PET_MENTION = re.compile(
    r"\b(?:my|our)\s+(?:(?:old|new|little|baby|rescue|senior|sweet)\s+)?(?P<kind>[a-z-]+),?\s+"
    r"(?P<name>(?-i:(?:(?:Mr|Mrs|Ms|Dr|Sir|Lady|Captain|Prof)\.?\s+)?[A-Z][\w'-]*))",
    re.IGNORECASE,
)


# "thinking about leaving my job at Accenture", "should I tell my boss at Deloitte": where the
# user works, presupposed even by a plan being weighed or a question.
_JOB_MENTION = re.compile(
    r"\bmy\s+(?:current\s+|day\s+|full[- ]time\s+|part[- ]time\s+)?(?:job|role|position"
    r"|internship|boss|manager|team|colleagues?|coworkers?|co-workers?)\s+(?:at|with)\s+"
    r"(?P<org>(?-i:[A-Z])[\w&'-]+(?:\s+(?-i:[A-Z])[\w&'-]+){0,2})",
    re.IGNORECASE,
)


def mentions(text: str) -> list[Claim]:
    """What the user's way of naming things presupposes: "my boss Linda" is the user's boss,
    "our twins Leo and Mia" two children, "my 2012 Honda Civic" a car, "my iphone 12" a
    phone, even in a question or a story about something else."""
    out: list[Claim] = []
    for match in _MENTION.finditer(text):
        rel = lx.relation_of(match.group("rel")) or ""
        if rel == "twin" and match.group("rel").casefold().endswith("s"):
            rel = "child"  # "our twins Leo and Mia" are the user's children
        names = re.split(r"\s*(?:,|and|&)\s*", match.group("names") or "")
        names = [re.sub(r"'s$", "", n) for n in names if n]
        names = [n for n in names if is_name(n)]
        for name in names:
            attribute, value, qualifier = relation_claim(rel, name)
            out.append(Claim("user", attribute, value, qualifier=qualifier))
        said_of = _SAID_OF.search(text[: match.start()])
        if not names and rel in _KEPT_BARE and said_of is None:
            # Not "my basil plant is basically my child": what something is likened to.
            out.append(Claim("user", "family", rel, qualifier=rel))
    for match in _CAR_MENTION.finditer(text):
        brand = match.group("brand").casefold()
        if brand in lx.CAR_BRANDS and brand not in ("mini", "golf", "jeep"):
            model = match.group("model") or ""
            value = f"{brand.capitalize() if brand not in ('bmw', 'vw') else brand.upper()} {model}"
            out.append(Claim("user", "vehicle", value.strip()))
    for match in _PET_MENTION.finditer(text):
        kind, name = match.group("kind").casefold(), re.sub(r"'s$", "", match.group("name"))
        if lx.is_pet(kind) and is_name(name.split()[-1]):
            out.append(Claim("user", "pet", f"{kind} {name}"))
    for match in _JOB_MENTION.finditer(text):
        org = match.group("org")
        if not known_place(org):
            out.append(Claim("user", "employer", org))
    for match in _PHONE_MENTION.finditer(text):
        words = match.group("phone").split()
        words[0] = PHONE_CASE.get(words[0].casefold(), words[0].capitalize())
        out.append(Claim("user", "phone", " ".join(words)))
    return out
