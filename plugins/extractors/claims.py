"""What a sentence claims about a person: subject, attribute, value, and how it changes.

One grammar serves two readers. The offline extractor reads a user's chat turns with it
(``strict=True``: only the durable kinds of statement it knows), and reconciliation reads fact
texts with it ("Lives in Boston.", "The user works at Stripe.", "Bob is 35 years old.", "I just
moved to Seattle"), so a fact written through the API and a fact distilled from a chat are
compared in the same terms.

A :class:`Claim` is one (subject, attribute, value) with its polarity and change markers:

- ``subject``: ``"user"`` for the speaker or the user ("I", "we", "The user", a subject-less
  note), a person's name ("Maya"), or a relation of the user ("user's sister").
- ``attribute``: a word from :data:`SINGLE_VALUED` or :data:`MULTI_VALUED`, or ``verb:<stem>``
  for a verb the grammar has no kind for (``strict=False`` only).
- ``value``: the thing said, as said ("Lisbon", "a nurse", "peanuts"); ``""`` stands for "any
  value" in a negation ("I quit my job": no employer is current any more).
- ``negated`` ("no longer", "not ... anymore", "quit", "sold"), ``past`` ("used to"),
  ``change`` (a marker that something changed: "now", "just", "moved", "switched", "again"),
  ``previous`` ("from X to Y"), ``alternative`` ("prefers X over Y"), ``also`` ("too").

The grammar is shallow on purpose: clauses are split at conjunctions that start a new
statement, a subject is read off the front, auxiliaries and adverbs become markers, and the
verb's stem picks a rule. It reads English as people type it in chat (lower case, missing
punctuation, contractions); what it cannot place it leaves out rather than guess.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta

from plugins.extractors import lexicon as lx
from plugins.extractors.places import known_place

SINGLE_VALUED: frozenset[str] = frozenset(
    {
        "residence",
        "origin",
        "employer",
        "job",
        "work_field",
        "work_mode",
        "relationship",
        "partner",
        "age",
        "birthday",
        "birth_year",
        "name",
        "surname",
        "nickname",
        "diet",
        "education",
        "vehicle",
        "phone",
        "favourite",
        "religion",
        "nationality",
        "family_count",
        "native_language",
        "school_year",
        "blood_type",
        "housing",
    }
)
"""Attributes with one current value per subject (and qualifier): a new value replaces."""

MULTI_VALUED: frozenset[str] = frozenset(
    {
        "likes",
        "preference",
        "allergy",
        "condition",
        "pet",
        "family",
        "language",
        "hobby",
        "possession",
        "plan",
        "habit",
        "trait",
        "fear",
        "degree",
        "project",
        "event",
        "learning",
        "any",
        "work",
        "medication",
    }
)
"""Attributes that hold several values at once: a new value is added beside the others."""

# Verbs whose object is exclusive: doing it to a new object ends doing it to the old one.
EXCLUSIVE_VERBS: frozenset[str] = frozenset(
    {"drive", "manage", "lead", "run", "coach", "attend", "teach", "captain", "head", "date"}
)


@dataclass(frozen=True, slots=True)
class Claim:
    """One thing a sentence says about a subject."""

    subject: str
    attribute: str
    value: str
    negated: bool = False
    past: bool = False
    change: bool = False
    previous: str | None = None
    alternative: str | None = None
    also: bool = False
    qualifier: str | None = None
    """Narrows the attribute: the relation of a ``family`` member, the topic of a
    ``favourite``, the stem of a ``verb:`` attribute's preposition."""
    when: str | None = None
    """A time the statement names ("last month", "on June 3rd"), as said."""

    @property
    def single(self) -> bool:
        """Return True if the attribute holds one current value."""
        if self.attribute.startswith("verb:"):
            return self.attribute[5:].split("_")[0] in EXCLUSIVE_VERBS
        return self.attribute in SINGLE_VALUED


# -- words ---------------------------------------------------------------------------------

_IRREGULAR = {
    "went": "go",
    "gone": "go",
    "goes": "go",
    "got": "get",
    "gotten": "get",
    "had": "have",
    "has": "have",
    "having": "have",
    "was": "be",
    "were": "be",
    "is": "be",
    "am": "be",
    "are": "be",
    "been": "be",
    "being": "be",
    "made": "make",
    "left": "leave",
    "bought": "buy",
    "sold": "sell",
    "began": "begin",
    "begun": "begin",
    "became": "become",
    "grew": "grow",
    "grown": "grow",
    "taught": "teach",
    "ran": "run",
    "drove": "drive",
    "driven": "drive",
    "fell": "fall",
    "broke": "break",
    "tore": "tear",
    "torn": "tear",
    "broken": "break",
    "gave": "give",
    "given": "give",
    "met": "meet",
    "took": "take",
    "taken": "take",
    "spoke": "speak",
    "spoken": "speak",
    "wrote": "write",
    "written": "write",
    "felt": "feel",
    "found": "find",
    "kept": "keep",
    "lost": "lose",
    "won": "win",
    "ate": "eat",
    "eaten": "eat",
    "flew": "fly",
    "flown": "fly",
    "saw": "see",
    "seen": "see",
    "told": "tell",
    "said": "say",
    "came": "come",
    "knew": "know",
    "known": "know",
    "brought": "bring",
    "built": "build",
    "spent": "spend",
    "sent": "send",
    "paid": "pay",
    "led": "lead",
    "wed": "wed",
    "quit": "quit",
    "quitting": "quit",
    "born": "bear",
    "did": "do",
    "done": "do",
    "does": "do",
    "swam": "swim",
    "sang": "sing",
    "drank": "drink",
    "drunk": "drink",
    "rode": "ride",
    "chose": "choose",
    "hurt": "hurt",
    "split": "split",
    "set": "set",
    "put": "put",
    "read": "read",
    "let": "let",
    "dies": "die",
    "died": "die",
    "dying": "die",
    "lying": "lie",
    "cancelled": "cancel",
    "cancelling": "cancel",
    "travelled": "travel",
    "travelling": "travel",
    "labelled": "label",
    "modelled": "model",
    "fuelled": "fuel",
    "counselled": "counsel",
}


def stem(word: str) -> str:
    """Return a crude stem that every inflection of a verb shares ("lives", "living" -> "liv").

    Not a lemma: the same function is applied to both sides of every comparison, so the
    stems only need to agree with each other.
    """
    w = word.casefold().strip(".,;:!?'\"")
    w = _IRREGULAR.get(w, w)
    if (len(w) > 4 and w.endswith("ies")) or (len(w) > 4 and w.endswith("ied")):
        w = w[:-3] + "y"
    elif len(w) > 4 and w.endswith("ing"):
        w = w[:-3]
        if len(w) > 2 and w[-1] == w[-2] and w[-1] not in "aeiouls":
            w = w[:-1]
    elif len(w) > 3 and w.endswith("ed"):
        w = w[:-2] if not w.endswith("eed") else w[:-1]
        if len(w) > 2 and w[-1] == w[-2] and w[-1] not in "aeiouls":
            w = w[:-1]
    elif len(w) > 3 and re.search(r"(?:ss|x|z|ch|sh|o)es$", w):
        w = w[:-2]
    elif len(w) > 2 and w.endswith("s") and not w.endswith("ss"):
        w = w[:-1]
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    return w


def _stems(words: str) -> frozenset[str]:
    return frozenset(stem(w) for w in words.split())


# Verbs the grammar knows (by stem); a name followed by one of these starts a statement.
_VERBS = _stems(
    """
    live move relocate reside stay work join start begin quit leave retire fire hire promote
    become teach study graduate drop marry divorce date see break split separate engage
    have own get adopt buy rescue sell lose like love enjoy adore prefer hate dislike detest
    loathe mind eat drink smoke vape speak play drive ride use switch swap trade transfer
    change travel fly go
    visit head plan turn recover diagnose suffer call name grow come bear run manage lead pick cut
    coach attend volunteer collect practice train learn know take need want wish die pass
    celebrate finish complete win miss cook bake write read watch listen follow support
    raise own rent share keep do make earn spend stop avoid follow wear sign take swap foster
    celebrate hit decide bother hold upgrade lease bank freelance remarry rehome cancel postpone
    reschedule finish complete defend apply enrol enroll expect give adopt diagnose stand bear
    tear sprain fracture dislocate injure twist
    """
)
_COPULAS = frozenset({"am", "is", "are", "was", "were", "'m", "'s", "'re", "be", "been"})
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
_CHANGE_ADVERBS = frozenset(
    {
        "now",
        "currently",
        "nowadays",
        "recently",
        "just",
        "finally",
        "officially",
        "again",
        "lately",
        "newly",
        "instead",
        "anew",
    }
)
_PAST_ADVERBS = frozenset({"previously", "formerly", "once", "earlier"})
_SKIP_ADVERBS = frozenset(
    {
        "really",
        "actually",
        "still",
        "totally",
        "basically",
        "honestly",
        "literally",
        "definitely",
        "absolutely",
        "truly",
        "seriously",
        "kinda",
        "pretty",
        "much",
        "very",
        "so",
        "happily",
        "proudly",
        "mostly",
        "mainly",
        "primarily",
        "usually",
        "generally",
        "typically",
        "originally",
        "already",
        "always",
        "full-time",
        "part-time",
        "permanently",
        "officially",
        "even",
        "personally",
        "secretly",
        "genuinely",
        "fully",
        "completely",
        "only",
        "weirdly",
        "surprisingly",
        "apparently",
        "obviously",
        "sadly",
        "luckily",
        "unfortunately",
        "fortunately",
    }
)
_ALSO_WORDS = frozenset({"also", "too", "additionally"})
_MODALS = frozenset({"would", "'d", "could", "should", "might", "may", "must", "shall"})

_NAME_TOKEN = r"[A-Z][\w'\-]*"
_CAP_NAME = re.compile(rf"^{_NAME_TOKEN}(?:\s+{_NAME_TOKEN})?$")


def _is_name(token: str, *, lower_ok: bool = False) -> bool:
    word = token.strip(",.;:!?")
    if not word or word.casefold() in lx.NOT_NAMES or not re.fullmatch(r"[\w'\-]+", word):
        return False
    # "You'd", "It's", "Their's": a pronoun with a clitic is never a name, whatever its case.
    if "'" in word and word.casefold().split("'", 1)[0] in lx.NOT_NAMES:
        return False
    if any(ch.isdigit() for ch in word):
        return False
    low = word.casefold()
    if low in _COPULAS or low in _AUX or low.endswith("n't") or low in _THING_WORDS:
        return False
    if stem(word) in _VERBS or low in _CHANGE_ADVERBS or low in _SKIP_ADVERBS:
        return False
    return word[:1].isupper() or lower_ok


# -- clauses -------------------------------------------------------------------------------

_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})
# No split after an initial or a title ("J.K. Rowling", "Dr. Osei", "St. Louis").
# An emoji ends a sentence too ("in leeds 🙂 need help w my cv"), except those that say how
# the sentence before it was meant (a wink, an eye-roll, laughter), which stay with it.
_SENTENCE_SPLIT = re.compile(
    r"(?<![\s.][A-Z]\.)(?<!^[A-Z]\.)(?<!\b(?:Dr|Mr|Ms|St|Jr|Sr)\.)(?<!\bMrs\.)(?<=[.!?])\s+"
    r"|\n+|\s*;\s*|\s+-{1,2}\s+|\s+\u2014\s+"
    "|\\s*(?:(?![\U0001f643\U0001f644\U0001f602\U0001f923\U0001f61c\U0001f609])"
    "[\U0001f300-\U0001faff\u2600-\u27bf])+\\s*"
    r"|\s+(?::-?\(|:-?\)|:D|<3|:'\()(?:\s+|$)"
)
_CONJUNCTION = re.compile(
    r",?\s+(?:and|but|so|plus|then|though|although|while|whereas|yet|after)\s+(?:also\s+"
    r"|then\s+|actually\s+)?|\s+to\s+(?=become\b)|,\s+"
    # "I go every saturday since I live 2 blocks away": a reason is a statement too.
    r"|,?\s+(?:because|cause|cuz)\s+(?=(?:i|i'm|i've|we|we're|my|our)\b)"
    # "since I live nearby" is a reason; "since I was 8" a time, and no statement of its own.
    r"|,?\s+(?:since|as)\s+(?=(?:i|we)\s+(?:live|work|am|have|own|study|teach)\b|i'm\b|we're\b)"
    r"|,\s+(?=(?:i|i'm|i've|we|we're|my|our|she|he|they|she's|he's"
    r"|they're)\b)",
    re.IGNORECASE,
)
_STATEMENT_START = re.compile(
    r"^(?:(?i:i|i'm|i've|i'd|i'll|we|we're|we've|my|our|she|he|they|she's|he's|they're"
    r"|the user|user'?s?|everyone|everybody|people|friends|his|her|its|their)\b"
    r"|[A-Z][\w\-]*(?:'s)?\s+(?=\S))"
)
_LEADING_FILLER = re.compile(
    r"^(?:(?:yes|yeah|yep|no|nope|ok|okay|sure|fine)(?:[,!.]+\s*"
    r"|\s+(?=(?:i|i'm|we|my|update|so|well|yeah|anyway|but|and)\b))"
    r"|(?:[\w ]{1,30}):\s+(?=\S)"
    r"|(?:so|well|oh|btw|anyway|anyways|and|but|actually|honestly|fyi|ps|um|uh"
    r"|hey+|hi+|hell+o+|hiya|heya|howdy|yo|lol|haha|hmm|oh well|by the way|fun fact|update"
    r"|heads up|too bad|ugh|ok so|okay so|so yeah|long story short|context|meanwhile"
    r"|(?:also|plus)(?=\s+(?:my|our)\s)"
    r"|news|good news|big news|guess what|just so you know|for the record|for context"
    r"|as you know|you know what|to be honest|tbh|fwiw|quick update|weirdly|funnily enough"
    r"|surprisingly|oddly|sadly|luckily|unfortunately|fortunately|apparently"
    r"|(?:i\s+)?(?:just\s+)?(?:found out|learned|learnt|realized|realised|discovered)(?:\s+that)?"
    r"|turns out(?:\s+that)?|it turns out(?:\s+that)?"
    r"|" + lx.CLINICIAN_SAYS + r")\b[,:!.\-]*\s*)+",
    re.IGNORECASE,
)
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
_HAD_THE_BABY = re.compile(
    r"^(?:we\s+|i\s+)?(?:just\s+)?had\s+(?:the|our|my)\s+baby\b", re.IGNORECASE
)
_FORMERLY_AT = re.compile(
    r"^(?:formerly|previously|used to be|until recently)\s+(?:(?:at|with)\s+|(?=(?-i:[A-Z])))"
    r"(?P<org>[^,.;!]+)",
    re.IGNORECASE,
)
_MY_THING = re.compile(
    r"^(?P<x>[\w' -]{2,40}?)\s+(?:(?P<not>is\s+not|isn't|isnt|is\s+no\s+longer)\s+|is\s+)"
    r"(?:really\s+)?my\s+thing(?P<now>\s+(?:anymore|any\s+more|now))?\b",
    re.IGNORECASE,
)
_MAIDEN_NAME = re.compile(
    r"\b(?:going back to|went back to|back to|taking back|took back|reverting to|reverted to)"
    r"\s+my\s+maiden\s+name,?\s+(?P<name>[A-Z][\w'-]+)"
)


# "a morning person", "a positive person", "a private person": what the user is like, not likes.
_NOT_LIKED_KINDS = frozenset(
    [
        "morning",
        "night",
        "evening",
        "people",
        "early",
        "positive",
        "negative",
        "happy",
        "patient",
        "private",
        "shy",
        "quiet",
        "nice",
        "good",
        "kind",
        "busy",
        "organized",
        "organised",
        "practical",
        "creative",
        "sensitive",
        "calm",
        "anxious",
    ]
)
_BLOOD_TYPE = re.compile(
    r"^(?:blood\s+type\s+)?(?P<group>ab|a|b|o)\s*(?P<sign>negative|positive|neg|pos|[+-])$",
    re.IGNORECASE,
)
# A drug's name by its ending ("lisinopril", "metformin", "sertraline").
_MEDICINE_WORD = (
    r"[a-z][a-z-]{3,}(?:ine|ol|il|in|ide|ate|one|am|ax|an|ex|um|ix|pril|artan|statin|mab"
    r"|cillin|mycin|pam|zole|done)"
)
_MEDICATION = re.compile(
    r"(?:^(?:i|I)\s+(?:take|am\s+taking|'m\s+taking|'m\s+on)|\b(?:put|started)\s+me\s+on)\s+"
    rf"(?P<med>{_MEDICINE_WORD})\b(?:\s+for\s+(?P<cond>[\w' -]+))?",
    re.IGNORECASE,
)
_SWITCHED_ME = re.compile(
    r"\bswitched\s+me\s+(?:from\s+(?P<a>[a-z-]+)\s+)?(?:over\s+)?to\s+(?P<b>[a-z-]+)", re.IGNORECASE
)
_MEDICINE_SHAPED = re.compile(_MEDICINE_WORD, re.IGNORECASE)
_NOT_MEDICINES = frozenset(["vitamin", "protein", "caffeine", "nicotine", "medicine"])
_OWN_BUSINESS = re.compile(
    r"\b(?:opened|started|launched|founded|set\s+up)\s+(?:my|our)\s+own\s+(?P<what>bakery|business"
    r"|shop|store|cafe|café|restaurant|studio|practice|clinic|company|firm|agency|salon|bar|gym"
    r"|consultancy|startup)(?:\s+in\s+(?P<where>(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?))?",
    re.IGNORECASE,
)
_RENTING_IN = re.compile(
    r"^(?:(?:i|we)(?:'ve|'re|\s+have|\s+are)?\s+)?(?:been\s+)?renting\s+(?:a\s+\w+\s+)?in\s+"
    r"(?P<where>(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?)",
    re.IGNORECASE,
)
_NOTICE = re.compile(
    r"\b(?:handed|gave|put|turned)\s+in\s+my\s+(?:notice|resignation|two weeks)"
    r"(?:\s+(?:at|to)\s+(?P<org>(?-i:[A-Z])[\w&'-]+(?:\s+(?-i:[A-Z])[\w&'-]+)?))?",
    re.IGNORECASE,
)
_FIRST_DAYS_AT = re.compile(
    r"\bfirst\s+(?:full\s+)?(?:day|week|month)\s+(?:at|with)\s+"
    r"(?P<org>(?-i:[A-Z])[\w&'-]+(?:\s+(?-i:[A-Z])[\w&'-]+)?)",
    re.IGNORECASE,
)
_HOME_IN = re.compile(
    r"(?:^|,\s*|\b(?:we|i|we've|i've)\s+)(?:(?:just|finally)\s+)?"
    r"(?:(?P<bought>closed\s+on|bought|moved\s+into)"
    r"|split|share|rent|renting|sharing|splitting|(?:'ve\s+)?got|have)\s+(?:a|an|our|my)\s+"
    r"(?:new\s+|little\s+)?(?:house|home|flat|apartment|condo|place|room|studio|townhouse"
    r"|\d-bed(?:room)?(?:\s+(?:house|flat|apartment))?)\s+in\s+(?P<where>[\w .'-]+)",
    re.IGNORECASE,
)
_PET_IS_NAMED = re.compile(
    r"^(?:the|my|our)\s+(?P<kind>[a-z-]+)\s+is\s+(?P<name>(?-i:[A-Z])[\w'-]+)\b(?!\s+(?:and|or)\b)",
    re.IGNORECASE,
)
_BEING_A = re.compile(
    r"^being\s+an?\s+(?P<job>(?:[\w-]+\s+){0,2}?[\w-]+)(?:\s+(?:at|for|with)\s+(?P<org>.+?))?"
    r"\s+(?:is|has|was|sucks|means|pays|gets|can)\b",
    re.IGNORECASE,
)
_RENAMED = re.compile(
    r"^(?:we|i)\s+(?:just\s+|finally\s+)?renamed\s+(?:the|our|my)\s+(?P<kind>[\w-]+)\s+(?:to\s+)?"
    r"(?P<name>[\w'-]+)",
    re.IGNORECASE,
)
_BORN = re.compile(
    r"^(?:our|my)\s+(?:(?:baby|little|new|newborn)\s+)?(?P<who>son|daughter|baby(?:\s+(?:boy|girl))?"
    r"|twins|boy|girl)(?:,?\s+(?P<name>(?-i:[A-Z])[\w'-]+),?)?\s+(?:was|were)\s+(?:just\s+)?born\b",
    re.IGNORECASE,
)


def _idiom(text: str, speaker: str) -> list[Claim] | None:
    """Statements said in a fixed phrase rather than a subject and a verb."""
    if speaker != "user":
        return None
    medicine = _MEDICATION.search(text)
    if medicine is not None and medicine.group("med").casefold() not in _NOT_MEDICINES:
        # "I take lisinopril for blood pressure", "my GP put me on metformin for diabetes".
        out = [Claim("user", "medication", medicine.group("med").casefold())]
        cond = clean_value(medicine.group("cond") or "")
        if cond and not vague(cond):
            out.append(Claim("user", "condition", cond))
        return out
    own = _OWN_BUSINESS.search(text)
    if own is not None:
        # "opened my own bakery in Savannah": the user's work now, their own.
        where = f" in {own.group('where').strip()}" if own.group("where") else ""
        return [Claim("user", "employer", f"their own {own.group('what')}{where}", change=True)]
    switched = _SWITCHED_ME.search(text)
    shaped = switched is not None and any(
        _MEDICINE_SHAPED.fullmatch(switched.group(g) or "") for g in ("a", "b")
    )
    if switched is not None and shaped:
        # "my psychiatrist switched me from sertraline to bupropion": the medication now.
        return [
            Claim(
                "user",
                "medication",
                switched.group("b").casefold(),
                change=True,
                previous=(switched.group("a") or "").casefold() or None,
            )
        ]
    renting = _RENTING_IN.search(text)
    if renting is not None:
        # "I've been renting in Leeds for 3 years", "we're renting in Toronto for now".
        place = _place(clean_value(renting.group("where")))
        if not vague(place) and (place[:1].isupper() or known_place(place)):
            return [Claim("user", "residence", place)]
    notice = _NOTICE.search(text)
    if notice is not None:
        # "handed in my notice at Zalando today": leaving the employer.
        org = clean_value(notice.group("org") or "")
        return [Claim("user", "employer", "" if vague(org) else org, negated=True, change=True)]
    first_days = _FIRST_DAYS_AT.search(text)
    if first_days is not None:
        # "first full week at Delivery Hero done": the new employer.
        org = clean_value(first_days.group("org"))
        if not vague(org) and org[:1].isupper():
            return [Claim("user", "employer", org, change=True)]
    home = _HOME_IN.search(text)
    if home is not None:
        # "closed on a house in Denver", "I split a place in Philly": where the user lives.
        place = _place(clean_value(home.group("where")))
        if not vague(place) and (place[:1].isupper() or known_place(place)):
            out = [Claim("user", "residence", place, change=bool(home.group("bought")))]
            if home.group("bought"):
                out.append(Claim("user", "housing", "owns their home", change=True))
            return out
    named_pet = _PET_IS_NAMED.match(text)
    if named_pet is not None and lx.is_pet(named_pet.group("kind").casefold()):
        name = named_pet.group("name")
        if _is_name(name):
            return [Claim("user", "pet", f"{named_pet.group('kind').casefold()} {name}")]
    introduced = _PRONOUN_IS_MY.match(text)
    if introduced is not None:
        # "she's my daughter Lila btw": the person a "she" in what follows means.
        rel = lx.relation_of(introduced.group("rel")) or introduced.group("rel").casefold()
        name = introduced.group("name")
        if name and _is_name(name):
            attribute, value, qualifier = _relation_claim(rel, name)
            return [Claim("user", attribute, value, qualifier=qualifier)]
    being = _BEING_A.match(text)
    if being is not None and lx.is_occupation(being.group("job")):
        # "being a nurse at st mary's is killing my back": the user is one.
        out = [Claim("user", "job", _with_article(being.group("job")))]
        org = clean_value(being.group("org") or "")
        if org and not vague(org) and not is_place_like(org):
            out.append(Claim("user", "employer", org))
        return out
    renamed = _RENAMED.match(text)
    if renamed is not None and lx.is_pet(renamed.group("kind").casefold()):
        name = renamed.group("name")
        if _is_name(name, lower_ok=True):
            value = f"{renamed.group('kind').casefold()} {name[:1].upper() + name[1:]}"
            return [Claim("user", "pet", value, change=True, qualifier="renamed")]
    born = _BORN.match(text)
    if born is not None:
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
        child = Claim("user", "family", name or rel, qualifier=rel, change=True)
        return [Claim("user", "condition", "pregnant", negated=True, change=True), child]
    if _DIVORCE_FINAL.match(text) or _DIVORCE_DONE.match(text):
        return [Claim("user", "relationship", "divorced", change=True)]
    if _HAD_THE_BABY.search(text):
        # "Had the baby! A girl, June": a pregnancy over.
        return [Claim("user", "condition", "pregnant", negated=True, change=True)]
    formerly = _FORMERLY_AT.match(text)
    if formerly is not None:
        # "Formerly at Twitter, now freelancing": where the user no longer works.
        org = clean_value(formerly.group("org"))
        if not vague(org):
            out = [Claim("user", "employer", org, negated=True, change=True)]
            if re.search(r"\bnow\s+(?:freelanc|self-employed|my own boss)", text, re.I):
                out.append(Claim("user", "employer", "self-employed", change=True))
            return out
    thing = _MY_THING.match(text)
    if thing is not None:
        # "horror isn't my thing anymore": no longer liked; "hiking is my thing": liked.
        value = clean_value(thing.group("x"))
        if not vague(value):
            negated = bool(thing.group("not"))
            return [Claim("user", "likes", value, negated=negated, change=bool(thing.group("now")))]
    maiden = _MAIDEN_NAME.search(text)
    if maiden is not None:
        return [Claim("user", "surname", maiden.group("name"), change=True)]
    return None


