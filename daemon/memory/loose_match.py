"""The last resort for a statement no claim could be read from: the thing it names, and the
words that say it changed or is said again.

"Someone nicked my Brompton so it's the bus for me now" reads as no claim, yet it names the
Brompton of "Cycles to work on a Brompton" and says "now": it replaces it. "reminder: still
allergic to peanuts" names the peanuts again and says "still": it restates. A statement that
only shares a thing, with neither kind of word, restates when nothing happened to the thing
("rex says hi, he's on my feet"), and relates to nothing when something did, so news about
the same dog ("Rex had surgery today") is added beside the fact that names him.
"""

from __future__ import annotations

import re

from plugins.extractors import lexicon as lx
from plugins.extractors.claims import stem
from projections.text import normalise

_CHANGED = re.compile(
    r"\b(?:now|anymore|any\s+more|no\s+longer|not\s+any\s+more|switched|switching|changed"
    r"|upped|raised|lowered|increased|reduced|cut\s+(?:out|down)|new|finally|these\s+days"
    r"|nicked|stolen|stole|sold|lost|gave\s+up|given\s+up|quit|stopped|moved|instead"
    r"|replaced|upgraded|traded\s+in|got\s+rid\s+of|ended|over\s+now|since|(?:my|our)\s+old)\b",
    re.IGNORECASE,
)
_SAID_AGAIN = re.compile(
    r"\b(?:still|reminder|remind\s+you|as\s+i\s+said|like\s+i\s+said|as\s+you\s+know"
    r"|again|as\s+always|same\s+as\s+ever|remember\s+(?:the|my|our|that))\b",
    re.IGNORECASE,
)
# Words too common to name a thing two statements share.
_COMMON = lx.words(
    """
    user their they them this that with have about from been were what when where which
    really just very also into over some other still again now days week weeks month
    months year years today yesterday tomorrow time times thing things people person
    little much more most good great best nice love like likes work works working live
    lives living home house place make made take takes taking going doing being having
    think know said says anyway though since every each because there here
    """
)


def _other_person(new: str, old: str) -> bool:
    said = set(normalise(old).split())
    return any(
        lx.relation_of(word) is not None and word not in said
        for word in re.findall(r"\bmy\s+([\w-]+)", normalise(new))
    )


# What makes a mention news rather than a passing reference: something happened to the thing
# (an operation, a diagnosis, a birth, a sale), so it is remembered beside what named it.
_NEWS = re.compile(
    r"\b(?:surgery|operation|op|vet|hospital\w*|diagnos\w*|injur\w*|broke|broken|sick|ill"
    r"|illness|cancer|died|dead|passed|death|born|birth|pregnan\w*|engaged|married|wedding"
    r"|divorc\w*|promot\w*|fired|laid|hired|award\w*|won|accident|crash\w*|adopt\w*|retir\w*"
    r"|graduat\w*|bought|buying|sold|selling|started|starting|joined|joining|left|leaving"
    r"|moving|first|last|treatment|therapy|rehab|interview|offer|raise|anniversary|lost"
    r"|missing|stolen|broken|ran\s+away|new|baby|pup|puppies|kittens|closed|opened|fixed)\b",
    re.IGNORECASE,
)


def shared_things(new: str, old: str) -> set[str]:
    """Return the stems of the names and long words both texts use (not the common ones)."""
    return _things(new) & _things(old)


def _names(text: str) -> set[str]:
    """The stems of the capitalised words inside a sentence (not its first word)."""
    out: set[str] = set()
    for match in re.finditer(r"\b(?-i:[A-Z])[\w'-]{2,}", text):
        before = text[: match.start()].rstrip()
        word = normalise(match.group(0))
        shouted = match.group(0).isupper()  # "chewed my charger AGAIN": no name
        # "— I'm hooked", "a day of X-rays": no name either
        me = match.group(0)[:2] in ("I'", "I\u2019") or match.group(0)[1:2] == "-"
        if before and before[-1] not in ".!?:" and word not in _COMMON and not shouted and not me:
            out.add(stem(word))
    return out


