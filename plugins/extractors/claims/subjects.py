"""Reading a clause's subject off its front: the speaker, a person by name, a relation, or a thing
of theirs."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

from plugins.extractors import lexicon as lx
from plugins.extractors.claims.words import (
    ALSO_WORDS,
    CHANGE_ADVERBS,
    COPULAS,
    IRREGULAR,
    MODALS,
    SKIP_ADVERBS,
    VERBS,
    stem,
)

_AUX = frozenset(
    {
        "have",
        "has",
        "had",
        "'ve",
        "do",
        "does",
        "did",
        "will",
        "'ll",
        "would",
        "'d",
        "can",
        "could",
        "should",
        "might",
        "may",
        "must",
        "shall",
        "never",
        "always",
        "not",
        "no",
        "used",
    }
)

NAME_TOKEN = r"[A-Z][\w'\-]*"

_CAP_NAME = re.compile(rf"^{NAME_TOKEN}(?:\s+{NAME_TOKEN})?$")


def with_known_names(text: str, names: Iterable[str]) -> str:
    """``text`` with the names already known, typed in lower case, spelled as known."""
    for name in names:
        # "priya's a nurse now" and "priya's job": a name and its 's; not "it's" or "o'neil".
        text = re.sub(rf"(?<![\w']){re.escape(name.casefold())}(?!\w|'(?!s\b))", name, text)
    return text


def is_name(token: str, *, lower_ok: bool = False) -> bool:
    word = token.strip(",.;:!?")
    if not word or word.casefold() in lx.NOT_NAMES or not re.fullmatch(r"[\w'\-]+", word):
        return False
    # "You'd", "It's", "Their's": a pronoun with a clitic is never a name, whatever its case.
    if "'" in word and word.casefold().split("'", 1)[0] in lx.NOT_NAMES:
        return False
    if any(ch.isdigit() for ch in word):
        return False
    low = word.casefold()
    if low in COPULAS or low in _AUX or low.endswith("n't") or low in _THING_WORDS:
        return False
    if stem(word) in VERBS or low in CHANGE_ADVERBS or low in SKIP_ADVERBS:
        return False
    return word[:1].isupper() or lower_ok


@dataclass(frozen=True, slots=True)
class Subject:
    key: str
    """``user``, a name, or ``user's <relation>``."""
    first_person: bool
    relation: str | None = None
    name: str | None = None
    pet: str | None = None
    thing: str | None = None
    """An attribute noun ("home", "job title") or ``event:<phrase>`` ("event:flight to Lisbon")."""
    with_person: str | None = None
    """Who the user did it with ("me and Ben got engaged")."""
    note: bool = False
    """A note's label ("Hobby: baking"): what follows is the value itself, with no verb."""
    relative_of: str | None = None
    """Whose relative a named subject is, when not the user's ("his wife Abena": Kwame's)."""


# Nouns that name an attribute of a person ("my home is in Austin", "Job title: analyst").
ATTRIBUTE_NOUNS: dict[str, str] = {
    "name": "name",
    "first name": "name",
    "full name": "name",
    "surname": "surname",
    "last name": "surname",
    "family name": "surname",
    "nickname": "nickname",
    "home": "residence",
    "home city": "residence",
    "current city": "residence",
    "city": "residence",
    "address": "residence",
    "hometown": "origin",
    "home town": "origin",
    "job": "job",
    "job title": "job",
    "title": "job",
    "role": "job",
    "position": "job",
    "occupation": "job",
    "profession": "job",
    "employer": "employer",
    "company": "employer",
    "workplace": "employer",
    "birthday": "birthday",
    "bday": "birthday",
    "b-day": "birthday",
    "birth date": "birthday",
    "date of birth": "birthday",
    "birth year": "birth_year",
    "age": "age",
    "diet": "diet",
    "phone": "phone",
    "car": "vehicle",
    "native language": "native_language",
    "first language": "native_language",
    "mother tongue": "native_language",
    "native tongue": "native_language",
    "hobby": "hobby",
    "hobbies": "hobby",
    "allergy": "allergy",
    "allergies": "allergy",
    "languages": "language",
    "major": "education",
    "religion": "religion",
    "nationality": "nationality",
}


