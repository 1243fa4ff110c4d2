"""A change said of a thing memory holds, by the thing's own name.

"Kiwi flew off when my grandson left the window open", "the doc swapped my sertraline for
citalopram", "ever since i dropped keto", "japan got pushed to october": none of these is a
sentence the claim grammar reads as a change of pet, medication, diet or plan, yet each names
the very thing a current fact holds ("Has a budgie named Kiwi", "Takes sertraline", "Follows a
keto diet", "Plans to visit Japan in April") next to a word that ends or moves it. That pairing
is what this module reads, whatever else the sentence says: the name of the thing, from the
fact, and an ending word within a few words of it, in a statement (no question, no "if", no
"should I") by the user about their own.

It is kept to the attributes whose value *is* a thing that can end (a pet, a medicine, a diet,
a plan, a partner, a course, a habit, a liked or disliked thing, a car): where the user lives
or works is the grammar's to read ("left the office in Leeds at 6" ends no residence).

The confidence (:data:`NAMED_CHANGE`) applies a user's own statement and queues an extracted
one for a person: the ending word is near the name, not read as its verb.

:mod:`daemon.memory.loose_match` is the last resort for a statement no claim was read from at
all, where any word of change anywhere will do; this reads beside the claims, so it asks more:
the word near the name, the thing the user's own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from plugins.extractors import lexicon as lx
from plugins.extractors.claims import Claim
from plugins.extractors.statements.sentences import is_statement_clause

NAMED_CHANGE = 0.6
"""Above a user statement's threshold (0.5), below an extracted fact's (0.75)."""

WINDOW = 4
"""How many words may stand between the thing's name and the word that ends it."""

_ENDED_ATTRIBUTES = frozenset(
    [
        "pet",
        "medication",
        "diet",
        "plan",
        "partner",
        "education",
        "hobby",
        "likes",
        "vehicle",
        "possession",
    ]
)

# Words that end, swap or move what they stand beside, as a chat user types them. "lost" only
# before the thing ("we lost Pepper", not "Pepper lost his bell"), "done" only after it ("MSc
# done!"); a thing after "to" or "for" is taken up, not ended ("switched to keto").
_ENDING = re.compile(
    r"\b(?:quit|quitting|dropped|dropping|ditched|ditching|gave\s+up|given\s+up|giving\s+up"
    r"|stopped|stopping|packed\s+in|binned|scrapped|no\s+longer|not\s+any\s*more|done\s+with"
    r"|finished|ended|cancell?ed|called\s+off|sold|flogged|got\s+rid\s+of|(?P<lost>lost)"
    r"|passed(?:\s+away)?|put\s+(?:\w+\s+)?(?:down|to\s+sleep)|died|flew\s+off|flown\s+off"
    r"|ran\s+(?:away|off)|went\s+missing|rehomed|broke\s+up|split(?:\s+up)?|divorced|dumped"
    r"|proposed|engaged|swapped|switched|replaced|traded\s+in|push(?:ed|ing)?(?:\s+back)?|postponed"
    r"|delayed|rescheduled|moved|graduated|cured|recovered|weaned\s+off|came\s+off"
    r"|withdr[ae]wn?|dropped\s+out|gave\s+away|given\s+away|separat(?:ed|ion)"
    # "said bye to the enfield", "grew out of kpop"
    r"|said\s+(?:good)?bye\s+to|waved\s+(?:good)?bye\s+to|parted\s+with|gr[eo]wn?\s+out\s+of"
    r"|(?P<done>(?<=\s)done(?=\s*[!.,]|\s*$)))\b",
    re.IGNORECASE,
)
# "come round to olives", "started liking mushrooms": a dislike ends by being taken up.
_TAKEN_TO = re.compile(
    r"\b(?:c[oa]me\s+(?:a)?round\s+(?:to|on)|coming\s+(?:a)?round\s+(?:to|on)|grown\s+to\s+like"
    r"|started\s+(?:liking|to\s+like|enjoying)|actually\s+(?:like|love|enjoy)|now\s+(?:like|love)"
    # "came back from Puglia an olive convert"
    r"|convert(?:ed)?)\b",
    re.IGNORECASE,
)
_WITH_ME = re.compile(r"\s+and\s+(?:i|me)\b", re.IGNORECASE)
_KEPT_ON = re.compile(r"\b(?:still|i\s+and|me\s+and)\s+(?:\w+\s+)?$", re.IGNORECASE)
_TAKEN_UP = re.compile(r"\b(?:to|into|onto|for)\b", re.IGNORECASE)
# "stopped going to cult": the "to" of going somewhere, not of taking something up.
_GOING = re.compile(
    r"\s*(?:going|coming|heading|getting)\s+(?:to|into)\s+(?:the\s+)?$", re.IGNORECASE
)
_NOT = re.compile(
    r"\b(?:not|never|didn't|didnt|haven't|havent|hasn't|won't|wont|can't|cant)\s+(?:\w+\s+)?$",
    re.IGNORECASE,
)
# "her Corolla", "my sister's keto": the thing is someone else's.
_SOMEONE_ELSES = re.compile(r"\b(?:his|her|their|\w+'s)\s+(?:\w+\s+)?$", re.IGNORECASE)
_SENTENCES = re.compile(
    r"(?<=[.!?;])\s+|\n+|\s+-\s+|,\s+|\s+(?:but|because|cos|cause|bc)\s+", re.IGNORECASE
)
_WORD = re.compile(r"[\w'-]+")
# Words of a value that name no thing: "visit Japan", "the gym at 6am every weekday".
_NOT_NAMES = lx.words(
    """
    the a an and or of in on at to for with from by my our their his her its your
    visit visiting go going get getting adopt adopting take taking do doing have having
    play plays playing use using learn learning start starting buy buying see make
    every each day days week weeks weekday weekdays weekend weekends morning mornings
    evening evenings night nights am pm daily weekly monthly times time year years month
    months january february march april may june july august september october november
    december club class classes lessons course degree some more most very really
    """
)