def _things(text: str) -> set[str]:
    out: set[str] = set()
    for raw in re.findall(r"[\w'-]+", text):
        word = normalise(raw)
        if not word or word in _COMMON or word.isdigit():
            continue
        if (raw[:1].isupper() and len(word) >= 3) or len(word) >= 6:
            out.add(stem(word))
    return out


def loose_relation(new: str, old: str, about: frozenset[str] = frozenset()) -> str | None:
    """Return ``"replaces"``, ``"same"`` or None for a statement no claim could be read from.

    A statement about someone the old fact does not name ("my brother moved to Boston")
    never touches it: facts about different people never conflict. ``about`` is the
    attributes the old fact's claims state: where a user lives or works and who is in their
    life are not replaced by a loose mention without a word that says so.
    """
    if "diet" in about and _diet_named_again(new, old):
        return "same"
    if about & _PASTIME and _pastime_named_again(new, old):
        return "same"
    relation = _loosely_related(new, old)
    if relation == "replaces" and _still_so(new, old, about):
        return "same"
    return relation


_NOT_SO = re.compile(
    r"\b(?:not|no|never|stopped|quit|gave\s+up|anymore|any\s+more|used\s+to|cheat\w*|except"
    r"|gone\s+off|went\s+off|lost\s+interest|bored\s+of|sick\s+of|fed\s+up|over\s+it)\b"
    r"|n't\b",
    re.IGNORECASE,
)


def _diet_named_again(new: str, old: str) -> bool:
    """ "any good halal butchers in Leicester?" against "follows a halal diet": the diet's
    word said of what is eaten or bought, with nothing said against it, is the diet again."""
    held = {w for w in normalise(old).split() if w in lx.DIETS}
    said = re.findall(r"[\w-]+", new.casefold())
    return bool(held & set(said)) and not _NOT_SO.search(new) and not _CHANGED.search(new)


_PASTIME = frozenset({"hobby", "activity", "likes"})
_DAYS = {stem(w) for w in lx.WEEKDAYS | lx.MONTHS}


def _pastime_named_again(new: str, old: str) -> bool:
    """ "kiln day at pottery class" against "hobby is pottery", "Stanage was perfect for
    climbing" against "enjoys rock climbing": the pastime done again, nothing said against it."""
    named = _anchors(old) & _stems(new)
    if not named or _NOT_SO.search(new) or _ENDED.search(new) or _ALSO.search(new):
        return False  # "sushi is my comfort food too": another of a kind, which is news
    if _names(new) - _names(old) - _DAYS:
        return False  # "played five-a-side every Wednesday in Manchester": where is news
    # "went bass fishing" against "plays the bass": the word in another sense.
    words = [normalise(w) for w in re.findall(r"[\w'-]+", new)]
    return not any(
        stem(w) in named and i + 1 < len(words) and words[i + 1].endswith("ing")
        for i, w in enumerate(words)
    )


def _still_so(new: str, old: str, about: frozenset[str]) -> bool:
    """Whether a loose "replaces" is only the thing named again."""
    settled = about & {"residence", "employer", "job"} and _anchors(old) & _stems(new)
    if settled and _ENDED.search(new) is None:
        # "being vegan in copenhagen is easy these days": the place named again, with only a
        # "these days", is where the user still is.
        return True
    # "my boy Aksel is the reason I haven't slept since June": a person named again is not
    # replaced by a mention; a birth, a death or a wedding can change a family.
    return bool(about & _PEOPLE) and _LIFE_EVENT.search(new) is None


_PEOPLE = frozenset({"family", "partner", "family_count", "relationship"})
_ENDED = re.compile(
    r"\b(?:left|quit|moved|moving|sold|lost|fired|laid\s+off|no\s+longer|anymore|any\s+more"
    r"|former|ex|used\s+to|gave\s+up|stopped|ended|since\s+(?:the\s+)?(?:promotion|move|merger)"
    r"|back\s+when|when\s+i\s+was|made\s+me|promoted|full[\s-]time|part[\s-]time|shifted)\b",
    re.IGNORECASE,
)
_LIFE_EVENT = re.compile(
    r"\b(?:born|arrived|died|passed\s+away|married|divorced|split|engaged|adopted)\b", re.IGNORECASE
)


