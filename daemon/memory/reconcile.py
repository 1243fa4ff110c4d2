"""Reconciliation: what a new fact does to the facts memory already holds, decided by rule.

:func:`reconcile` takes the fact being written (its text and the claims read from it) and the
current facts it could touch, and returns a :class:`Verdict`:

- ``added``: nothing it says was known, and it replaces nothing;
- ``updated``: it gives a new value of something memory held (a new city, employer, diet,
  partner; "no longer", "used to", "switched from"), and the old facts are superseded;
- ``deduplicated``: everything it says is already a current fact (a restatement);
- ``conflict``: it would replace something, but the rules are not sure enough for the
  writer's provenance (the policy), so a person decides.

Facts about different subjects never touch each other: "Bob is 35" and "Carol is 40" are two
facts. Everything here is a pure function of its arguments; the caller gathers candidates,
records the verdict as an event and appends its effects.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from daemon.consolidation.rules import judge_pair
from plugins.extractors import lexicon as lx
from plugins.extractors.claims import Claim, parse, stem, vague
from projections.facts import subject_key as stored_subject_key
from projections.text import normalise

Outcome = Literal["added", "updated", "deduplicated", "conflict"]
Relation = Literal["same", "replaces", "none"]

RULES_ID = "rules/v1"
"""Names the rule set in every verdict it decides (the log says which rules decided)."""


@dataclass(frozen=True, slots=True)
class Known:
    """A current fact as reconciliation sees it."""

    fact_id: str
    text: str
    claims: tuple[Claim, ...]


@dataclass(frozen=True, slots=True)
class Match:
    """How the new fact relates to one known fact, and which rule said so."""

    fact_id: str
    relation: Relation
    rule: str
    confidence: float


@dataclass(frozen=True, slots=True)
class Verdict:
    """The decision for one write, with the inputs that decided it."""

    outcome: Outcome
    superseded: tuple[str, ...] = ()
    duplicate_of: str | None = None
    conflicts_with: tuple[str, ...] = ()
    confidence: float = 1.0
    reason: str = ""
    matches: tuple[Match, ...] = ()
    decided_by: str = RULES_ID
    history: bool = False
    """The fact only says what stopped being true ("I quit Wayfair" once memory knew the job,
    "I used to play bass"): the writer keeps it archived, out of current reads, because the
    facts it ended already say the rest (their valid time closes where it was said)."""


@dataclass(frozen=True, slots=True)
class Policy:
    """How sure a replacement must be to apply, per provenance; below it a person decides.

    The defaults apply a user's own statement whenever a rule says it replaces something, and
    queue an extracted or imported fact's replacement unless the rule is confident.
    """

    apply_at: Mapping[str, float] = field(
        default_factory=lambda: {
            "user": 0.5,
            "extraction": 0.75,
            "reflection": 0.9,
            "tool": 0.9,
            "imported": 0.9,
        }
    )

    def threshold(self, provenance: str) -> float:
        """Return the least confidence at which a replacement from ``provenance`` applies."""
        return float(self.apply_at.get(provenance, 0.9))


# -- values --------------------------------------------------------------------------------

_FILLER = frozenset(
    [
        "a",
        "an",
        "the",
        "my",
        "our",
        "his",
        "her",
        "their",
        "some",
        "this",
        "that",
        "its",
        "of",
        "city",
        "town",
        "state",
        "county",
        "area",
        "old",
        "new",
        "used",
        "own",
        "pet",
    ]
)
_SYNONYMS = {
    **{k.replace(" ", ""): v for k, v in lx.CONDITION_ADJECTIVES.items() if " " not in k},
    "rn": "registered nurse",
    "np": "nurse practitioner",
    "gp": "general practitioner",
    "swe": "software engineer",
    "pm": "product manager",
    "emt": "emergency medical technician",
    "vet": "veterinarian",
    "dev": "developer",
    "prof": "professor",
    "uni": "university",
    "mum": "mother",
    "mom": "mother",
    "dad": "father",
    # Places by their short names ("NYC" is New York City; "city" is dropped as filler).
    "nyc": "new york",
    "la": "los angeles",
    "sf": "san francisco",
    "dc": "washington",
    "uk": "united kingdom",
    "usa": "united states",
    "msc": "master",
    "bsc": "bachelor",
    "phd": "doctorate",
}
_NUMBERS = {
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
    "ten": "10",
    "pair": "2",
    "couple": "2",
}
# Words that name a whole kind: "no car", "no pets", "no kids" deny every value of the kind.
_KIND_WORDS = frozenset(
    [
        "car",
        "cars",
        "vehicle",
        "pet",
        "pets",
        "animal",
        "animals",
        "kid",
        "kids",
        "child",
        "children",
        "job",
        "work",
        "allergy",
        "allergies",
        "sibling",
        "siblings",
        "partner",
        "boyfriend",
        "girlfriend",
        "phone",
        "smartphone",
    ]
)
_MONTH_NUMBERS = {
    m: i + 1
    for i, names in enumerate(
        [
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ]
    )
    for m in names
}


def subject_key(subject: str | None) -> str:
    """Return the comparison key of a subject ("The user" and "user" are one, and so are
    "user's mum" and "user's mother")."""
    return stored_subject_key(lx.canonical_relations(subject or ""))


def value_key(value: str) -> tuple[str, ...]:
    """Return the comparison key of a value: its content words' stems, in order.

    Accents are folded ("Björn" is "bjorn"), number words are digits, and a date is
    ``month-day`` whichever way it was written ("the 14th of March", "March 14").
    """
    date = date_key(value)
    if date is not None:
        return (date,)
    folded = "".join(
        ch for ch in unicodedata.normalize("NFKD", value) if not unicodedata.combining(ch)
    )
    words: list[str] = []
    for w in normalise(folded).split():
        # One word for a thing: "asthmatic" is asthma, "RN" a registered nurse, "two" 2.
        words.extend(_SYNONYMS.get(w, _NUMBERS.get(w, w)).split())
    return tuple(stem(w) if not w.isdigit() else w for w in words if w not in _FILLER)


def date_key(text: str) -> str | None:
    """Return ``month-day`` for a text that names one day of a month ("June 3rd"), else None."""
    low = text.casefold()
    month = next((n for name, n in _MONTH_NUMBERS.items() if re.search(rf"\b{name}\b", low)), None)
    day = re.search(r"\b(\d{1,2})(?:st|nd|rd|th)?\b(?!\s*(?:am|pm|:))", low)
    if month is None or day is None or not 1 <= int(day.group(1)) <= 31:
        return None
    return f"{month:02d}-{int(day.group(1)):02d}"


ValueMatch = Literal["equal", "narrower", "broader", "differs"]


def match_values(new: str, old: str) -> ValueMatch:
    """Compare two values: equal, the new one ``narrower`` (more specific), broader, or not."""
    a, b = value_key(new), value_key(old)
    sa, sb = set(a), set(b)
    if sa == sb:
        return "equal"
    if not a or not b:
        return "differs"
    if sb < sa:
        return "narrower"
    if sa < sb:
        return "broader"
    return "differs"


def _extra_words(new: str, old: str) -> int:
    return len(set(value_key(new)) ^ set(value_key(old)))


# -- relations between claims ---------------------------------------------------------------

_FAMILIES = {
    "likes": "likes",
    "preference": "likes",
    "hobby": "activity",
    "habit": "activity",
    "learning": "activity",
    "project": "activity",
}
# What stays true of a person when they stop doing something or die.
_LASTING = frozenset(
    {
        "name",
        "surname",
        "origin",
        "birthday",
        "birth_year",
        "nationality",
        "native_language",
        "family",
        "family_count",
        "alive",
    }
)


def _family(attribute: str) -> str:
    return _FAMILIES.get(attribute, attribute)


def _positive(claim: Claim) -> bool:
    return not claim.negated and not claim.past


def _state(claim: Claim) -> str:
    if claim.past:
        return "past"
    return "negated" if claim.negated else "positive"


def _work_mode(value: str) -> str:
    """ "from home", "remotely" and "WFH" are one way of working."""
    words = set(normalise(value).split())
    if words & {"remote", "remotely", "home", "wfh"}:
        return "remote"
    if words & {"office", "onsite", "on-site", "person"}:
        return "office"
    return normalise(value)


def relate(new: Claim, old: Claim) -> tuple[Relation, str, float]:
    """Return how ``new`` bears on ``old`` (same subject assumed): relation, rule, confidence."""
    if new.attribute == old.attribute == "work_mode" and _positive(new) and _positive(old):
        if _work_mode(new.value) == _work_mode(old.value):
            return "same", "same way of working", 1.0
        return "replaces", "works another way now", 0.9 if new.change else 0.8
    # "switched from coffee to tea", "moved from Boston to Seattle": the old value is named.
    if new.previous and _positive(old) and match_values(new.previous, old.value) != "differs":
        return "replaces", "names the previous value", 0.95
    if new.attribute == "any" and new.negated:
        if old.attribute not in _LASTING and _positive(old) and _values_meet(new.value, old.value):
            return "replaces", "stopped or left it", 0.85
        if old.attribute == "plan" and _positive(old) and _same_outing(new.value, old.value):
            return "replaces", "called off", 0.85
        return "none", "", 0.0
    if new.attribute == "alive" and new.negated:
        if old.attribute not in _LASTING and _positive(old):
            return "replaces", "died", 0.85
        return "none", "", 0.0
    if new.attribute == "switch" and _positive(new) and _positive(old):
        if match_values(new.value, old.value) != "differs":
            return "same", "same choice", 1.0
        proper = new.value[:1].isupper() == old.value[:1].isupper()
        if (
            (old.single and proper)
            or _same_head(new.value, old.value)
            or old.attribute.startswith("verb:use")
        ):
            return "replaces", "switched to another", 0.7
        return "none", "", 0.0
    if old.attribute == "plan" and _positive(old) and _positive(new):
        verb, _, planned = old.value.partition(" ")
        if new.attribute.startswith("verb:"):
            done_verb, done = new.attribute[5:].split("_")[0], new.value
        elif new.attribute == "event":
            said, _, done = new.value.partition(" ")
            done_verb = stem(said)
        else:
            done_verb, done = "", ""
        if done_verb and stem(verb) == done_verb and _values_meet(done, planned):
            return "replaces", "done as planned", 0.75
        # "Thesis defense" planned, "defended my thesis" done.
        *what, noun = old.value.casefold().split()
        acted = _DONE_AS.get(noun)
        done_now = done_verb and acted is not None and stem(acted) == done_verb
        if done_now and (not what or _values_meet(done, " ".join(what))):
            return "replaces", "done as planned", 0.75
    cross = _cross_attribute(new, old)
    if cross is not None:
        return cross
    if _family(new.attribute) != _family(old.attribute):
        return "none", "", 0.0
    if not _same_qualifier(new, old):
        return "none", "", 0.0
    new_any = new.value == "" or (new.negated and _kind_word(new.value))
    old_any = old.value == "" or (old.negated and _kind_word(old.value))
    if new_any or old_any:
        if new_any and (new.negated or new.past) and _positive(old):
            return "replaces", "ends every value", 0.9
        if old_any and old.negated and _positive(new):
            return "replaces", "no longer none", 0.85
        if new_any and new.negated and old.negated:
            return "same", "says none", 1.0
        return "none", "", 0.0
    values = match_values(new.value, old.value)
    if values != "differs" and new.attribute == old.attribute == "partner" and _positive(new):
        # "my husband Tomás" after "my boyfriend Tomás": the same person, married now.
        before = lx.canonical_relations(old.qualifier or "")
        after = lx.canonical_relations(new.qualifier or "")
        married = after in ("husband", "wife", "spouse")
        if married and before in ("boyfriend", "girlfriend", "fiance") and _positive(old):
            return "replaces", "married now", 0.85
    if values != "differs":
        if _state(new) == _state(old):
            if new.attribute == "plan" and _rescheduled(new, old):
                return "replaces", "a new date", 0.85
            if values == "narrower" and new.attribute == "pet" and " " not in old.value:
                # "a dog named Pretzel" says more than "a dog": kept beside it, not merged away.
                return "none", "", 0.0
            if values == "narrower" and _extra_words(new.value, old.value) > 1:
                # "Lives in the Pearl District of Portland" refines "Lives in Portland": both hold.
                return "none", "", 0.0
            return "same", f"same {_family(new.attribute)}", 1.0
        if _state(new) == "past" and _state(old) == "negated":
            if new.negated and new.change:
                # "I used to hate jazz but now I put it on": the dislike is what ended.
                return "replaces", "no longer dislikes it", 0.85
            return "same", "both say it ended", 1.0
        if _state(old) == "past" and _positive(new) and not new.change:
            # "Used to live in Boston" and then "Lives in Boston" again is a change; without a
            # marker the two can both hold (a past and a present).
            return "replaces", "true again", 0.6
        return "replaces", "negation" if new.negated else "the opposite", 0.9
    # Different values.
    if new.alternative and _positive(old) and match_values(new.alternative, old.value) != "differs":
        return "replaces", "preferred over the old value", 0.85
    if (
        old.alternative
        and _positive(old)
        and _positive(new)
        and match_values(old.alternative, new.value) != "differs"
        and (new.attribute == "preference" or (new.attribute == "likes" and new.change))
    ):
        return "replaces", "preference reversed", 0.85
    if not (_positive(new) and _positive(old)):
        return "none", "", 0.0
    if new.also:
        return "none", "", 0.0
    renamed = new.attribute == "pet" and old.attribute == "pet" and new.qualifier == "renamed"
    renamed = renamed or (
        new.attribute == old.attribute == "pet" and new.qualifier == old.qualifier == "named"
    )
    if renamed and new.value.split()[0].casefold() == old.value.split()[0].casefold():
        # "the puppy's name is Waffles now" renames the puppy that was Rex.
        return "replaces", "renamed", 0.85
    # One gamertag at a time, though a person has handles on many sites; one manager.
    one_at_a_time = (
        new.single
        or (new.attribute == "handle" and bool(new.qualifier))
        or (
            new.attribute == "family"
            and lx.canonical_relations(new.qualifier or "") in _ONE_AT_A_TIME_RELATIONS
        )
    )
    if one_at_a_time and _same_qualifier(new, old):
        if old.attribute == "relationship" and _still_true_beside(new.value, old.value):
            return "none", "", 0.0
        return "replaces", f"one {new.attribute} at a time", 0.95 if new.change else 0.8
    band = "plays in a band called"
    if new.change and new.value.startswith(band) and old.value.startswith(band):
        # "I play bass in a band called Low Tide now": the band before is over.
        return "replaces", "in another band now", 0.75
    if new.change and new.attribute == old.attribute == "computer":
        return "replaces", "switched computers", 0.8
    same_verb = new.value.split()[:1] == old.value.split()[:1] and new.value != old.value
    if new.change and new.attribute == old.attribute == "habit" and not new.past and same_verb:
        # "these days I only drink water" ends "drinks a lot of soda": the same habit, now.
        return "replaces", "does it differently now", 0.7
    if new.change and _same_head(new.value, old.value):
        return "replaces", "another of the same kind", 0.75
    if new.attribute.startswith("verb:") and new.change:
        return "replaces", "same verb, another object", 0.7
    return "none", "", 0.0


_PLATFORMS = {
    "iphone": "apple",
    "ios": "apple",
    "apple": "apple",
    "mac": "apple",
    "macbook": "apple",
    "android": "android",
    "pixel": "android",
    "samsung": "android",
    "galaxy": "android",
    "windows": "windows",
    "pc": "windows",
    "linux": "linux",
    "playstation": "sony",
    "ps5": "sony",
    "xbox": "microsoft",
    "nintendo": "nintendo",
    "switch": "nintendo",
}


def _platforms(value: str) -> set[str]:
    return {_PLATFORMS[w] for w in value.casefold().split() if w in _PLATFORMS}


_OUTING_WORDS = frozenset(
    stem(w)
    for w in ["trip", "vacation", "holiday", "visit", "journey", "travel", "tour", "plan", "go"]
)


def _same_outing(cancelled: str, planned: str) -> bool:
    """ "the japan trip" is the planned "visit Japan": the same place or event, whatever the
    kind of outing was called."""
    what = set(value_key(cancelled)) - _OUTING_WORDS
    return bool(what) and what <= set(value_key(planned)) - _OUTING_WORDS


def _still_true_beside(new: str, old: str) -> bool:
    """Being divorced or widowed stays true when someone new comes along (not a remarriage)."""
    return old in ("divorced", "widowed") and new not in ("married", "single")


def _kind_word(value: str) -> bool:
    key = value_key(value)
    return len(key) == 1 and key[0] in {stem(w) for w in _KIND_WORDS}


def _same_head(a: str, b: str) -> bool:
    """Two values of one kind: the same head noun ("oat milk", "almond milk"; "window seats on
    flights", "aisle seats")."""
    ka, kb = value_key(_head_phrase(a)), value_key(_head_phrase(b))
    return len(ka) > 1 and len(kb) > 1 and ka[-1] == kb[-1] and ka != kb


def _head_phrase(value: str) -> str:
    return re.split(r"\s+(?:on|in|at|for|with|of|from|during)\s+", value, maxsplit=1)[0]


def _rescheduled(new: Claim, old: Claim) -> bool:
    if not new.when or not old.when:
        return bool(new.when) and new.change
    a, b = date_key(new.when), date_key(old.when)
    if a is not None and b is not None:
        return a != b
    return value_key(new.when) != value_key(old.when)


def _values_meet(a: str, b: str) -> bool:
    return bool(a) and match_values(a, b) != "differs"


def _same_qualifier(new: Claim, old: Claim) -> bool:
    a = lx.canonical_relations(new.qualifier or "")
    b = lx.canonical_relations(old.qualifier or "")
    if new.attribute == "family_count":
        return a == b or {a, b} <= {"child", "baby", "son", "daughter"}
    if new.attribute in ("favourite", "handle"):
        return a == b
    if new.attribute == "family" and a and b:
        return a == b or new.value == old.value
    return True


def _cross_attribute(new: Claim, old: Claim) -> tuple[Relation, str, float] | None:
    """Rules between two attributes (a diet and an eating habit, a breakup and a partner)."""
    pair = (new.attribute, old.attribute)
    if pair == ("habit", "diet") and _positive(old):
        eaten = set(value_key(new.value))
        excluded = {stem(w) for w in lx.DIET_EXCLUDES.get(old.value.casefold(), ())}
        if eaten & excluded:
            if new.negated:
                return "same", "the diet excludes it", 0.8
            if not new.past:
                return "replaces", "a habit the diet excludes", 0.8
        return "none", "", 0.0
    if pair in (("habit", "likes"), ("likes", "habit")) and not new.past and not old.past:
        # "I drink coffee every morning now" ends "can't stand coffee", and the other way.
        habit, liking = (new, old) if pair[0] == "habit" else (old, new)
        consumed = set(value_key(habit.value)) - {stem("eat"), stem("drink")}
        liked = set(value_key(liking.value))
        same_thing = bool(consumed) and (consumed <= liked or liked <= consumed)
        if same_thing and new.negated != old.negated:
            return "replaces", "now does the opposite", 0.8
        return "none", "", 0.0
    if pair == ("relationship", "partner") and _positive(new) and _positive(old):
        # "married to Sarah" says what "the user's wife is Sarah" said.
        spouse = lx.canonical_relations(old.qualifier or "") in ("wife", "husband", "spouse")
        if spouse and new.value == "married":
            return "same", "a spouse is a marriage", 0.9
        courting = lx.canonical_relations(old.qualifier or "")
        dating = courting in ("boyfriend", "girlfriend")
        if (courting == "fiance" or dating) and (
            new.value == "married" or (dating and new.value == "engaged")
        ):
            # "Marcus and I got married" ends "Marcus is the user's boyfriend".
            return "replaces", "dating, now engaged or married", 0.85
    if pair == ("job", "employer") and _positive(new) and old.negated and old.value == "":
        # "finally got hired, I'm a dental hygienist" ends "is unemployed".
        return "replaces", "has work now", 0.85
    if pair == ("preference", "preference") and new.change and _positive(new) and _positive(old):
        # "team iPhone now" against "prefers Android phones": one platform at a time.
        new_side, old_side = _platforms(new.value), _platforms(old.value)
        if new_side and old_side and not new_side & old_side:
            return "replaces", "switched platforms", 0.8
    if pair in (("work", "job"), ("job", "work"), ("work", "work")):
        # "writes software for a living" is what a software engineer does; another kind of
        # work beside a job title is added, not a contradiction (people hold two jobs).
        work, other = (new, old) if new.attribute == "work" else (old, new)
        done = set(value_key(work.value.partition(" ")[2]))  # "writes software": software
        if _positive(new) and _positive(old) and done & set(value_key(other.value)):
            return "same", "the work the job is", 0.9
        return "none", "", 0.0
    if pair == ("trait", "habit") and _positive(new) and _positive(old):
        if new.value.casefold() == "sober" and {stem("drink"), stem("alcohol")} & set(
            value_key(old.value)
        ):
            return "replaces", "sober now", 0.8
        return "none", "", 0.0
    if pair == ("diet", "habit") and _positive(new) and _positive(old):
        eaten = set(value_key(old.value))
        if eaten & {stem(w) for w in lx.DIET_EXCLUDES.get(new.value.casefold(), ())}:
            return "replaces", "a diet that excludes the habit", 0.8
        return "none", "", 0.0
    if pair == ("relationship", "partner"):
        if _positive(new) and new.value in lx.ENDED_RELATIONSHIP and _positive(old):
            return "replaces", "the relationship ended", 0.85
        return "none", "", 0.0
    if pair == ("partner", "relationship"):
        if _positive(new) and _positive(old) and old.value in ("single", "separated"):
            return "replaces", "a partner now", 0.8
        if (
            new.negated
            and new.value == ""
            and _positive(old)
            and old.value not in (lx.ENDED_RELATIONSHIP | {"single"})
        ):
            return "replaces", "the relationship ended", 0.85
        return "none", "", 0.0
    if pair == ("trait", "family") and new.value == "parent" and _positive(new):
        if old.negated and old.value == "" and old.qualifier in (None, "child"):
            return "replaces", "a parent now", 0.85
        return "none", "", 0.0
    if pair == ("job", "employer"):
        if new.value == "retired" and _positive(new) and _positive(old):
            return "replaces", "retired", 0.85
        return "none", "", 0.0
    if pair == ("employer", "job"):
        return "none", "", 0.0
    if (
        pair == ("event", "condition")
        and _positive(old)
        and re.search(r"\b(?:baby|babies|twins|birth)\b", new.value, re.I)
    ):
        if old.value.casefold() == "pregnant" or old.value.casefold().startswith("expecting"):
            return "replaces", "the baby was born", 0.85
        return "none", "", 0.0
    return None


# -- the decision --------------------------------------------------------------------------


@lru_cache(maxsize=8192)
def claims_of(text: str) -> tuple[Claim, ...]:
    """Read the claims of a fact text."""
    return tuple(parse(text, speaker="user", strict=False, fact_text=True))


def contradiction(a: str, b: str) -> str | None:
    """Whether two current facts contradict each other, read by the statement grammar: the
    rule that says one would replace the other, "" when both were read and nothing does
    ("enjoys hiking" and "also enjoys photography"), None when either says nothing the
    grammar reads (the text rules decide then)."""
    claims_a, claims_b = claims_of(a), claims_of(b)
    if not claims_a or not claims_b:
        return None
    for new, old in [(n, o) for n in claims_b for o in claims_a] + [
        (n, o) for n in claims_a for o in claims_b
    ]:
        if subject_key(new.subject) != subject_key(old.subject):
            continue
        relation, rule, _ = relate(new, old)
        if relation == "replaces":
            return rule
    return ""


def _names_a_member(new: Claim, old: Claim) -> bool:
    """ "Biscuit passed away" ends "has a dog named Biscuit" (a pet or relative by name)."""
    if new.attribute != "alive" or not new.negated or not _positive(old):
        return False
    if old.attribute not in ("pet", "family", "partner") or subject_key(old.subject) == subject_key(
        new.subject
    ):
        return False
    return subject_key(new.subject) in {w.casefold() for w in old.value.split()}


# An event said as a noun, and the verb that says it happened.
_DONE_AS = {
    "defense": "defend",
    "defence": "defend",
    "graduation": "graduate",
    "presentation": "present",
    "interview": "interview",
    "move": "move",
    "launch": "launch",
    "visit": "visit",
    "wedding": "marry",
    "exam": "pass",
    "test": "pass",
    "marathon": "run",
    "race": "run",
    "surgery": "have",
    "operation": "have",
}

# The people the user has through work: they stop being so when they leave the company.
_WORK_RELATIONS = frozenset({"manager", "colleague", "mentor", "teammate", "assistant"})
# Relations one holds with one person at a time (a second manager replaces the first).
_ONE_AT_A_TIME_RELATIONS = frozenset({"manager", "landlord"})


def _leaves_work(new: Claim, old: Claim) -> bool:
    """ "Dana left the company" ends "Dana is the user's manager"."""
    if new.attribute != "employer" or not new.negated or not _positive(old):
        return False
    if old.attribute != "family" or subject_key(old.subject) == subject_key(new.subject):
        return False
    if lx.canonical_relations(old.qualifier or "") not in _WORK_RELATIONS:
        return False
    return subject_key(new.subject) in {w.casefold() for w in old.value.split()}


def _match(new_claims: Sequence[Claim], known: Known) -> tuple[Match, set[int]]:
    """Relate every new claim to the known fact; return the strongest relation and which new
    claims it covers (says the same)."""
    best: Match = Match(known.fact_id, "none", "", 0.0)
    covered: set[int] = set()
    for i, new in enumerate(new_claims):
        for old in known.claims:
            if _names_a_member(new, old):
                best = Match(known.fact_id, "replaces", "died or left", 0.8)
                continue
            if _leaves_work(new, old):
                best = Match(known.fact_id, "replaces", "left the company", 0.8)
                continue
            if subject_key(new.subject) != subject_key(old.subject):
                continue
            relation, rule, confidence = relate(new, old)
            if relation == "same":
                covered.add(i)
                if best.relation == "none":
                    best = Match(known.fact_id, "same", rule, confidence)
            elif relation == "replaces" and (
                best.relation != "replaces" or confidence > best.confidence
            ):
                best = Match(known.fact_id, "replaces", rule, confidence)
    return best, covered


def reconcile(
    text: str,
    claims: Sequence[Claim],
    known: Sequence[Known],
    *,
    provenance: str = "user",
    policy: Policy | None = None,
    similarity: Mapping[str, float] | None = None,
) -> Verdict:
    """Decide what writing ``text`` (with its ``claims``) does to the ``known`` current facts.

    ``similarity`` (fact id -> cosine of the embedder) lets a fact that no claim could be read
    from still be recognised as a restatement or a contradiction by the text rules.
    """
    policy = policy or Policy()
    matches: list[Match] = []
    covered: set[int] = set()
    exact = normalise(text)
    for fact in known:
        if normalise(fact.text) == exact:
            matches.append(Match(fact.fact_id, "same", "same text", 1.0))
            covered.update(range(len(claims)))
            continue
        if claims and fact.claims:
            match, fact_covered = _match(claims, fact)
            covered |= fact_covered
        else:
            match = _by_text(text, fact, (similarity or {}).get(fact.fact_id, 0.0))
            if match.relation == "same":
                covered.update(range(len(claims)))
        matches.append(match)
    replaced = [m for m in matches if m.relation == "replaces"]
    same = [m for m in matches if m.relation == "same"]
    if replaced:
        confidence = min(m.confidence for m in replaced)
        ids = tuple(m.fact_id for m in replaced)
        rules = "; ".join(sorted({m.rule for m in replaced}))
        if confidence < policy.threshold(provenance):
            return Verdict(
                "conflict",
                conflicts_with=ids,
                confidence=confidence,
                reason=f"would replace {len(ids)} fact(s) ({rules}), not sure enough for "
                f"{provenance} facts: a person decides",
                matches=tuple(matches),
            )
        return Verdict(
            "updated",
            superseded=ids,
            confidence=confidence,
            reason=f"replaces {len(ids)} fact(s): {rules}",
            matches=tuple(matches),
            history=only_an_ending(claims, replaces=True),
        )
    if same and (not claims or len(covered) == len(claims)):
        return Verdict(
            "deduplicated",
            duplicate_of=same[0].fact_id,
            confidence=same[0].confidence,
            reason=f"says what a current fact says ({same[0].rule})",
            matches=tuple(matches),
        )
    return Verdict(
        "added",
        reason="nothing current says this" if not same else "adds to what is known",
        matches=tuple(matches),
        history=only_an_ending(claims, replaces=False),
    )


def only_an_ending(claims: Sequence[Claim], *, replaces: bool) -> bool:
    """Return True if claims say only what stopped being true, so they are history.

    An ending that names what it replaced ("no longer works at Zalando") is told by that
    fact's closed valid time; a past habit ("used to smoke") or an ending of a thing memory
    cannot place ("quit wayfair") says nothing current. An ending that names no value says
    how things stand now ("was laid off", "graduated"), and "no longer eats meat" with nothing
    to replace is the current diet: both stay.
    """
    if not claims or any(_positive(c) or not (c.change or c.past) for c in claims):
        return False
    if not all(c.value and not vague(c.value) for c in claims):
        return False
    return replaces or all(c.past or c.attribute == "any" for c in claims)


def _by_text(text: str, fact: Known, cosine: float) -> Match:
    """The text rules, for a fact no claim could be read from."""
    judgement = judge_pair(text, fact.text, cosine)
    if judgement.duplicate:
        return Match(fact.fact_id, "same", f"text: {judgement.reason}", judgement.similarity)
    if judgement.conflict and _leading_names(text) == _leading_names(fact.text):
        return Match(fact.fact_id, "replaces", f"text: {judgement.reason}", 0.6)
    return Match(fact.fact_id, "none", "", 0.0)


def _leading_names(text: str) -> tuple[str, ...]:
    """The capitalised words a text starts with (who it is about, roughly)."""
    words = text.split()
    names = []
    for word in words[1:] if words and words[0] in ("The", "A", "An") else words:
        if not word[:1].isupper():
            break
        names.append(word.strip(".,'s").casefold())
    return tuple(names)
