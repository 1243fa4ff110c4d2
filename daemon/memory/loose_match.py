"""The last resort for a statement no claim could be read from: the thing it names, and the
words that say it changed or is said again.

"Someone nicked my Brompton so it's the bus for me now" reads as no claim, yet it names the
Brompton of "Cycles to work on a Brompton" and says "now": it replaces it. "reminder: still
allergic to peanuts" names the peanuts again and says "still": it restates. A statement that
only shares a thing, with neither kind of word, relates to nothing, so a fact about the same
dog ("Rex had surgery today") is added beside the fact that names him.
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
    r"|replaced|upgraded|traded\s+in|got\s+rid\s+of|ended|over\s+now|since)\b",
    re.IGNORECASE,
)
_SAID_AGAIN = re.compile(
    r"\b(?:still|reminder|remind\s+you|as\s+i\s+said|like\s+i\s+said|as\s+you\s+know"
    r"|again|as\s+always|same\s+as\s+ever)\b",
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


def shared_things(new: str, old: str) -> set[str]:
    """Return the stems of the names and long words both texts use (not the common ones)."""
    return _things(new) & _things(old)


def _things(text: str) -> set[str]:
    out: set[str] = set()
    for raw in re.findall(r"[\w'-]+", text):
        word = normalise(raw)
        if not word or word in _COMMON or word.isdigit():
            continue
        if (raw[:1].isupper() and len(word) >= 3) or len(word) >= 6:
            out.add(stem(word))
    return out


def loose_relation(new: str, old: str) -> str | None:
    """Return ``"replaces"``, ``"same"`` or None for a statement no claim could be read from.

    A statement about someone the old fact does not name ("my brother moved to Boston")
    never touches it: facts about different people never conflict.
    """
    if not shared_things(new, old) or _other_person(new, old):
        return None
    if _SAID_AGAIN.search(new):
        return "same"
    if _CHANGED.search(new):
        return "replaces"
    return None
