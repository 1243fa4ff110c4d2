"""Idioms for family, partners and pets: a relationship begun or over, a divorce, a child born,
a pet or person lost, a pet named, renamed or just arrived, and who a name is to the user."""

from __future__ import annotations

import re

from plugins.extractors import lexicon as lx
from plugins.extractors.claims.model import Claim
from plugins.extractors.claims.phrases import relation_claim
from plugins.extractors.claims.subjects import NAME_TOKEN, REL_WORD, is_name

# "rafael and i called it quits", "we parted ways": a relationship over.
_SPLIT = re.compile(
    r"^(?:we|i|(?P<a>[\w'-]+)\s+and\s+(?:i|me)|(?:i|me)\s+and\s+(?P<b>[\w'-]+))\s+"
    r"(?:have\s+|finally\s+|officially\s+|just\s+)*(?:called\s+it\s+(?:quits|a\s+day)|parted\s+ways"
    # "daria and i split in july" (not "we split the bill")
    r"|split(?:\s+up)?(?=\s*(?:$|[,.!;]|(?:in|last|this|on|after|yesterday|a\s+while|months?"
    r"|weeks?|for\s+good)\b))"
    r"|went\s+(?:our|separate)\s+(?:separate\s+)?ways|are\s+(?:done|over|finished|through)\b"
    r"(?!\s+(?:with|for|at|in|by|eating|packing|cooking)\b)|ended\s+(?:it|things))",
    re.IGNORECASE,
)


def split_up(text: str) -> list[Claim] | None:
    split = _SPLIT.match(text)
    if split is None:
        return None
    who = split.group("a") or split.group("b") or ""
    who = who[:1].upper() + who[1:] if is_name(who, lower_ok=True) else ""
    how = "split up" if re.search(r"\bsplit\b", split.group(0), re.I) else "broke up"
    return [
        Claim("user", "relationship", "single", change=True, qualifier=how),
        Claim("user", "partner", who, negated=True, change=True),
    ]


# "bubbles didn't make it through the holidays": a change said by what it brought.
_DID_NOT_MAKE_IT = re.compile(
    r"^(?P<name>[\w'-]+)\s+(?:didn'?t|did\s+not)\s+make\s+it(?!\s+(?:to|in|on|for|back)\b)",
    re.IGNORECASE,
)


def did_not_make_it(text: str) -> list[Claim] | None:
    gone = _DID_NOT_MAKE_IT.match(text)
    if gone is None or not (is_name(gone.group("name")) or gone.group("name").islower()):
        return None
    name = gone.group("name")
    return [Claim(name[:1].upper() + name[1:], "alive", "", negated=True, change=True)]


# "Me and Jess made it official", "Sam and I are official now": a relationship begun.
_OFFICIAL = re.compile(
    rf"^(?:(?:me|i)\s+and\s+(?P<a>(?-i:{NAME_TOKEN}))|(?P<b>(?-i:{NAME_TOKEN}))\s+and\s+(?:i|me))"
    r"\s+(?:(?:just|finally)\s+)?(?:made\s+it\s+(?:facebook\s+|insta\s+)?official"
    r"|(?:are|'re)\s+(?:now\s+)?(?:official|together|a\s+couple|an\s+item)(?:\s+now)?"
    r"|got\s+together|started\s+(?:dating|going\s+out|seeing\s+each\s+other))\b",
    re.IGNORECASE,
)


def made_it_official(text: str) -> list[Claim] | None:
    official = _OFFICIAL.search(text)
    if official is None or not is_name(official.group("a") or official.group("b")):
        return None
    partner = official.group("a") or official.group("b")
    return [
        Claim("user", "relationship", "in a relationship", change=True),
        Claim("user", "partner", partner, change=True, qualifier="partner"),
    ]


_PET_IS_NAMED = re.compile(
    r"^(?:the|my|our)\s+(?P<kind>[a-z-]+)\s+is\s+(?P<name>(?-i:[A-Z])[\w'-]+)\b(?!\s+(?:and|or)\b)",
    re.IGNORECASE,
)


def pet_named(text: str) -> list[Claim] | None:
    named_pet = _PET_IS_NAMED.match(text)
    if named_pet is None or not lx.is_pet(named_pet.group("kind").casefold()):
        return None
    name = named_pet.group("name")
    if not is_name(name):
        return None
    return [Claim("user", "pet", f"{named_pet.group('kind').casefold()} {name}")]


