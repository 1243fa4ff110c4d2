"""Small phrase readers the rules share: dates, numbers, diets, articles, relations, school stages,
verb forms."""

from __future__ import annotations

import re

from plugins.extractors import lexicon as lx
from plugins.extractors.claims.words import SKIP_ADVERBS

_DETERMINER = re.compile(
    r"^(?:a|an|the|my|our|his|her|their|some|this|that|one|two|three|four|five|another"
    r"|a couple of|a few|several|any)\s+",
    re.IGNORECASE,
)

_SCHOOL_STAGES = (
    r"daycare|day care|nursery|preschool|pre-school|kindergarten|reception|elementary school"
    r"|grade school|primary school|middle school|junior high|high school|secondary school"
    r"|sixth form|college|university|uni|grad school|graduate school|med school|law school"
    r"|(?:the\s+)?\d{1,2}(?:st|nd|rd|th)\s+grade|grade\s+\d{1,2}|year\s+\d{1,2}"
)

CLASS_YEAR = re.compile(
    r"^(?:an?\s+)?(?:(?:high school|college|uni|university)\s+)?"
    r"(?P<year>freshman|sophomore|junior|senior)(?:\s+year)?"
    rf"(?:\s+(?:in|at)\s+(?P<stage>{_SCHOOL_STAGES})|\s+(?:at|in)\s+(?P<where>[\w .'-]+))?\s*[.!]*$"
)

IN_SCHOOL = re.compile(
    r"^(?:still\s+)?in\s+(?:(?:my|the|their)\s+(?:first|second|third|fourth|final|last)\s+year"
    r"\s+(?:of|at|in)\s+)?"
    rf"(?P<stage>{_SCHOOL_STAGES})(?:\s+(?:at|in)\s+(?P<where>[\w .'-]+))?"
    r"\s*[.!]*$"
)


def is_school_stage(value: str) -> bool:
    """ "high school", "5th grade", "daycare": a stage of schooling, not a subject studied."""
    return re.fullmatch(_SCHOOL_STAGES, value.casefold()) is not None


def school_stage(stage: str) -> str:
    """ "the 5th grade" -> "5th grade", "uni" -> "university"."""
    stage = re.sub(r"^the\s+", "", stage.casefold())
    return {"uni": "university", "day care": "daycare", "pre-school": "preschool"}.get(stage, stage)