_LABEL = re.compile(r"^\s*(?P<label>[\w' ]{1,30}?)\s*:\s+(?=\S)")


def leading_label(text: str) -> re.Match[str] | None:
    """The "Label: " a text opens with ("Update: I moved", "Hobby: baking", "Derek: Hi")."""
    return _LABEL.match(text)


def labels_an_attribute(label: re.Match[str]) -> bool:
    """Return True if the label names what the note states ("Hobby: baking" is a hobby)."""
    return label.group("label").casefold().strip() in ATTRIBUTE_NOUNS


# Other nouns a person has exactly one of ("my gamertag is ...", "blood type: O+").
HANDLE_NOUNS: frozenset[str] = frozenset(
    [
        "gamertag",
        "username",
        "handle",
        "email",
        "pronouns",
        "blood-type",
        "star-sign",
        "zodiac",
        "shoe-size",
        "screen-name",
        "mbti",
    ]
)

EVENT_NOUNS: frozenset[str] = frozenset(
    [
        "wedding",
        "anniversary",
        "surgery",
        "operation",
        "trip",
        "vacation",
        "holiday",
        "flight",
        "exam",
        "exams",
        "interview",
        "appointment",
        "graduation",
        "due-date",
        "move",
        "marathon",
        "race",
        "honeymoon",
        "party",
        "defense",
        "defence",
        "procedure",
        "concert",
        "recital",
        "reunion",
        "conference",
        "visit",
        "checkup",
        "check-up",
        "ceremony",
    ]
)

_THING_WORDS = frozenset(
    w
    for phrase in [*ATTRIBUTE_NOUNS, *HANDLE_NOUNS, *EVENT_NOUNS, "favourite", "favorite"]
    for w in phrase.replace("-", " ").split()
) - {"first", "date", "of"}


def _alternation(words: Iterable[str]) -> str:
    phrases = sorted((w.replace("-", "[- ]") for w in words), key=len, reverse=True)
    return "|".join(phrases)


EVENT_ALT = _alternation(EVENT_NOUNS)

_THING_PATTERN = (
    r"^(?:(?:my|our|the user's|user's|users|the|(?P<pronoun>his|her|its|their)"
    r"|(?P<owner>(?-i:[A-Z])[\w\-]*)'s)\s+)?"
    # A modifier is no preposition: "holidays at home are quiet" is about the holidays.
    r"(?P<mod>(?:(?!(?:at|in|on|for|with|of|from|to|by)\s)[\w\-]+\s+){0,2}?)"
    r"(?P<thing>favou?rite\s+[\w\-]+(?:\s+[\w\-]+)?|"
    + _alternation([*ATTRIBUTE_NOUNS, *HANDLE_NOUNS, *EVENT_NOUNS])
    + r")(?:\s+(?P<prep>to|in|at|with|for)\s+(?P<target>[\w\-]+(?:\s+(?-i:[A-Z])[\w\-]*)?))?"
    r"(?:\s+(?:these days|now|currently|nowadays|lately|right now))?"
    r"(?=\s*(?::|'s\b|is\b|was\b|got\b|has\b|will\b|are\b|were\b|planned\b|scheduled\b"
    r"|on\s+(?:the\s+)?\d|on\s+(?:mon|tue|wed|thu|fri|sat|sun)|next\b|this\s+(?:week|month|year)"
    r"|tomorrow\b|tonight\b"
    r"|booked\b|set\b|moved\b|pushed\b|postponed\b|rescheduled\b|cancell?ed\b|happening\b"
    r"|called\b|named\b))\s*:?\s*"
)