def _loosely_related(new: str, old: str) -> str | None:
    if _other_person(new, old):
        return None
    # "sushi is my comfort food too": another of a kind is news as well.
    chat = _IN_PASSING.search(new) or _opens_with(new, _anchors(old))
    in_passing = chat and not (_marked(_NEWS, new, old) or _ALSO.search(new))
    if not shared_things(new, old):
        # A name the old fact spells with a capital is the same name typed in lower case
        # ("the prius" after "Drives a Toyota Prius", "rex says hi" after "Has a dog named
        # Rex"): enough to say it again in passing, never to replace it.
        named = in_passing and _anchors(old) & _stems(new) and not _new_specifics(new, old)
        return "same" if named and not _marked(_CHANGED, new, old) else None
    if _SAID_AGAIN.search(new):
        return "same"
    if _marked(_CHANGED, new, old):
        return "replaces"
    if in_passing and _anchors(old) & _stems(new) and not _new_specifics(new, old):
        # "filled up the prius today", "rex says hi, he's on my feet": the thing the fact is
        # about is named in passing, in chat, and nothing happened to it, so memory already
        # holds what the statement says.
        return "same"
    return None


# A chat line about the moment (a person speaking, today), not a note of a lasting fact: "Codes
# mostly in Java" is a fact beside "has a dog named Java"; "java's asleep on my feet" is not.
_IN_PASSING = re.compile(
    r"\b(?:i|i'm|i've|me|my|we|our|us|today|tonight|tomorrow|this\s+(?:morning|afternoon|evening|week"
    r"|weekend|month)|yesterday|last\s+night|right\s+now|another\s+(?:day|week|shift)"
    r"|(?:long|busy|rough|hard)\s+(?:day|night|week|shift))\b",
    re.IGNORECASE,
)


def _marked(words: re.Pattern[str], new: str, old: str) -> bool:
    """Whether ``new`` says one of ``words`` of the thing ``old`` names: "new" only counts
    before that thing ("got a new Brompton"), not before a part of it ("my cello needs new
    strings")."""
    about = _things(old) | _anchors(old)
    for match in words.finditer(new):
        if match.group(0).casefold() != "new":
            return True
        following = re.findall(r"[\w'-]+", new[match.end() :])[:2]
        if about & {stem(normalise(w)) for w in following}:
            return True
    return False


def _new_specifics(new: str, old: str) -> bool:
    """A number or a name the old fact does not hold ("stamp series number 4" beside number 3)."""
    said_before = set(_NUMBER.findall(old)) | _names(old)
    return bool((set(_NUMBER.findall(new)) | _names(new)) - said_before)


# A number that names something ("series number 4"), not a measure ("a 12-hour shift") or a
# count ("3 deliveries before lunch").
_NUMBER = re.compile(
    r"\b\d+\b(?![-\w])(?!\s+[a-z]+s\b)"
    r"(?!\s*(?:hr|hrs|h|km|kms|mi|min|mins|kg|lb|lbs|am|pm|k|m|cm|mm|ml|l|%)\b)"
)


_ALSO = re.compile(r"\b(?:too|also|as\s+well|either)\b", re.IGNORECASE)


def _stems(text: str) -> set[str]:
    return {stem(normalise(w)) for w in re.findall(r"[\w'-]+", text)}


def _anchors(old: str) -> set[str]:
    """What a fact is about: the names in it and the last word of its value."""
    words = [normalise(w) for w in re.findall(r"[\w'-]+", old)]
    last = [w for w in words if w and w not in _COMMON and not w.isdigit()][-1:]
    # "a staff nurse in the ICU": letters a fact spells in capitals name a thing too.
    letters = {stem(normalise(w)) for w in re.findall(r"\b[A-Z]{2,5}\b", old)}
    return _names(old) | letters | {stem(w) for w in last if len(w) >= 4}


def _opens_with(new: str, anchors: set[str]) -> bool:
    """ "rex says hi", "the swift needs new tyres": a chat line whose subject is the thing a
    fact is about ("Codes mostly in Java" names the dog Java, but not as its subject)."""
    words = [normalise(w) for w in re.findall(r"[\w'-]+", new)[:3]]
    while words and words[0] in ("the", "my", "our", "a"):
        words.pop(0)
    return bool(words) and stem(words[0]) in anchors
