"""Notes: what a user says of themselves that no rule of the grammar reads.

"i do my lifting at a PureGym near work" names no attribute the claim grammar knows, yet it
is the user telling the assistant something lasting about themselves. Rather than lose it,
the extractor keeps the sentence as a note, said over in the third person ("The user does
their lifting at a PureGym near work."), so it is recalled and read like any fact.

A note is made of a sentence of the user's own that speaks of them (see ``_MINE``: the
user may be the subject of a later clause, or own a thing at a named place), is no intention
or plan being weighed, no sarcasm, daydream or musing, no change or denial (a note is never
replaced by rule, so "keto is over for me" would keep keto current), no reaction to the
conversation, nothing of the moment, no report of someone's words and no passing ailment.
What the grammar refuses (questions, hypotheticals, jokes, quoted text, requests) never
reaches here.

A sentence addressed to the assistant ("my flat in Leeds is freezing, can you ...") may hold
a note, and the first person may come anywhere in it ("the Amazon warehouse in Haslet gives
us decent scanners"); see ``docs/memory.md`` for what that gained and cost.
"""

from __future__ import annotations

import re

from plugins.extractors import lexicon as lx
from plugins.extractors.claims import stem, third_person
from plugins.extractors.claims.values import OFTEN
from plugins.extractors.claims.words import IRREGULAR, VERBS

# "now I go to the bouldering gym instead": a lead, and the change it marks, is no part of it.
_LEAD = (
    r"^(?:(?:so|and|but|also|btw|plus|oh|ok|okay|well|ugh|ah|eh|hmm|lol|haha)\s+)?"
    r"(?:(?:now|these\s+days|nowadays|lately)\s*,?\s+)?"
)
_FIRST_PERSON = re.compile(_LEAD + r"(?:i|i'm|im|i've|ive|my|we|we're|we've|our)\b", re.I)
_FEELING = re.compile(
    r"^(?:i'?m|im|i\s+am|i\s+feel|i'm\s+feeling|feeling)\s+(?:so\s+|really\s+|very\s+|a\s+bit\s+"
    r"|kinda\s+|pretty\s+|super\s+|quite\s+|totally\s+|a\s+little\s+)?(?:tired|bored|excited"
    r"|happy|sad|stressed|nervous|sorry|glad|fine|ok|okay|good|great|confused|lost|stuck"
    r"|hungry|done|jealous|worried|anxious|annoyed|sure|not\s+sure|curious|scared|afraid"
    r"|overwhelmed|exhausted|knackered|gutted|thrilled|buzzing|relieved|back|here|ready"
    r"|freezing|boiling|cold|hot|soaked|late|early|busy|free|awake|up|home|out|away|online"
    r"|new\s+to|in\s+two\s+minds|torn|stoked|chuffed|pumped|psyched|gutted|delighted)\b",
    re.I,
)
# The same, said after something else: "It's Seattle, I'm stoked!".
_FEELING_ANYWHERE = re.compile(
    _FEELING.pattern.replace("^", r"(?:^|,\s*|\b(?:and|so|but)\s+)", 1), re.I
)
# Fiction, play and overstatement: "my protagonist is a pilot who lives in Oslo", "I'm basically
# a vampire at this point lol".
_NOT_MEANT = re.compile(
    r"\b(?:protagonist|character|hero|heroine|villain|plot|story|scene|chapter|novel's|book's"
    r"|basically|literally|at\s+this\s+point|jk|kidding|joking|apparently"
    r"|supposedly|swear|honestly)\b|[\U0001F600-\U0001F64F\U0001F900-\U0001F9FF]",
    re.I,
)
# Someone's words reported: "my coworker keeps saying 'I'm the best'".
_REPORTED = re.compile(
    r"\b(?:say|says|saying|said|told|tells|telling|asked|asks|wrote|writes|texted|messaged)\b"
    r"|(?:^|\s)['\"\u201c\u2018]\w",
    re.I,
)
# A passing ailment: "I have a cold", "I'm hungover".
_PASSING_ILL = re.compile(
    r"\b(?:have|has|got|with)\s+(?:a\s+|the\s+)?(?:cold|headache|hangover|flu|fever|sore\s+throat"
    r"|cough|migraine|stomach\s+bug)\b|\b(?:starving|hungover|sick|ill|knackered|shattered)\b",
    re.I,
)
_INTENT = re.compile(
    r"\b(?:i'?ll|i\s+will|i'?d|i\s+would|i\s+want|i\s+wanna|i\s+need|i'?m\s+looking|i'?m\s+trying"
    r"|i'?m\s+thinking|i\s+think|i\s+guess|i\s+hope|i\s+wish|i\s+might|maybe|probably|perhaps"
    r"|i'?m\s+going\s+to|i'?m\s+gonna|gonna|going\s+to|let\s+me|i\s+wonder|wondering|i\s+forgot"
    r"|can't\s+decide|should|could|would|if|whether|thinking\s+about|considering|planning"
    r"|hoping|trying\s+to|want\s+to|need\s+to|have\s+to|got\s+to|gotta)\b",
    re.I,
)