_REL_ALT = "|".join(
    sorted((re.escape(r) for r in {*lx.RELATIONS, *lx.IRREGULAR_PLURALS}), key=len, reverse=True)
)

REL_WORD = rf"(?:{_REL_ALT})(?:s)?"

_THING_RE = re.compile(_THING_PATTERN, re.IGNORECASE)

DETERMINERS = frozenset(
    ["a", "an", "the", "my", "our", "your", "his", "her", "their", "this", "that", "these", "those"]
)

_SUBJECT_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern, re.IGNORECASE))
    for kind, pattern in (
        ("user_rel", rf"^(?:the\s+)?user'?s\s+(?P<rel>{REL_WORD})(?:'s\s+name)?\b,?\s*"),
        ("thing", _THING_PATTERN),
        ("user", r"^(?:the\s+)?user\b(?!'s|\s+and\s)\s*"),
        (
            "my_rel",
            rf"^(?:my|our)\s+(?:(?:older|younger|big|little|baby|twin|oldest|youngest"
            rf"|eldest|best|new|ex|late|step|half|elder|other|first|second|former)\s+)*"
            rf"(?P<rel>{REL_WORD})\b"
            r"(?:'s\s+name\b)?,?\s*",
        ),
        (
            "my_pet",
            r"^(?:my|our|the user's|user's)\s+(?P<mod>\w+\s+)?(?P<pet>dog|puppy|cat|kitten|rabbit"
            r"|bunny|retriever|labrador|lab|poodle|beagle|corgi|husky|pug|dachshund|bulldog|terrier"
            r"|shepherd|collie|spaniel|greyhound|whippet|labradoodle|goldendoodle|doodle"
            r"|hamster|parrot|bird|fish|turtle|horse|pony|ferret|snake|lizard|gecko|guinea pig|pet"
            r"|phone|iphone|laptop|macbook|computer|tablet|ipad|car|bike|scooter|motorbike)\b,?\s*",
        ),
        (
            "with_user",
            r"^(?:me\s+and\s+|i\s+and\s+|(?:the\s+)?user\s+and\s+)(?P<who>(?:my\s+)?[\w\-']+(?:\s+(?-i:[A-Z])[\w\-']*)?)\s+"
            r"|^(?P<who2>(?:my\s+)?[\w\-']+(?:\s+(?-i:[A-Z])[\w\-']*)?)\s+and\s+(?:i|me)\s+",
        ),
        ("first", r"^(?:i|we)(?=\b|')\s*|^(?:im|ive)\b(?=\s)"),
        (
            "people",
            r"^(?:people|everyone|everybody|friends|my friends|they|most people)\s+"
            r"(?=call(?:s)?\s+me\b)",
        ),
        ("pronoun_rel", rf"^(?:her|his|their)\s+(?P<rel>{REL_WORD})\b(?!')\s*"),
        ("pronoun", r"^(?:he|she|they)(?=\b|')\s*"),
        ("name_rel", rf"^(?P<owner>(?-i:{NAME_TOKEN}))'s\s+(?P<rel>{REL_WORD})\b,?\s*"),
        ("bare_rel", rf"^(?=(?-i:[A-Z]))(?P<rel>{REL_WORD})\b(?!')\s*"),
        ("name", rf"^(?P<name>(?-i:{NAME_TOKEN}(?:\s+{NAME_TOKEN})?))(?=\s|'|$)\s*"),
    )
)

_CONTRACTED_IS = re.compile(
    rf"^(?P<name>(?-i:{NAME_TOKEN}))'s\s+(?=(?:a|an|not|now|been|so|very|really|going|getting|still|also|just|never|always"
    r"|in|at|from|on|off|married|engaged|pregnant|divorced|single|retired|vegan|vegetarian"
    r"|allergic|moving|working|living|studying|\d)\b)",
    re.IGNORECASE,
)