_PRONOUN_IS_MY = re.compile(
    rf"^(?:she|he)(?:'s|\s+is)\s+my\s+(?P<rel>{REL_WORD})(?:,?\s+(?P<name>(?-i:{NAME_TOKEN})))?",
    re.IGNORECASE,
)


def pronoun_is_my(text: str) -> list[Claim] | None:
    introduced = _PRONOUN_IS_MY.match(text)
    if introduced is None:
        return None
    # "she's my daughter Lila btw": the person a "she" in what follows means.
    rel = lx.relation_of(introduced.group("rel")) or introduced.group("rel").casefold()
    name = introduced.group("name")
    if not name or not is_name(name):
        return None
    attribute, value, qualifier = relation_claim(rel, name)
    return [Claim("user", attribute, value, qualifier=qualifier)]


_RENAMED = re.compile(
    r"^(?:we|i)\s+(?:just\s+|finally\s+)?renamed\s+(?:the|our|my)\s+(?P<kind>[\w-]+)\s+(?:to\s+)?"
    r"(?P<name>[\w'-]+)",
    re.IGNORECASE,
)


def pet_renamed(text: str) -> list[Claim] | None:
    renamed = _RENAMED.match(text)
    if renamed is None or not lx.is_pet(renamed.group("kind").casefold()):
        return None
    name = renamed.group("name")
    if not is_name(name, lower_ok=True):
        return None
    value = f"{renamed.group('kind').casefold()} {name[:1].upper() + name[1:]}"
    return [Claim("user", "pet", value, change=True, qualifier="renamed")]


_BORN = re.compile(
    r"^(?:our|my)\s+(?:(?:baby|little|wee|tiny|new|newborn|first|second|third|fourth)\s+)*"
    r"(?P<who>son|daughter|baby(?:\s+(?:boy|girl))?"
    r"|twins|boy|girl)(?:,?\s+(?P<name>(?-i:[A-Z])[\w'-]+|(?!(?:just|finally|has|is|was|"
    r"arrived)\b)[a-z][\w'-]+),?)?\s+(?:(?:was|were)\s+(?:just\s+)?born\b|(?:has\s+|finally\s+"
    r"|just\s+)*arrived\b(?!\s+(?:home|back|at|from|to|in)\b))",
    re.IGNORECASE,
)


def child_born(text: str) -> list[Claim] | None:
    born = _BORN.match(text)
    if born is None:
        return None
    # "our son was born on tuesday": a child, and a pregnancy over.
    who = born.group("who").casefold()
    rel = (
        "son"
        if who in ("son", "boy", "baby boy")
        else "daughter"
        if "girl" in who or who == "daughter"
        else "child"
    )
    name = born.group("name")
    name = name[:1].upper() + name[1:] if name else None
    child = Claim("user", "family", name or rel, qualifier=rel, change=True)
    return [Claim("user", "condition", "pregnant", negated=True, change=True), child]


_DIVORCE_FINAL = re.compile(
    r"^(?:the|my|our)\s+divorce\b(?:\s+from\s+\w+)?\s+(?:is|was|went|got|has been|just got)\s+"
    r"(?:(?:now|finally|officially)\s+)?(?:final|finali[sz]ed|through|done|official|granted)\b",
    re.IGNORECASE,
)

_DIVORCE_DONE = re.compile(
    r"^(?:(?:we|i|(?-i:[A-Z])[\w'-]+\s+and\s+i)\s+)?(?:finally\s+)?(?:finali[sz]ed|got)\s+"
    r"(?:our|my|the)\s+divorce\b",
    re.IGNORECASE,
)


def divorce_final(text: str) -> list[Claim] | None:
    if not (_DIVORCE_FINAL.match(text) or _DIVORCE_DONE.match(text)):
        return None
    return [Claim("user", "relationship", "divorced", change=True)]


# "since the divorce I've had the kids": a divorce behind the user (read before the leading
# time phrase is cut off the clause).
SINCE_DIVORCE = re.compile(r"^(?:ever\s+)?since\s+(?:the|my|our)\s+divorce\b", re.IGNORECASE)

_HAD_THE_BABY = re.compile(
    r"^(?:we\s+|i\s+)?(?:just\s+)?had\s+(?:the|our|my)\s+baby\b"
    r"|^(?:the\s+|our\s+|my\s+)?baby(?:'s|\s+is|\s+has)\s+(?:finally\s+)?(?:here|arrived)\b",
    re.IGNORECASE,
)