_OF_THE_MOMENT = re.compile(
    r"\b(?:today|tonight|right\s+now|rn|atm|at\s+the\s+moment|this\s+(?:morning|afternoon"
    r"|evening|week|weekend)|just\s+now|tomorrow|next\s+\w+|later|soon|on\s+the\s+way"
    r"|keep\s+getting|kept\s+getting|each\s+other|person|on\s+my\s+way|brb|omw"
    r"|be\s+right\s+back)\b",
    re.I,
)
_REACTION = re.compile(
    r"\b(?:i\s+meant|i\s+mean|i\s+(?:only\s+|just\s+)?ask(?:ed)?|i\s+said|i\s+see|i\s+know|i\s+get\s+it|i\s+agree"
    r"|i\s+understand|i\s+like\s+(?:that|it|this)|i\s+love\s+(?:that|it|this)|i\s+tried\s+(?:that|it)"
    r"|i\s+did\s+(?:that|it)|my\s+bad|my\s+mistake|i\s+remember|i\s+noticed|i\s+read|i\s+saw"
    r"|i\s+heard|i\s+found|i\s+got\s+(?:it|that|this)|i\s+have\s+(?:a|one|another|some)\s+"
    r"(?:question|idea|issue|problem)|i\s+can't\s+(?:believe|wait|remember))\b"
    r"|\b(?:it|that|this|those|them|these)\s*[.!]*$",
    re.I,
)
# A question typed without its mark: "5 minutes here, what do I do".
_ASKED = re.compile(
    r"\b(?:what|how|where|when|which|why)\s+(?:do|should|can|could|would|am)\s+i\b", re.I
)
# The user later in the sentence: the subject of a clause with something after its verb ("it's
# a long way but we keep chickens", not "4h38 but i finished"), or a thing of theirs at a named
# place ("the geyser in our flat in Melville burst"; not "the wife of my boss").
_MINE = re.compile(
    r"\b(?:i|i'm|im|i've|ive|we|we're|we've)\s+[\w'-]+\s+\w"
    # "the geyser in our flat in Melville burst": something of the user's, at a named place
    r"|\b(?:my|our|us)\b[^.!?]*?\b(?:in|at|near|from|on)\s+(?-i:[A-Z])",
    re.I,
)
# What the user is busy with, said after something else: "they use Go here, so I'm learning
# fast", "it's SO cold, and I'm still unpacking boxes".
_BUSY_AFTER = re.compile(
    r"(?:,\s*|\b(?:and|so|but)\s+)(?:i'?m|im|i\s+am)\s+(?:still\s+|just\s+)?\w+ing\b", re.I
)
# Sarcasm, daydreams and musing: "Sure, I'm a millionaire", "in another life I'd be a chef".
_DREAMT = re.compile(
    r"^\W*(?:sure|yeah|yep|ok|okay|right|oh)\b|\b(?:yeah\s+right|imagine"
    r"|another\s+life|what\s+if|wish|wonder|dream\w*|someday|one\s+day|lottery|millionaire"
    r"|secretly|hypothetically|half\s+thinking|part\s+of\s+me|keep\s+thinking|back\s+and\s+forth"
    r"|guess|suppose|might|jury|who\s+knows|we'll\s+see|must|believe|pretend|remember\s+that)\b",
    re.I,
)
# A change or a denial said as a note keeps the old value current: "keto is officially over".
_ENDED = re.compile(
    r"\b(?:(?:is|are|'s|was|were)\s+(?:\w+\s+)?over|no\s+longer|anymore|any\s+more|not|never"
    r"|didn't|don't|doesn't|isn't|wasn't|stopped|quit|gave\s+(?:up|away)|sold|left|ended|ex"
    r"|instead|used\s+to|no|nope|sorry|meant|oops|wait|actually)\b|n't\b",
    re.I,
)

