"""A self-introduction said as a list, read as the statements it stands for.

"hiya I'm Dev, 29, software tester in leeds", "I am Lakshmi, 49, working as Branch Manager
in Canara Bank", "Morag here, 63, on a croft just outside Inverness", "I am retired chef, 72
years, in Lyon, Croix-Rousse": a person sums themselves up in items after a comma, each an
"I'm ..." with the "I'm" left out. Each item is said over with it ("I'm 29.", "I'm working
as Branch Manager in Canara Bank.", "I live on a croft just outside Inverness.") so the
grammar reads it like any statement. The list ends at the first item that is no part of a
profile ("... in Gazipur, but I live in Mirpur, Dhaka, the traffic is killing me"), and what
follows is left as it was said.
"""

from __future__ import annotations

import re

from plugins.extractors import lexicon as lx
from plugins.extractors.claims.subjects import is_name, name_shaped
from plugins.extractors.places import known_place

_LABEL = r"(?:[\w ]{1,30}:\s*)?"  # "quick intro so u know me: I'm Alejandro, 41, ..."
_GREETING = (
    r"(?P<greeting>(?:(?:hi+|hey+|hell+o+|hiya|heya|howdy|yo|hola|ola|olá|namaste|salaam|greetings"
    r"|bonjour|bonsoir|hallo|salut|ciao|moin|servus|hej|merhaba|jambo|kia\s+ora|g'day"
    r"|good\s+(?:morning|afternoon|evening|day))\b[,!]?\s+)*)"
)
_SAID = re.compile(
    rf"^{_LABEL}{_GREETING}(?:I'm|I am|my name is|name's|soy|this is)\s+(?P<first>[^,]+),\s*"
    r"(?P<items>.+?)[.!]?$",
    re.IGNORECASE,
)
# "Morag here, 63, ...": a name and "here"; "Venkatesh, retired engineer, aged 67, ...": a
# name alone, taken as an introduction only when an age follows among the items.
_HERE = re.compile(
    rf"^{_LABEL}{_GREETING}(?P<name>(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?)"
    r"(?P<here>\s+here)?,\s*(?P<items>.+?)[.!]?$",
    re.IGNORECASE,
)
_AGE = re.compile(
    r"(?:aged?\s+)?(?P<n>\d{1,3})(?:\s*(?:yo|y/o|yrs?|years?|years?\s+old|yrs\s+old))?",
    re.IGNORECASE,
)
_AS_IT_IS = re.compile(
    r"(?:from|in|based|living|residing|staying|settled|originally|married|single|engaged"
    r"|divorced|widowed|retired|working|employed|self[- ]employed|currently|a|an|the"
    r"|mother|father|mum|mom|dad|mama|papa|grandmother|grandfather|grandma|grandpa)\b",
    re.IGNORECASE,
)
_WORKING_WITH = re.compile(
    r"(?:working|employed|work)\s+(?:with|at|for)\s+(?P<org>(?-i:[A-Z]).*)", re.IGNORECASE
)
_WHERE = re.compile(r"(?:on|near|outside|just\s+outside)\s", re.IGNORECASE)
_OWN = re.compile(r"(?:i|i'm|i've|my|we|we're)\b", re.IGNORECASE)
_DOES = re.compile(r"(?:live|work|study|teach|own|speak|run|have|love|like)\b", re.IGNORECASE)
_COUNTED = re.compile(
    r"(?:two|three|four|five|six|\d)\s+(?!(?:years?|months?|weeks?|days?|hours?|yrs?)\b)\w+",
    re.IGNORECASE,
)
# What no profile item holds: a verb of its own, or a word that opens a new clause.
_CLAUSE = re.compile(
    r"\b(?:is|are|was|were|has|had|does|did|can|could|will|would|should|'s|gets?|got|makes?"
    r"|takes?|keeps?|killing|need|needs|want|wants|please|pls|but|so|because|though)\b",
    re.IGNORECASE,
)
_PREPOSITION = re.compile(r"\s(?:at|in|for|with|from|of|on)\s", re.IGNORECASE)
_CLOSER = re.compile(r"(?-i:[A-Z])[\w'-]*(?:\s+(?-i:[A-Z])[\w'-]*){0,2}")


def introduction(sentence: str) -> list[str]:
    """``sentence`` as the statements its profile stands for, or ``[sentence]`` when it is no
    introduction said as a list."""
    said = _SAID.match(sentence)
    if said is not None:
        profile = re.match(r"\s*(?:\d{1,3}\b|from\s|in\s|based\s)", said.group("items"), re.I)
        head = _first_item(said.group("first"), bool(said.group("greeting") or profile))
        if head is not None:
            return _profile(said.group("greeting") or "", head, said.group("items"), sentence)
    here = _HERE.match(sentence)
    if here is None:
        return [sentence]
    name = here.group("name")
    if known_place(name) or not all(is_name(w) for w in name.split()):
        return [sentence]
    items = _items(here.group("items"))
    if not here.group("here") and not any(_age_of(item) is not None for item in items[:3]):
        return [sentence]
    return _profile(here.group("greeting") or "", f"I'm {name}.", here.group("items"), sentence)