# "... and night shifts are killing me": a short noun phrase and a finite verb start a clause.
_NEW_SUBJECT = re.compile(
    r"^(?:(?:the|my|our|his|her|their|these|those)\s+)?(?!(?:i|a|an|to|of|in|on|at|for|with)\b)"
    r"[a-z][\w'-]*(?:\s+[a-z][\w'-]*)?\s+(?:is|are|was|were|has|have)\b"
)
_NO_MORE = re.compile(
    r"^(?i:no\s+more|goodbye|good\s+bye|bye\s+bye|so\s+long|farewell)\s+(?P<what>[\w' -]+?)"
    r"(?:\s+(?i:for)\s+(?:(?i:me|us|him|her|them)"
    r"|(?:[Tt]he\s+)?(?P<who>user(?:'s\s+[\w-]+)?|[A-Z][\w-]+)))?\s*[.!]*\s*$"
)
_LEADING_TIME = re.compile(
    r"^(?P<when>(?:(?:last|this|next|early|late)\s+(?:\w+\s+)?"
    r"(?:week|month|year|summer|winter|spring|fall|autumn|weekend|night|monday|tuesday"
    r"|wednesday|thursday|friday|saturday|sunday)"
    r"|(?:in|since|on|back in|as of|starting(?!\s+(?:at|with|a|an|my|the|to)\b)|from)"
    r"\s+(?:\w+\s+)?\w+"
    r"|(?:a|one|two|three|four|five|six|a few|a couple of|several)\s+(?:days|weeks|months"
    r"|years|day|week|month|year)\s+ago"
    r"|yesterday|today|recently|lately|nowadays|these days|currently|now|as of now"
    r"|at the moment|right now|for (?:the )?(?:past|last) (?:\w+ )?\w+))\s*,?\s+",
    re.IGNORECASE,
)


# Chat spelling without apostrophes; only words that are not also words of their own
# ("ill", "id", "were", "its", "well" stay as they are).
_BARE_CONTRACTIONS = {
    "im": "I'm",
    "ive": "I've",
    "dont": "don't",
    "doesnt": "doesn't",
    "didnt": "didn't",
    "cant": "can't",
    "wont": "won't",
    "isnt": "isn't",
    "arent": "aren't",
    "wasnt": "wasn't",
    "werent": "weren't",
    "hasnt": "hasn't",
    "havent": "haven't",
    "hadnt": "hadn't",
    "couldnt": "couldn't",
    "shouldnt": "shouldn't",
    "wouldnt": "wouldn't",
    "youre": "you're",
    "theyre": "they're",
    "thats": "that's",
    "whats": "what's",
    "shes": "she's",
    "hes": "he's",
    "u": "you",
    "ur": "your",
}
_BARE_CONTRACTION = re.compile(
    r"(?<![\w'])(" + "|".join(_BARE_CONTRACTIONS) + r")(?![\w'])", re.IGNORECASE
)


def _spell_out(text: str) -> str:
    text = _BARE_CONTRACTION.sub(lambda m: _BARE_CONTRACTIONS[m.group(1).casefold()], text)
    return _LONG_WORD.sub(_respelled, text)


_LONG_WORD = re.compile(r"\b[a-z]{7,}\b")


def _respelled(match: re.Match[str]) -> str:
    """ "alergic", "vegitarian", "divorsed": a word the rules key on, mistyped by one letter
    (long words only, whose one-letter neighbours are seldom words themselves)."""
    word = match.group(0)
    if word in lx.TRIGGER_WORDS:
        return word
    for known in lx.TRIGGER_WORDS:
        if word.startswith(known) or known.startswith(word):
            continue  # "daughters", "engineered": the word itself, inflected
        if abs(len(known) - len(word)) <= 1 and known[0] == word[0] and _one_edit(word, known):
            return known
    return word


def _one_edit(a: str, b: str) -> bool:
    """Whether ``a`` becomes ``b`` by one insertion, deletion, substitution or swap."""
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        if a[i + 1 :] == b[i + 1 :]:
            return True
        return a[i : i + 2] == b[i + 1 : i - 1 : -1] and a[i + 2 :] == b[i + 2 :]
    return a[i:] == b[i + 1 :]


def sentences(text: str) -> list[str]:
    """Split ``text`` into sentences (at end punctuation, semicolons, dashes and newlines)."""
    text = re.sub(r"([!?])[!?1]+", r"\1", _spell_out(text.translate(_QUOTES)))  # "!!!", "?!"
    # "im kofi 👋 29, barista in leeds": a wave inside an introduction is a comma.
    text = _WAVE_IN_INTRODUCTION.sub(r"\1, ", text)
    # "(the one on Lexington, I go every saturday since I live in Asheville)": an aside of
    # a few words is a sentence of its own ("Mia (6)" stays where it is).
    text = re.sub(r"\s*\(([^()]*\s[^()]*\s[^()]*)\)\s*", "\n\\1\n", text)
    clean = " ".join(text.replace("\n", " \n ").split(" "))
    out: list[str] = []
    for sentence in _SENTENCE_SPLIT.split(clean):
        if sentence and sentence.strip():
            out.extend(_introduction(sentence.strip()))
    return out


_WAVE_IN_INTRODUCTION = re.compile(
    "^((?:(?:hi+|hey+|hiya|hell+o+)[,!]?\\s+)?(?:I'm|i am)\\s+[A-Za-z][\\w'\\-]*)\\s*"
    "[\U0001f300-\U0001faff\u2600-\u27bf]+[,.!]?\\s*(?=\\d|from\\b|in\\b|based\\b)",
    re.IGNORECASE,
)
_INTRODUCTION = re.compile(
    r"^(?:[\w ]{1,30}:\s*)?"  # "quick intro so u know me: I'm Alejandro, 41, ..."
    r"(?P<greeting>(?:hi+|hey+|hell+o+|hiya|heya|howdy|yo)\b[,!]?\s+)?(?:I'm|I am|my name is"
    r"|name's)\s+(?P<name>[A-Za-z][\w'\-]*),\s*(?P<items>[^,]+(?:,\s*[^,]+)*?)[.!]?$",
    re.IGNORECASE,
)


def _introduction(sentence: str) -> list[str]:
    """ "hiya I'm Dev, 29, software tester in leeds": a profile said as a list, read as the
    statements it stands for ("I'm Dev.", "I'm 29.", "I'm a software tester in leeds.")."""
    match = _INTRODUCTION.match(sentence)
    if match is None:
        return [sentence]
    name = match.group("name")
    profile = re.search(r"(?:^|,)\s*(?:\d{1,3}\b|from\s|in\s|based\s)", match.group("items"), re.I)
    if not (_is_name(name) or ((match.group("greeting") or profile) and _name_shaped(name))):
        return [sentence]
    items = [
        re.sub(r"^and\s+", "", item.strip(" .!"), flags=re.I)
        for item in re.split(r",\s*|\s+and\s+", match.group("items"))
    ]
    if not items or any(len(item.split()) > 6 or not item for item in items):
        return [sentence]
    said = [f"{match.group('greeting') or ''}I'm {name[:1].upper() + name[1:]}."]
    for item in items:
        low = item.casefold()
        age = re.fullmatch(r"(\d{1,3})(?:\s*(?:yo|y/o|years old))?", low)
        if age is not None:
            said.append(f"I'm {age.group(1)}.")
        elif re.match(
            r"(?:from|in|based|living|originally|married|single|engaged|a|an|the)\b", low
        ):
            said.append(f"I'm {item}.")
        elif re.match(r"(?:i|i'm|i've|my|we|we're)\b", low):
            said.append(f"{item}.")
        elif re.match(r"(?:live|work|study|teach|own|speak|run|have|love|like)\b", low):
            said.append(f"I {item}.")  # "..., live in Monterrey, work as a civil engineer"
        elif re.match(r"(?:two|three|four|five|six|\d)\s+\w+", low):
            said.append(f"I have {item}.")  # "..., two daughters"
        else:
            said.append(f"I'm a {item}.")
    return said


def clauses(sentence: str) -> list[str]:
    """Split a sentence at conjunctions that start a new statement.

    "I moved to Lisbon and I work as a nurse" and "... and work as a nurse" are two
    statements; "I like tea and coffee" and "two cats, Miso and Tofu" are one.
    """
    parts: list[str] = []
    start = 0
    for match in _CONJUNCTION.finditer(sentence):
        after = sentence[match.end() :]
        before = sentence[start : match.start()].strip(" ,")
        if re.fullmatch(_NAME_TOKEN, before) and not re.fullmatch(r"(?i:i|me)", before):
            continue  # "Ana and Luis split up": one subject, two people
        if re.match(r"(?i:i|me)\s", after) and re.fullmatch(
            r"(?:my|our)\s+[\w\-]+(?:\s+[\w\-']+)?", before, re.IGNORECASE
        ):
            continue  # "my partner Daniel and I got engaged": one subject, two people
        if _starts_statement(after):
            parts.append(sentence[start : match.start()])
            start = match.end()
    parts.append(sentence[start:])
    return [p.strip(" ,") for p in parts if p.strip(" ,")]


_COMPLEMENT_START = frozenset(
    [
        "obsessed",
        "allergic",
        "married",
        "engaged",
        "divorced",
        "based",
        "originally",
        "vegan",
        "vegetarian",
        "pregnant",
        "retired",
        "addicted",
        "fluent",
    ]
)


def _starts_statement(text: str) -> bool:
    words = text.split(" ")
    while len(words) > 1 and words[0].casefold().strip(",") in (
        _CHANGE_ADVERBS | _SKIP_ADVERBS | {"then", "also", "completely"}
    ):
        words.pop(0)
    if words and words[0].casefold() in _COMPLEMENT_START:
        return True
    if _NAMING.match(" ".join(words)):
        return True  # "..., calling him rex"
    if (
        " ".join(words[:2]).casefold() in ("no longer", "not anymore")
        or words[0].casefold() == "not"
    ):
        return True  # "retired this year and no longer works"
    if len(words) > 1 and words[0].casefold() in (_MODALS | {"will", "won't", "can't", "never"}):
        return True  # "... and will never be rich": its own clause, with the subject before
    text = " ".join(words)
    if _HEALED.match(text) or _NO_MORE.match(text) or _NEW_SUBJECT.match(text):
        return True
    match = _STATEMENT_START.match(text)
    if match is not None:
        word = match.group(0).strip()
        if word[:1].isupper() and word.casefold().rstrip("'s") not in lx.NOT_NAMES:
            # A name must be followed by what a predicate starts with ("and Bob works ...").
            rest = text[match.end() :]
            return _starts_predicate(rest) and not word.casefold().startswith(("i ", "i'"))
        return True
    first = text.split(" ", 1)[0].casefold().strip(",")
    second = text.split(" ")[1].casefold().strip(",.!") if len(text.split()) > 1 else ""
    if first in ("was", "were", "got", "get", "gets") and second in _PARTICIPLES:
        return True  # "I passed the exam and was promoted to inspector"
    if (
        first.endswith("ing")
        and stem(first) in _VERBS
        and second in ("a", "an", "the", "my", "our")
    ):
        return True  # "I'm 24 and finishing a degree": a second thing the user is doing
    # A verb with its subject left out ("... and work as a nurse"), not a gerund in a list.
    return (
        (stem(first) in _VERBS or first in _IRREGULAR)
        and not first.endswith("ing")
        and len(text.split()) > 1
        and first not in ("like", "love")
    )


# -- subjects ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Subject:
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


_EVENT_ALT = _alternation(EVENT_NOUNS)
_THING_PATTERN = (
    r"^(?:(?:my|our|the user's|user's|users|the|(?P<pronoun>his|her|its|their)"
    r"|(?P<owner>(?-i:[A-Z])[\w\-]*)'s)\s+)?"
    r"(?P<mod>(?:[\w\-]+\s+){0,2}?)"
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
_REL_WORD = rf"(?:{_REL_ALT})(?:s)?"
_PRONOUN_IS_MY = re.compile(
    rf"^(?:she|he)(?:'s|\s+is)\s+my\s+(?P<rel>{_REL_WORD})(?:,?\s+(?P<name>(?-i:{_NAME_TOKEN})))?",
    re.IGNORECASE,
)
_THING_RE = re.compile(_THING_PATTERN, re.IGNORECASE)
_DETERMINERS = frozenset(
    ["a", "an", "the", "my", "our", "your", "his", "her", "their", "this", "that", "these", "those"]
)
_SUBJECT_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern, re.IGNORECASE))
    for kind, pattern in (
        ("user_rel", rf"^(?:the\s+)?user'?s\s+(?P<rel>{_REL_WORD})(?:'s\s+name)?\b,?\s*"),
        ("thing", _THING_PATTERN),
        ("user", r"^(?:the\s+)?user\b(?!'s|\s+and\s)\s*"),
        (
            "my_rel",
            rf"^(?:my|our)\s+(?:(?:older|younger|big|little|baby|twin|oldest|youngest"
            rf"|eldest|best|new|ex|late|step|half|elder|other)\s+)*(?P<rel>{_REL_WORD})\b"
            r"(?:'s\s+name\b)?,?\s*",
        ),
        (
            "my_pet",
            r"^(?:my|our|the user's|user's)\s+(?:\w+\s+)?(?P<pet>dog|puppy|cat|kitten|rabbit|bunny"
            r"|retriever|labrador|lab|poodle|beagle|corgi|husky|pug|dachshund|bulldog|terrier"
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
        ("pronoun_rel", rf"^(?:her|his|their)\s+(?P<rel>{_REL_WORD})\b(?!')\s*"),
        ("pronoun", r"^(?:he|she|they)(?=\b|')\s*"),
        ("name_rel", rf"^(?P<owner>(?-i:{_NAME_TOKEN}))'s\s+(?P<rel>{_REL_WORD})\b,?\s*"),
        ("bare_rel", rf"^(?=(?-i:[A-Z]))(?P<rel>{_REL_WORD})\b(?!')\s*"),
        ("name", rf"^(?P<name>(?-i:{_NAME_TOKEN}(?:\s+{_NAME_TOKEN})?))(?=\s|'|$)\s*"),
    )
)


_CONTRACTED_IS = re.compile(
    rf"^(?P<name>(?-i:{_NAME_TOKEN}))'s\s+(?=(?:a|an|not|now|been|so|very|really|going|getting|still|also|just|never|always"
    r"|in|at|from|on|off|married|engaged|pregnant|divorced|single|retired|vegan|vegetarian"
    r"|allergic|moving|working|living|studying|\d)\b)",
    re.IGNORECASE,
)