_SWAPS = {
    "i'm": "the user is",
    "im": "the user is",
    "i've": "the user has",
    "ive": "the user has",
    "i'd": "the user would",
    "i'll": "the user will",
    "me": "the user",
    "my": "their",
    "mine": "theirs",
    "myself": "themselves",
    "we're": "they are",
    "we've": "they have",
    "we": "they",
    "our": "their",
    "ours": "theirs",
    "us": "them",
}
_AFTER_I = {
    "am": "is",
    "was": "was",
    "have": "has",
    "do": "does",
    "don't": "doesn't",
    "dont": "doesn't",
    "haven't": "hasn't",
    "havent": "hasn't",
}


# Tone said at the end of a chat line ("... in leipzig lol"): not part of what is stated.
_TONE_TAIL = re.compile(
    r"(?:\s+(?:lol|lmao|haha\w*|hehe\w*|xd|tho|though|ngl|tbh)|\s*[\U0001F300-\U0001FAFF\u2600-\u27BF]+)+"
    r"[\s.!]*$",
    re.I,
)


def note_of(sentence: str, *, about_others: bool = False) -> str | None:
    """The sentence said over as a note about the user, or None when it is no lasting
    statement of the user's own. ``about_others`` lets a sentence about the user's people
    through, for what the grammar read of it only in part."""
    text = _TONE_TAIL.sub("", " ".join(sentence.split())).strip(" .!,;:-")
    # "started nursing school this month!": a life event, its "I" left out.
    text = _SUBJECTLESS_EVENT.sub(r"\g<lead>I \g<verb> ", text)
    words = text.split()
    if not 4 <= len(words) <= 40 or not (_FIRST_PERSON.match(text) or _MINE.search(text)):
        return None
    refusals = (
        _OF_THE_MOMENT,
        _NOT_MEANT,
        _REPORTED,
        _PASSING_ILL,
        _INTENT,
        _REACTION,
        _DREAMT,
        _ENDED,
        _ASKED,
        _BUSY_AFTER,
    )
    for refused in refusals:
        if refused.search(text):
            return None
    bare = re.sub(_LEAD, "", text, flags=re.I)
    if _FEELING_ANYWHERE.search(bare) or _an_event_or_a_moment(bare):
        return None
    if not about_others and _about_someone_else(bare):
        return None
    said = _third_person(bare.split())  # "also I'm ...": the lead is no part of the note
    return said[:1].upper() + said[1:] + "."


_ADVERBS = frozenset(
    [
        "already",
        "also",
        "still",
        "just",
        "usually",
        "often",
        "always",
        "never",
        "mostly",
        "really",
        "actually",
        "currently",
        "sometimes",
        "normally",
        "generally",
        "basically",
        "only",
        "even",
    ]
)


_BE_DOING = re.compile(
    r"^(?:i'?m|im|i\s+am|we'?re|we\s+are|(?:my|our)\s+\w+\s+(?:is|are|'s))\s+(?:\w+\s+)?\w+ing\b"
    r"|^(?:i'?ve|ive|i\s+have|we'?ve|we\s+have)\s+been\b",
    re.I,
)
_DONE = re.compile(
    r"^(?:i|we|(?:my|our)\s+\w+(?:\s+\w+)?)\s+(?:(?:just|also|finally|already|recently|then)\s+)?"
    r"(?P<verb>\w+)",
    re.I,
)
_PEOPLE = re.compile(
    r"^(?:my|our)\s+(?:\w+\s+)?(?:boss|manager|colleague|co-?worker|teammate|landlord|landlady"
    r"|neighbou?r|doctor|gp|therapist|teacher|coach|friend|mate|partner|team|company|work)s?\b",
    re.I,
)


_FOR_A_WHILE = re.compile(
    r"\bfor\s+(?:another\s+|the\s+next\s+)?(?:\d+|a\s+few|a\s+couple\s+of|two|three|four|five|six"
    r"|a)\s+(?:days?|weeks?|months?)\b|\buntil\s+(?:next|the\s+end\s+of|monday|tuesday|wednesday"
    r"|thursday|friday|saturday|sunday)\b",
    re.IGNORECASE,
)