def read_subject(
    clause: str, *, speaker: str, last_person: str | None, fact_text: bool
) -> tuple[Subject | None, str]:
    """Return the clause's subject and the rest (the predicate)."""
    contracted = _CONTRACTED_IS.match(clause)
    if contracted is not None and is_name(contracted.group("name")):
        # "Priya's a nurse now": the 's is "is" when no noun it could own follows.
        clause = f"{contracted.group('name')} is {clause[contracted.end() :]}"
    for kind, pattern in _SUBJECT_PATTERNS:
        match = pattern.match(clause)
        if match is None:
            continue
        rest = clause[match.end() :]
        if kind == "first":
            if match.group(0).casefold().strip() in ("im", "ive"):
                rest = ("'m " if match.group(0).casefold().startswith("im") else "'ve ") + rest
            return Subject(speaker, True), rest
        if kind == "people":
            return Subject(speaker, True), rest
        if kind == "with_user":
            who = (match.group("who") or match.group("who2") or "").strip()
            partner = re.sub(r"^my\s+", "", who, flags=re.I)
            return Subject(speaker, True, with_person=partner), rest
        if kind == "bare_rel":
            if not fact_text:
                return None, clause
            rel = lx.relation_of(match.group("rel")) or match.group("rel").casefold()
            name, rest = _leading_name(rest)
            return Subject(name or f"user's {rel}", False, relation=rel, name=name), rest
        if kind == "user":
            if fact_text or speaker != "user":
                return Subject("user", False), rest
            return None, rest
        if kind in ("user_rel", "my_rel"):
            rel = lx.relation_of(match.group("rel")) or match.group("rel").casefold()
            name, rest = _leading_name(rest)
            if name is not None and name.endswith("'s"):
                # "my sister Efua's wedding is ...": a thing of Efua's, and Efua is the sister.
                owner = name[:-2]
                found = _THING_RE.match(f"{owner}'s {rest}")
                if found is not None:
                    sub = _thing_subject(found, owner)
                    after = f"{owner}'s {rest}"[found.end() :]
                    return replace(sub, relation=rel, name=owner), after
                name = owner
            together = re.match(r"^and\s+(?:i|me)\s+", rest, re.IGNORECASE)
            if together is not None and kind == "my_rel":
                # "my partner Daniel and I got engaged": the user did it, with Daniel.
                who = f"{rel} {name}" if name is not None else f"my {rel}"
                return Subject(speaker, True, with_person=who), rest[together.end() :]
            owner = speaker if kind == "my_rel" else "user"
            key = name if name is not None else f"{owner}'s {rel}"
            return Subject(key, kind == "my_rel", relation=rel, name=name), rest
        if kind == "my_pet":
            pet = match.group("pet").casefold()
            bred = f"{(match.group('mod') or '').casefold()}{pet}"
            if re.fullmatch(lx.COMPOUND_BREEDS, bred):
                pet = bred  # "my border collie Bonnie": the breed whole
            model = re.match(
                r"^(?:\d+\w*|pro|max|plus|mini|air|ultra|se)(?:\s+(?:pro|max|plus|mini))?\b\s*",
                rest,
                re.I,
            )
            if model is not None and pet in OWNED_KIND:
                # "my iphone 12 battery is dying": the phone is an iPhone 12.
                return Subject(speaker, True, pet=f"{pet} {model.group(0).strip()}"), rest[
                    model.end() :
                ]
            name, rest = _leading_name(rest)
            return Subject(speaker, True, pet=f"{pet} {name}" if name else pet), rest
        if kind == "thing":
            mod_words = match.group("mod").casefold().split()
            if any(word in DETERMINERS for word in mod_words) or (
                mod_words and mod_words[0].endswith("ing") and match.group(0)[:1].isupper()
            ):
                # "Losing my job was hard", "Picking a favourite memory was tough": the
                # subject is the -ing phrase, not the job or the favourite.
                return None, clause
            if match.group("pronoun"):
                # "her name's Mochi": whose is the sentence's, not the user's (see parse()).
                of_pronoun = _thing_subject(match, "~pronoun")
                return of_pronoun, f"is {rest}" if ":" in match.group(0) else rest
            named = match.group("owner")
            whose = named if named and named.casefold() != "user" and is_name(named) else speaker
            subject = _thing_subject(match, whose)
            if ":" in match.group(0):
                return replace(subject, note=True), rest
            if re.match(r"(?i)(?:on|next|this|tomorrow|tonight)\b", rest):
                rest = f"is {rest}"
            return subject, rest
        if kind == "pronoun_rel":
            # "Her husband Pål is a carpenter", right after Ingrid: Pål, Ingrid's husband.
            rel = lx.relation_of(match.group("rel")) or match.group("rel").casefold()
            name, rest = _leading_name(rest)
            if last_person is None or name is None:
                return None, clause
            of = None if last_person.startswith("user's ") else last_person
            return Subject(name, False, relation=rel, name=name, relative_of=of), rest
        if kind == "pronoun":
            if last_person is None:
                return None, rest
            return Subject(last_person, False), rest
        if kind == "name_rel":
            rel = lx.relation_of(match.group("rel")) or match.group("rel").casefold()
            name, rest = _leading_name(rest)
            owner = match.group("owner")
            of = owner if name is not None else None  # "Kwame's wife Abena": Kwame's
            return Subject(
                name or f"{owner}'s {rel}", False, relation=rel, name=name, relative_of=of
            ), rest
        if kind == "name":
            pair = re.match(rf"^(?-i:({NAME_TOKEN})\s+and\s+({NAME_TOKEN}))\s+", clause)
            if pair is not None and is_name(pair.group(1)) and is_name(pair.group(2)):
                after = clause[pair.end() :]
                if starts_predicate(after):
                    return Subject(
                        pair.group(1), False, name=pair.group(1), with_person=pair.group(2)
                    ), after
            name = match.group("name")
            rest = re.sub(
                r"^(?:from|at|in)\s+(?:my|our|the)\s+[\w\-]+(?:\s+[\w\-]+)?\s+(?=\w+(?:s|ed)\b)",
                "",
                rest,
                flags=re.I,
            )
            words = name.split()
            if not is_name(words[0]) or starts_predicate(rest) is False:
                # "Lives in Boston": a capitalised verb, not a name.
                return None, clause
            if len(words) == 2 and not is_name(words[1]):
                return None, clause
            if not _agrees_with_one_person(rest):
                # "Unconditional love is ...": a capitalised first word followed by a
                # base-form verb is not a person doing something.
                return None, clause
            return Subject(name, False, name=name), rest
    return None, clause