def _first_item(first: str, greeted: bool) -> str | None:
    """What "I'm ..." says before the first comma: a name, an age or a trade. A name in
    lower case ("im tomasz, from krakow") when a greeting or a profile item says so."""
    first = first.strip()
    words = first.split()
    if len(words) <= 2 and all(is_name(w) for w in words) and not known_place(first):
        return f"I'm {first}."
    if len(words) == 1 and greeted and name_shaped(first):
        return f"I'm {first[:1].upper() + first[1:]}."
    age = _age_of(first)
    if age is not None:
        return f"I'm {age}."
    if not _CLAUSE.search(first) and _trade(first):
        return _a_trade(first)
    return None


def _a_trade(item: str) -> str:
    """ "retired chef": "I'm a retired chef." ("I'm retired chef." would lose the chef)."""
    if _AS_IT_IS.match(item) and not re.match(r"retired\s", item, re.IGNORECASE):
        return f"I'm {item}."
    return f"I'm a {item}."


def _items(text: str) -> list[str]:
    return [
        re.sub(r"^and\s+", "", item.strip(" .!"), flags=re.IGNORECASE)
        for item in re.split(r",\s*|\s+and\s+(?=\d|a\s|an\s|two\s|three\s)", text)
    ]


def _profile(greeting: str, head: str, items_text: str, sentence: str) -> list[str]:
    named = not re.match(r"I'm (?:a |an |\d)", head)
    said = [f"{greeting}{head}"]
    items = _items(items_text)
    read = 0
    for item in items:
        statement = _item(item, named=named)
        closer = re.match(r"(?:in|on)\s+the\s|at\s", item, re.IGNORECASE)
        if closer and (read or not named) and said[-1].endswith("."):
            # "my own salon in Marseille, in the 13th", "biology teacher in Debrecen, at a
            # gimnázium": where, said closer.
            said[-1] = f"{said[-1][:-1]}, {item}."
            read += 1
            continue
        if statement is None:
            if read and _CLOSER.fullmatch(item) and said[-1].endswith("."):
                said[-1] = f"{said[-1][:-1]}, {item}."  # "in Lyon, Croix-Rousse": one place
                read += 1
                continue
            break
        said.append(statement)
        read += 1
    if read == 0:
        return [sentence]
    rest = ", ".join(items[read:]).strip()
    if rest:
        rest = re.sub(r"^(?:but|and|so)\s+", "", rest, flags=re.IGNORECASE)
        said.append(rest[:1].upper() + rest[1:] + ("" if rest.endswith((".", "!")) else "."))
    return said


def _age_of(item: str) -> int | None:
    age = _AGE.fullmatch(item.strip())
    if age is None or not 5 <= int(age.group("n")) <= 110:
        return None
    return int(age.group("n"))


def _item(item: str, *, named: bool) -> str | None:
    """One profile item said as a statement, or None when it is no profile item."""
    if not item or len(item.split()) > 12:
        return None
    age = _age_of(item)
    if age is not None:
        # "I'm a roofer, 20 years": years in the trade; "retired chef, 72 years": of age.
        return f"I'm {age}." if named or "y" not in item or age >= 45 else None
    if _OWN.match(item):
        return f"{item}."
    if _CLAUSE.search(item):
        return None
    employer = _WORKING_WITH.match(item)
    if employer is not None:
        return f"I work at {employer.group('org')}."  # "working with Orascom in Cairo"
    if _AS_IT_IS.match(item):
        return _a_trade(item) if _trade(item) else f"I'm {item}."
    if _WHERE.match(item):
        return f"I live {item}."  # "on a croft just outside Inverness"
    if _DOES.match(item):
        return f"I {item}."  # "..., live in Monterrey, work as a civil engineer"
    if _COUNTED.match(item):
        return f"I have {item}."  # "..., two daughters"
    if _trade(item):
        return f"I'm a {item}."
    if named and len(item.split()) <= 3 and not re.search(r"\d|[A-Z]", item):
        return f"I'm a {item}."  # "I'm Dev, 29, barista": a trade the lexicon lacks
    return None


def _trade(item: str) -> bool:
    """Whether ``item`` names a trade: "production manager at a garment factory"."""
    head = _PREPOSITION.split(f" {item} ", maxsplit=1)[0].strip()
    return bool(head) and lx.is_occupation(head)