# Done once, yet lasting: what was begun, passed, opened or qualified in stays so ("I started
# nursing school this month", "I passed the N3", "I opened my own practice in Thane").
_LIFE_EVENT_VERBS = frozenset(
    [
        "started",
        "began",
        "joined",
        "passed",
        "opened",
        "launched",
        "founded",
        "graduated",
        "enrolled",
        "qualified",
    ]
)
_SUBJECTLESS_EVENT = re.compile(
    r"^(?P<lead>(?:(?:so|and|also|btw|update|news|finally|just|officially)\W*\s+)*)"
    rf"(?P<verb>(?-i:[Ss])?(?:{'|'.join(sorted(_LIFE_EVENT_VERBS))}))\s+(?=\w)",
    re.IGNORECASE,
)


_PASSTIME = re.compile(
    r"\b(?:book|novel|show|series|film|movie|game|episode|podcast|season|puzzle|crying|laughing)\b",
    re.IGNORECASE,
)


def _an_event_or_a_moment(text: str) -> bool:
    """ "I picked up the kids", "I'm seeing some progress": a thing done once, or going on
    now, is no lasting statement ("I'm swimming three times a week" is; so is a life event
    begun or passed, see ``_LIFE_EVENT_VERBS``)."""
    if _BE_DOING.match(text) and not OFTEN.search(text):
        return True
    if _FOR_A_WHILE.search(text):
        return True  # "i'm on crutches for 6 weeks": a state with its end in sight
    done = _DONE.match(text)
    verb = done.group("verb").casefold() if done is not None else ""
    words = text.casefold().split()
    # "our trip got off to a bad start", "my old car broke down": the verb after the thing.
    verbs = words[2:4] if words[0] in ("my", "our") else [verb]
    if words[0] in ("i", "we") and verb in _LIFE_EVENT_VERBS:
        return _PASSTIME.search(text) is not None  # "started a new book": a moment's pastime
    return any(v.endswith("ed") or v in IRREGULAR or v in _NOT_BASE for v in verbs if v)


def _about_someone_else(text: str) -> bool:
    """ "my boss put me on nights": a relative or a colleague is the grammar's to read."""
    mine = re.match(r"^(?:my|our)\s+(?:\w+\s+)?(?P<who>\w+)", text, re.I)
    related = mine is not None and lx.relation_of(mine.group("who")) is not None
    return related or _PEOPLE.match(text) is not None


_NOT_BASE = frozenset(
    [
        "can",
        "could",
        "will",
        "would",
        "should",
        "may",
        "might",
        "must",
        "did",
        "had",
        "was",
        "were",
        "got",
        "went",
        "made",
        "took",
        "saw",
        "came",
        "gave",
        "left",
        "felt",
        "kept",
        "met",
        "paid",
        "put",
        "ran",
        "said",
        "sat",
        "sold",
        "spent",
        "told",
        "thought",
        "wrote",
    ]
)


_ING_VERBS = frozenset(["bring", "sing", "swing", "ring", "sting", "fling", "spring", "wring"])


def _base_verb(word: str) -> bool:
    """A verb in the form "I" takes ("cycle", "own"), to be said in the third person."""
    return (
        word.isalpha()
        and word not in _NOT_BASE
        and word not in IRREGULAR
        and (not word.endswith(("ed", "ing")) or word in _ING_VERBS)
        and (stem(word) in VERBS or len(word) > 2)
    )


_DETERMINERS = frozenset(["the", "a", "this", "that", "our", "my", "their"])


def _third_person(words: list[str]) -> str:
    out: list[str] = []
    i = 0
    while i < len(words):
        raw = words[i]
        low = raw.casefold().strip(",")
        tail = raw[len(raw.rstrip(",")) :]
        if low == "i":
            out.append("the user")
            i += 1
            while i < len(words) and words[i].casefold() in _ADVERBS:
                out.append(words[i])
                i += 1
            nxt = words[i].casefold() if i < len(words) else ""
            if nxt in _AFTER_I:
                out.append(_AFTER_I[nxt])
                i += 1
            elif _base_verb(nxt):
                out.append(third_person(words[i]))
                i += 1
            continue
        if low in ("my", "our") and not out:
            out.append("the user's")
        elif low in _SWAPS and not (low == "mine" and out and out[-1].casefold() in _DETERMINERS):
            out.append(_SWAPS[low] + tail)  # but "the mine" is a place
        else:
            out.append(raw)
        i += 1
    return " ".join(out)