def had_the_baby(text: str) -> list[Claim] | None:
    if not _HAD_THE_BABY.search(text):
        return None
    # "Had the baby! A girl, June": a pregnancy over.
    return [Claim("user", "condition", "pregnant", negated=True, change=True)]


# "Tofu went to live with my sister": a pet of the user's is theirs no more.
_WENT_TO_LIVE_WITH = re.compile(
    r"^(?P<name>(?-i:[A-Z])[\w'-]+)\s+(?:went|has\s+gone|moved)\s+(?:off\s+)?to\s+live\s+with\b",
    re.IGNORECASE,
)


def went_to_live_with(text: str) -> list[Claim] | None:
    gone = _WENT_TO_LIVE_WITH.match(text)
    if gone is None or not is_name(gone.group("name")):
        return None
    return [Claim("user", "pet", gone.group("name"), negated=True, change=True)]


# "we lost Biscuit in October", "had to put Mochi down": a pet (or person) named has died.
_LOST_NAMED = re.compile(
    r"^(?:we|i)\s+(?:just\s+|sadly\s+)?(?:lost|had\s+to\s+put|put|said\s+goodbye\s+to"
    r"|had\s+to\s+say\s+goodbye\s+to|buried|cremated)\s+(?:(?:our|my)\s+(?:[a-z-]+\s+)?)?"
    r"(?P<name>(?-i:[A-Z])[\w'-]+)(?P<down>\s+down)?\b",
    re.IGNORECASE,
)

_DIED_NAMED = re.compile(
    r"^(?P<name>(?-i:[A-Z])[\w'-]+)\s+(?:didn'?t|did\s+not)\s+make\s+it\b", re.IGNORECASE
)


def lost_by_name(text: str) -> list[Claim] | None:
    lost = _LOST_NAMED.match(text) or _DIED_NAMED.match(text)
    if lost is None or not is_name(lost.group("name")):
        return None
    put = lost.re is _LOST_NAMED and re.search(r"\bput\b", text, re.I)
    if put and not lost.group("down"):
        return None
    return [Claim(lost.group("name"), "alive", "", negated=True, change=True)]


# "the new kitten Miso is ...", "our new puppy, Max, ...": a pet just arrived, by name.
_NEW_PET = re.compile(
    r"^(?:the|our|my)\s+new\s+(?P<kind>[a-z-]+),?\s+(?P<name>(?-i:[A-Z])[\w'-]+)\b", re.IGNORECASE
)


def new_pet(text: str) -> list[Claim] | None:
    arrived = _NEW_PET.match(text)
    kind = arrived.group("kind").casefold() if arrived is not None else ""
    if arrived is None or not lx.is_pet(kind) or not is_name(arrived.group("name")):
        return None
    return [Claim("user", "pet", f"{kind} {arrived.group('name')}", change=True)]


# "Ella's 9", "Sam's 6": a person's age, said with a contraction.
_AGE_OF = r"(?-i:[A-Z])[\w-]+'s\s+\d{1,2}(?:\s+(?:years?\s+old|now))?(?![\w%:])"
_NAME_IS_AGE = re.compile(
    r"(?P<name>(?-i:[A-Z])[\w-]+)'s\s+(?P<n>\d{1,2})(?:\s+(?:years?\s+old|now))?(?![\w%:])"
)
_NAMES_AGES = re.compile(rf"^{_AGE_OF}(?:\s*(?:,\s*and|,|and|&)\s*{_AGE_OF})*\s*[.!]*$")


def ages_by_name(text: str) -> list[Claim] | None:
    if not _NAMES_AGES.match(text):
        return None
    ages = [(m.group("name"), m.group("n")) for m in _NAME_IS_AGE.finditer(text)]
    if not all(is_name(name) and 0 < int(n) < 100 for name, n in ages):
        return None
    return [Claim(name, "age", n) for name, n in ages]


# "Priya, my wife, says hello": a name and what the person is to the user, in apposition.
_NAME_MY_RELATION = re.compile(
    rf"^(?P<name>(?-i:{NAME_TOKEN})),\s+my\s+(?P<rel>{REL_WORD})(?:,|\s*$)", re.IGNORECASE
)


def name_my_relation(text: str) -> list[Claim] | None:
    named = _NAME_MY_RELATION.match(text)
    if named is None or not is_name(named.group("name")):
        return None
    rel = lx.relation_of(named.group("rel")) or named.group("rel").casefold()
    attribute, value, qualifier = relation_claim(rel, named.group("name"))
    return [Claim("user", attribute, value, qualifier=qualifier)]