def _subject(
    clause: str, *, speaker: str, last_person: str | None, fact_text: bool
) -> tuple[_Subject | None, str]:
    """Return the clause's subject and the rest (the predicate)."""
    contracted = _CONTRACTED_IS.match(clause)
    if contracted is not None and _is_name(contracted.group("name")):
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
            return _Subject(speaker, True), rest
        if kind == "people":
            return _Subject(speaker, True), rest
        if kind == "with_user":
            who = (match.group("who") or match.group("who2") or "").strip()
            partner = re.sub(r"^my\s+", "", who, flags=re.I)
            return _Subject(speaker, True, with_person=partner), rest
        if kind == "bare_rel":
            if not fact_text:
                return None, clause
            rel = lx.relation_of(match.group("rel")) or match.group("rel").casefold()
            name, rest = _leading_name(rest)
            return _Subject(name or f"user's {rel}", False, relation=rel, name=name), rest
        if kind == "user":
            if fact_text or speaker != "user":
                return _Subject("user", False), rest
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
                return _Subject(speaker, True, with_person=who), rest[together.end() :]
            owner = speaker if kind == "my_rel" else "user"
            key = name if name is not None else f"{owner}'s {rel}"
            return _Subject(key, kind == "my_rel", relation=rel, name=name), rest
        if kind == "my_pet":
            pet = match.group("pet").casefold()
            model = re.match(
                r"^(?:\d+\w*|pro|max|plus|mini|air|ultra|se)(?:\s+(?:pro|max|plus|mini))?\b\s*",
                rest,
                re.I,
            )
            if model is not None and pet in _OWNED_KIND:
                # "my iphone 12 battery is dying": the phone is an iPhone 12.
                return _Subject(speaker, True, pet=f"{pet} {model.group(0).strip()}"), rest[
                    model.end() :
                ]
            name, rest = _leading_name(rest)
            return _Subject(speaker, True, pet=f"{pet} {name}" if name else pet), rest
        if kind == "thing":
            mod_words = match.group("mod").casefold().split()
            if any(word in _DETERMINERS for word in mod_words) or (
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
            whose = named if named and named.casefold() != "user" and _is_name(named) else speaker
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
            return _Subject(name, False, relation=rel, name=name), rest
        if kind == "pronoun":
            if last_person is None:
                return None, rest
            return _Subject(last_person, False), rest
        if kind == "name_rel":
            rel = lx.relation_of(match.group("rel")) or match.group("rel").casefold()
            name, rest = _leading_name(rest)
            owner = match.group("owner")
            return _Subject(name or f"{owner}'s {rel}", False, relation=rel, name=name), rest
        if kind == "name":
            pair = re.match(rf"^(?-i:({_NAME_TOKEN})\s+and\s+({_NAME_TOKEN}))\s+", clause)
            if pair is not None and _is_name(pair.group(1)) and _is_name(pair.group(2)):
                after = clause[pair.end() :]
                if _starts_predicate(after):
                    return _Subject(
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
            if not _is_name(words[0]) or _starts_predicate(rest) is False:
                # "Lives in Boston": a capitalised verb, not a name.
                return None, clause
            if len(words) == 2 and not _is_name(words[1]):
                return None, clause
            if not _agrees_with_one_person(rest):
                # "Unconditional love is ...": a capitalised first word followed by a
                # base-form verb is not a person doing something.
                return None, clause
            return _Subject(name, False, name=name), rest
    return None, clause


def _thing_subject(match: re.Match[str], speaker: str) -> _Subject:
    thing = " ".join(match.group("thing").casefold().replace("-", " ").split())
    mod = " ".join(match.group("mod").split())
    if thing.replace(" ", "-") in EVENT_NOUNS or thing in EVENT_NOUNS:
        target = match.group("target")
        phrase = " ".join(
            part for part in (mod, thing, match.group("prep") if target else None, target) if part
        )
        return _Subject(speaker, True, thing=f"event:{phrase}")
    if mod and not thing.startswith("favo"):
        # "my job title" is the job; "my sister's job" never reaches here (relations first).
        thing = (
            f"{mod.casefold()} {thing}" if f"{mod.casefold()} {thing}" in ATTRIBUTE_NOUNS else thing
        )
    return _Subject(speaker, True, thing=thing)


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
    if not _is_name(word, lower_ok=True):
        return None, rest
    if not word[:1].isupper() and _starts_predicate(after) is not True:
        return None, rest
    if word[:1].isupper() or comma or _starts_predicate(after):
        # "my daughter maya": a name typed in lower case is still a name.
        return word[:1].upper() + word[1:], after
    return None, rest


# A one-word sentence that exclaims rather than names ("we got a dog! Finally.").
_EXCLAIMED = frozenset(
    [
        "yay",
        "wow",
        "awesome",
        "finally",
        "yes",
        "no",
        "thanks",
        "lol",
        "omg",
        "nice",
        "great",
        "cool",
        "sweet",
        "perfect",
        "congrats",
        "seriously",
        "honestly",
        "anyway",
        "whatever",
        "oops",
        "ugh",
        "yikes",
    ]
)
_NOT_NAME_SUFFIX = re.compile(r"(?:ed|ing|ful|ous|able|ible|less|ish|est)$", re.IGNORECASE)


def _name_shaped(word: str) -> bool:
    """Whether a lower-case word could be a first name rather than a state ("julia", not
    "exhausted" or "new")."""
    low = word.casefold()
    return (
        low.isalpha()
        and len(low) >= 2
        and low not in lx.NOT_NAMES
        and low not in _THING_WORDS
        and stem(low) not in _VERBS
        and not _NOT_NAME_SUFFIX.search(low)
    )


def _agrees_with_one_person(rest: str) -> bool:
    """Whether the verb after a one-person subject is finite ("Maya lives", not "Maya live")."""
    for raw in rest.split(" ")[:3]:
        first = raw.casefold().strip(",")
        if first in _CHANGE_ADVERBS or first in _SKIP_ADVERBS or first in _ALSO_WORDS:
            continue
        if first in _COPULAS or first in _AUX or first in _MODALS or first.startswith("'"):
            return True
        return first.endswith(("s", "ed", "n't")) or first in _IRREGULAR
    return False


def _starts_predicate(rest: str) -> bool:
    first = rest.split(" ", 1)[0].casefold().strip(",")
    if not first:
        return False
    if first in _COPULAS or first in _AUX or first.startswith("'"):
        return True
    if first in _CHANGE_ADVERBS or first in _SKIP_ADVERBS or first in _ALSO_WORDS:
        return True
    if first.endswith("n't"):
        return True
    return stem(first) in _VERBS


# -- predicates ----------------------------------------------------------------------------


@dataclass(slots=True)
class _Predicate:
    """A predicate with its auxiliaries and adverbs read off as markers."""

    words: list[str]
    """The rest after the head verb (original case)."""
    head: str
    """The head verb's stem, or ``be`` for a copula."""
    said: str = ""
    """The head verb as it was written ("hate", "split")."""
    negated: bool = False
    past: bool = False
    change: bool = False
    also: bool = False
    future: bool = False
    modal: bool = False
    progressive: bool = False
    start: bool = False
    stop: bool = False
    passive: bool = False

    @property
    def rest(self) -> str:
        return " ".join(self.words)

    @property
    def lower(self) -> str:
        return " ".join(self.words).casefold()


def _expand(rest: str) -> list[str]:
    text = rest.translate(_QUOTES)
    text = re.sub(r"(?i)\bcan't\b|\bcannot\b", "can not", text)
    text = re.sub(r"(?i)\bwon't\b", "will not", text)
    text = re.sub(r"(?i)\bain't\b", "is not", text)
    text = re.sub(r"(?i)n't\b", " not", text)
    text = re.sub(r"(?i)\bgonna\b", "going to", text)
    text = re.sub(r"(?i)^\s*im\b", "'m", text)
    text = re.sub(r"(?i)\bwanna\b", "want to", text)
    text = re.sub(r"(?i)\bno longer\b", "NOLONGER", text)
    text = re.sub(r"(?i)\bany\s?more\b|\bany longer\b", "ANYMORE", text)
    text = re.sub(r"(?i)\bused to\b", "USEDTO", text)
    text = re.sub(
        r"(?i)\bthese days\b|\bat the moment\b|\bright now\b|\bas of now\b|\batm\b", "now", text
    )
    text = re.sub(r"(?i)\bas well\b", "too", text)
    text = re.sub(r"^'", " '", text)
    return text.split()


_PARTICIPLE = re.compile(r"^[a-z]+(?:ed|en)$")
_PARTICIPLES = frozenset(
    {
        "born",
        "married",
        "divorced",
        "engaged",
        "separated",
        "widowed",
        "diagnosed",
        "fired",
        "hired",
        "promoted",
        "laid",
        "let",
        "based",
        "located",
        "employed",
        "retired",
        "allergic",
        "raised",
        "adopted",
        "moved",
        "relocated",
        "transferred",
        "stationed",
        "enrolled",
        "accepted",
        "admitted",
        "vaccinated",
        "pregnant",
        "injured",
    }
)


def _predicate(rest: str) -> _Predicate | None:
    """Read auxiliaries, negation and adverbs off the front; return the head and the rest."""
    words = _expand(rest)
    p = _Predicate(words=[], head="")
    i = 0
    while i < len(words):
        raw = words[i]
        w = raw.casefold().strip(",")
        if raw == "NOLONGER" or raw == "ANYMORE":
            p.negated = p.change = True
        elif raw == "USEDTO":
            p.past = p.change = True
        elif w in ("not", "never", "no"):
            p.negated = True
        elif w in _CHANGE_ADVERBS:
            p.change = True
        elif w in _PAST_ADVERBS:
            p.past = p.change = True
        elif w in _ALSO_WORDS:
            p.also = True
        elif w in _SKIP_ADVERBS or (w in ("kind", "sort") and _peek(words, i + 1) == "of"):
            if w in ("kind", "sort"):
                i += 1
        elif w in ("do", "does", "did"):
            nxt = _peek(words, i + 1)
            if (
                nxt
                and nxt not in ("not", "never")
                and stem(nxt) not in _VERBS
                and not (nxt in _SKIP_ADVERBS or nxt in _CHANGE_ADVERBS or nxt in _ALSO_WORDS)
            ):
                # "does CrossFit", "did a marathon": do as the verb itself.
                p.head = "do"
                p.words = _trailing(words[i + 1 :], p)
                return p
        elif w in ("will", "'ll", "shall"):
            p.future = True
        elif w in _MODALS:
            p.modal = True
        elif w == "can":
            pass
        elif w == "going" and _peek(words, i + 1) == "to" and stem(_peek(words, i + 2)) in _VERBS:
            p.future = True
            i += 1
        elif w in ("have", "has", "'ve", "had") and _peek(words, i + 1) == "been":
            i += 1
            nxt = _peek(words, i + 1)
            if nxt.endswith("ing") and len(nxt) > 4:
                p.progressive = True
            else:
                p.head = "be"
                p.words = _trailing(words[i + 1 :], p)
                return p
        elif (
            w in ("have", "has", "had", "'ve")
            and _peek(words, i + 1) == "to"
            and stem(_peek(words, i + 2)) in _VERBS
        ):
            i += 1
        elif w in ("have", "has", "'ve", "had") and _perfect(words, i + 1):
            if w == "had":
                p.past = True
        elif w in ("got", "get", "gets", "getting") and _peek(words, i + 1) in _PARTICIPLES:
            p.change = True
            p.progressive = p.progressive or w == "getting"
            p.head = "be"
            p.words = _trailing(words[i + 1 :], p)
            return p
        elif w in _COPULAS or w in ("'s",):
            nxt = _peek(words, i + 1)
            if w in ("was", "were") and not (
                nxt in _PARTICIPLES or _PARTICIPLE.match(nxt) or nxt.endswith("ing")
            ):
                p.past = True
            if nxt.endswith("ing") and len(nxt) > 4 and nxt not in ("during", "something"):
                p.progressive = True
            elif nxt in ("not", "no", "never", "NOLONGER") or nxt.casefold() in _CHANGE_ADVERBS:
                # "am not", "is no longer", "am now": keep reading markers before the rest.
                p.head = "be"
            elif nxt in _ALSO_WORDS or nxt in _SKIP_ADVERBS:
                p.head = "be"
            else:
                p.head = "be"
                p.words = _trailing(words[i + 1 :], p)
                if nxt in _PARTICIPLES or _PARTICIPLE.match(nxt):
                    p.passive = True
                return p
        elif w in ("start", "started", "starting", "starts", "began", "begin", "begun") and (
            _peek(words, i + 1).endswith("ing") or _peek(words, i + 1) == "to"
        ):
            p.start = p.change = True
            if _peek(words, i + 1) == "to":
                i += 1
        elif w in ("stopped", "stop", "stops", "quit", "quitting") and _peek(words, i + 1).endswith(
            "ing"
        ):
            p.stop = p.negated = p.change = True
        elif w == "gave" and _peek(words, i + 1) == "up" and _peek(words, i + 2).endswith("ing"):
            p.stop = p.negated = p.change = True
            i += 1
        elif p.head == "be":
            p.words = _trailing(words[i:], p)
            return p
        elif w in ("a", "an", "the") or (
            p.negated and stem(w) not in _VERBS and not w.endswith(("s", "ed", "ing"))
        ):
            # "not a morning person": a copula left out after the negation.
            p.head = "be"
            p.words = _trailing(words[i:], p)
            return p
        else:
            p.head = stem(w)
            p.said = w
            if w.endswith("ing") and len(w) > 4:
                p.progressive = True
            after = words[i + 1 :]
            while after and after[0].casefold() in _SKIP_ADVERBS | _CHANGE_ADVERBS | _ALSO_WORDS:
                marker = after.pop(0).casefold()
                p.change = p.change or marker in _CHANGE_ADVERBS
                p.also = p.also or marker in _ALSO_WORDS
            p.words = _trailing(after, p)
            return p
        i += 1
    if p.head == "be":
        return p
    return None


def _trailing(words: list[str], p: _Predicate) -> list[str]:
    """Take markers off the end of the rest ("... anymore", "... now", "... too")."""
    out = list(words)
    while out:
        last = out[-1].casefold().strip(",.!")
        if out[-1] == "ANYMORE" or last == "anymore":
            p.negated = p.change = True
        elif last in ("now", "again", "nowadays", "lately", "instead"):
            p.change = True
        elif last in ("too", "also"):
            p.also = True
        elif last in ("either", "btw", "lol", "haha", "tbh", "fyi", "though", "lmao", "xd", "ha"):
            pass
        else:
            break
        out.pop()
    cleaned = []
    for word in out:
        low = word.casefold().strip(",.!")
        if word in ("NOLONGER", "ANYMORE"):
            p.negated = p.change = True
            continue
        if word == "USEDTO":
            p.past = p.change = True
            continue
        if low in ("now", "instead", "nowadays"):
            p.change = True
        cleaned.append(word)
    return cleaned


def _peek(words: Sequence[str], i: int) -> str:
    return words[i].casefold().strip(",.!?") if i < len(words) else ""


def _perfect(words: Sequence[str], i: int) -> bool:
    """Return True if a participle follows (over adverbs and a negation): "have not played"."""
    while i < len(words) and (
        words[i] in ("NOLONGER",)
        or _peek(words, i) in ("not", "never", "just", "finally", "recently", "already", "ever")
        or _peek(words, i) in _SKIP_ADVERBS
    ):
        i += 1
    return _is_participle(_peek(words, i))


def _is_participle(word: str) -> bool:
    return word in _PARTICIPLES or bool(_PARTICIPLE.match(word)) or word in _IRREGULAR


# -- values --------------------------------------------------------------------------------

_TIME_TAIL = re.compile(
    # How often: "on weekends", "on saturdays", "most mornings", "at the weekend".
    r"\s+(?P<when>(?:(?:on|at)\s+(?:the\s+)?weekends?|on\s+(?:mon|tues|wednes|thurs|fri|satur"
    r"|sun)days|most\s+(?:days|mornings|evenings|nights|weekends)|in\s+the\s+evenings"
    r"|(?:last|this|next|early|late|every|each)\s+(?:\w+\s+)?"
    r"(?:week|month|year|summer|winter|spring|fall|autumn|weekend|night|monday|tuesday"
    r"|wednesday|thursday|friday|saturday|sunday|decade|semester|term|quarter|mon|tue|tues"
    r"|wed|thu|thur|thurs|fri|sat|sun)s?\.?"
    r"|(?:in|since|on|by|until|till|from|starting|as of|back in|around|before|after|during"
    r"|over)\s+(?:the\s+)?(?:\d{1,4}(?:st|nd|rd|th)?|(?:jan|feb|mar|apr|may|jun|jul|aug|sep"
    r"|sept|oct|nov|dec)[a-z]*\.?|spring|summer|fall|autumn|winter|christmas|easter"
    r"|monday|tuesday|wednesday|thursday|friday|saturday|sunday|the\s+(?:\d{1,2}(?:st|nd|rd|th)"
    r"|weekend|summer|winter|spring|fall|autumn|morning|evening|past|future|end\s+of\s+\w+"
    r"|start\s+of\s+\w+|beginning\s+of\s+\w+|moment|new year)|a\s+(?:week|month|year|while"
    r"|bit|few\s+\w+|couple\s+of\s+\w+)|\w+\s+ago)"
    r"(?:\s+\d{1,4}(?:st|nd|rd|th)?)?(?:,?\s+\d{4})?"
    r"|(?:a|one|two|three|four|five|six|seven|eight|nine|ten|\d+|a few|a couple of|several"
    r"|many)\s+(?:days|weeks|months|years|day|week|month|year)\s+ago"
    r"|for\s+(?:the\s+)?(?:past\s+|last\s+)?(?:a|one|two|three|four|five|six|seven|eight"
    r"|nine|ten|\d+|a few|a couple of|several|many)?\s*(?:days|weeks|months|years|day|week"
    r"|month|year|decades|decade|ages|a while|a bit|now|good|life|ever)"
    r"|yesterday|today|tomorrow|tonight|recently|lately|now|nowadays|soon|again|already"
    r"|at the moment|atm|rn|right now|for now|these days|anymore|ANYMORE|full-time|part-time"
    r"|in the end|eventually|after all|finally|completely|entirely|altogether"
    r"|for good|for work|for a living|permanently|temporarily|a lot|so much|very much"
    r"|from now on|instead|any day|every day|everyday|these days|in the mornings?|halfway through"
    r"|full time|for good"
    r"|too|also|as well|either|ever since|originally|though|lol|haha|btw|\(.*?\)))\b.*$",
    re.IGNORECASE,
)
_STOP_WORDS = re.compile(
    r"\s+(?:because|since|as|so|but|although|though|while|whereas|when|whenever|until|unless"
    r"|after|before|which|who|whom|whose|where|that|then|than|cause|cuz|coz|bc|if|and\s+(?:i"
    r"|we|my|our|she|he|they|it|now|then|also|just|the|this|that|these|those|there|will|would"
    r"|can|could|should|must|might|won't|can't|am|was|need|so)(?:'\w+)?\b"
    r"|in\s+(?:my|our|his|her|their)\s+(?:free|spare|down|off)\s+time|with\s+(?:my|our|his|her|their|the"
    r"|a|an|\d+|one|two|three|four|five|six)\b|myself|ourselves|starting\b|for\s+(?:my|our|his|her|their|the|a|an|work|school|college|university|uni|"
    r"fun|love)\b|to\s+(?:be|get|see|work|study|live|help|take|visit|start|join|find|feel|keep"
    r"|stay|remind|relax|unwind|express|connect|escape|bring|support|show|share|celebrate"
    r"|improve|enjoy|reduce|save|learn|make|give)\b"
    r"|,|;|:|\(|(?<!\b(?:Dr|Mr|Ms|St|Jr|Sr))(?<!\bMrs)\.\s|!|\?)(?:\s|$).*$|[.!?,;:]+$",
    re.IGNORECASE,
)
_DETERMINER = re.compile(
    r"^(?:a|an|the|my|our|his|her|their|some|this|that|one|two|three|four|five|another"
    r"|a couple of|a few|several|any)\s+",
    re.IGNORECASE,
)
_VAGUE = re.compile(
    r"^(?:it|that|this|these|those|them|you|your|him|her|us|me|one|something|anything"
    r"|everything|nothing|stuff|things|here|there|what|which|who|how|when|where|why|so|such"
    r"|the idea|the way|the fact|way|lot|bit|lots|a lot|a bit|the same|same|more|less|someone"
    r"|somebody|anyone|anybody|everyone|everybody|each other|one another|as much|so much|a ton"
    r"|all|both"
    r"|tons)\b",
    re.IGNORECASE,
)


_PUNCT_CUT = re.compile(
    r"\s*(?:[,;:!?(]|(?<!\b(?:Dr|Mr|Ms|St|Jr|Sr))(?<!\bMrs)(?<![\s.][A-Z])\.(?:\s|$)|\s-\s).*$"
)


_QUANTITY = re.compile(
    r"^(?:way\s+too\s+much|way\s+too\s+many|too\s+much|too\s+many|so\s+much|a\s+lot\s+of"
    r"|lots\s+of|tons\s+of|loads\s+of|plenty\s+of)\s+",
    re.IGNORECASE,
)


_DURATION_TAIL = re.compile(
    r"\s+for\s+(?:about\s+|almost\s+|nearly\s+|over\s+|around\s+|like\s+)?(?:\d+|an?|one|two"
    r"|three|four|five|six|seven|eight|nine|ten|a few|a couple of|several|many)\s+(?:years?"
    r"|months?|weeks?|days?|decades?)(?:\s+now)?$",
    re.IGNORECASE,
)
_APPROXIMATOR_TAIL = re.compile(
    r"\s+(?:for\s+)?(?:about|around|roughly|nearly|almost|approximately|over|some)\s*$",
    re.IGNORECASE,
)


def clean_value(text: str) -> str:
    """Cut a value at the words that end it and the time phrases that trail it."""
    value = _QUANTITY.sub("", _PUNCT_CUT.sub("", " ".join(text.split())))
    for _ in range(3):
        before = value
        value = _STOP_WORDS.sub("", value).strip()
        value = _TIME_TAIL.sub("", " " + value).strip()
    while before != value:
        before = value
        value = _STOP_WORDS.sub("", value).strip()
    # "played guitar for about five years": the time went, its "about" must too.
    value = _DURATION_TAIL.sub("", _APPROXIMATOR_TAIL.sub("", value))
    return value.strip(" \"'.,;:!?")


def when_of(text: str) -> str | None:
    """Return the first time phrase in ``text`` ("last month", "on June 3rd"), if any."""
    match = _TIME_TAIL.search(" " + text)
    if match is None:
        return None
    when = match.group("when")
    return when if when.casefold() not in ("too", "also", "as well", "either", "again") else None


_UNITS = {"day": 1, "week": 7, "month": 30, "year": 365}
_COUNTS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "a few": 3,
    "a couple of": 2,
    "several": 4,
}


def when_offset(when: str | None) -> timedelta | None:
    """How long before it was said a time phrase puts an event ("last month": about 30
    days; "3 weeks ago": 21 days; "yesterday": 1 day); None when it names no past moment."""
    if not when:
        return None
    low = " ".join(when.casefold().split())
    if low == "yesterday":
        return timedelta(days=1)
    match = re.fullmatch(
        r"(?:just\s+)?last\s+(day|week|weekend|month|year|summer|winter|spring|fall|autumn)", low
    )
    if match is not None:
        unit = match.group(1)
        days = {
            "weekend": 3,
            "summer": 180,
            "winter": 180,
            "spring": 180,
            "fall": 180,
            "autumn": 180,
        }.get(unit, _UNITS.get(unit, 0))
        return timedelta(days=days)
    match = re.fullmatch(
        r"(\d+|a|an|one|two|three|four|five|six|a few|a couple of|several)\s+"
        r"(day|week|month|year)s?\s+ago",
        low,
    )
    if match is not None:
        count = int(match.group(1)) if match.group(1).isdigit() else _COUNTS[match.group(1)]
        return timedelta(days=count * _UNITS[match.group(2)])
    return None


def _split_values(value: str) -> list[str]:
    parts = re.split(r",\s*(?:and\s+|&\s+)?|\s+and\s+|\s+&\s+|\s+as well as\s+", value)
    return [p.strip() for p in parts if p.strip()]


def vague(value: str) -> bool:
    """Return True if ``value`` points outside the statement ("that", "it", "something")."""
    return not value or _VAGUE.match(value) is not None


# -- the rules -----------------------------------------------------------------------------


class _Reader:
    """Turns one clause's subject and predicate into claims."""

    def __init__(
        self, subject: _Subject, pred: _Predicate, strict: bool, antecedent: str | None
    ) -> None:
        self.s = subject
        self.p = pred
        self.strict = strict
        self.antecedent = antecedent
        """The value of the sentence's previous claim, which "it" and "them" point to."""
        self.greeted = False
        """Whether the clause opened with a greeting ("hi I'm julia" introduces julia)."""
        self.when = when_of(pred.rest)

    def claim(self, attribute: str, value: str, **kw: object) -> Claim:
        p = self.p
        if attribute == "condition":
            value = re.sub(r"\s+diagnosis$", "", value)  # "a coeliac diagnosis" is coeliac
        fields: dict[str, object] = {
            "negated": p.negated,
            "past": p.past,
            "change": p.change,
            "also": p.also,
            "when": self.when,
        }
        fields.update(kw)
        return Claim(self.s.key, attribute, value, **fields)  # type: ignore[arg-type]

    def read(self) -> list[Claim]:
        p, s = self.p, self.s
        if p.modal:
            return []
        if s.thing is not None:
            return self._thing()
        if s.pet is not None:
            return self._pet_subject()
        out = self._copula() if p.head == "be" else self._verb()
        if s.with_person is not None:
            out = self._together(out, s.with_person)
        if s.relation is not None and s.name is not None and s.first_person:
            # "My sister Maya lives in Porto": a fact about Maya, and Maya is the user's sister.
            attribute, name, qualifier = _relation_claim(s.relation, s.name)
            out = [*out, Claim("user", attribute, name, qualifier=qualifier)]
        return out

    def _together(self, claims: list[Claim], other: str) -> list[Claim]:
        """ "Me and Ben got engaged": Ben is the partner; "Ana and Luis split up": both;
        "me and my girlfriend Hana live in Sapporo": both live there, Hana is the partner."""
        out = list(claims)
        words = other.split()
        rel = lx.relation_of(words[0]) if len(words) == 2 else None
        if self.s.key == "user" and rel is not None and _is_name(words[1]):
            attribute, name, qualifier = _relation_claim(rel, words[1])
            out.append(Claim("user", attribute, name, qualifier=qualifier))
            out.extend(
                replace(claim, subject=name)
                for claim in claims
                if claim.attribute not in ("relationship", "partner")
            )
            return out
        other = words[-1]
        for claim in claims:
            if claim.attribute == "relationship":
                ended = claim.value in lx.ENDED_RELATIONSHIP
                if self.s.key == "user" and _is_name(other, lower_ok=True):
                    name = other[:1].upper() + other[1:]
                    out.append(
                        replace(
                            claim, attribute="partner", value="" if ended else name, negated=ended
                        )
                    )
                elif self.s.key != "user":
                    out.append(replace(claim, subject=other))
                    if ended:
                        out.extend(
                            Claim(who, "partner", "", negated=True, change=True)
                            for who in (self.s.key, other)
                        )
            elif self.s.key != "user":
                out.append(replace(claim, subject=other))
        return out

    # -- "my wedding is in June", "my name is Dana", "Job title: analyst"
    def _thing(self) -> list[Claim]:
        thing = self.s.thing or ""
        if thing.startswith("event:"):
            return self._event(thing[6:])
        p = self.p
        if p.head != "be":
            return []
        rest = re.sub(r"^(?:called|named|now)\s+", "", p.rest, flags=re.I)
        value = clean_value(rest)
        if thing.startswith(("favourite", "favorite")):
            topic = thing.split(" ", 1)[1] if " " in thing else "thing"
            return [] if vague(value) else [self.claim("favourite", value, qualifier=topic)]
        attribute = ATTRIBUTE_NOUNS.get(thing)
        if attribute is None:
            if thing.replace(" ", "-") not in HANDLE_NOUNS:
                return []
            return [] if not value else [self.claim("handle", value, qualifier=thing)]
        if attribute == "age":
            return self._age(rest)
        if attribute == "residence":
            value = clean_value(re.sub(r"^(?:in|at|near|outside(?: of)?)\s+", "", rest, flags=re.I))
            return [] if vague(value) else [self.claim("residence", _place(value))]
        if attribute in ("birthday", "birth_year"):
            date = clean_value(re.sub(r"^(?:on|in)\s+", "", rest, flags=re.I)) or rest.strip(" .")
            return [self.claim(attribute, date)] if date else []
        if attribute in ("name", "surname", "nickname"):
            words = value.split()[:3]
            if not words or not all(_is_name(w, lower_ok=True) for w in words):
                return []
            return [self.claim(attribute, " ".join(words))]
        if attribute == "diet":
            diet = _diet(value.casefold())
            return [self.claim("diet", diet or value)] if value else []
        if vague(value):
            return []
        if attribute == "job":
            job = _strip_det(value)
            if " " not in job and not lx.is_occupation(job):
                return []  # "my job is great" says how the job is, not what it is
            return [self.claim("job", _with_article(job))]
        if attribute == "hobby":
            return [self.claim("hobby", v) for v in _split_values(value)]
        return [self.claim(attribute, value)]

    def _event(self, event: str) -> list[Claim]:
        """An event's date, a new date, or its cancellation."""
        p = self.p
        low = p.lower
        called_off = re.match(r"^(?:cancell?ed|called off)\b", low) or (
            # "the trip is off", not "the trip got off to a bad start"
            p.head == "be" and re.match(r"^off\b(?!\s+to\b)", low)
        )
        if p.head in _CANCEL or called_off or p.negated:
            return [self.claim("plan", event, negated=True, change=True)]
        if p.head in _RESCHEDULE or re.match(
            r"^(?:moved|pushed|postponed|rescheduled|delayed|bumped|changed)\b", low
        ):
            tail = p.rest if p.head in _RESCHEDULE else p.rest.split(" ", 1)[-1]
            date = _date_phrase(re.sub(r"^(?:back\s+)?(?:to|until|till)\s+", "", tail))
            return [self.claim("plan", event, change=True, when=date or None)]
        rest = re.sub(
            r"^(?:planned|scheduled|booked|set|happening|coming up|taking place)\s+(?:for\s+)?",
            "",
            p.rest,
            flags=re.I,
        )
        date = rest.strip(" .!")
        if p.head not in ("be", stem("happen")) and p.head not in _SCHEDULED:
            return []
        if not date or not _has_date(date):
            return []
        return [self.claim("plan", event, when=_date_phrase(date))]

    # -- "my dog Rex died", "my cat is 12"
    def _pet_subject(self) -> list[Claim]:
        p = self.p
        pet = self.s.pet or ""
        kind = _OWNED_KIND.get(pet.split(" ")[0], "pet")
        if kind != "pet":
            gone = (p.head in _BROKE and not p.lower.startswith("down")) or (
                p.head == "be" and re.match(r"^(?:dead|gone|broken|stolen|totall?ed)\b", p.lower)
            )
            if gone:
                return [Claim(self.s.key, kind, pet, negated=True, change=True)]
            # "my iphone 12 battery is dying": whatever is wrong with it, the user has one.
            return [Claim(self.s.key, kind, pet)] if " " in pet and self.s.first_person else []
        if p.head in (stem("die"), stem("pass")) or (
            p.head == "be" and re.match(r"^(?:dead|gone|put down)\b", p.lower)
        ):
            return [Claim(self.s.key, "pet", pet, negated=True, change=True)]
        if p.head == stem("run") and p.lower.startswith("away"):
            return [Claim(self.s.key, "pet", pet, negated=True, change=True)]
        if p.head == "be" and re.match(r"^(?:called|named)\s+", p.lower):
            name = clean_value(re.sub(r"^(?:called|named)\s+", "", p.rest, flags=re.I))
            # "my dog is named Bella": the one dog, so a later name for it is a new name.
            named = f"{pet} {name[:1].upper() + name[1:]}"
            return [Claim(self.s.key, "pet", named, qualifier="named" if " " not in pet else None)]
        if p.head == "be" and not p.negated:
            name = clean_value(p.rest)
            if name and _is_name(name.split(" ")[0]) and len(name.split()) == 1:
                return [Claim(self.s.key, "pet", f"{pet} {name}")]
        if " " in pet and pet.split()[-1][:1].isupper() and self.s.first_person:
            # "my dog Pepper hasn't had a walk": whatever the rest says, the user has Pepper.
            return [Claim(self.s.key, "pet", pet)]
        return []

    # -- copula ("am", "is", "'m", "got married")
    def _copula(self) -> list[Claim]:
        p = self.p
        rest = p.rest
        low = rest.casefold()
        if not rest:
            return []
        age = self._age(rest)
        if age:
            return age
        over = re.match(
            r"^(?:(?:so|totally|completely|sooo*)\s+)?over\s+"
            r"(?!the moon\b|it\b|(?:here|there|in|at|on|to|from|by|near|with|for|the)\b)",
            low,
        )
        if over is not None and not p.negated:
            # "I'm so over country music now": no longer liked.
            value = clean_value(rest[over.end() :])
            if not vague(value):
                return [self.claim("likes", value, negated=True, change=True)]
        device = re.match(r"^on\s+(?:an?\s+|my\s+)?(?P<x>.+)$", rest, re.I)
        if device is not None and not p.negated:
            # "I'm on a MacBook Air now", "on an iPhone 15": the device the user uses.
            for attribute, used in (
                ("computer", _computer(device.group("x"))),
                ("phone", _phone(device.group("x"))),
            ):
                if used is not None:
                    return [self.claim(attribute, used, change=p.change)]
        blood = _BLOOD_TYPE.match(clean_value(rest))
        if blood is not None:
            # "I'm O negative": a blood type, one per person.
            negative = blood.group("sign").casefold() in ("negative", "neg", "-")
            sign = "negative" if negative else "positive"
            return [self.claim("blood_type", f"{blood.group('group').upper()} {sign}")]
        back = re.match(r"^back\s+(?:to|into)\s+(?P<x>[a-z]+ing)\b", low)
        if back is not None and back.group("x") not in ("nothing", "something", "everything"):
            # "I'm back to bouldering next week": a pastime taken up again.
            return [self.claim("hobby", f"goes {back.group('x')}", change=True)]
        for rule in (
            self._relationship_state,
            self._diagnosis,
            self._birth,
            self._residence_state,
            self._origin,
            self._allergy,
            self._employment_state,
            self._fan,
            self._student,
        ):
            found = rule(rest, low)
            if found is not None:
                return found
        head = low.split(" ", 1)[0].strip(",.")
        diet = _diet(clean_value(rest).casefold())
        if diet is not None:
            return [self.claim("diet", diet)]
        if head in lx.NATIONALITIES and len(low.split()) <= 2:
            return [self.claim("nationality", head)]
        if head in lx.RELIGIONS:
            return [self.claim("religion", head)]
        if head in lx.TRAITS:
            return [self.claim("trait", head)]
        trait = re.match(
            r"^(?:an?\s+)?(?:total\s+|real\s+|complete\s+|big\s+|huge\s+|bit of an?\s+)?(?P<t>"
            + "|".join(sorted(map(re.escape, lx.TRAIT_NOUNS), key=len, reverse=True))
            + r")\b",
            low,
        )
        if trait is not None:
            return [self.claim("trait", trait.group("t"))]
        condition = re.match(
            r"^(?:an?\s+)?(?:\d+\s+(?:weeks|months)\s+)?(?P<type>type\s+[12]\s+)?(?P<adj>"
            + "|".join(sorted(map(re.escape, lx.CONDITION_ADJECTIVES), key=len, reverse=True))
            + r")\b",
            low,
        )
        if condition is not None:
            value = condition.group("adj")
            if condition.group("type"):
                value = f"{condition.group('type').strip()} {value}"
            return [self.claim("condition", value)]
        if head == "sober":
            return [self.claim("trait", "sober")]
        habit = re.match(
            r"^(?:an?\s+)?(?P<ex>ex-|former\s+|reformed\s+)?(?:heavy\s+|social\s+|light\s+"
            r"|occasional\s+|chain\s+|daily\s+)?(?P<what>smoker|drinker|vaper)\b",
            low,
        )
        if habit is not None:
            verb = {"smoker": "smokes", "drinker": "drinks alcohol", "vaper": "vapes"}
            return [self.claim("habit", verb[habit.group("what")], past=bool(habit.group("ex")))]
        player = re.match(
            r"^(?:an?\s+)?(?:keen\s+|avid\s+|big\s+)?(?P<game>[\w\-]+(?:\s+[\w\-]+)?)"
            r"\s+player\b",
            low,
        )
        if player is not None:
            return [self.claim("hobby", f"plays {player.group('game')}")]
        if re.match(r"^an?\s+only\s+child\b", low):
            return [self.claim("family", "", negated=True, qualifier="sibling")]
        if re.match(
            r"^an?\s+(?:new\s+|first-time\s+|proud\s+)?(?:mom|mum|mother|dad|father|parent"
            r"|mama|papa)\b",
            low,
        ):
            return [self.claim("trait", "parent")]
        place = re.match(
            r"^(?:(?:back|over|out|up|down)\s+)?(?:home\s+)?(?:in|at)\s+(?P<where>(?-i:[A-Z])[\w\-]*"
            r"(?:\s+(?-i:[A-Z])[\w\-]*)*)",
            rest,
        ) or _lower_case_place(rest)
        if place is not None and (
            p.change or low.startswith("back") or not self.strict or not _TRANSIENT.search(rest)
        ):
            where = place.group("where")
            if low.startswith(("at ", "back at")) and not self.strict:
                return [self.claim("employer", where)]
            if not low.startswith(("at ", "back at")):
                return [self.claim("residence", _place(where), change=True)]
        inhouse = re.match(r"^(?:now\s+)?in-?house\s+at\s+", low)
        if inhouse is not None:
            return [self.claim("employer", clean_value(rest[inhouse.end() :]), change=True)]
        if head in ("afraid", "scared", "terrified") and " of " in f" {low}":
            value = clean_value(re.sub(r"^\w+\s+(?:to death\s+)?of\s+", "", rest))
            return [] if vague(value) else [self.claim("fear", value)]
        if head == "fluent" and low.startswith("fluent in "):
            return [self.claim("language", v) for v in _split_values(clean_value(rest[10:]))]
        rel = self._relation_named(rest)
        if rel is not None:
            return rel
        if re.match(r"^(?:(?:now|finally|officially)\s+)?(?:a\s+)?homeowners?\b", low):
            return [self.claim("possession", "house", change=p.change)]  # owns their home
        job = self._occupation(rest)
        if job is not None:
            return job
        name = self._own_name(rest)
        if name is not None:
            return name
        if low.startswith(("in a relationship with ", "with ")) and self.s.key == "user":
            partner = clean_value(re.sub(r"^(?:in a relationship\s+)?with\s+", "", rest))
            if partner and _is_name(partner.split(" ")[0], lower_ok=True):
                return [self.claim("partner", partner)]
        if not self.strict and not p.passive:
            value = clean_value(rest)
            if value and not vague(value):
                return [self.claim("state", value)]
        if p.passive and not self.strict:
            head_word = low.split(" ", 1)[0]
            value = clean_value(" ".join(rest.split(" ")[1:]))
            if value and not vague(value):
                return [self.claim(f"verb:{stem(head_word)}", value)]
        return []

    def _age(self, rest: str) -> list[Claim]:
        if re.match(r"^\s*\d{1,2}[:h]\d", rest):
            return []
        rest = clean_value(rest) or rest
        decade = re.match(
            r"^in\s+(?:my|his|her|their|the)\s+(?:early\s+|mid\s+|late\s+)?(?P<d>\d0s|twenties"
            r"|thirties|forties|fifties|sixties|seventies|eighties|nineties)\b",
            rest.strip(),
            re.IGNORECASE,
        )
        if decade is not None:
            return [self.claim("age", decade.group(0).split(" ", 2)[-1])]
        match = re.match(
            r"^(?:now\s+|just\s+)?(?P<n>\d{1,3}|[a-z]+(?:[- ][a-z]+)?)"
            r"(?:\s+(?:years?|yrs?)(?:\s+old)?|\s*y/?o|\s+(?:this|next)\s+\w+)?\s*(?:now|old)?"
            r"\s*[.!]?$",
            rest.strip(),
            re.IGNORECASE,
        )
        if match is None:
            return []
        n = _number(match.group("n"))
        if n is None or not 0 < n < 120:
            return []
        if not re.search(r"\d", match.group("n")) and "year" not in rest.casefold():
            return []
        return [self.claim("age", str(n))]

    def _relationship_state(self, rest: str, low: str) -> list[Claim] | None:
        match = re.match(
            r"^(?:(?:now|recently|newly|happily|finally|getting)\s+)*(?P<state>married|single|divorced"
            r"|engaged|separated|widowed|a widow(?:er)?|dating|taken|in a relationship"
            r"|seeing someone)\b(?:\s+(?:to|with|from)\s+(?P<who>.+))?",
            low,
        )
        if match is None:
            return None
        named = re.match(
            r"^seeing\s+someone(?:\s+new)?,?\s+(?P<who>(?-i:[A-Z])[\w'-]+)", rest, re.I
        )
        if named is not None and _is_name(named.group("who")):
            # "I've been seeing someone new, Priya": dating, and who.
            return [
                self.claim("relationship", "in a relationship"),
                self.claim("partner", named.group("who"), change=True),
            ]
        state = lx.RELATIONSHIP_STATES[match.group("state")]
        getting = low.startswith("getting") or self.p.progressive
        if getting and state == "married" and _has_date(rest):
            return [self.claim("plan", "wedding", when=when_of(rest))]
        out = [self.claim("relationship", state)]
        if match.group("who"):
            who = _person_named(clean_value(rest[match.start("who") :]))
            if who and not vague(who):
                if state in lx.ENDED_RELATIONSHIP:
                    out.append(self.claim("partner", who, negated=True, change=True))
                else:
                    out.append(self.claim("partner", who))
        return out

    def _diagnosis(self, rest: str, low: str) -> list[Claim] | None:
        match = re.match(r"^(?:diagnosed|living|struggling|dealing)\s+with\s+", low)
        if match is None:
            return None
        value = clean_value(rest[match.end() :])
        if vague(value):
            return []
        allergy = re.match(r"^(?:an?\s+)?(?P<what>[\w\- ]+?)\s+allergy$", value, re.I)
        if allergy is not None:
            return [self.claim("allergy", allergy.group("what"), change=True, past=False)]
        return [
            self.claim("condition", v, change=True, past=False)
            for v in _split_values(_strip_det(value))
        ]

    def _birth(self, rest: str, low: str) -> list[Claim] | None:
        match = re.match(r"^born\s+(?P<prep>in|on|at)\s+", low)
        if match is None:
            return None
        value = clean_value(rest[match.end() :]) or rest[match.end() :].strip(" .")
        if re.fullmatch(r"\d{4}", value):
            return [self.claim("birth_year", value, past=False)]
        if match.group("prep") == "on" or _has_date(value):
            return [self.claim("birthday", value, past=False)]
        return [self.claim("origin", _place(value), past=False)]

    def _residence_state(self, rest: str, low: str) -> list[Claim] | None:
        match = re.match(
            r"^(?:based|located|living|settled|stationed|staying|residing)\s+(?:in|at|out of"
            r"|near|outside(?: of)?|around)\s+",
            low,
        )
        if match is None:
            match = re.match(r"^(?:moved|relocated|transferred)\s+(?:back\s+)?to\s+", low)
            if match is None:
                return None
            return self._moved(rest[match.end() :])
        value = clean_value(rest[match.end() :])
        return [] if vague(value) else [self.claim("residence", _place(value))]

    def _origin(self, rest: str, low: str) -> list[Claim] | None:
        match = re.match(r"^(?:originally\s+)?from\s+", low)
        if match is None:
            return None
        value = clean_value(rest[match.end() :])
        return [] if vague(value) else [self.claim("origin", _place(value), past=False)]

    def _allergy(self, rest: str, low: str) -> list[Claim] | None:
        match = re.match(r"^(?:severely\s+|very\s+|deathly\s+|mildly\s+)?allergic\s+to\s+", low)
        if match is None:
            return None
        value = clean_value(rest[match.end() :])
        return [self.claim("allergy", _strip_det(v)) for v in _split_values(value) if v]

    def _employment_state(self, rest: str, low: str) -> list[Claim] | None:
        match = re.match(
            r"^(?:employed|working)\s+(?:at|by|for)\s+|^(?:hired|recruited)\s+(?:at|by)\s+"
            r"|^(?:now\s+)?with\s+(?=[A-Z])",
            rest,
            re.IGNORECASE,
        )
        if match is not None:
            if low.startswith("with ") and self.strict:
                return None
            value = clean_value(rest[match.end() :])
            if vague(value):
                return []
            out = [self.claim("employer", value, change=p_change(self.p, low))]
            role = re.search(r"\bas\s+(?:an?\s+)?(?P<job>[^,.;!?]+)", rest, re.I)
            if role is not None and lx.is_occupation(clean_value(role.group("job")).casefold()):
                out.append(self.claim("job", _with_article(clean_value(role.group("job")))))
            return out
        match = re.match(r"^(?:fired|laid off|let go|sacked|made redundant)\b(?:\s+from)?\s*", low)
        if match is not None:
            value = clean_value(rest[match.end() :])
            value = "" if vague(value) or value.casefold() in ("my job", "work") else value
            how = match.group(0).split(" from")[0].strip()
            return [
                self.claim("employer", _strip_job(value), negated=True, change=True, qualifier=how)
            ]
        match = re.match(r"^promoted\s+to\s+", low)
        if match is not None:
            value = clean_value(rest[match.end() :])
            return [] if vague(value) else [self.claim("job", value, change=True)]
        if re.match(r"^(?:retired|a retiree|a pensioner)\b", low):
            return [
                self.claim("job", "retired", change=True),
                self.claim("employer", "", negated=True, change=True),
            ]
        if re.match(r"^(?:unemployed|jobless|out of work|between jobs|looking for work)\b", low):
            return [self.claim("employer", "", negated=True, change=True)]
        if re.match(r"^(?:self-employed|self employed|freelance|freelancing)\b", low):
            return [self.claim("employer", "self-employed")]
        return None

    def _fan(self, rest: str, low: str) -> list[Claim] | None:
        match = re.match(
            r"^(?:an?\s+)?(?:(?:big|huge|massive|great|total|real|true|avid)\s+)?(?:fan|lover)\s+of\s+"
            r"|^(?:(?:really|super|so|very|big|totally|seriously|hugely|deeply|way)\s+)?"
            r"(?:into|obsessed with|crazy about|passionate about|addicted to"
            r"|hooked on|keen on|fond of|mad about)\s+",
            low,
        )
        if match is None:
            fan = re.match(
                r"^(?:an?\s+)?(?:(?:big|huge|massive|great|lifelong|total|real|true|die-hard"
                r"|diehard|absolute|complete|serious|avid)\s+)*"
                r"(?P<x>.+?)\s+(?:fan|lover|nut|enthusiast|buff)$",
                clean_value(rest),
                re.I,
            )
            if fan is None or vague(fan.group("x")) or fan.group("x").casefold() in _INTENSIFIERS:
                return None
            return [self.claim("likes", fan.group("x"))]
        value = clean_value(rest[match.end() :])
        if vague(value):
            return []
        return [self.claim("likes", v) for v in _split_values(value)]

    def _student(self, rest: str, low: str) -> list[Claim] | None:
        year = _CLASS_YEAR.match(low)
        if year is not None:
            # "I'm a junior now": the year of school or college, one at a time.
            out = [self.claim("school_year", year.group("year"))]
            if year.group("stage"):
                out.append(self.claim("education", _school_stage(year.group("stage"))))
            elif year.group("where"):
                where = clean_value(rest[year.start("where") : year.end("where")])
                out += [] if vague(where) else [self.claim("education", where)]
            return out
        stage = _IN_SCHOOL.match(low)
        if stage is not None:
            # "Kavya is in high school", "he's in 5th grade": where in schooling someone is.
            return [self.claim("education", _school_stage(stage.group("stage")))]
        match = re.match(
            r"^(?:an?\s+)?(?P<what>(?:[\w\-']+\s+){0,3}?)(?:student|undergrad|freshman|sophomore"
            r"|phd candidate|doctoral candidate)\b",
            low,
        )
        if match is None or re.search(r"\b(?:former|ex)\b", match.group(0)):
            match = re.match(r"^(?:studying|majoring in|enrolled (?:in|at)|doing a \w+ in)\s+", low)
            if match is None:
                return None
            value = clean_value(rest[match.end() :])
            return [] if vague(value) else [self.claim("education", value)]
        what = " ".join(match.group("what").split())
        what = re.sub(r"\b(?:first|second|third|fourth|final)[- ]year\b", "", what).strip()
        tail = rest[match.end() :].strip()
        place = re.match(r"^(?P<prep>at|in|of)\s+(?P<x>.+)$", tail, re.I)
        where = clean_value(place.group("x")) if place else ""
        prep = place.group("prep").casefold() if place else ""
        joiner = ("in" if prep == "in" else "at") if where and what else ""
        value = " ".join(part for part in (what, joiner, where) if part)
        return [self.claim("education", value or "student")]

    def _relation_named(self, rest: str) -> list[Claim] | None:
        """ "Maya is my sister", "my sister is Maya", "my wife is called Jen"."""
        s = self.s
        low = rest.casefold()
        pet = re.match(r"^(?:my|the user's|user's|our)\s+(?:pet\s+)?(?P<kind>.+?)\s*[.!]?$", low)
        if pet is not None and s.name is not None and s.relation is None:
            kinds = [w for w in pet.group("kind").split() if lx.is_pet(w)]
            if kinds and pet.group("kind").split()[-1] == kinds[-1]:
                return [Claim("user", "pet", f"{kinds[-1]} {s.name}")]
        mine = re.match(rf"^(?:my|the user's|user's)\s+(?P<rel>{_REL_WORD})\b", low)
        if mine is not None and s.name is not None and s.relation is None:
            rel = lx.relation_of(mine.group("rel")) or mine.group("rel")
            attribute, name, qualifier = _relation_claim(rel, s.name)
            return [Claim("user", attribute, name, qualifier=qualifier, change=self.p.change)]
        if s.relation is not None and s.name is None and s.key.startswith("user's "):
            value = re.sub(r"^(?:called|named)\s+", "", rest, flags=re.I)
            value = clean_value(value)
            words = value.split()
            if 1 <= len(words) <= 2 and all(_is_name(w, lower_ok=True) for w in words):
                named = words[0][:1].isupper() or re.match(r"^(?:called|named)\s", low)
                if not named and _diet(value.casefold()):
                    return None
                if value.islower():
                    value = " ".join(w.capitalize() for w in words)  # "my boss is kevin"
                attribute, name, qualifier = _relation_claim(s.relation, value)
                return [
                    Claim(
                        "user",
                        attribute,
                        name,
                        qualifier=qualifier,
                        change=self.p.change,
                        negated=self.p.negated,
                    )
                ]
        return None

    def _occupation(self, rest: str) -> list[Claim] | None:
        text = re.sub(r"\s+(?:there|here)$", "", clean_value(rest), flags=re.I)
        # "a nurse doing nights at St. Vincent's": the job, then what the job has the user doing;
        # "an engineer working at Google" is an engineer at Google.
        text = re.sub(r"\s+(?:working|employed)\s+(?=(?:at|for|with)\b)", " ", text)
        doing = re.match(r"^(?P<job>(?:an?\s+)?[\w-]+(?:\s+[\w-]+)?)\s+[a-z]+ing\s+\S", text)
        if doing is not None and lx.is_occupation(re.sub(r"^an?\s+", "", doing.group("job"))):
            text = doing.group("job")
        match = re.match(
            r"^(?P<article>(?:a|an|the)\s+)?(?P<job>.+?)(?:\s+(?P<prep>at|for|with|in|on|from)\s+"
            r"(?P<org>.+))?$",
            text,
            re.IGNORECASE,
        )
        if match is None:
            return None
        job = match.group("job")
        words = job.split()
        head = re.split(r"\s+of\s+", job, maxsplit=1)[0]
        named = not match.group("article") and not match.group("org") and len(words) <= 3
        named = named and all(w[:1].isupper() for w in words)
        if named and (len(words) == 1 or head.split()[-1].casefold() not in lx.OCCUPATIONS):
            return None  # "I'm Dev", "I'm now Laura Okafor": a name, not "Junior Developer"
        job_low = head.casefold()
        if _diet(job_low) is not None or re.search(
            r"\b(?:person|fan|lover|type|kind|sort|bit|lot|big|huge|morning|night|such)\b", job_low
        ):
            return None
        org = _org_named(match.group("org")) if match.group("org") else None
        prep = (match.group("prep") or "").casefold()
        if org is not None and prep == "in":
            org = re.sub(r"\s+with\s+.*$", "", org)  # "in Ohio with student loans"
        employer = (
            clean_value(org)
            if org is not None and prep in ("at", "for", "with") and not _has_date(org)
            else ""
        )
        known = lx.is_occupation(job_low)
        if not known and not (employer and match.group("article") and not self.strict):
            return None
        if self.strict and not match.group("article") and not lx.is_occupation(job_low.split()[-1]):
            return None
        job_text = _with_article(job) if match.group("article") else job
        if employer and _bare_org(employer):
            employer = employer[:1].upper() + employer[1:]  # "a junior dev at shopify"
        named = bool(employer) and employer[:1].isupper()
        if (
            org is not None
            and not named
            and not _has_date(org)
            and prep in ("at", "for", "with", "in")
            and (prep != "in" or not is_place_like(clean_value(org)))
        ):
            job_text = f"{job_text} {prep} {clean_value(org)}"
        out = [self.claim("job", job_text)]
        if named and not vague(employer):
            out.append(self.claim("employer", employer))
        if prep == "in" and org is not None and is_place_like(clean_value(org)):
            out.append(self.claim("residence", _place(clean_value(org))))
        return out

    def _own_name(self, rest: str) -> list[Claim] | None:
        s = self.s
        if not s.first_person or s.key != "user" or s.relation is not None:
            return None
        words = rest.strip(" .!,").split()
        lower_ok = self.greeted and len(words) == 1 and _name_shaped(words[0])
        if not 1 <= len(words) <= 2 or not all(_is_name(w, lower_ok=lower_ok) for w in words):
            return None
        if lower_ok:
            words = [w[:1].upper() + w[1:] for w in words]
        if any(w.casefold() in lx.NATIONALITIES | lx.RELIGIONS for w in words):
            return None
        return [self.claim("name", " ".join(words))]

    # -- verbs
    def _verb(self) -> list[Claim]:
        p = self.p
        h = p.head
        rest = p.rest
        low = p.lower
        if p.future and not _has_date(rest) and h not in (stem("turn"),):
            return []
        arranged = p.future or (p.progressive and not p.past)
        if arranged and h in _EVENT_VERBS and _has_date(rest) and not p.negated:
            # "gonna do the Berlin marathon in september", "I'm running it in october":
            # something dated the user will do is a plan.
            what = clean_value(rest)
            if what and not vague(what):
                return [self.claim("plan", f"{_EVENT_VERBS[h]} {what}", when=when_of(rest))]
        paid_as = re.search(r"\bas\s+(?:an?\s+)(?P<job>[\w -]+?)\s*[.!]*$", rest, re.I)
        if h in (stem("make"), stem("earn")) and paid_as and lx.is_occupation(paid_as.group("job")):
            # "I make about 2,900 a month as a barista": the pay says the job.
            return [self.claim("job", _with_article(paid_as.group("job")))]
        living = _FOR_A_LIVING.search(rest)
        if living is not None and p.said and not (p.negated or p.modal or p.future):
            # "I write software for a living" says what the work is, not a pastime.
            what = clean_value(rest[: living.start()] + rest[living.end() :])
            if what and not vague(what):
                return [self.claim("work", f"{third_person(p.said)} {what}")]
        for verbs, rule in _VERB_RULES:
            if h in verbs:
                found = rule(self, rest, low)
                if found is not None:
                    return found
        if self.strict:
            return []
        return self._generic(rest, low)

    def _generic(self, rest: str, low: str) -> list[Claim]:
        prep = re.match(r"^(in|at|for|with|on|to|from|as|about|into|of)\s+", low)
        qualifier = prep.group(1) if prep else ""
        value = clean_value(rest[prep.end() :] if prep else rest)
        attribute = f"verb:{self.p.head}" + (f"_{qualifier}" if qualifier else "")
        if not value and self.p.negated:
            return [self.claim(attribute, "")]
        if not value or vague(value):
            return []
        return [self.claim(attribute, value)]

    def _live(self, rest: str, low: str) -> list[Claim] | None:
        rest = re.sub(r"^(?:alone|together|happily|full[- ]time)\s+", "", rest, flags=re.I)
        low = rest.casefold()
        with_whom = re.match(
            r"^with\s+(?P<who>.+?)(?:\s+(?:in|at|near|outside)\s+(?P<where>.+))?$", rest, re.I
        )
        if with_whom is not None:
            out = []
            if with_whom.group("where"):
                where = clean_value(with_whom.group("where"))
                if not vague(where):
                    out.append(self.claim("residence", _place(where)))
            who = clean_value(with_whom.group("who"))
            if who and not self.strict:
                out.append(self.claim("lives_with", _strip_det(who)))
            return out
        match = re.match(r"^(?:in|at|near|outside(?: of)?|around|on|by|just outside)\s+", low)
        if match is None:
            # "I live like 2 blocks away in Asheville": where, after how near to something.
            far = re.match(
                r"^(?:like\s+|about\s+|just\s+|right\s+)?(?:[\w-]+\s+){0,6}?"
                r"(?:blocks?|minutes?|mins|miles?|km|streets?|doors?|away|from\s+[\w' ]+?)\s+"
                r"(?:away\s+)?in\s+(?P<place>(?-i:[A-Z])[\w .'-]+)$",
                rest,
                re.I,
            )
            if far is not None:
                return [self.claim("residence", _place(clean_value(far.group("place"))))]
            return [] if self.strict else None
        value = clean_value(rest[match.end() :])
        return [] if vague(value) else [self.claim("residence", _place(value))]

    def _move(self, rest: str, low: str) -> list[Claim] | None:
        inside = re.match(r"^in\s+with\s+.+?\s+(?:in|near)\s+(?P<where>.+)$", rest, re.I)
        if inside is not None:
            return self._moved(inside.group("where"))
        event = re.match(
            rf"^(?:the|my|our)\s+(?P<what>(?:[\w\-]+\s+)?(?:{_EVENT_ALT}))\b"
            r"(?:\s+(?:to|until)\s+(?P<when>.+))?",
            rest,
            re.I,
        )
        if event is not None:
            when = _date_phrase(event.group("when")) if event.group("when") else None
            return [self.claim("plan", event.group("what"), change=True, when=when)]
        match = re.match(
            r"^(?:(?:the\s+(?:whole\s+)?family|my\s+family|our\s+family|us|everyone|the\s+kids"
            r"|everything)\s+)?(?:back\s+|over\s+|out\s+|here\s+|away\s+)?(?:to|into)\s+",
            low,
        )
        if match is not None:
            return self._moved(rest[match.end() :])  # "relocated the whole family to Harrogate"
        match = re.match(r"^(?:away\s+)?from\s+(?P<a>.+?)\s+to\s+(?P<b>.+)$", rest, re.I)
        if match is not None:
            claims = self._moved(match.group("b"))
            prev = clean_value(match.group("a"))
            return [replace(c, previous=prev) for c in claims]
        match = re.match(r"^out\s+of\s+", low)
        if match is not None:
            value = clean_value(rest[match.end() :])
            if vague(value) or re.match(r"^(?:my|our|the)\b", value, re.I):
                return []
            return [self.claim("residence", _place(value), negated=True, change=True)]
        return []

    def _moved(self, target: str) -> list[Claim]:
        value = clean_value(target)
        housing = re.match(
            r"^(?:a|an|the|my|our)\s+(?:new\s+|bigger\s+|smaller\s+|own\s+)?(?:apartment|flat"
            r"|house|place|home|condo|studio|neighbou?rhood|town|city|area)\b(?:\s+(?:in|near|on)\s+"
            r"(?P<where>.+))?",
            value,
            re.I,
        )
        if housing is not None:
            if not housing.group("where"):
                return []
            value = clean_value(housing.group("where"))
        if vague(value) or value.casefold() in ("here", "there", "home"):
            return []
        if self.p.progressive or self.p.future:
            return [self.claim("plan", f"move to {value}", when=when_of(target))]
        return [self.claim("residence", _place(value), change=True)]

    def _grow(self, rest: str, low: str) -> list[Claim] | None:
        spoke = re.match(r"^up\s+speaking\s+", low)
        if spoke is not None:
            values = [
                w.strip(",.!") for w in rest.split() if w.casefold().strip(",.!") in lx.LANGUAGES
            ]
            return [self.claim("language", v, past=False) for v in dict.fromkeys(values)]
        match = re.match(r"^up\s+(?:in|on|near|outside)\s+", low)
        if match is None:
            return [] if self.strict else None
        value = clean_value(rest[match.end() :])
        return [] if vague(value) else [self.claim("origin", _place(value), past=False)]

    def _come(self, rest: str, low: str) -> list[Claim] | None:
        match = re.match(r"^(?:originally\s+)?from\s+", low)
        if match is None:
            return [] if self.strict else None
        value = clean_value(rest[match.end() :])
        return [] if vague(value) else [self.claim("origin", _place(value), past=False)]

    def _work(self, rest: str, low: str) -> list[Claim] | None:
        # "I work from home as a UX designer for a fintech": the mode, and the job.
        remote = re.match(r"^(?:from\s+home|remotely)\s+(?=as\b|at\b|for\b)", rest, re.I)
        mode = [self.claim("work_mode", "remote")] if remote is not None else []
        rest = re.sub(
            r"^(?:(?:early|late|long|night|day|evening|weekend|double)\s+)?(?:nights|days"
            r"|weekends|evenings|part[- ]time|full[- ]time|shifts?|remotely|from\s+home)\s+"
            r"(?=as\b|at\b|for\b)",
            "",
            rest,
            flags=re.I,
        )
        low = rest.casefold()
        match = re.match(r"^(?:as|as an?)\s+", low)
        if match is not None:
            value = clean_value(rest[match.end() :])
            if vague(value):
                return []
            out = [*mode, self.claim("job", _with_article(value))]
            org = re.search(r"\s(?:at|for|with)\s+(?P<org>[^,.;!?]+)", rest[match.end() :], re.I)
            if org is not None:
                org_value = clean_value(org.group("org"))
                if org_value and not vague(org_value):
                    out.append(self.claim("employer", org_value))
            return out
        match = re.match(
            r"^(?:[\w\-]+\s+){0,3}?(?:at|for)\s+(?=(?-i:[A-Z]))|^(?:at|for)\s+", rest, re.I
        )
        if match is not None:
            value = clean_value(rest[match.end() :])
            if vague(value) or re.match(r"^(?:myself|home|a living)\b", value, re.I):
                if value.casefold() == "myself":
                    return [self.claim("employer", "self-employed")]
                return []
            if value.casefold() in _NOT_EMPLOYERS:
                return []
            # "works at Google as a software engineer": the job too.
            role = re.search(r"\s+as\s+(?:an?\s+)?(?P<job>[^,.;!?]+)$", rest[match.end() :], re.I)
            out = [self.claim("employer", _strip_job(value))]
            if role is not None and lx.is_occupation(clean_value(role.group("job")).casefold()):
                out.append(self.claim("job", _with_article(clean_value(role.group("job")))))
            return out
        how = re.match(
            r"^(?:fully\s+|mostly\s+|completely\s+)?(?P<how>from home|remotely|remote)\b", low
        )
        if how is not None:
            return [self.claim("work_mode", how.group("how"))]
        if re.match(r"^(?:(?:in|from|at) the office|on-?site|in person)\b", low):
            return [self.claim("work_mode", "in the office")]
        match = re.match(r"^in\s+", low)
        if match is not None:
            value = clean_value(rest[match.end() :])
            if vague(value):
                return []
            if is_place_like(value):
                return [self.claim("work_location", value)] if not self.strict else []
            where = re.match(r"^(?P<field>.+?)\s+(?:at|for)\s+(?P<org>.+)$", value)
            if where is not None:
                # "in the warehouse at an Amazon fulfillment center": a field and an employer.
                return [
                    self.claim("work_field", _strip_det(where.group("field"))),
                    self.claim("employer", where.group("org")),
                ]
            return [self.claim("work_field", _strip_det(value))]
        match = re.match(r"^on\s+", low)
        if match is not None and not self.strict:
            value = clean_value(rest[match.end() :])
            return [] if vague(value) else [self.claim("project", value)]
        return [] if self.strict else None

    def _join(self, rest: str, low: str) -> list[Claim] | None:
        if self.p.head == stem("start") and re.match(r"^(?:(?:a|my|our)\s+)?(?:new\s+)?job\b", low):
            tail = re.sub(r"^(?:(?:a|my|our)\s+)?(?:new\s+)?job\s*", "", rest, flags=re.I)
            return self._new_job(tail) or [self.claim("employer", "", negated=True, change=True)]
        if self.p.head == stem("start") and re.match(r"^(?:at|with|as)\s+", low):
            return self._new_job(rest)  # "starting at Chewy on monday as a senior analyst"
        if self.p.head == stem("start"):
            school = re.match(
                r"^(?:a\s+|my\s+|the\s+)?(?P<what>(?:[\w\-]+\s+){0,2}?(?:class|classes|course"
                r"|lessons|university|college|uni|school|kindergarten|grad school|med school"
                r"|law school|apprenticeship|degree|masters|phd))\b(?:\s+(?:at|in)\s+(?P<at>.+))?",
                rest,
                re.I,
            )
            if school is not None:
                what = school.group("what")
                where = clean_value(school.group("at") or "")
                attribute = (
                    "learning" if re.search(r"class|course|lesson", what, re.I) else "education"
                )
                value = f"{what} at {where}" if where and not _has_date(where) else what
                return [self.claim(attribute, value, change=True)]
            return self._generic_or_none(rest, low)
        value = clean_value(rest)
        value = re.sub(r"^(?:the\s+)?(?:team\s+at|staff\s+(?:at|of))\s+", "", value, flags=re.I)
        if vague(value):
            return []
        if _MEMBERSHIP.search(value):
            # Joining a club, a programme or a group is something the user does, not a job.
            return [self.claim("hobby", f"belongs to {value}")] if not self.p.negated else []
        return [self.claim("employer", value, change=True)]

    def _new_job(self, tail: str) -> list[Claim]:
        out = []
        match = re.search(
            r"\bas\s+(?:an?\s+)?(?P<job>[^,.;!?]+?)(?=\s+(?:at|for|with)\b|\s*[,.;!?]|$)", tail
        )
        if match is not None:
            job = clean_value(match.group("job"))
            if job and not vague(job):
                out.append(self.claim("job", _with_article(job), change=True))
        tail = _org_named(tail)
        # A dot before a capital inside one sentence is an abbreviation ("St. Mary's").
        match = re.search(r"\b(?:at|for|with)\s+(?P<org>(?:[^,.;!?]|\.(?=\s+[A-Z]))+)", tail)
        if match is not None:
            org = clean_value(match.group("org"))
            if org and not vague(org):
                out.append(self.claim("employer", org, change=True))
        return out

    def _get(self, rest: str, low: str) -> list[Claim] | None:
        drug = re.match(r"^(?P<med>[a-z][a-z-]+)\b", low)
        med = drug.group("med") if drug is not None else ""
        medicine = _MEDICINE_SHAPED.fullmatch(med) is not None and med not in _NOT_MEDICINES
        if self.p.head == stem("take") and medicine and not self.p.past:
            return [self.claim("medication", med)]  # "Takes sertraline daily"
        if self.p.head == stem("take") and not re.match(r"^(?:a\s+)?(?:new\s+)?job\b", low):
            if re.search(r"\b(?:class|course|lessons?)\b", low):
                value = clean_value(_strip_det(rest))
                return [self.claim("learning", value)]
            return [] if self.strict else None
        if re.match(r"^into\s+", low):
            value = clean_value(rest[5:])
            if vague(value):
                return []
            if value[:1].isupper():
                return [self.claim("education", value, change=True)]
            if re.match(r"^(?:a|an)\s", value, re.I):
                # "got into a fight", "got into a bad spot": a situation, not a new interest.
                return []
            return [self.claim("likes", re.sub(r"^really\s+", "", value), change=True)]
        if re.match(r"^(?:a\s+)?(?:new\s+)?job\b", low):
            tail = re.sub(r"^(?:a\s+)?(?:new\s+)?job\s*", "", rest, flags=re.I)
            found = self._new_job(tail)
            return found if found else []
        if re.match(r"^(?:a\s+)?(?:promotion|promoted)\b", low):
            tail = re.sub(r"^(?:a\s+)?(?:promotion|promoted)\s*(?:to\s+)?", "", rest, flags=re.I)
            value = clean_value(tail)
            return [self.claim("job", value, change=True)] if value and not vague(value) else []
        return self._have(rest, low, acquired=True)

    def _have(self, rest: str, low: str, acquired: bool = False) -> list[Claim] | None:
        p = self.p
        # "bought a MacBook Air": a thing newly got, as much as "got" says it.
        acquired = acquired or (p.head in _ACQUIRING and not p.negated and not p.future)
        none = re.match(
            r"^(?:no|any)\s+(?:known\s+)?(?:(?:medical|health|serious|chronic)\s+)?(?P<kind>[\w\-]+)\b",
            low,
        )
        if none is not None and (p.negated or low.startswith("no ")):
            kind = none.group("kind")
            attribute = _KIND_ATTRIBUTE.get(kind) or ("pet" if lx.is_pet(kind) else None)
            if attribute is not None:
                qualifier = lx.relation_of(kind) if attribute == "family" else None
                return [self.claim(attribute, "", negated=True, qualifier=qualifier)]
        if re.match(r"^(?:an?\s+|my\s+|our\s+)?(?:new\s+)?job\s+(?:at|with)\s+", low):
            value = clean_value(re.sub(r"^.*?\bjob\s+(?:at|with)\s+", "", rest, flags=re.I))
            return [] if vague(value) else [self.claim("employer", value, change=acquired)]
        housing = re.match(
            r"^(?:an?\s+|our\s+own\s+|my\s+own\s+|our\s+|my\s+)?(?:new\s+|small\s+|tiny\s+"
            r"|little\s+|big\s+)?(?:apartment|flat|house|condo|studio|place|home|lease)\s+"
            r"(?:in|near|outside)\s+(?P<where>.+)$",
            rest,
            re.I,
        )
        if housing is not None and p.head in _HOUSING_VERBS:
            value = clean_value(housing.group("where"))
            if vague(value):
                return []
            if p.head in (stem("own"), stem("buy")):
                # Owning a house somewhere is a possession (it can be sold), not a residence.
                return [self.claim("possession", clean_value(_strip_det(rest)), change=acquired)]
            out = [self.claim("residence", _place(value), change=acquired)]
            if p.head == stem("rent") and not p.negated and not p.past:
                # "Rents an apartment in Madrid": where, and that the home is rented.
                out.append(self.claim("housing", "rents their home"))
            return out
        event = re.match(
            rf"^(?:an?\s+|my\s+|the\s+)?(?P<what>(?:[\w\-]+\s+){{0,2}}?(?:{_EVENT_ALT}))\b"
            r"(?P<tail>.*)$",
            rest,
            re.I,
        )
        if event is not None and _has_date(event.group("tail")):
            where = re.match(
                r"^\s+(?P<prep>at|with|in)\s+(?P<org>(?:an?\s+|my\s+|the\s+)?[\w\-]+"
                r"(?:\s+(?-i:[A-Z])[\w\-]*)*)",
                event.group("tail"),
            )
            what = event.group("what") + (
                f" {where.group('prep')} {where.group('org')}" if where else ""
            )
            return [self.claim("plan", what, when=when_of(event.group("tail")))]
        if self.p.said.casefold() == "had" and re.match(
            r"^(?:a|her|his|their|our|my)\s+(?:first\s+|second\s+|new\s+)?baby\b", low
        ):
            return [self.claim("event", f"had {clean_value(rest)}", change=True)]
        injury = re.match(
            r"^(?:an?\s+)?(?:bad\s+|badly\s+)?(?P<how>broken|sprained|torn|fractured|dislocated"
            r"|injured|pulled|twisted|bad)\s+(?P<part>[\w\-]+)",
            low,
        )
        if injury is not None:
            return [self.claim("condition", f"{injury.group('how')} {injury.group('part')}")]
        pets = _pets(rest)
        if pets:
            return [self.claim("pet", pet, change=p.change or acquired) for pet in pets]
        family = self._family(rest, low)
        if family is not None:
            return family
        match = re.match(
            r"^(?:an?\s+|bad\s+|severe\s+|mild\s+|chronic\s+)*(?P<what>[\w\-']+(?:\s+[\w\-']+)?)"
            r"\s+allergy\b",
            low,
        )
        if match is not None:
            return [self.claim("allergy", _strip_det(match.group("what")))]
        match = re.match(r"^(?:an?\s+)?allergy\s+to\s+", low)
        if match is not None:
            value = clean_value(rest[match.end() :])
            return [self.claim("allergy", _strip_det(v)) for v in _split_values(value)]
        words = [re.sub(r"'s$", "", w.strip(",.")) for w in low.split()]
        stripped = [w for w in words if w not in _SEVERITY]
        two = " ".join(stripped[:2])
        if stripped and (
            stripped[0] in lx.CONDITIONS
            or two in lx.CONDITIONS
            or two.replace(" ", "-") in lx.CONDITIONS
        ):
            value = clean_value(rest)
            return [self.claim("condition", _strip_det(v)) for v in _split_values(value)]
        if re.search(
            r"\b(?:type [12] diabetes|high blood pressure|a bad back|a heart condition)", low
        ):
            return [self.claim("condition", clean_value(_strip_det(rest)))]
        match = re.match(
            r"^(?:an?\s+)?(?:phd|ph\.d\.|doctorate|master'?s|masters|bachelor'?s|bachelors|degree"
            r"|mba|ba|bs|bsc|msc|ma)\b(?:\s+degree)?\s+(?:in\s+)?",
            low,
        )
        if match is not None:
            return [self.claim("degree", clean_value(rest))]
        vehicle = _vehicle(rest)
        if vehicle is not None:
            return [self.claim("vehicle", vehicle, change=p.change or acquired)]
        computer = _computer(rest)
        if computer is not None:
            return [self.claim("computer", computer, change=p.change or acquired)]
        phone = _phone(rest)
        if phone is not None:
            return [self.claim("phone", phone, change=p.change or acquired)]
        if self.p.head in (stem("own"), stem("buy")) or (acquired and self.p.head == stem("buy")):
            value = clean_value(rest)
            return [] if vague(value) else [self.claim("possession", _strip_det(value))]
        if re.match(r"^(?:a\s+)?(?:house|home|condo|apartment|flat|cabin|cottage)\b", low):
            value = clean_value(rest)
            return [self.claim("possession", _strip_det(value))]
        if self.strict:
            return []
        value = clean_value(rest)
        if vague(value) or re.match(
            r"^(?:to|a (?:question|meeting|call|chat|look))\b", value, re.I
        ):
            return []
        return [self.claim("possession", _strip_det(value), change=acquired)]

    def _family(self, rest: str, low: str) -> list[Claim] | None:
        match = re.match(
            rf"^(?:our\s+|my\s+)?(?P<count>an?|one|two|three|four|five|six|seven|eight|nine|ten"
            rf"|\d+|a couple of|no|first|second|third|fourth|fifth|sixth)"
            rf"\s+(?:(?:older|younger|little|big|baby|twin|grown|adult|step|half|teenage|"
            rf"young|small)\s+)*(?P<rel>{_REL_WORD})\b(?:\s*,?\s*(?:named|called)?\s*"
            r"(?P<names>.+))?",
            rest,
            re.IGNORECASE,
        )
        if match is None:
            return None
        rel = lx.relation_of(match.group("rel"))
        if rel is None or rel in ("friend", "boss", "colleague", "coworker", "neighbor"):
            return None
        count_word = match.group("count").casefold()
        names_text = match.group("names") or ""
        names = [n for n in _split_values(clean_value(names_text)) if _is_name(n.split(" ")[0])]
        if rel in lx.PARTNER_RELATIONS:
            if names:
                return [self.claim("partner", names[0], qualifier=rel)]
            state = {
                "fiance": "engaged",
                "wife": "married",
                "husband": "married",
                "spouse": "married",
            }.get(lx.relation_of(rel, canonical=True) or rel, "in a relationship")
            return [self.claim("relationship", state)]
        out: list[Claim] = []
        count = _number(count_word) if count_word not in ("a", "an") else 1
        ordinal = {"second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6}.get(count_word)
        if ordinal is not None and rel in ("child", "baby", "son", "daughter"):
            return [self.claim("family_count", str(ordinal), qualifier="child", change=True)]
        if count_word == "no":
            return [self.claim("family_count", "0", qualifier=rel)]
        said_rel = match.group("rel").casefold()
        plural = said_rel.endswith("s") or said_rel in lx.IRREGULAR_PLURALS
        if count is not None and count > 1 and plural:
            out.append(self.claim("family_count", str(count), qualifier=rel))
        for name in names:
            out.append(self.claim("family", name, qualifier=rel))
        if not out:
            out.append(self.claim("family", rel, qualifier=rel))
        return out

    def _lose(self, rest: str, low: str) -> list[Claim] | None:
        if re.match(r"^(?:my|our|their|his|her)\s+job\b", low):
            return [self.claim("employer", "", negated=True, change=True)]
        pets = _pets(rest)
        if pets:
            return [self.claim("pet", pet, negated=True, change=True) for pet in pets]
        return [] if self.strict else None

    def _sell(self, rest: str, low: str) -> list[Claim] | None:
        if self.p.head == stem("trade") and re.search(r"\bfor\s+\S", rest):
            return self._switch(rest, low)  # "traded in the corolla for a Subaru Outback"
        if self.p.head == stem("trade"):
            rest = re.sub(r"^in\s+", "", rest, flags=re.I)  # "traded in my car"
        value = clean_value(re.split(r"\s+(?:to|for)\s+", rest, maxsplit=1)[0])
        if vague(value):
            return []
        vehicle = _vehicle(value)
        if vehicle is not None:
            return [self.claim("vehicle", vehicle, negated=True, change=True)]
        if _is_name(value.split(" ")[0]) or self.p.head != stem("sell"):
            return [self.claim("any", value, negated=True, change=True)]
        return [self.claim("possession", _strip_det(value), negated=True, change=True)]

    def _leave(self, rest: str, low: str) -> list[Claim] | None:
        if re.match(r"^(?:my|our|the|their|his|her)\s+(?:job|position|role|company|firm)\b", low):
            match = re.search(r"\b(?:at|with)\s+(?P<org>.+)$", rest, re.I)
            org = clean_value(match.group("org")) if match else ""
            return [self.claim("employer", org, negated=True, change=True)]
        value = clean_value(rest)
        if vague(value) or not _is_name(value.split(" ")[0]):
            return []
        return [self.claim("any", value, negated=True, change=True)]

    def _quit(self, rest: str, low: str) -> list[Claim] | None:
        if not rest.strip(" .!"):
            return []
        if re.match(r"^(?:my|the|our|their|his|her)\s+(?:job|position|role)\b", low):
            match = re.search(r"\b(?:at|with)\s+(?P<org>.+)$", rest, re.I)
            org = clean_value(match.group("org")) if match else ""
            return [self.claim("employer", org, negated=True, change=True, qualifier=self.p.said)]
        value = clean_value(re.sub(r"^(?:up\s+)?(?:on\s+)?", "", rest, flags=re.I))
        if vague(value):
            return []
        if value.casefold() in ("smoking", "drinking", "vaping"):
            return [
                self.claim(
                    "habit",
                    {"smoking": "smokes", "drinking": "drinks alcohol", "vaping": "vapes"}[
                        value.casefold()
                    ],
                    negated=True,
                    change=True,
                )
            ]
        return [self.claim("any", value, negated=True, change=True)]

    def _retire(self, rest: str, low: str) -> list[Claim] | None:
        if (self.p.progressive or self.p.future) and _has_date(rest):
            # "I'm retiring in June": a plan until June comes.
            return [self.claim("plan", "retire", when=when_of(rest))]
        match = re.match(r"^from\s+", low)
        org = clean_value(rest[match.end() :]) if match else ""
        return [self.claim("job", "retired", change=True, qualifier=None if vague(org) else org)]

    def _become(self, rest: str, low: str) -> list[Claim] | None:
        value = clean_value(rest)
        if vague(value):
            return []
        if re.match(
            r"^(?:a\s+)?(?:mom|mum|mother|dad|father|parent|grandma|grandmother|"
            r"grandpa|grandfather|grandparent)\b",
            value,
            re.I,
        ):
            return [self.claim("trait", _strip_det(value), change=True)]
        diet = _diet(value.casefold())
        if diet is not None:
            return [self.claim("diet", diet, change=True)]
        head = re.split(r"\s+of\s+", _strip_det(value), maxsplit=1)[0]
        if lx.is_occupation(head.casefold()):
            return [self.claim("job", _with_article(_strip_det(value)), change=True)]
        return [] if self.strict else [self.claim("state", value, change=True)]

    def _teach(self, rest: str, low: str) -> list[Claim] | None:
        subject = clean_value(re.split(r"\s+(?:at|in|from|for|on|online)\b", rest, maxsplit=1)[0])
        # "teach kids maths" teaches maths; "teach people about X" is not a job title.
        subject = re.sub(_TAUGHT_PEOPLE, "", subject).strip()
        if vague(subject) or re.match(r"^(?:about|how|what|that|to|the|a|an)\b", subject, re.I):
            return []
        if len(subject.split()) > 3 or re.search(r"\b(?:like|such as)\b", subject, re.I):
            return []
        out = [self.claim("job", f"{subject} teacher")]
        match = re.search(r"\sat\s+(?P<org>[A-Z][^,.;!?]*)", rest)
        if match is not None:
            out.append(self.claim("employer", clean_value(match.group("org"))))
        return out

    def _study(self, rest: str, low: str) -> list[Claim] | None:
        degree = self._study_for(rest)
        if degree is not None:
            return degree
        value = clean_value(re.sub(r"^(?:in|at|on)\s+", "", rest, flags=re.I))
        if vague(value) or re.match(r"^(?:for|hard|a lot)\b", value, re.I):
            return []
        value = re.sub(r"^(?:at|in)\s+", "", value, flags=re.I)
        return [self.claim("education", value)]

    def _study_for(self, rest: str) -> list[Claim] | None:
        """ "studying for a bachelor's in biology": the subject of the degree."""
        match = re.match(
            r"^for\s+(?:a|an|my|the|her|his)\s+(?:\w+'?s?\s+)?(?:degree|diploma|bachelor'?s|master'?s"
            r"|masters|phd|doctorate|certificate)(?:\s+degree)?\s+in\s+(?P<x>.+)$",
            rest,
            re.I,
        )
        if match is None:
            return None
        value = clean_value(match.group("x"))
        return [] if vague(value) else [self.claim("education", value)]

    def _graduate(self, rest: str, low: str) -> list[Claim] | None:
        match = re.match(r"^(?:from\s+)?", low)
        value = clean_value(rest[match.end() if match else 0 :])
        return [
            self.claim(
                "education",
                "" if vague(value) else value,
                past=True,
                change=True,
                qualifier="graduated",
            )
        ]

    def _drop(self, rest: str, low: str) -> list[Claim] | None:
        match = re.match(r"^out\s+(?:of\s+)?", low)
        if match is None:
            return [] if self.strict else None
        value = clean_value(rest[match.end() :])
        return [self.claim("education", "" if vague(value) else value, negated=True, change=True)]

    def _marry(self, rest: str, low: str) -> list[Claim] | None:
        if (self.p.progressive or self.p.future) and _has_date(rest):
            return [self.claim("plan", "wedding", when=when_of(rest))]
        value = _person_named(clean_value(re.sub(r"^to\s+", "", rest, flags=re.I)))
        out = [self.claim("relationship", "married", change=True)]
        if value and not vague(value) and _is_name(value.split(" ")[0], lower_ok=True):
            out.append(self.claim("partner", value, change=True))
        return out

    def _cut_out(self, rest: str, low: str) -> list[Claim] | None:
        """ "cut out the oat lattes completely": stopped, as "quit" says."""
        match = re.match(r"^(?:out|back\s+on)\s+", low)
        if match is None or self.p.future:
            return [] if self.strict else None
        return self._quit(rest[match.end() :], low[match.end() :])

    def _pick_up(self, rest: str, low: str) -> list[Claim] | None:
        """ "Picked up pottery": a new pastime (not "picked up the kids")."""
        match = re.match(r"^up\s+", low)
        value = clean_value(rest[match.end() :]) if match else ""
        if not value or vague(value) or not (_is_activity(value) or value.casefold() in _PASTIMES):
            return [] if self.strict else None
        return [self.claim("hobby", f"does {value}", change=True)]

    def _engage(self, rest: str, low: str) -> list[Claim] | None:
        """ "Engaged to Priya" (a note), "got engaged to Sam": engaged, and to whom."""
        match = re.match(r"^to\s+", low)
        if match is None:
            return [] if self.strict else None
        value = _person_named(clean_value(rest[match.end() :]))
        out = [self.claim("relationship", "engaged", change=True)]
        if value and not vague(value) and _is_name(value.split(" ")[0], lower_ok=True):
            out.append(self.claim("partner", value, qualifier="fiance", change=True))
        return out

    def _divorce(self, rest: str, low: str) -> list[Claim] | None:
        who = re.match(r"^(?:from\s+)?(?P<who>.+)$", rest, re.I)
        name = clean_value(who.group("who")) if who else ""
        if vague(name) or not _is_name(name.split(" ")[0], lower_ok=True):
            name = ""
        return [
            self.claim("relationship", "divorced", change=True),
            self.claim("partner", name, negated=True, change=True),
        ]

    def _date(self, rest: str, low: str) -> list[Claim] | None:
        if not self.p.progressive and self.p.head == stem("see"):
            return [] if self.strict else None
        if self.p.negated and re.match(r"^(?:anyone|anybody|someone|somebody)?\s*$", low):
            return [self.claim("relationship", "single", negated=False)]
        value = clean_value(rest)
        named = re.match(
            r"^(?:(?:an?|this)\s+(?:guy|girl|man|woman|person|boy|lady|dude)|someone|somebody)\s+"
            r"(?:called|named)\s+(?P<name>.+)$"
            # "seeing someone new, Priya": the name after a comma
            r"|^(?:someone|somebody)(?:\s+new)?,\s*(?P<name2>(?-i:[A-Z])[\w'-]+)",
            rest.strip(),
            re.I,
        )
        if named is not None:
            value = clean_value(named.group("name") or named.group("name2"))
        if vague(value) or not _is_name(value.split(" ")[0], lower_ok=True):
            if (self.p.head == stem("date") or self.p.progressive) and re.match(
                r"^(?:someone|somebody)\b", low
            ):
                return [self.claim("relationship", "in a relationship")]
            return [] if self.strict else None
        return [self.claim("relationship", "in a relationship"), self.claim("partner", value)]

    def _injure(self, rest: str, low: str) -> list[Claim] | None:
        """ "tore my acl playing 5 a side": an injury the user has now."""
        match = re.match(r"^(?:my|her|his|their)\s+", low)
        if match is None:
            return [] if self.strict else None
        part = clean_value(rest[match.end() :])
        part = re.split(r"\s+\w+ing\b", part, maxsplit=1)[0].strip()
        if vague(part) or len(part.split()) > 3:
            return []
        said = _INJURED.get(self.p.head, f"{self.p.head}ed")
        return [self.claim("condition", f"{said} {part}", change=True)]

    def _break_up(self, rest: str, low: str) -> list[Claim] | None:
        match = re.match(r"^up\b(?:\s+with\s+)?", low)
        if match is None:
            if self.p.head == stem("break") and re.match(r"^(?:my|her|his)\s+\w+", low):
                part = clean_value(re.sub(r"^(?:my|her|his)\s+", "", rest, flags=re.I))
                part = re.split(r"\s+\w+ing\b", part, maxsplit=1)[0]
                return [self.claim("condition", f"broken {part}", change=True)]
            return [] if self.strict else None
        who = clean_value(rest[match.end() :])
        who = "" if vague(who) or re.match(r"^(?:my|our)\b", who, re.I) else who
        return [
            self.claim(
                "relationship",
                "single",
                change=True,
                qualifier=f"{_past(self.p.said)} up",
            ),
            self.claim("partner", who, negated=True, change=True),
        ]

    def _separate(self, rest: str, low: str) -> list[Claim] | None:
        return [
            self.claim("relationship", "separated", change=True),
            self.claim("partner", "", negated=True, change=True),
        ]

    def _like(self, rest: str, low: str) -> list[Claim] | None:
        p = self.p
        negated = p.negated
        if p.head in _DISLIKE:
            negated = not negated
        if p.head in (stem("mind"), stem("stand"), stem("bear")) and not p.negated:
            return []
        if p.head in (stem("stand"), stem("bear")):
            negated = True
        if p.head == stem("mind"):
            negated = False
        called = re.match(r"^(?:to\s+)?be\s+called\s+", rest, re.I)
        if called is not None and not negated:
            value = clean_value(rest[called.end() :])
            return [] if vague(value) else [self.claim("nickname", value)]
        to_do = re.match(r"^to\s+", rest, re.I) is not None
        value = clean_value(re.sub(r"^(?:to|it when)\s+", "", rest, flags=re.I))
        if to_do:
            value = _as_gerund(value)
        if value.casefold() in ("it", "them", "that") and self.antecedent:
            value = self.antecedent
        if vague(value):
            return []
        # The verb as said ("can't stand", "loves") is kept for the sentence memory writes.
        how = "can't stand" if p.head in (stem("stand"), stem("bear")) else _base_verb(p.said)
        return [
            self.claim("likes", v, negated=negated, qualifier=how) for v in _split_values(value)
        ]

    def _prefer(self, rest: str, low: str) -> list[Claim] | None:
        called = re.match(r"^(?:to\s+)?be\s+called\s+", rest, re.I)
        if called is not None:
            value = clean_value(rest[called.end() :])
            return [] if vague(value) else [self.claim("nickname", value)]
        match = re.match(
            r"^(?P<a>.+?)\s+(?:over|to|rather than|instead of|more than|than)\s+(?P<b>.+)$",
            rest,
            re.I,
        )
        if match is not None:
            a, b = clean_value(match.group("a")), clean_value(match.group("b"))
            if vague(a):
                return []
            return [self.claim("preference", a, alternative=b or None)]
        value = clean_value(rest)
        return [] if vague(value) else [self.claim("preference", value)]

    def _eat(self, rest: str, low: str) -> list[Claim] | None:
        value = clean_value(rest)
        if vague(value) or re.match(
            r"^(?:out|in|lunch|dinner|breakfast|a lot|well)\b", value, re.I
        ):
            return [] if self.strict else None
        if self.p.future and not self.p.negated:
            return []
        said = self.p.said.casefold()
        once = (said in _IRREGULAR or said.endswith("ed")) and not self.p.negated
        if once and (self.when or re.match(r"^(?:an?|the|this|that|some|one|\d+)\s", value, re.I)):
            # "ate a shoe", "ate meat yesterday": a meal, not what the user eats.
            return [] if self.strict else None
        verb = {stem("eat"): "eats", stem("drink"): "drinks"}.get(self.p.head, "eats")
        return [self.claim("habit", f"{verb} {_strip_det(value)}")]

    def _smoke(self, rest: str, low: str) -> list[Claim] | None:
        verb = "smokes" if self.p.head == stem("smoke") else "vapes"
        return [self.claim("habit", verb)]

    def _speak(self, rest: str, low: str) -> list[Claim] | None:
        values = [w.strip(",.!") for w in rest.split() if w.casefold().strip(",.!") in lx.LANGUAGES]
        if not values:
            return [] if self.strict else None
        return [self.claim("language", v) for v in dict.fromkeys(values)]

    def _learn(self, rest: str, low: str) -> list[Claim] | None:
        to_do = re.match(r"^(?:how\s+)?to\s+", rest, re.I)
        value = clean_value(rest[to_do.end() :] if to_do else rest)
        if to_do is not None:
            # "learning to play the violin" is learning the violin; "learning to drive" is
            # learning driving.
            played = re.match(r"^(?:play|speak)\s+(?=\S)", value, re.I)
            value = value[played.end() :] if played else _as_gerund(value)
        if vague(value) or self.p.past:
            return []
        return [self.claim("learning", v) for v in _split_values(value)]

    def _play(self, rest: str, low: str) -> list[Claim] | None:
        band = re.match(
            r"^(?:bass\s+|guitar\s+|drums\s+|keys\s+)?in\s+(?:a|an|the|my|our)\s+(?:[\w-]+\s+)?"
            r"band\s+(?:called|named)\s+(?P<name>(?-i:[A-Z])[\w' ]+)",
            rest,
            re.I,
        )
        if band is not None:
            # "I play in a cover band called The Loose Ends": the band, by name.
            return [
                self.claim("hobby", f"plays in a band called {clean_value(band.group('name'))}")
            ]
        league = re.match(
            r"^(?:in|on|for)\s+(?:an?|the|my|our)\s+(?:[\w\-]+\s+)?(?P<game>[\w\-]+)\s+"
            r"(?:league|team|club|band|orchestra)\b",
            low,
        )
        if league is not None:
            return [self.claim("hobby", f"plays {league.group('game')}")]
        value = _PLAY_TAIL.sub("", clean_value(rest))
        if vague(value) or re.match(
            # "played a top team", "played together for years": a match, not a game played.
            r"^(?:with|around|along|games? with|an?|for|together|professionally|against|at"
            r"|in|on|well|hard|it|again)\b",
            value,
            re.I,
        ):
            return [] if self.strict else None
        return [self.claim("hobby", f"plays {_strip_det(value)}")]

    def _drive(self, rest: str, low: str) -> list[Claim] | None:
        hired = re.match(r"^for\s+(?P<org>[A-Z][\w&'-]*(?:\s+[A-Z][\w&'-]*)*)", rest)
        if hired is not None and not self.p.past:
            # "driving for UPS", "I drive for Uber": who the user drives for is their employer.
            org = clean_value(hired.group("org"))
            return [] if vague(org) else [self.claim("employer", org)]
        vehicle = _vehicle(rest) or clean_value(rest)
        if vague(vehicle) or re.match(r"^(?:to|for|home|around|a lot)\b", vehicle, re.I):
            return [] if self.strict else None
        return [self.claim("vehicle", vehicle)]

    def _use(self, rest: str, low: str) -> list[Claim] | None:
        phone = _phone(rest)
        if phone is not None:
            return [self.claim("phone", phone)]
        computer = _computer(re.split(r"\s+for\s+", rest, maxsplit=1)[0])
        if computer is not None:
            return [self.claim("computer", computer)]
        return [] if self.strict else None

    def _switch(self, rest: str, low: str) -> list[Claim] | None:
        match = re.match(
            r"^(?:over\s+)?(?:[\w\-]+\s+)?(?:from\s+(?P<a>.+?)\s+)?to\s+(?P<b>.+)$", rest, re.I
        )
        rest = re.sub(r"^in\s+(?=\S)", "", rest, flags=re.I)  # "traded in the corolla for ..."
        swap = re.match(r"^(?P<a>.+?)\s+for\s+(?P<b>.+)$", rest, re.I)
        backwards = re.match(r"^(?:over\s+)?to\s+(?P<b>.+?)\s+from\s+(?P<a>.+)$", rest, re.I)
        if backwards is not None:
            match = backwards  # "switched to Neovim from VS Code"
        if match is None and swap is not None and self.p.head in (stem("swap"), stem("trade")):
            match = swap
        if match is None:
            return [] if self.strict else None
        b = clean_value(match.group("b"))
        a = clean_value(match.group("a")) if match.group("a") else None
        if vague(b):
            return []
        diet = _diet(b.casefold())
        if diet is not None:
            return [self.claim("diet", diet, change=True, previous=a)]
        phone = _phone(b)
        if phone is not None:
            return [self.claim("phone", phone, change=True, previous=a)]
        computer = _computer(b)
        if computer is not None:
            return [self.claim("computer", computer, change=True, previous=a)]
        vehicle = _vehicle(b) if a is not None and _vehicle(a) is not None else None
        if vehicle is not None:
            return [self.claim("vehicle", vehicle, change=True, previous=a)]
        if self.p.head == stem("transfer") and a is not None:
            # "transferred from ohio state to Purdue": a school (or an office) for another.
            return [self.claim("education", b, change=True, previous=a)]
        if a is None:
            return [self.claim("switch", b, change=True)]
        return [self.claim("preference", b, change=True, previous=a)]

    def _change(self, rest: str, low: str) -> list[Claim] | None:
        renamed = re.match(
            r"^(?:my|our|their|his|her)\s+(?P<thing>[\w\- ]+?)\s+(?:from\s+[\w'\- ]+?\s+)?to\s+"
            r"(?P<x>.+)$",
            rest,
            re.I,
        )
        if renamed is not None:
            thing = renamed.group("thing").casefold()
            attribute = ATTRIBUTE_NOUNS.get(thing) or (
                "handle" if thing.replace(" ", "-") in HANDLE_NOUNS else None
            )
            value = clean_value(renamed.group("x"))
            if attribute is not None and not vague(value):
                qualifier = thing if attribute == "handle" else None
                return [self.claim(attribute, value, change=True, qualifier=qualifier)]
        if re.match(r"^(?:my\s+)?(?:jobs?|careers?|employers?|companies)\b", low):
            return [self.claim("employer", "", negated=True, change=True)]
        if re.match(r"^my mind about\s+", low):
            value = clean_value(re.sub(r"^my mind about\s+", "", rest, flags=re.I))
            return [] if vague(value) else [self.claim("likes", value, negated=True, change=True)]
        return [] if self.strict else None

    def _travel(self, rest: str, low: str) -> list[Claim] | None:
        match = re.match(r"^(?:back\s+)?(?:to|for)\s+", low)
        if self.p.head == stem("visit"):
            match = re.match(r"^", low)
        if match is None:
            return [] if self.strict else None
        target = rest[match.end() :]
        value = clean_value(target)
        when = when_of(target)
        first = value.split(" ", 1)[0]
        if vague(value) or (first.islower() and stem(first) in _VERBS):
            # "going to try making it tonight" is an intention, not a destination.
            return [] if self.strict else None
        noun = {stem("fly"): "flight to", stem("visit"): "visit to"}.get(self.p.head, "trip to")
        event = f"{noun} {value}"
        if self.p.negated:
            return [self.claim("plan", event, negated=True, change=True)]
        if when is None or self.p.past or not (self.p.future or self.p.progressive):
            return [] if self.strict else None
        return [self.claim("plan", event, when=when)]

    def _plan(self, rest: str, low: str) -> list[Claim] | None:
        match = re.match(r"^(?:to|on)\s+", low)
        target = rest[match.end() :] if match else rest
        value = clean_value(target)
        # "planning to take a team trip": the plan is the trip.
        value = re.sub(
            r"^(?:take|go on|have|do|host|throw|book|attend|hold)\s+(?=(?:a|an|the|my|our)\s)",
            "",
            value,
            flags=re.I,
        )
        if vague(value) or self.p.negated:
            return [] if self.strict else None
        return [self.claim("plan", _strip_det(value), when=when_of(target))]

    def _turn(self, rest: str, low: str) -> list[Claim] | None:
        became = re.match(
            r"^(?:me\s+)?into\s+(?:an?\s+)?(?:(?:total|big|real|huge|complete)\s+)?"
            r"(?P<x>[\w-]+)\s+(?:person|fan|addict|lover|nut|fiend|snob)\b",
            low,
        )
        if became is not None and became.group("x") not in _NOT_LIKED_KINDS:
            # "I've turned into a coffee person", "it turned me into a chili addict".
            return [self.claim("likes", became.group("x"), change=True)]
        match = re.match(r"^(\d{1,3}|[a-z]+(?:[- ][a-z]+)?)\b", low)
        if match is None:
            return [] if self.strict else None
        n = _number(match.group(1))
        if n is None or not 0 < n < 120:
            return [] if self.strict else None
        return [self.claim("age", str(n), change=True)]

    def _recover(self, rest: str, low: str) -> list[Claim] | None:
        match = re.match(r"^(?:fully\s+)?from\s+", low)
        if match is None:
            return [] if self.strict else None
        value = clean_value(rest[match.end() :])
        if vague(value):
            return []
        done = not self.p.progressive
        return [
            self.claim("condition", _strip_det(v), negated=done, change=True)
            for v in _split_values(value)
        ]

    def _suffer(self, rest: str, low: str) -> list[Claim] | None:
        match = re.match(r"^from\s+", low)
        if match is None:
            return [] if self.strict else None
        value = clean_value(rest[match.end() :])
        return [] if vague(value) else [self.claim("condition", _strip_det(value))]

    def _call(self, rest: str, low: str) -> list[Claim] | None:
        match = re.match(r"^(?:me|him|her)\s+", low)
        if match is None:
            return [] if self.strict else None
        value = clean_value(rest[match.end() :])
        return [] if vague(value) else [self.claim("nickname", value)]

    def _go_by(self, rest: str, low: str) -> list[Claim] | None:
        diet = _diet(
            clean_value(
                re.sub(r"^(?:fully|full|totally|completely)\s+", "", rest, flags=re.I)
            ).casefold()
        )
        if diet is not None:
            return [self.claim("diet", diet, change=True, negated=False)]
        chose = re.match(r"^with\s+", low)
        if chose is not None and not self.p.future:
            # "went with a Pixel 9 in the end": the phone (or laptop, or car) chosen.
            what = rest[chose.end() :]
            for attribute, found in (
                ("phone", _phone(what)),
                ("computer", _computer(what)),
                ("vehicle", _vehicle(what) if _is_vehicle_named(what) else None),
            ):
                if found is not None:
                    return [self.claim(attribute, found, change=True)]
        match = re.match(r"^by\s+", low)
        if match is None:
            pastime = re.match(r"^(?P<x>[a-z]+ing)\b(?!\s+(?:to|for|back|home)\b)", low)
            p = self.p
            habitual = p.said.casefold() in ("go", "goes") and not (p.past or p.future or p.modal)
            if pastime and pastime.group("x") != "going" and habitual:
                # "I go climbing on saturdays": a pastime, said as where the user goes.
                return [self.claim("hobby", f"goes {pastime.group('x')}")]
            return self._travel(rest, low)
        value = clean_value(rest[match.end() :])
        return [] if vague(value) else [self.claim("nickname", value)]

    def _cancel(self, rest: str, low: str) -> list[Claim] | None:
        value = clean_value(re.sub(r"^(?:my|our|the)\s+", "", rest, flags=re.I))
        if vague(value):
            return []
        return [self.claim("any", value, negated=True, change=True)]

    def _reschedule(self, rest: str, low: str) -> list[Claim] | None:
        match = re.match(r"^(?P<what>.+?)\s+(?:to|until|till)\s+(?P<when>.+)$", rest, re.I)
        what = clean_value(
            re.sub(r"^(?:my|our|the)\s+", "", match.group("what") if match else rest, flags=re.I)
        )
        if vague(what):
            return []
        when = _date_phrase(match.group("when")) if match else None
        return [self.claim("plan", what, change=True, when=when)]

    def _give(self, rest: str, low: str) -> list[Claim] | None:
        if re.match(r"^up\b", low):
            return self._quit(re.sub(r"^up\b\W*", "", rest, flags=re.I), low[3:])
        if re.match(r"^birth\b", low):
            return [self.claim("condition", "pregnant", negated=True, change=True)]
        if re.search(r"\baway\b", low):
            value = clean_value(re.sub(r"\baway\b", "", rest, flags=re.I))
            return [] if vague(value) else [self.claim("any", value, negated=True, change=True)]
        return [] if self.strict else None

    def _rehome(self, rest: str, low: str) -> list[Claim] | None:
        value = clean_value(rest)
        return [] if vague(value) else [self.claim("any", value, negated=True, change=True)]

    def _keep(self, rest: str, low: str) -> list[Claim] | None:
        pets = _pets(rest)
        if pets:
            return [self.claim("pet", pet) for pet in pets]
        return [] if self.strict else None

    def _avoid(self, rest: str, low: str) -> list[Claim] | None:
        value = clean_value(rest)
        if vague(value):
            return []
        return [self.claim("habit", f"eats {_strip_det(value)}", negated=True)]

    def _follow(self, rest: str, low: str) -> list[Claim] | None:
        diet = re.match(r"^(?:an?\s+|the\s+)?(?:strict\s+)?(?P<diet>[\w\- ]+?)\s+diet\b", low)
        if diet is not None:
            value = _diet(diet.group("diet")) or diet.group("diet")
            return [self.claim("diet", value)]
        return [] if self.strict else None

    def _die(self, rest: str, low: str) -> list[Claim] | None:
        if self.p.head == stem("pass") and not re.match(r"^(?:away|on)\b", low):
            return [] if self.strict else None
        return [self.claim("alive", "", negated=True, change=True)]

    def _finish(self, rest: str, low: str) -> list[Claim] | None:
        value = clean_value(re.sub(r"^(?:my|our|the)\s+", "", rest, flags=re.I))
        if vague(value):
            return []
        if not _SCHOOLING.search(value):
            # "finished another painting" is an afternoon's work, not schooling.
            return self._generic_or_none(rest, low)
        if self.p.said.casefold() in ("finish", "finishes", "finishing") and not self.p.negated:
            # "while I finish school": still at it, nothing finished yet; "finishing a mechanical
            # engineering degree at Purdue" says what the user studies, and where.
            degree = re.match(
                r"^(?P<what>[\w ]+?)\s+(?:degree|diploma|course)(?:\s+at\s+(?P<at>.+))?$",
                value,
                re.I,
            )
            if degree is None or vague(degree.group("what")):
                return []
            where = f" at {degree.group('at')}" if degree.group("at") else ""
            return [self.claim("education", f"{_strip_det(degree.group('what'))}{where}")]
        if self.p.negated:
            return [self.claim("education", value, negated=True, change=True)]
        return [self.claim("education", value, past=True, change=True)]

    def _diagnosed(self, rest: str, low: str) -> list[Claim] | None:
        return self._diagnosis(f"diagnosed {rest}", f"diagnosed {low}")

    def _hold(self, rest: str, low: str) -> list[Claim] | None:
        match = re.match(
            r"^(?:an?\s+)?(?:phd|ph\.d\.|doctorate|master'?s|masters|bachelor'?s|bachelors|degree"
            r"|mba|ba|bs|bsc|msc|ma|diploma)\b",
            low,
        )
        if match is None:
            return [] if self.strict else None
        return [self.claim("degree", clean_value(_strip_det(rest)))]

    def _make(self, rest: str, low: str) -> list[Claim] | None:
        value = clean_value(rest)
        if re.match(r"^(?:some|the|this|that|these|those|my|our|it|dinner|lunch)\b", value, re.I):
            # "made some peach cobbler": a cobbler is baked, not a trade taken up.
            return [] if self.strict else None
        if lx.is_occupation(value.casefold()) or value.casefold() in ("partner", "captain"):
            return [self.claim("job", value, change=True)]
        return [] if self.strict else None

    def _celebrate(self, rest: str, low: str) -> list[Claim] | None:
        match = re.match(r"^(?:my|his|her|their|our)\s+(\d{1,3})(?:st|nd|rd|th)\s+birthday", low)
        if match is not None:
            return [self.claim("age", match.group(1), change=True)]
        return [] if self.strict else None

    def _do(self, rest: str, low: str) -> list[Claim] | None:
        value = clean_value(_QUANTITY.sub("", rest))
        if self.p.negated and self.p.change and not vague(value):
            # "not doing chicago anymore": whatever was to be done with it is off.
            return [self.claim("any", _strip_det(value), negated=True, change=True)]
        if vague(value) or not _is_activity(value):
            return [] if self.strict else None
        return [self.claim("hobby", f"does {_strip_det(value)}")]

    def _habitual(self, rest: str, low: str) -> list[Claim] | None:
        if self.p.progressive and not self.p.negated:
            return [] if self.strict else None
        said = self.p.said.casefold()
        if (said in _IRREGULAR or said.endswith("ed")) and not self.p.negated:
            # "ran the Berlin Marathon": something done, not a habit.
            value = clean_value(rest)
            return [] if vague(value) else [self.claim("event", f"{said} {value}")]
        verb = {stem(v): v for v in _HABITUAL_VERBS.split()}.get(self.p.head, "")
        value = clean_value(rest)
        if value.casefold() in ("everywhere", "a lot", "daily", "every day"):
            value = ""
        third = third_person(verb)
        return [self.claim("hobby", f"{third} {value}".strip())]

    def _pass(self, rest: str, low: str) -> list[Claim] | None:
        if re.match(r"^(?:away|on)\b", low):
            return self._die(rest, low)
        exam = re.match(
            r"^(?:my|the|our)?\s*(?P<what>(?:[\w\-]+\s+){0,2}?(?:bar|exam|exams|test"
            r"|boards|finals|driving test|thesis defen[cs]e))\b",
            low,
        )
        if exam is None or self.p.negated:
            return [] if self.strict else None
        return [self.claim("event", f"passed the {exam.group('what').strip()}", change=True)]

    def _heal(self, rest: str, low: str) -> list[Claim] | None:
        return [] if self.strict else None

    def _expect(self, rest: str, low: str) -> list[Claim] | None:
        baby = re.match(
            r"^(?:a|our|my|their|her|his)?\s*(?:first|second|third|new)?\s*(?:baby|babies|twins"
            r"|triplets|child|kid|boy|girl|little one)\b",
            low,
        )
        if baby is None or not self.p.progressive:
            return [] if self.strict else None
        value = clean_value(rest)
        return [self.claim("condition", f"expecting {value}", when=when_of(rest))]

    def _freelance(self, rest: str, low: str) -> list[Claim] | None:
        if self.p.negated or self.p.stop:
            return [self.claim("employer", "self-employed", negated=True, change=True)]
        out = [self.claim("employer", "self-employed")]
        role = re.match(r"^as\s+", low)
        if role is not None:
            job = clean_value(rest[role.end() :])
            if job and not vague(job):
                out.append(self.claim("job", _with_article(_strip_det(job))))
        return out

    def _generic_or_none(self, rest: str, low: str) -> list[Claim] | None:
        return [] if self.strict else None


_SOMEONE_NAMED = re.compile(
    r"^(?:a|an|this|the|my)\s+(?:(?:lovely|wonderful|great|nice|amazing)\s+)?(?:woman|man|guy"
    r"|girl|lady|boy|person|fellow|gal|dude)\s+(?:named|called)\s+(?=[A-Z])"
)


def _person_named(value: str) -> str:
    """ "a woman named Ifeoma" is Ifeoma."""
    return _SOMEONE_NAMED.sub("", value)


_INTENSIFIERS = frozenset(
    [
        "big",
        "huge",
        "massive",
        "great",
        "lifelong",
        "total",
        "real",
        "true",
        "die-hard",
        "diehard",
        "absolute",
        "complete",
        "serious",
        "avid",
    ]
)
_PLAY_TAIL = re.compile(
    r"(?:\s+(?:afterwards?|just|together|professionally|again|later|today|yesterday|tonight"
    r"|a lot|sometimes|often|too|all day|for fun|online))+$",
    re.IGNORECASE,
)
_MEMBERSHIP = re.compile(
    r"\b(?:gym|club|band|team|choir|group|program|programme|community|society|association"
    r"|league|circle|network|church|movement|chapter|forum|meetup|collective|committee"
    r"|orchestra|troupe|crew|class|course|workshop)s?\b",
    re.IGNORECASE,
)
_SCHOOLING = re.compile(
    r"\b(?:school|college|university|uni|degree|masters?|master's|phd|ph\.d|doctorate|thesis"
    r"|dissertation|course|courses|program|programme|bootcamp|training|apprenticeship"
    r"|residency|internship|studies|exams?|semester|bachelor'?s?|diploma|certificate"
    r"|certification|grade|year\s+of\s+\w+)\b",
    re.IGNORECASE,
)
_TAUGHT_PEOPLE = re.compile(
    r"^(?:the\s+)?(?:people|kids|children|students|adults|others|everyone|them|him|her|us"
    r"|teens|teenagers|beginners|folks)\s*",
    re.IGNORECASE,
)
_DISLIKE = _stems("hate dislike detest loathe despise")
_BROKE = _stems("die break crash quit fail")
_OWNED_KIND = {
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
_HABITUAL_VERBS = (
    "knit crochet sew bike cycle hike climb surf ski skate paint draw garden meditate swim run "
    "jog bake cook volunteer fish hunt dance sing write journal foster"
)
_ACTIVITY = re.compile(
    r"(?:ing|ics|graphy|yoga|pilates|crossfit|karate|judo|ballet|taekwondo|archery|pottery|tai chi"
    r"|kung fu|aikido|jiu[- ]jitsu|boxing|parkour|triathlons?|marathons?|improv|theatre|theater"
    r"|calligraphy|origami|woodwork|embroidery)$",
    re.IGNORECASE,
)


def _is_activity(value: str) -> bool:
    return bool(_ACTIVITY.search(_strip_det(value).split(" (")[0].strip()))


_TRANSIENT = re.compile(
    r"\b(?:today|tonight|this week|this weekend|right now|for work|for a conference|visiting"
    r"|on (?:vacation|holiday|a trip|business)|for the (?:day|week|weekend)|until|till|at the"
    r"|airport|hotel|for a few)\b",
    re.IGNORECASE,
)
_NOT_EMPLOYERS = frozenset(
    [
        "night",
        "nights",
        "home",
        "weekends",
        "the",
        "weekend",
        "the",
        "moment",
        "the",
        "moment",
        "night",
        "shift",
        "night",
        "shifts",
        "a",
        "desk",
        "my",
        "desk",
        "the",
        "office",
    ]
) | {"night", "nights", "home", "weekends", "the weekend", "the moment", "my desk", "the office"}
_HOUSING_VERBS = _stems("have own rent buy get sign lease find")
# "no <kind>": the attribute every value of the kind belongs to.
_KIND_ATTRIBUTE = {
    "pets": "pet",
    "pet": "pet",
    "animals": "pet",
    "kids": "family",
    "children": "family",
    "kid": "family",
    "child": "family",
    "siblings": "family",
    "sibling": "family",
    "allergies": "allergy",
    "conditions": "condition",
    "condition": "condition",
    "illnesses": "condition",
    "problems": "condition",
    "issues": "condition",
    "car": "vehicle",
    "cars": "vehicle",
    "job": "employer",
    "partner": "partner",
    "boyfriend": "partner",
    "girlfriend": "partner",
}
_CANCEL = _stems("cancel scrap")
_RESCHEDULE = _stems("postpone reschedule push delay move bump")
_SCHEDULED = _stems("plan schedule book set")


_Rule = Callable[[_Reader, str, str], list[Claim] | None]


def _rules() -> tuple[tuple[frozenset[str], _Rule], ...]:
    r = _Reader
    table: tuple[tuple[str, _Rule], ...] = (
        ("live reside", r._live),
        ("move relocate", r._move),
        ("grow", r._grow),
        ("come", r._come),
        ("work", r._work),
        ("freelance", r._freelance),
        ("join start", r._join),
        ("get land take", r._get),
        ("have own adopt buy rescue rent sign lease find", r._have),
        ("lose", r._lose),
        ("sell trade", r._sell),
        ("leave", r._leave),
        ("quit stop abandon ditch", r._quit),
        ("cut", r._cut_out),
        ("retire", r._retire),
        ("become", r._become),
        ("teach", r._teach),
        ("study enrol enroll", r._study),
        ("graduate", r._graduate),
        ("drop", r._drop),
        ("marry wed remarry", r._marry),
        ("engage", r._engage),
        ("divorce", r._divorce),
        ("date see", r._date),
        ("break split", r._break_up),
        ("tear sprain fracture dislocate injure twist", r._injure),
        ("separate", r._separate),
        ("like love enjoy adore hate dislike detest loathe despise mind stand bear", r._like),
        ("prefer", r._prefer),
        ("eat drink", r._eat),
        ("smoke vape", r._smoke),
        ("speak", r._speak),
        ("learn", r._learn),
        ("play", r._play),
        ("drive", r._drive),
        ("use", r._use),
        ("switch swap trade transfer", r._switch),
        ("change rename update", r._change),
        ("travel fly visit head", r._travel),
        ("plan intend", r._plan),
        ("expect", r._expect),
        ("go", r._go_by),
        ("pick", r._pick_up),
        ("turn", r._turn),
        ("recover", r._recover),
        ("suffer", r._suffer),
        ("call", r._call),
        ("cancel", r._cancel),
        ("postpone reschedule push delay", r._reschedule),
        ("give", r._give),
        ("keep", r._keep),
        ("avoid", r._avoid),
        ("follow", r._follow),
        ("die", r._die),
        ("pass", r._pass),
        ("do practice", r._do),
        (_HABITUAL_VERBS, r._habitual),
        ("finish complete", r._finish),
        ("diagnose", r._diagnosed),
        ("hold earn", r._hold),
        ("upgrade", r._switch),
        ("make", r._make),
        ("celebrate", r._celebrate),
        ("rehome", r._rehome),
    )
    return tuple((_stems(verbs), rule) for verbs, rule in table)


_VERB_RULES: tuple[tuple[frozenset[str], _Rule], ...] = ()


# -- helpers -------------------------------------------------------------------------------


_INJURED = {
    stem("tear"): "torn",
    stem("sprain"): "sprained",
    stem("fracture"): "fractured",
    stem("dislocate"): "dislocated",
    stem("injure"): "injured",
    stem("twist"): "twisted",
}
_PAST = {"split": "split", "break": "broke", "broke": "broke", "breaking": "broke"}


def _past(verb: str) -> str:
    """ "split" -> "split", "broke" -> "broke" (how a breakup was said, in the past)."""
    return _PAST.get(verb.casefold(), "broke")


def _org_named(text: str) -> str:
    """ "a logistics startup called Freightly" is Freightly."""
    return re.sub(r"\b(?:an?|the)\s+(?:[\w-]+\s+){0,3}?(?:called|named)\s+", "", text, flags=re.I)


_SCHOOL_STAGES = (
    r"daycare|day care|nursery|preschool|pre-school|kindergarten|reception|elementary school"
    r"|grade school|primary school|middle school|junior high|high school|secondary school"
    r"|sixth form|college|university|uni|grad school|graduate school|med school|law school"
    r"|(?:the\s+)?\d{1,2}(?:st|nd|rd|th)\s+grade|grade\s+\d{1,2}|year\s+\d{1,2}"
)
_CLASS_YEAR = re.compile(
    r"^(?:an?\s+)?(?:(?:high school|college|uni|university)\s+)?"
    r"(?P<year>freshman|sophomore|junior|senior)(?:\s+year)?"
    rf"(?:\s+(?:in|at)\s+(?P<stage>{_SCHOOL_STAGES})|\s+(?:at|in)\s+(?P<where>[\w .'-]+))?\s*[.!]*$"
)
_IN_SCHOOL = re.compile(rf"^(?:still\s+)?in\s+(?P<stage>{_SCHOOL_STAGES})\s*[.!]*$")


def is_school_stage(value: str) -> bool:
    """ "high school", "5th grade", "daycare": a stage of schooling, not a subject studied."""
    return re.fullmatch(_SCHOOL_STAGES, value.casefold()) is not None


def _school_stage(stage: str) -> str:
    """ "the 5th grade" -> "5th grade", "uni" -> "university"."""
    stage = re.sub(r"^the\s+", "", stage.casefold())
    return {"uni": "university", "day care": "daycare", "pre-school": "preschool"}.get(stage, stage)


_EVENT_VERBS = {stem(v): v for v in lx.PLANNED_ACTIVITY_VERBS}
# How bad a condition is, said before it ("early-stage Parkinson's").
_SEVERITY = frozenset(
    [
        "a",
        "an",
        "bad",
        "severe",
        "mild",
        "chronic",
        "early-stage",
        "late-stage",
        "stage",
        "early",
        "advanced",
        "acute",
    ]
)
# Pastimes named by a noun that _ACTIVITY (sports and -ing words) does not know.
_PASTIMES = frozenset(
    [
        "pottery",
        "painting",
        "knitting",
        "crochet",
        "gardening",
        "chess",
        "yoga",
        "pilates",
        "photography",
        "baking",
        "woodworking",
        "embroidery",
        "calligraphy",
        "origami",
        "archery",
        "fencing",
        "climbing",
        "bouldering",
        "surfing",
        "golf",
        "tennis",
        "guitar",
        "piano",
        "violin",
        "drums",
        "ukulele",
    ]
)
_ACQUIRING = frozenset(stem(v) for v in ("buy", "adopt", "rescue", "lease"))
_FOR_A_LIVING = re.compile(r"\s*\bfor\s+a\s+living\b", re.IGNORECASE)


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


def _base_verb(word: str) -> str | None:
    """The verb a preference was said with ("loves" -> "love"), for the sentence memory
    writes; None when it is the plain "like"."""
    base = {
        stem(v): v
        for v in ["love", "hate", "enjoy", "adore", "dislike", "detest", "loathe", "despise"]
    }
    return base.get(stem(word))


_SPELLED_OUT = {"gf": "girlfriend", "bf": "boyfriend", "hubby": "husband", "mate": "friend"}


def _relation_claim(rel: str, name: str) -> tuple[str, str, str | None]:
    """(attribute, value, qualifier) saying that ``name`` is the user's ``rel``."""
    rel = _SPELLED_OUT.get(rel, rel)
    if rel in lx.PARTNER_RELATIONS:
        return "partner", name, rel
    return "family", name, rel


def _number(word: str) -> int | None:
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


def _diet(low: str) -> str | None:
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


def _date_phrase(text: str) -> str:
    """The date part of "on June 3rd, at the Hilton" (cut where the date ends)."""
    return re.split(r",|\s+(?:at|with|in the|because|so)\s+", text.strip(" .!"), maxsplit=1)[0]


def _has_date(text: str) -> bool:
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


def _strip_det(value: str) -> str:
    return _DETERMINER.sub("", value.strip()).strip()


def _strip_job(value: str) -> str:
    return re.sub(r"^(?:my\s+)?(?:job|work)\s+(?:at|with)\s+", "", value, flags=re.I)


def _with_article(value: str) -> str:
    v = value.strip()
    if re.match(r"^(?:an?|the)\s", v, re.I) or not v:
        return v
    first = v.split(" ", 1)[0].casefold()
    if first.endswith("s") and not first.endswith("ss") and len(v.split()) == 1:
        return v
    if first in ("head", "senior", "junior", "lead", "chief") or v[:1].isupper():
        return f"a {v}" if not v[:1].isupper() else v
    return f"an {v}" if v[:1].casefold() in "aeiou" else f"a {v}"


def _place(value: str) -> str:
    value = re.sub(r"^(?:the\s+)?(?:city|town|village)\s+of\s+", "", value, flags=re.I)
    # "Berlin to lead our new office there": the place, not why.
    value = re.sub(r"\s+(?:in order\s+)?to\s+(?!the\b)[a-z]+\b.*$", "", value)
    if value.islower() and known_place(value):
        # "leeds" is Leeds, however it was typed; "the uk" is the UK.
        words = value.split()
        return " ".join(
            w
            if i and w in ("the", "of", "upon", "on", "de", "la")
            else w.upper()
            if w in ("uk", "usa", "us", "nyc", "dc")
            else w.capitalize()
            for i, w in enumerate(words)
        )
    return value


# Where people work that is not an employer's name ("a nurse at the hospital").
_WORKPLACE_NOUNS = frozenset(
    [
        "home",
        "work",
        "school",
        "uni",
        "university",
        "college",
        "church",
        "night",
        "nights",
        "weekends",
        "hospital",
        "clinic",
        "office",
        "store",
        "shop",
        "restaurant",
        "cafe",
        "bar",
        "hotel",
        "factory",
        "warehouse",
        "startup",
        "company",
        "firm",
        "agency",
        "bank",
        "gym",
        "library",
        "airport",
        "station",
        "lab",
        "farm",
        "site",
    ]
)


def _bare_org(org: str) -> bool:
    """An employer typed in lower case with no article: "shopify", "deloitte uk"."""
    words = org.split()
    return (
        1 <= len(words) <= 2
        and org.islower()
        and words[0] not in lx.NOT_NAMES
        and words[0] not in _WORKPLACE_NOUNS
        and words[-1] not in _WORKPLACE_NOUNS
        and not _has_date(org)
    )


def _lower_case_place(rest: str) -> re.Match[str] | None:
    """ "in portland now", "home in oslo": a known place typed in lower case."""
    match = re.match(
        r"^(?:(?:back|over|out|up|down)\s+)?(?:home\s+)?in\s+(?P<where>[a-z][\w\-.]*"
        r"(?:\s+[a-z][\w\-.]*){0,2}?)(?=\s+(?:now|for|since|these|this|at|with|and|but)\b|[,.!?]|$)",
        rest,
    )
    return match if match is not None and known_place(match.group("where")) else None


def is_place_like(value: str) -> bool:
    """Return True for a value that looks like a place name ("London", "New York", "LA"),
    or is a known place typed in lower case ("leeds")."""
    if known_place(value):
        return True
    words = value.split()
    return (
        bool(words)
        and all(w[:1].isupper() for w in words)
        and len(words) <= 3
        and not any(
            w.casefold() in ("inc", "inc.", "ltd", "llc", "corp", "co", "bank", "labs", "group")
            for w in words
        )
    )


def p_change(p: _Predicate, low: str) -> bool:
    """A change: marked, or said as an event (hired, promoted)."""
    return p.change or low.startswith(("hired", "recruited"))


_COMPOUND_BREEDS = (
    r"golden retriever|german shepherd|border collie|french bulldog|jack russell|cocker spaniel"
    r"|great dane|bernese mountain dog|maine coon|british shorthair|tabby cat|tuxedo cat"
)


def _pets(rest: str) -> list[str]:
    """Pets named in "a dog named Rex", "two cats, Miso and Tofu", "a golden retriever"."""
    match = re.match(
        r"^(?P<count>a couple of|a pair of|a new|another|a second|an?|one|two|three|four|five"
        r"|\d+)?\s*"
        r"(?:(?:new|little|old|young|rescue|senior|adopted|sweet|big|small|fluffy|black|white"
        r"|grey|gray|orange|brown|tabby|ginger|german|golden|border|french|english|jack)\s+)*"
        r"(?P<kind>(?:[\w\-]+\s+)?[\w\-]+?)s?(?:\s*,?\s*(?:named|called)?\s+"
        r"(?P<names>(?:(?:Mr|Mrs|Ms|Dr|Sir|Lady|Lord|Captain|Prof)\.?\s+)?[^.;!?]+))?"
        r"\s*[.!]?$",
        rest.strip(),
        re.IGNORECASE,
    )
    if match is None:
        return []
    kind_words = match.group("kind").casefold().split()
    compound = re.match(rf"^(?:an?\s+)?(?P<breed>{_COMPOUND_BREEDS})s?\b", rest.strip(), re.I)
    if compound is not None:
        kind_words = [compound.group("breed").casefold()]  # "a golden retriever called Biscuit"
    kind = next((w for w in reversed(kind_words) if lx.is_pet(w.split()[-1])), None)
    if kind is None:
        return []
    kind = kind[:-1] if kind.endswith("s") and kind[:-1] in lx.PETS | lx.DOG_BREEDS else kind
    if len(kind_words) == 2 and kind_words[1] == kind and kind_words[0] in lx.DOG_BREEDS:
        kind = " ".join(kind_words)  # "a beagle puppy": the breed is worth keeping
    names_text = match.group("names") or ""
    names = [n for n in _split_values(clean_value(names_text)) if _is_name(n.split(" ")[0])]
    if names:
        return [f"{kind} {n}" for n in names]
    return [kind]


def _is_vehicle_named(rest: str) -> bool:
    """Whether a car's make is named (not just "a car", which _vehicle also takes)."""
    return any(w.casefold().strip(",.") in lx.CAR_BRANDS for w in clean_value(rest).split())


def _vehicle(rest: str) -> str | None:
    value = clean_value(rest)
    words = [w.casefold().strip(",.") for w in value.split()]
    if not words:
        return None
    if any(w in lx.CAR_BRANDS for w in words) or any(w in lx.VEHICLES for w in words[-2:]):
        return _strip_det(value)
    return None


_COMPUTERS = frozenset(
    [
        "laptop",
        "macbook",
        "imac",
        "thinkpad",
        "chromebook",
        "desktop",
        "pc",
        "computer",
        "ipad",
        "tablet",
        "surface",
    ]
)


def _without_filler(text: str) -> str:
    """Strip what opens a clause without saying anything ("ok update", "meanwhile")."""
    label = re.match(r"^([\w ]{1,30}):\s", text)
    if label is not None and label.group(1).casefold().strip() in ATTRIBUTE_NOUNS:
        return text  # "Hobby: baking" is a note whose label names the attribute
    for _ in range(3):
        shorter = _LEADING_FILLER.sub("", text)
        if shorter == text:
            break
        text = shorter
    return text


def _computer(rest: str) -> str | None:
    value = clean_value(rest)
    if any(w.casefold().strip(",.") in _COMPUTERS for w in value.split()):
        return _strip_det(value)
    return None


def _phone(rest: str) -> str | None:
    value = clean_value(rest)
    if any(w.casefold().strip(",.") in lx.PHONES for w in value.split()):
        return phone_name(_strip_det(value))
    return None


def phone_name(value: str) -> str:
    """ "iphone 12" is an iPhone 12, "pixel 9" a Pixel 9, however it was typed."""
    return " ".join(_PHONE_CASE.get(w.casefold(), w) for w in value.split())


# -- mentions ------------------------------------------------------------------------------

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
    rf"(?P<rel>{_REL_WORD})(?!['\w-])"
    rf"(?:,?\s+(?P<names>(?-i:{_NAME_TOKEN})(?:\s*(?:,|and|&)\s*(?-i:{_NAME_TOKEN}))*))?",
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
_PHONE_CASE = {"iphone": "iPhone", "oneplus": "OnePlus", "pixel": "Pixel", "galaxy": "Galaxy"}
_SAID_OF = re.compile(
    r"\b(?:is|are|was|were|like|basically|practically|literally|as|kinda|such)\s+$", re.IGNORECASE
)
_PET_MENTION = re.compile(
    r"\b(?:my|our)\s+(?:(?:old|new|little|baby|rescue|senior|sweet)\s+)?(?P<kind>[a-z-]+),?\s+"
    r"(?P<name>(?-i:(?:(?:Mr|Mrs|Ms|Dr|Sir|Lady|Captain|Prof)\.?\s+)?[A-Z][\w'-]*))",
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
        names = [n for n in names if _is_name(n)]
        for name in names:
            attribute, value, qualifier = _relation_claim(rel, name)
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
        if lx.is_pet(kind) and _is_name(name.split()[-1]):
            out.append(Claim("user", "pet", f"{kind} {name}"))
    for match in _PHONE_MENTION.finditer(text):
        words = match.group("phone").split()
        words[0] = _PHONE_CASE.get(words[0].casefold(), words[0].capitalize())
        out.append(Claim("user", "phone", " ".join(words)))
    return out


# -- entry points --------------------------------------------------------------------------


def _claims_of_clause(
    clause: str,
    *,
    speaker: str,
    last_person: str | None,
    strict: bool,
    fact_text: bool,
    inherited: _Subject | None,
    antecedent: str | None,
) -> tuple[list[Claim], _Subject | None]:
    text = _without_filler(clause.strip())
    when = None
    match = _LEADING_TIME.match(text)
    if match is not None:
        when = match.group("when")
        text = text[match.end() :]
    text = _without_filler(text)
    # "also i don't drink": the "also" belongs after the subject ("i also don't drink").
    # "also I'm 52": an age has no "also" to keep.
    text = re.sub(r"^(?:also|plus)\s+(i'm|im)\s+(?=\d)", r"\1 ", text, flags=re.I)
    text = re.sub(r"^(also|plus)\s+(i'm|we're|i|we)\b(?!')", r"\2 also", text, flags=re.I)
    greeted = _GREETING.match(clause.strip()) is not None
    # "calling him rex", "we named her Mochi": the name the pet (or baby) was just given.
    text = _NAMING.sub(lambda m: f"{_POSSESSIVE[m.group('who').casefold()]} name is ", text)
    inverted = _inverted(text, speaker, greeted=greeted)
    if inverted is not None:
        return inverted, None
    idiom = _idiom(text, speaker)
    if idiom is not None:
        return idiom, None
    no_more = _NO_MORE.match(text)
    if no_more is not None:
        # "got lasik, no more glasses": a clause with no verb that ends what it names.
        value = clean_value(_strip_det(no_more.group("what")))
        if vague(value) or len(value.split()) > 3 or value.casefold() in lx.EXCLAIMED_NOUNS:
            return [], None
        who = no_more.group("who") or (inherited.key if inherited is not None else speaker)
        return [Claim(who, "any", value, negated=True, change=True, qualifier="no more")], None
    subject, rest = _subject(text, speaker=speaker, last_person=last_person, fact_text=fact_text)
    if subject is None:
        if inherited is not None and _starts_predicate(text):
            subject, rest = inherited, text
            if _bare_complement(text):
                rest = f"is {text}"
        elif fact_text or _subjectless_ok(text, strict):
            subject, rest = _Subject(speaker, speaker == "user"), text
            first = text.split(" ", 1)[0].casefold()
            if (
                _bare_occupation(text)
                or not _starts_predicate(text)
                or (first in _PARTICIPLES and (stem(first) not in _VERBS or first == "born"))
            ):
                # A note with its copula left out: "Allergic to shellfish.", "Born in 1988."
                rest = f"is {text}"
        else:
            return [], None
    pred = _Predicate(words=rest.split(), head="be") if subject.note else _predicate(rest)
    if pred is None:
        return [], subject
    if when is not None and when.casefold() in _NOW_PHRASES:
        pred.change = True
        when = None
    reader = _Reader(subject, pred, strict, antecedent)
    reader.greeted = greeted
    if when is not None and reader.when is None:
        reader.when = when
    claims = [claim for claim in reader.read() if _well_formed(claim.value)]
    return claims, subject


# A particle alone is what is left of a phrasal verb, not a value ("dropped out": "out").
_PARTICLES = frozenset(["out", "up", "off", "down", "away", "back", "over", "in", "on"])
_DANGLING_END = frozenset(
    [
        "a",
        "an",
        "the",
        "to",
        "of",
        "for",
        "with",
        "about",
        "at",
        "in",
        "on",
        "by",
        "from",
        "and",
        "or",
        "but",
        "my",
        "our",
        "your",
        "his",
        "her",
        "their",
        "its",
        "some",
        "any",
        "into",
        "like",
        "than",
        "as",
        "very",
        "so",
    ]
)
_DANGLING_START = frozenset(["and", "or", "but", "nor", "to"])
_FINITE_INSIDE = frozenset(
    [
        "has",
        "have",
        "had",
        "was",
        "were",
        "is",
        "are",
        "let",
        "lets",
        "would",
        "could",
        "will",
        "can",
        "should",
        "must",
        "might",
    ]
)


def _as_gerund(phrase: str) -> str:
    """ "get lost in books" -> "getting lost in books" (after "love to", "learning to")."""
    first, _, after = phrase.partition(" ")
    low = first.casefold()
    if low in _SKIP_ADVERBS or low in ("just", "really", "always", "usually", "often"):
        return f"{first} {_as_gerund(after)}".strip()  # "just take a look": "just taking ..."
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


def _well_formed(value: str) -> bool:
    """Whether a value reads as a phrase, not a clause cut in the wrong place
    ("and supported has really meant", "creating a", "to")."""
    words = value.split()
    if not words:
        return True  # an empty value is a deliberate "no longer" claim
    if len(words) == 1 and words[0].casefold() in _PARTICLES:
        return False
    if words[0].casefold() in _DANGLING_START or words[-1].casefold() in _DANGLING_END:
        return False
    # A lower-case finite verb inside a value is a second clause ("Becoming Nicole" and
    # "Where the Wild Things Are" keep theirs: titles are capitalised).
    return not any(word in _FINITE_INSIDE for word in words[1:])


_FAVOURITE_OF = re.compile(
    r"^(?P<x>.+?)\s+(?:is|are|'s|has become|have become|became|is now|are now)\s+(?:now\s+)?"
    r"(?:my|our|the user's|user's)\s+(?:new\s+|all-time\s+)?favou?rite\s+(?P<what>[\w\- ]+?)"
    r"(?:\s+(?:now|these days|lately))?\s*[.!]*$",
    re.IGNORECASE,
)
_BETTER_THAN = re.compile(
    r"^(?:(?:honestly|tbh|imo|personally)\s*,?\s+)?(?:(?P<x>[\w\- ]+?)\s+(?:is|are)\s+(?:(?:so|way"
    r"|much|just)\s+)?better\s+than\s+(?P<y>[\w\- ]+?)|(?:i'd|i would)\s+(?:take|pick|choose)"
    r"\s+(?P<x2>[\w\- ]+?)\s+over\s+(?P<y2>[\w\- ]+?)(?:\s+any\s+day)?)"
    r"(?P<now>,?\s+(?:now|i've come around|these days))?\s*[.!]*$",
    re.IGNORECASE,
)
_KIND_OF_PERSON = re.compile(
    r"^(?:i'm|i am)\s+(?:(?:more|much more|definitely|totally|really)\s+)*(?:of\s+)?(?:an?\s+)"
    r"(?:(?:big|huge|real|total)\s+)?(?P<x>[\w\-]+(?:\s+[\w\-]+)?)\s+(?:guy|person|girl|gal"
    r"|dude|type|kind of person)\b",
    re.IGNORECASE,
)
_CALLED_OFF = re.compile(
    r"^(?:(?:we|i|(?-i:[A-Z])[\w'-]+\s+and\s+i|me\s+and\s+[\w'-]+)\s+)?"
    r"(?:called|broke|call|break)\s+off\s+(?:the|our|my)\s+engagement"
    r"|^(?:the|our|my)\s+engagement(?:'s|\s+is)\s+off\b",
    re.IGNORECASE,
)
_FREELANCE = re.compile(
    r"^(?:i'm\s+|i am\s+|i\s+)?(?:went|going|gone|go)\s+freelance\b(?:\s+as\s+(?:an?\s+)?"
    r"(?P<job>[^,.;!?]+))?",
    re.IGNORECASE,
)
_TEAM = re.compile(r"^(?:i'm|i am|we're)\s+team\s+(?P<x>[\w\-]+)\s+now\b", re.IGNORECASE)
_HOME_OF = re.compile(
    r"^(?P<x>.+?)\s+is\s+where\s+(?:i|we|the user|user)\s+(?:live|lives|am based|is based)\b"
    r"|^home\s+(?:for me|for us)\s+is\s+(?P<y>.+?)\s*[.!]*$",
    re.IGNORECASE,
)
_ITS_ME = re.compile(
    r"^(?:it's|it is|this is)\s+(?P<x>(?-i:[A-Z])[\w\-']+)(?P<here>\s+here)?\s*$", re.IGNORECASE
)
_GREETING = re.compile(r"^(?:hey+|hi+|hell+o+|hiya|yo|morning|evening)\b", re.IGNORECASE)
_CALL_ME = re.compile(r"^(?:please\s+)?(?:just\s+)?call\s+me\s+(?P<x>.+)$", re.IGNORECASE)


_HEALED = re.compile(
    r"^(?:my\s+|(?:the\s+)?(?P<whose>user|(?-i:[A-Z][\w\-]+))'s\s+|the\s+)?"
    r"(?P<part>[\w\-]+?)(?:'s|\s+is|\s+has)?\s+(?:(?:fully|finally|completely"
    r"|all)\s+)?(?P<how>healed|recovered|better|back to normal)\b",
    re.IGNORECASE,
)


_PET_NAME_IS = re.compile(
    r"^(?:the|my|our|the user's|user's)\s+(?P<kind>[\w\-]+)'s\s+name(?:'s|\s+is)\s+"
    r"(?P<now>now\s+)?(?P<x>[\w\-]+)"
    r"(?:\s+(?P<now2>now))?\b",
    re.IGNORECASE,
)
_NAMING = re.compile(
    r"^(?:(?:we|i)(?:'re|'m| are| am)?\s+|(?:we|i)\s+)?(?:calling|naming|named|called|call|name"
    r"|renamed|renaming|rename)"
    r"\s+(?P<who>him|her|it)\s+(?=\w)",
    re.IGNORECASE,
)
_POSSESSIVE = {"him": "his", "her": "her", "it": "its"}


# What can be "better" in the sense of healed ("my knee is better", not "the weather is").
_AILING = (
    frozenset(
        [
            "knee",
            "knees",
            "ankle",
            "back",
            "arm",
            "leg",
            "wrist",
            "shoulder",
            "hip",
            "neck",
            "foot",
            "feet",
            "head",
            "stomach",
            "elbow",
            "hand",
            "finger",
            "toe",
            "eye",
            "eyes",
            "ear",
            "throat",
            "tooth",
            "jaw",
            "chest",
            "acl",
            "cold",
            "cough",
            "flu",
            "migraine",
            "rash",
            "fever",
            "injury",
            "cut",
            "burn",
            "bruise",
            "sprain",
            "fracture",
        ]
    )
    | lx.CONDITIONS
)


def _inverted(text: str, speaker: str, *, greeted: bool = False) -> list[Claim] | None:
    """Statements whose subject is not at the front: "ramen is my favourite food",
    "Reykjavik is where I live", "please call me Dan"."""
    healed = _HEALED.match(text)
    part_word = "" if healed is None else healed.group("part").casefold()
    if (
        healed is not None
        and part_word not in lx.NOT_NAMES
        and not part_word.endswith("ing")
        and part_word not in ("become", "get", "got", "feel", "felt", "be", "been", "things")
        and part_word not in _SKIP_ADVERBS
        and part_word not in _CHANGE_ADVERBS
        and (healed.group("how").casefold() in ("healed", "recovered") or part_word in _AILING)
    ):
        part = healed.group("part").casefold()
        # "The user's wrist has healed" (as memory writes it), "Maya's knee is better".
        whose = healed.group("whose")
        who = speaker if whose is None or whose.casefold() == "user" else whose
        return [Claim(who, "condition", part, negated=True, change=True, qualifier="healed")]
    better = _BETTER_THAN.match(text)
    if better is not None:
        # "cats are better than dogs", "i'd take tea over coffee any day": what the user prefers.
        x = clean_value(better.group("x") or better.group("x2") or "")
        y = clean_value(better.group("y") or better.group("y2") or "")
        if not vague(x) and not vague(y) and len(x.split()) <= 3 and len(y.split()) <= 3:
            return [
                Claim(speaker, "preference", x, alternative=y, change=bool(better.group("now")))
            ]
    team = _TEAM.match(text)
    if team is not None:
        return [Claim(speaker, "preference", clean_value(team.group("x")), change=True)]
    kind_of = _KIND_OF_PERSON.match(text)
    if (
        kind_of is not None
        and not vague(kind_of.group("x"))
        and kind_of.group("x").casefold() not in _NOT_LIKED_KINDS
        and not kind_of.group("x").casefold().endswith(("ive", "ous", "ful", "al", "ent", "ant"))
    ):
        # "i'm more of a chess guy", "I'm a big coffee person": what the user likes.
        return [Claim(speaker, "likes", clean_value(kind_of.group("x")))]
    if _CALLED_OFF.match(text):
        return [
            Claim(speaker, "relationship", "engaged", negated=True, change=True),
            Claim(speaker, "plan", "wedding", negated=True, change=True),
        ]
    freelance = _FREELANCE.match(text)
    if freelance is not None:
        out = [Claim(speaker, "employer", "self-employed", change=True)]
        if freelance.group("job"):
            out.append(Claim(speaker, "job", _with_article(clean_value(freelance.group("job")))))
        return out
    match = _FAVOURITE_OF.match(text)
    if match is not None:
        value = clean_value(match.group("x"))
        return (
            []
            if vague(value)
            else [
                Claim(speaker, "favourite", value, qualifier=match.group("what").casefold().strip())
            ]
        )
    match = _HOME_OF.match(text)
    if match is not None:
        value = clean_value(match.group("x") or match.group("y") or "")
        return [] if vague(value) else [Claim(speaker, "residence", value)]
    renamed = _PET_NAME_IS.match(text)
    if renamed is not None and renamed.group("kind").casefold() in lx.PETS:
        name = renamed.group("x")
        if _is_name(name, lower_ok=True):
            kind = renamed.group("kind").casefold()
            value = f"{kind} {name[:1].upper() + name[1:]}"
            changed = bool(renamed.group("now") or renamed.group("now2"))
            return [
                Claim(
                    speaker, "pet", value, change=changed, qualifier="renamed" if changed else None
                )
            ]
    match = _ITS_ME.match(text)
    # "Hi, it's Dan" and "it's Dan here" introduce the speaker; a bare "It's Seattle"
    # answers some other question.
    if match is not None and (greeted or match.group("here")) and _is_name(match.group("x")):
        return [Claim(speaker, "name", match.group("x"))]
    match = _CALL_ME.match(text)
    if match is not None:
        value = clean_value(match.group("x"))
        value = re.sub(r"\s+(?:from now on|please)$", "", value, flags=re.I)
        return [] if vague(value) else [Claim(speaker, "nickname", value, change=True)]
    return None


def _bare_complement(text: str) -> bool:
    """ "completely obsessed with dinosaurs": a complement whose copula was left out."""
    for word in text.split():
        w = word.casefold().strip(",")
        if w in _SKIP_ADVERBS or w in _CHANGE_ADVERBS or w == "completely":
            continue
        return w in _COMPLEMENT_START
    return False


_NOW_PHRASES = frozenset(
    {
        "now",
        "currently",
        "nowadays",
        "these days",
        "recently",
        "lately",
        "as of now",
        "right now",
        "at the moment",
    }
)


_GERUND_SUBJECT_VERBS = frozenset(
    [
        "is",
        "was",
        "has",
        "can",
        "could",
        "will",
        "would",
        "makes",
        "made",
        "helps",
        "helped",
        "gives",
        "gave",
        "keeps",
        "kept",
        "lets",
        "brings",
        "brought",
        "means",
        "meant",
        "feels",
        "felt",
        "seems",
        "seemed",
        "gets",
        "got",
        "takes",
        "took",
        "fascinates",
        "reminds",
        "relaxes",
        "calms",
        "inspires",
        "matters",
        "sounds",
        "looks",
        "pushes",
        "pushed",
    ]
)


# "No wonder", "no problem": set phrases, not a note that the user has none of something.
_NO_IDIOMS = frozenset(
    [
        "wonder",
        "problem",
        "problems",
        "worries",
        "worry",
        "way",
        "idea",
        "doubt",
        "clue",
        "kidding",
        "joke",
        "thanks",
        "rush",
        "biggie",
        "matter",
        "question",
    ]
)


def _imperative(words: list[str]) -> bool:
    """ "Don't quit", "never give up": advice, unless a word says it is the speaker's habit
    ("don't play football anymore")."""
    verb = words[1]
    if verb.endswith(("ing", "ed")) or _IRREGULAR.get(verb, verb) != verb:
        return False
    return not any(word in ("anymore", "again", "now", "nowadays") for word in words) and (
        "any more" not in " ".join(words) and "these days" not in " ".join(words)
    )


def _bare_occupation(text: str) -> bool:
    """ "call centre agent at vodafone": an occupation of two or three words and no article,
    then where (without the "at ...", "keeps kosher" or "goes by DJ" could pass for one)."""
    parts = re.split(r"\s+(?:at|for|with)\s+", text.casefold(), maxsplit=1)
    words = parts[0].strip(" ,.!").split()
    return (
        len(parts) == 2
        and 1 < len(words) <= 3
        and not any(w in _DETERMINERS or w in _SKIP_ADVERBS for w in words)
        and lx.is_occupation(" ".join(words))
    )


def _subjectless_ok(text: str, strict: bool) -> bool:
    if not strict:
        return True
    words = [w.casefold().strip(",.!?") for w in text.split()]
    while words and (words[0] in _CHANGE_ADVERBS or words[0] in _SKIP_ADVERBS):
        words.pop(0)
    if not words:
        return False
    first = words[0]
    if first == "in" and len(words) <= 4 and _lower_case_place(" ".join(words)) is not None:
        return True  # "currently in sheffield"
    if first in ("live", "work", "study") and len(words) > 2 and words[1] in ("in", "at", "for"):
        return True  # "live in austin" answers where, with its "I" left out
    if first.endswith("ing") and any(word in _GERUND_SUBJECT_VERBS for word in words[1:]):
        # "Losing my job was hard", "Playing games helps me unwind": the -ing phrase is
        # the subject, so the clause says nothing the user did.
        return False
    if first in ("don't", "dont", "never") and len(words) > 1 and _imperative(words):
        return False
    if first == "no" and len(words) > 1 and words[1] in _NO_IDIOMS:
        return False
    if first in ("been", "don't", "dont", "didn't", "haven't", "havent", "never", "can't", "no"):
        return True
    if first in ("gonna", "planning") or (
        first == "not" and len(words) > 1 and words[1].endswith("ing")
    ):
        return True  # "gonna do the Berlin marathon in september", "not doing chicago anymore"
    if _bare_occupation(" ".join(words)):
        return True  # "call centre agent at vodafone": a job said as a bare noun phrase
    if first in ("a", "an"):
        noun = []
        for word in words[1:5]:
            if word in ("as", "at", "in", "for", "since", "from", "now", "with"):
                break
            noun.append(word)
        return lx.is_occupation(" ".join(noun))
    # In a chat turn a subject-less statement starts with a verb ("Moved to Denver.",
    # "just bought a flat", "flying to Tokyo on the 3rd").
    return stem(first) in _VERBS and (
        first.endswith(("s", "ed", "ing")) or first in _IRREGULAR or first in ("allergic",)
    )


_AGE_IN_BRACKETS = re.compile(
    r"\b(?P<name>[A-Za-z][\w'\-]*)\s*\((?:age\s+|aged\s+)?(?P<age>\d{1,2})"
    r"(?:\s*(?:yo|y/o|years? old))?\)"
)


def _ages_in_brackets(sentence: str) -> tuple[str, list[Claim]]:
    """ "my kids Mia (6) and Leo (4)": each name's age, and the sentence without the brackets."""
    claims: list[Claim] = []

    def read(match: re.Match[str]) -> str:
        name = match.group("name")
        if _is_name(name) or _name_shaped(name):
            name = name[:1].upper() + name[1:]
            claims.append(Claim(name, "age", str(int(match.group("age")))))
            return name
        return match.group(0)

    if not re.search(r"\b(?:my|our)\s", sentence, re.IGNORECASE):
        return sentence, []
    return _AGE_IN_BRACKETS.sub(read, sentence), claims


def parse(
    text: str,
    *,
    speaker: str = "user",
    strict: bool = False,
    fact_text: bool = True,
    keep: Callable[[str], bool] | None = None,
    person_before: str | None = None,
    pet_before: Claim | None = None,
) -> list[Claim]:
    """Return every claim ``text`` makes.

    ``speaker`` is who "I" is (``"user"`` for a user's turn or a fact about the user).
    ``fact_text`` reads a subject-less clause as being about the user ("Lives in Boston.").
    ``strict`` keeps only the durable kinds of statement the grammar knows (for extraction).
    ``person_before`` is who "she" or "he" means before the text names anyone (the person the
    previous turn was about); ``pet_before`` the pet a "her" or "him" naming it means.
    ``keep`` passes over the clauses it refuses (a reader's own idea of what is not a
    statement: "maybe", "if", a joke), keeping their subject for the clauses after them.
    """
    out: list[Claim] = []
    last_person: str | None = person_before
    for sentence in sentences(text):
        inherited: _Subject | None = None
        antecedent: str | None = None
        bare = re.fullmatch(r"(?-i:[A-Z])[\w'-]+[.!]*", sentence.strip())
        if bare and out and out[-1].attribute == "pet" and " " not in out[-1].value:
            name = sentence.strip().rstrip(".!")
            said_as_name = not _NOT_NAME_SUFFIX.search(name) and name.casefold() not in _EXCLAIMED
            if _is_name(name) and said_as_name:
                # "we got a bunny now! Clover.": the name said on its own, just after.
                out[-1] = replace(out[-1], value=f"{out[-1].value} {name}")
                continue
        sentence, ages = _ages_in_brackets(sentence)
        out.extend(ages)
        for clause in clauses(sentence):
            if keep is not None and not keep(clause):
                continue
            claims, subject = _claims_of_clause(
                clause,
                speaker=speaker,
                last_person=last_person,
                strict=strict,
                fact_text=fact_text,
                inherited=inherited,
                antecedent=antecedent,
            )
            inherited = None if subject is None else replace(subject, thing=None, pet=None)
            pet_name = (subject.pet or "").split(" ", 1)[-1] if subject is not None else ""
            if subject is not None and subject.pet and " " in subject.pet and _is_name(pet_name):
                # "our retriever Rufus is 12 and has bad hips": Rufus has them.
                inherited = _Subject(pet_name, False, name=pet_name)
            if claims:
                antecedent = claims[0].value
            if subject is not None and subject.name is not None:
                last_person = subject.name
            for claim in claims:
                if claim.subject == "~pronoun":
                    resolved = _resolve_pronoun(claim, out, last_person, pet_before)
                    if resolved is None:
                        continue
                    if resolved[0] is not None:
                        out[resolved[0]] = resolved[1]
                        continue
                    claim = resolved[1]
                if claim.subject != speaker and claim.subject[:1].isupper():
                    last_person = claim.subject
                elif claim.attribute in ("family", "partner") and _is_name(claim.value):
                    last_person = claim.value
                out.append(claim)
    return out


def _resolve_pronoun(
    claim: Claim, before: Sequence[Claim], last_person: str | None, pet_before: Claim | None
) -> tuple[int | None, Claim] | None:
    """ "we adopted a cat, her name's Mochi": the pronoun's claim about what came before.

    Returns ``(index, claim)`` to replace an earlier claim, ``(None, claim)`` to add one, or
    None when nothing it could mean was said."""
    previous = len(before) - 1
    last = before[previous] if before else None
    if last is None and claim.attribute == "name" and pet_before is not None:
        # "ok we renamed her Nori", the turn after "we adopted a kitten named Princess".
        kind, _, old_name = pet_before.value.partition(" ")
        name = claim.value[:1].upper() + claim.value[1:]
        renamed = bool(old_name) and old_name.casefold() != name.casefold()
        return None, Claim(
            pet_before.subject,
            "pet",
            f"{kind} {name}",
            change=renamed,
            qualifier="renamed" if renamed else None,
        )
    if claim.attribute == "name" and last is not None:
        name = claim.value[:1].upper() + claim.value[1:]  # "his name is rex": Rex
        if last.attribute == "pet" and " " not in last.value:
            return previous, replace(last, value=f"{last.value} {name}")
        if last.attribute == "family" and last.value == last.qualifier:
            return previous, replace(last, value=name)
        if last.attribute == "relationship" and last.value not in lx.ENDED_RELATIONSHIP:
            return None, replace(claim, subject=last.subject, attribute="partner", value=name)
    if last_person is not None and claim.attribute != "name":
        return None, replace(claim, subject=last_person)
    return None


def iter_values(claims: Sequence[Claim]) -> Iterator[str]:
    """Yield the values of ``claims`` (for tests and debugging)."""
    for claim in claims:
        yield claim.value


_VERB_RULES = _rules()