def anchors(claim: Claim) -> frozenset[str]:
    """The words that name the thing a claim holds ("budgie Kiwi": budgie, kiwi)."""
    if claim.attribute not in _ENDED_ATTRIBUTES and not claim.attribute.startswith("verb:"):
        return frozenset()
    if claim.subject != "user" or claim.past:
        return frozenset()
    words = (w.casefold() for w in _WORD.findall(claim.value))
    return frozenset(w for w in words if len(w) > 2 and not w.isdigit() and w not in _NOT_NAMES)


def changed_by_name(text: str, fact: Sequence[Claim]) -> str | None:
    """The rule that finds ``text`` ending what one of ``fact``'s claims holds, or None."""
    for claim in fact:
        names = anchors(claim)
        if not names:
            continue
        disliked = claim.attribute == "likes" and claim.negated
        if claim.negated and not disliked:
            continue  # "doesn't eat meat": ending a "no" is the grammar's to read
        for sentence in _SENTENCES.split(text):
            if not is_statement_clause(sentence):
                continue  # asked, weighed, wished, joked: nothing ended
            if _near(sentence, names, _TAKEN_TO if disliked else _ENDING):
                return "the thing held named beside a word that ends it"
    return None


_THIRD_PARTY = re.compile(
    r"\b(?:he|she|they|he's|she's|they've|his|her|their)\b|\b(?:my|our)\s+(?:\w+\s+)?(?P<who>[\w-]+)",
    re.IGNORECASE,
)


def _someone_else_speaks(before: str, named_first: bool) -> bool:
    """ "my friend came off sertraline": what comes before says whose the change is; "my
    husband Kenji passed" names the thing itself, so the words just before a name are its own."""
    if named_first:
        before = re.sub(r"(?:my|our)\s+(?:[\w-]+\s+)?$", "", before, flags=re.IGNORECASE)
    for said in _THIRD_PARTY.finditer(before):
        who = said.group("who")
        # A friend, a boss or a flatmate is a relation as the lexicon has it.
        if who is None or lx.relation_of(who) is not None:
            return True
    return False


def _the_users_own(sentence: str, name: re.Match[str]) -> bool:
    """Whether the thing named is the user's alone, kept as it was: not "Rob and I" (the
    grammar reads what they did), "still climbing", "her Corolla"."""
    before = sentence[: name.start()]
    return not (
        _WITH_ME.match(sentence[name.end() :])
        or _KEPT_ON.search(before)
        or _SOMEONE_ELSES.search(before)
    )


def _bare(word: str) -> str:
    """A word as a name is compared: "kpop" is "K-pop", "Japan's" Japan, "olive" olives."""
    word = re.sub(r"['\u2019]s$", "", word.casefold()).replace("-", "")
    return word[:-1] if len(word) > 4 and word.endswith("s") and not word.endswith("ss") else word


def _near(sentence: str, names: frozenset[str], ending: re.Pattern[str]) -> bool:
    """Whether one of ``names`` stands within :data:`WINDOW` words of an ``ending`` word,
    which is not itself denied and whose thing is the user's."""
    bare = {_bare(n) for n in names}
    spans = [
        m
        for m in _WORD.finditer(sentence)
        if _bare(m.group(0)) in bare and _the_users_own(sentence, m)
    ]
    if not spans:
        return False
    for end in ending.finditer(sentence):
        if _NOT.search(sentence[: end.start()]):
            continue
        for name in spans:
            if _someone_else_speaks(
                sentence[: min(name.start(), end.start())], name.start() < end.start()
            ):
                continue
            lo, hi = sorted((name.start(), end.start()))
            between = sentence[lo:hi]
            if len(_WORD.findall(between)) > WINDOW + 1:
                continue
            after = name.start() > end.start()
            which = end.groupdict()
            if (which.get("lost") and not after) or (which.get("done") and after):
                continue
            gap = sentence[end.end() : hi]
            if after and ending is _ENDING and _TAKEN_UP.search(gap) and not _GOING.match(gap):
                continue  # "switched to keto", "swapped the car for a Corolla": taken up
            return True
    return False