def _thing_subject(match: re.Match[str], speaker: str) -> Subject:
    thing = " ".join(match.group("thing").casefold().replace("-", " ").split())
    mod = " ".join(match.group("mod").split())
    if thing.replace(" ", "-") in EVENT_NOUNS or thing in EVENT_NOUNS:
        target = match.group("target")
        phrase = " ".join(
            part for part in (mod, thing, match.group("prep") if target else None, target) if part
        )
        return Subject(speaker, True, thing=f"event:{phrase}")
    if mod and not thing.startswith("favo"):
        # "my job title" is the job; "my sister's job" never reaches here (relations first).
        thing = (
            f"{mod.casefold()} {thing}" if f"{mod.casefold()} {thing}" in ATTRIBUTE_NOUNS else thing
        )
    return Subject(speaker, True, thing=thing)


def _leading_name(rest: str) -> tuple[str | None, str]:
    """Read a name right after a relation ("my sister Maya lives ..."), if there is one."""
    titled = re.match(
        r"^(?:named\s+|called\s+)?((?:Mr|Mrs|Ms|Dr|Sir|Lady|Captain|Prof)\.?\s+[A-Z][\w'\-]*)(,?)\s*(.*)$",
        rest,
    )
    if titled is not None:
        return titled.group(1), titled.group(3)  # "My cat, Mr. Whiskers, thinks ..."
    match = re.match(r"^(?:named\s+|called\s+)?([\w'\-]+)(,?)\s*(.*)$", rest)
    if match is None:
        return None, rest
    word, comma, after = match.group(1), match.group(2), match.group(3)
    if word.casefold() in ("is", "was", "named", "called") or word.casefold() in lx.NOT_NAMES:
        return None, rest
    if not is_name(word, lower_ok=True):
        return None, rest
    if not word[:1].isupper() and starts_predicate(after) is not True:
        return None, rest
    if word[:1].isupper() and not comma:
        # "my husband Wei Ming loves it": a name of two words, both capitalised.
        second = re.match(r"^((?-i:[A-Z])[a-z][\w'\-]*)(,?)(?:\s+|$)(.*)$", after)
        if second is not None and second_name(second.group(1)):
            return f"{word} {second.group(1)}", second.group(3)
    if word[:1].isupper() or comma or starts_predicate(after):
        # "my daughter maya": a name typed in lower case is still a name.
        return word[:1].upper() + word[1:], after
    return None, rest