def third_person(verb: str) -> str:
    """ "write" -> "writes", "teach" -> "teaches", "fly" -> "flies"; "writes" stays."""
    low = verb.casefold()
    if low in ("do", "go"):
        return verb + "es"
    if low in ("have",):
        return "has"
    if low.endswith("s") and not low.endswith(("ss", "us")):
        return verb
    if low.endswith(("sh", "ch", "ss", "x", "z")):
        return verb + "es"
    if low.endswith("y") and low[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


_SPELLED_OUT = {"gf": "girlfriend", "bf": "boyfriend", "hubby": "husband", "mate": "friend"}


def relation_claim(rel: str, name: str) -> tuple[str, str, str | None]:
    """(attribute, value, qualifier) saying that ``name`` is the user's ``rel``."""
    rel = _SPELLED_OUT.get(rel, rel)
    if rel in lx.PARTNER_RELATIONS:
        return "partner", name, rel
    return "family", name, rel


def number(word: str) -> int | None:
    w = word.casefold().strip()
    if w.isdigit():
        return int(w)
    if w in lx.NUMBER_WORDS:
        return lx.NUMBER_WORDS[w]
    tens = {
        "twenty": 20,
        "thirty": 30,
        "forty": 40,
        "fifty": 50,
        "sixty": 60,
        "seventy": 70,
        "eighty": 80,
        "ninety": 90,
    }
    teens = {
        "thirteen": 13,
        "fourteen": 14,
        "fifteen": 15,
        "sixteen": 16,
        "seventeen": 17,
        "eighteen": 18,
        "nineteen": 19,
    }
    if w in teens:
        return teens[w]
    parts = re.split(r"[- ]", w)
    if parts[0] in tens:
        unit = lx.NUMBER_WORDS.get(parts[1], 0) if len(parts) > 1 else 0
        if len(parts) > 1 and parts[1] not in lx.NUMBER_WORDS:
            return None
        return tens[parts[0]] + unit
    return None


def diet_of(low: str) -> str | None:
    text = re.sub(
        r"^(?:an?\s+|(?:strict|full|fully|mostly|100%|total|complete|real|big|huge|proper)\s+)+",
        "",
        low.strip(),
    )
    text = re.sub(
        r"\b(gluten|dairy|lactose|sugar|nut|meat)\s+free\b", r"\1-free", text.rstrip(" .!")
    )
    for word, diet in lx.DIETS.items():
        if text == word or (text.startswith(word + " ") and len(text.split()) <= 3):
            if re.search(r"\b(?:restaurant|recipe|food|place|option|cafe|meal)s?\b", text):
                return None
            return diet
    return None


def date_phrase(text: str) -> str:
    """The date part of "on June 3rd, at the Hilton" (cut where the date ends)."""
    return re.split(r",|\s+(?:at|with|in the|because|so)\s+", text.strip(" .!"), maxsplit=1)[0]


_MONTH = lx.MONTH_PATTERN
ON_A_DAY = (
    rf"\bon\s+(?:the\s+)?(?P<day>\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTH})"
    rf"|(?:{_MONTH})\s+\d{{1,2}}(?:st|nd|rd|th)?)\b"
)
"""A pattern: "on 30 November", "on the 3rd of May", "on March 3rd"; the date is ``day``."""


def has_date(text: str) -> bool:
    low = text.casefold()
    if re.search(r"\b\d{1,2}(?:st|nd|rd|th)\b|\b\d{4}\b|\b\d{1,2}/\d{1,2}\b", low):
        return True
    if any(re.search(rf"\b{m}\b", low) for m in lx.MONTHS | lx.WEEKDAYS):
        return True
    return bool(
        re.search(
            r"\b(?:next|this|coming)\s+(?:week|month|year|spring|summer|fall|autumn|winter"
            r"|weekend)\b|\btomorrow\b|\btonight\b|\bin\s+(?:a|two|three|\d+)\s+(?:days?|weeks?"
            r"|months?)\b",
            low,
        )
    )


def injured_part(value: str) -> str:
    """ "wrist at the hurling on Sunday", "acl playing 5 a side": the part of the body hurt,
    without how, where and when it happened."""
    return _CIRCUMSTANCE.split(value, maxsplit=1)[0].strip()


_CIRCUMSTANCE = re.compile(r"\s+(?:\w+ing|at|on|in|during|while|last|this|yesterday|today)\b")


def strip_det(value: str) -> str:
    return _DETERMINER.sub("", value.strip()).strip()


def with_article(value: str) -> str:
    v = value.strip()
    if re.match(r"^(?:an?|the)\s", v, re.I) or not v:
        return v
    first = v.split(" ", 1)[0].casefold()
    if first.endswith("s") and not first.endswith("ss") and len(v.split()) == 1:
        return v
    if first in ("head", "senior", "junior", "lead", "chief") or v[:1].isupper():
        return f"a {v}" if not v[:1].isupper() else v
    return f"an {v}" if v[:1].casefold() in "aeiou" else f"a {v}"


def as_gerund(phrase: str) -> str:
    """ "get lost in books" -> "getting lost in books" (after "love to", "learning to")."""
    first, _, after = phrase.partition(" ")
    low = first.casefold()
    if low in SKIP_ADVERBS or low in ("just", "really", "always", "usually", "often"):
        return f"{first} {as_gerund(after)}".strip()  # "just take a look": "just taking ..."
    if not low.isalpha() or not first.islower() or low.endswith("ing"):
        return phrase
    if low.endswith("ie"):
        ing = low[:-2] + "ying"
    elif low.endswith("e") and len(low) > 2 and not low.endswith(("ee", "ye", "oe")):
        ing = low[:-1] + "ing"
    elif re.fullmatch(r"[^aeiou]*[aeiou][bdgmnprt]", low):
        ing = low + low[-1] + "ing"  # "get" -> "getting", "swim" -> "swimming"
    else:
        ing = low + "ing"
    return f"{ing} {after}".strip()


# "Good evening my friend.", "thank you my brother": the assistant greeted as a relative is
# nobody of the user's.
_GREETING_TO = re.compile(
    r"^\W*(?:hi|hello|hey|hiya|howdy|greetings|good\s+(?:morning|afternoon|evening|day|night)"
    r"|thanks|thank\s+you|cheers|ok|okay|bless\s+you)\W*\s*(?:my\s+(?:dear\s+|good\s+)?\w+"
    r"|dear|friend|bro|sis|mate|boss)\W*$",
    re.IGNORECASE,
)


def greets_the_assistant(clause: str) -> bool:
    """Return True for a greeting or thanks that addresses the assistant as a relative."""
    return _GREETING_TO.match(clause) is not None