def names_nobody(word: str) -> bool:
    """Whether a capitalised word is no one a "she" or "he" could mean: a month ("mid-March"),
    a day, or letters ("diagnosed with MS", "left TAP")."""
    return (
        (len(word) > 1 and word.isupper())
        or word.casefold() in lx.MONTHS | lx.WEEKDAYS
        or re.sub(r"'s$", "", word.casefold()) in _NOBODYS_DAYS
    )


# "a Valentine's dinner", "Christmas with my mum": days of the year, not anyone.
_NOBODYS_DAYS = lx.words(
    "valentine valentines christmas easter xmas diwali eid hanukkah thanksgiving halloween"
    " ramadan passover"
)


def second_name(word: str) -> bool:
    """Whether a capitalised word after a first name is the second word of that name ("Wei
    Ming"), not a day or a month said next ("Maya Tuesday")."""
    return is_name(word) and word.casefold() not in lx.MONTHS | lx.WEEKDAYS


NOT_NAME_SUFFIX = re.compile(r"(?:ed|ing|ful|ous|able|ible|less|ish|est)$", re.IGNORECASE)


def name_shaped(word: str) -> bool:
    """Whether a lower-case word could be a first name rather than a state ("julia", not
    "exhausted" or "new")."""
    low = word.casefold()
    return (
        low.isalpha()
        and len(low) >= 2
        and low not in lx.NOT_NAMES
        and low not in _THING_WORDS
        and stem(low) not in VERBS
        and not NOT_NAME_SUFFIX.search(low)
    )


def _agrees_with_one_person(rest: str) -> bool:
    """Whether the verb after a one-person subject is finite ("Maya lives", not "Maya live")."""
    for raw in rest.split(" ")[:3]:
        first = raw.casefold().strip(",")
        if first in CHANGE_ADVERBS or first in SKIP_ADVERBS or first in ALSO_WORDS:
            continue
        if first in COPULAS or first in _AUX or first in MODALS or first.startswith("'"):
            return True
        return first.endswith(("s", "ed", "n't")) or first in IRREGULAR
    return False


def starts_predicate(rest: str) -> bool:
    first = rest.split(" ", 1)[0].casefold().strip(",")
    if not first:
        return False
    if first in COPULAS or first in _AUX or first.startswith("'"):
        return True
    if first in CHANGE_ADVERBS or first in SKIP_ADVERBS or first in ALSO_WORDS:
        return True
    if first.endswith("n't"):
        return True
    return stem(first) in VERBS


OWNED_KIND = {
    "phone": "phone",
    "iphone": "phone",
    "laptop": "computer",
    "macbook": "computer",
    "computer": "computer",
    "tablet": "computer",
    "ipad": "computer",
    "car": "vehicle",
    "bike": "vehicle",
    "scooter": "vehicle",
    "motorbike": "vehicle",
}
