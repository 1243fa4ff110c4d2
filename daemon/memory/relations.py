"""How one claim bears on another about the same subject: says the same, replaces it, or
neither, with the rule that said so and how sure it is (a new city, a diet that excludes a
habit, a breakup that ends a partner, a plan done as planned)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Literal

from daemon.memory.values import date_key, match_values, short_for, value_key
from plugins.extractors import lexicon as lx
from plugins.extractors.claims import INJURY, Claim, stem
from projections.text import normalise

Relation = Literal["same", "replaces", "none"]

CONTRADICTION = 0.4
"""The confidence of a replacement that contradicts rather than changes: below every
provenance's threshold, so it is queued as a conflict."""


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
        "medication",
        "medications",
        "medicine",
        "meds",
        "tablets",
        "pills",
        "food",  # "never had a food allergy"
    ]
)

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


# What a person does not stop having by saying so: "I don't have any drug allergies" against
# "is allergic to penicillin" is one of the two wrong, unless they say it changed.
_DENIED = frozenset({"allergy"})

# What a person has once and for all: a different value contradicts rather than updates.
# "Turned 40 last week too": "too" adds the news, not a second age.
_NEVER_TWO = frozenset({"age", "name", "birthday", "birth_year"})
_NEVER_CHANGES = frozenset({"birthday", "birth_year", "origin", "native_language", "birthplace"})


def family_of(attribute: str) -> str:
    return _FAMILIES.get(attribute, attribute)


def positive(claim: Claim) -> bool:
    return not claim.negated and not claim.past


def _hated(claim: Claim) -> bool:
    return claim.negated and not claim.past


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


_HOMES = frozenset(["house", "home", "flat", "apartment", "condo", "bungalow", "cottage"])


def _bought_a_home(claim: Claim) -> bool:
    words = re.findall(r"[\w'-]+", claim.value.casefold())
    head = next((w for w in words if w in _HOMES), None)
    return claim.attribute == "possession" and positive(claim) and head is not None


_FREELANCE = re.compile(r"\b(?:freelance|freelancer|self-employed|contractor)\b", re.IGNORECASE)


def _proper_names(value: str) -> set[str]:
    """The capitalised words of a value ("the LSE master's": lse), which name a place."""
    return {w.casefold() for w in re.findall(r"\b(?-i:[A-Z])[\w&-]+", value)}


def _years_older(new: str, old: str) -> int:
    return int(new) - int(old) if new.isdigit() and old.isdigit() else 0


def relate(new: Claim, old: Claim) -> tuple[Relation, str, float]:
    """Return how ``new`` bears on ``old`` (same subject assumed): relation, rule, confidence."""
    if new.attribute == old.attribute == "work_mode" and positive(new) and positive(old):
        if _work_mode(new.value) == _work_mode(old.value):
            return "same", "same way of working", 1.0
        return "replaces", "works another way now", 0.9 if new.change else 0.8
    in_house = new.attribute == "employer" and positive(new) and new.change and positive(old)
    if in_house and old.attribute == "job" and _FREELANCE.search(old.value):
        # "Lionbridge hired me full-time" ends "works as a freelance translator".
        return "replaces", "employed, no longer freelance", 0.8
    left_a_course = new.attribute == old.attribute == "education" and new.negated and new.change
    if left_a_course and positive(old) and _proper_names(new.value) & _proper_names(old.value):
        # "dropped out of the LSE master's" ends "is doing a master's in economics at LSE".
        return "replaces", "left the course", 0.85
    # "switched from coffee to tea", "moved from Boston to Seattle": the old value is named.
    if new.previous and positive(old) and match_values(new.previous, old.value) != "differs":
        return "replaces", "names the previous value", 0.95
    if (
        new.previous
        and positive(old)
        and old.attribute == "job"
        and _same_work(new.previous, old.value)
    ):
        # "switched from teaching to software testing" ends "works as a primary school teacher".
        return "replaces", "names the previous work", 0.9
    if new.attribute == "any" and new.negated:
        ended = _JOB_WORD.sub("", new.value).strip()  # "quit the cafe job": the cafe
        # "packed in the thursday football" ends "plays five-a-side football on thursdays".
        meets = _values_meet(ended, old.value) or (
            old.attribute in ("hobby", "habit", "activity") and _head_in(ended, old.value)
        )
        if old.attribute not in _LASTING and positive(old) and meets:
            return "replaces", "stopped or left it", 0.85
        if old.attribute == "plan" and positive(old) and _same_outing(new.value, old.value):
            return "replaces", "called off", 0.85
        return "none", "", 0.0
    if _bought_a_home(new) and old.attribute == "housing" and positive(old):
        # "we bought our first house in Glasgow" ends "rents a flat in Glasgow".
        return "replaces", "owns the home now", 0.85 if new.change else 0.8
    gave_up = new.attribute == "possession" and new.negated and new.change and positive(old)
    if gave_up and old.attribute in ("hobby", "habit") and _head_in(new.value, old.value):
        # "sold my violin" ends "plays the violin".
        return "replaces", "gave up what it is done with", 0.75
    if (
        gave_up
        and old.attribute in ("vehicle", "phone", "computer", "possession")
        and _values_meet(new.value, old.value)
    ):
        # "sold the wave last month" ends "owns a Honda Wave motorbike".
        return "replaces", "no longer has it", 0.85
    if new.attribute == "alive" and new.negated:
        # "Kluska passed away" ends "Kluska no longer eats dry food" too (the subject is the
        # same here): nothing of theirs goes on but what lasts (a name, a birthday).
        if old.attribute not in _LASTING:
            return "replaces", "died", 0.85
        return "none", "", 0.0
    if new.attribute == "switch" and positive(new) and positive(old):
        if match_values(new.value, old.value) != "differs":
            return "same", "same choice", 1.0
        proper = new.value[:1].isupper() == old.value[:1].isupper()
        # A switch never ends what stays true of a person (a first language, a name).
        if old.attribute not in _LASTING and (
            (old.single and proper)
            or _same_head(new.value, old.value)
            or old.attribute.startswith("verb:use")
        ):
            return "replaces", "switched to another", 0.7
        return "none", "", 0.0
    if new.attribute == old.attribute == "plan" and positive(old) and positive(new):
        moved = new.when and new.change and _same_outing(new.value, old.value)
        if moved and _rescheduled(new, old):
            # "pushed the Japan trip back to October" moves "visit Japan in April 2025".
            return "replaces", "a new date", 0.85
    if old.attribute == "plan" and positive(old) and positive(new):
        verb, _, planned = old.value.partition(" ")
        moved = new.attribute == "residence" and stem(verb) in (stem("move"), stem("relocate"))
        if moved and _values_meet(new.value, re.sub(r"^(?:to|back\s+to)\s+", "", planned)):
            return "replaces", "moved as planned", 0.85  # "we're finally in perth"
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
    if (
        new.qualifier == "changed mind"
        and family_of(old.attribute) == "likes"
        and not old.past
        and match_values(new.value, old.value) != "differs"
    ):
        return "replaces", "changed their mind", 0.85  # whichever way it went
    counted = _none_against_a_count(new, old)
    if counted is not None:
        return counted
    cross = _cross_attribute(new, old)
    if cross is not None:
        return cross
    if new.negated and new.change and _WHY.search(new.value):
        # "gave up running after the knee surgery": what ended is running; why is not its name.
        new = replace(new, value=_WHY.split(new.value, maxsplit=1)[0])
    if family_of(new.attribute) != family_of(old.attribute):
        return "none", "", 0.0
    if not _same_qualifier(new, old):
        return "none", "", 0.0
    new_any = new.value == "" or (new.negated and _kind_word(new.value))
    old_any = old.value == "" or (old.negated and _kind_word(old.value))
    if new_any or old_any:
        if new_any and (new.negated or new.past) and positive(old):
            if (old.attribute in _LASTING or old.attribute in _DENIED) and not new.change:
                # "no kids" against "has two children": children do not stop being one's
                # children, so it contradicts rather than ends; a person decides.
                return "replaces", "denies what lasts", CONTRADICTION
            return "replaces", "ends every value", 0.9
        if old_any and old.negated and positive(new):
            if old.attribute in _LASTING and not new.change:
                # "my son Leo" against "has no children": he did not just arrive, so one of
                # the two is wrong; a person decides.
                return "replaces", "names one of what was said to be none", CONTRADICTION
            return "replaces", "no longer none", 0.85
        if new_any and new.negated and old.negated:
            return "same", "says none", 1.0
        return "none", "", 0.0
    values = match_values(new.value, old.value)
    if new.attribute in ("partner", "family") and short_for(new.value, old.value):
        values = "equal"  # "Seun and I" of "husband Oluwaseun": one person, called short
    denied = new.negated and not old.negated and not new.change
    if new.attribute == old.attribute == "education" and denied and values != "differs":
        # "I never went to university" against "graduated from the University of Cape Town".
        return "replaces", "says it never studied there", CONTRADICTION
    if values != "differs" and new.attribute == old.attribute == "partner" and positive(new):
        # "my husband Tomás" after "my boyfriend Tomás": the same person, married now.
        before = lx.canonical_relations(old.qualifier or "")
        after = lx.canonical_relations(new.qualifier or "")
        married = after in ("husband", "wife", "spouse")
        if married and before in ("boyfriend", "girlfriend", "fiance") and positive(old):
            return "replaces", "married now", 0.85
        courting = before in ("boyfriend", "girlfriend", "partner", "")
        if after == "fiance" and before != "fiance" and courting and positive(old):
            # "Akosua and I got engaged" after "her name is Akosua": engaged to her now.
            return "replaces", "engaged now", 0.85
    if values == "broader" and new.also and new.attribute == "pet":
        return "none", "", 0.0  # "a second dog" beside "a dog named Rex"
    if values != "differs":
        if _state(new) == _state(old):
            if new.attribute == "plan" and _rescheduled(new, old):
                return "replaces", "a new date", 0.85
            if values == "narrower" and new.attribute == "pet" and " " not in old.value:
                # "a dog named Pretzel" says more than "a dog": kept beside it, not merged away.
                return "none", "", 0.0
            if values == "narrower" and new.attribute == "job" and _ranked_up(new.value, old.value):
                # "senior credit analyst" after "credit analyst": promoted.
                return "replaces", "a new rank", 0.8
            if values == "narrower" and _extra_words(new.value, old.value) > 1:
                # "Lives in the Pearl District of Portland" refines "Lives in Portland": both hold.
                return "none", "", 0.0
            return "same", f"same {family_of(new.attribute)}", 1.0
        if _state(new) == "past" and _state(old) == "negated":
            if new.negated and new.change:
                # "I used to hate jazz but now I put it on": the dislike is what ended.
                return "replaces", "no longer dislikes it", 0.85
            return "same", "both say it ended", 1.0
        if _state(old) == "past" and positive(new) and not new.change:
            # "Used to live in Boston" and then "Lives in Boston" again is a change; without a
            # marker the two can both hold (a past and a present).
            return "replaces", "true again", 0.6
        if not new.negated and not new.change:
            # "I smoke a pack a day" against "is a non-smoker": one is wrong, or it changed
            # unsaid; a person decides (a change word applies it: "smoking again").
            return "replaces", "the opposite, with no change said", CONTRADICTION
        return "replaces", "negation" if new.negated else "the opposite", 0.9
    # Different values.
    if new.alternative and positive(old) and match_values(new.alternative, old.value) != "differs":
        return "replaces", "preferred over the old value", 0.85
    if (
        old.alternative
        and positive(old)
        and positive(new)
        and match_values(old.alternative, new.value) != "differs"
        and (new.attribute == "preference" or (new.attribute == "likes" and new.change))
    ):
        return "replaces", "preference reversed", 0.85
    if not (positive(new) and positive(old)):
        return "none", "", 0.0
    if new.also and new.attribute not in _NEVER_TWO:
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
    if new.attribute == old.attribute == "vehicle" and _wheels(new.value) != _wheels(old.value):
        return "none", "", 0.0  # "bought an e-bike for short trips" beside "drives a Civic"
    if one_at_a_time and _same_qualifier(new, old):
        if old.attribute == "relationship" and _still_true_beside(new.value, old.value):
            return "none", "", 0.0
        if new.attribute == "age" and not new.change and _years_older(new.value, old.value) < 0:
            # "as a 29 year old" against "is 34": an age never goes down, so one is wrong.
            return "replaces", "a younger age, which is no change", CONTRADICTION
        birthday = new.change and new.qualifier == "turning"
        if (
            new.attribute == "age"
            and (not new.change or birthday)
            and _years_older(new.value, old.value) > 5
        ):
            # "I'm 58 and thinking about retirement" against "is 22": no birthday said, and
            # years that no conversation spans; one of the two is wrong. A few years is more
            # likely an age put right ("I'm not 32, I'm 35") than a mistake.
            return "replaces", "years older with no birthday said", CONTRADICTION
        if new.attribute in _NEVER_CHANGES and not new.change:
            # "born in 1991" against "born in 1988": not a change but one of them is wrong;
            # a correction ("actually ...") is a change and applies.
            return "replaces", f"another {new.attribute}, which does not change", CONTRADICTION
        return "replaces", f"one {new.attribute} at a time", 0.95 if new.change else 0.8
    band = "plays in a band called"
    if new.change and new.value.startswith(band) and old.value.startswith(band):
        # "I play bass in a band called Low Tide now": the band before is over.
        return "replaces", "in another band now", 0.75
    if new.change and new.attribute == old.attribute == "computer":
        return "replaces", "switched computers", 0.8
    if new.change and new.attribute == old.attribute == "medication" and not new.also:
        # "now I'm on gliclazide" after "takes metformin": the prescription changed. Without
        # a change word a second medicine is taken beside the first.
        return "replaces", "another medication now", 0.75
    same_verb = new.value.split()[:1] == old.value.split()[:1] and new.value != old.value
    same_pastime = new.attribute == old.attribute and new.attribute in ("habit", "hobby")
    if new.change and same_pastime and not new.past and same_verb:
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
    for w in [
        *("trip", "vacation", "holiday", "visit", "journey", "travel", "tour", "plan", "go"),
        # "gave up my London Marathon place", "the house purchase is off": the same plan
        *("place", "spot", "entry", "ticket", "booking", "purchase", "buy", "my", "the"),
    ]
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
        if _says_none(new) or _says_none(old):
            # "no kids" and "my son Leo": a son is one of the children said to be none.
            return kin_kind(a) == kin_kind(b)
        return a == b or new.value == old.value
    return True


# The kinds of relative a "none" denies: "no kids" covers a son, "no siblings" a sister.
_KIN_KINDS = {
    "son": "child",
    "daughter": "child",
    "kid": "child",
    "baby": "child",
    "stepson": "child",
    "stepdaughter": "child",
    "brother": "sibling",
    "sister": "sibling",
}


def kin_kind(relation: str) -> str:
    """The kind of relative ``relation`` names ("son": "child", "sister": "sibling")."""
    canonical = lx.canonical_relations(relation)
    return _KIN_KINDS.get(canonical, canonical)


def _none_against_a_count(new: Claim, old: Claim) -> tuple[Relation, str, float] | None:
    """ "being an only child" against "has two brothers", "I have 2 kids" against "has no
    children": relatives do not come and go, so without a change one of the two is wrong."""
    pair = {new.attribute, old.attribute}
    if pair != {"family", "family_count"}:
        return None
    none, count = (new, old) if new.attribute == "family" else (old, new)
    if not _says_none(none) or count.negated or count.value in ("0", ""):
        return None
    if kin_kind(none.qualifier or "") != kin_kind(count.qualifier or ""):
        return None
    if new.change:
        return "replaces", "no longer none" if new is count else "ends every value", 0.85
    return "replaces", "denies what lasts", CONTRADICTION


_RANKS = frozenset(
    [
        "senior",
        "lead",
        "principal",
        "head",
        "chief",
        "staff",
        "associate",
        "deputy",
        "assistant",
        "executive",
        "managing",
        "sr",
        "snr",
        "supervising",
        "charge",
        "sous",
    ]
)
_JOINERS = frozenset(["a", "an", "the", "in", "at", "on", "of", "for"])


def _ranked_up(new: str, old: str) -> bool:
    """Whether ``new`` is ``old`` with a rank word put before it."""
    # "a charge nurse in the ER" after "ER nurse": the same post, ranked up, said in its place.
    extra = set(normalise(new).split()) - set(normalise(old).split()) - _JOINERS
    return bool(extra) and extra <= _RANKS


def _same_work(done: str, job: str) -> bool:
    """ "teaching" is what a teacher does, "nursing" a nurse."""
    roots = {re.sub(r"(?:ing|er|or|ist)$", "", w) for w in normalise(job).split() if len(w) > 4}
    return any(
        re.sub(r"ing$", "", w) in roots for w in normalise(done).split() if w.endswith("ing")
    )


def _says_none(claim: Claim) -> bool:
    return claim.negated and not claim.value


_TWO_WHEELS = re.compile(
    r"\b(?:e-?bikes?|bikes?|bicycles?|scooters?|mopeds?|motorbikes?|motorcycles?|vespa|brompton)\b",
    re.IGNORECASE,
)


def _head_in(value: str, other: str) -> bool:
    """The last word of ``value`` (its head noun) is among ``other``'s words."""
    head = value_key(value)[-1:]
    return bool(head) and head[0] in value_key(other)


def _wheels(value: str) -> bool:
    """A bike or a scooter, not a car: one of each is usual."""
    return _TWO_WHEELS.search(value) is not None


_JOB_WORD = re.compile(r"\b(?:job|gig|position|role|post)\b", re.IGNORECASE)
_WHY = re.compile(r"\s+(?:after|because|since|due\s+to|thanks\s+to|once|when)\s+", re.IGNORECASE)
_WEDDING = frozenset({"wedding", "getting married", "marriage", "married"})


def _consumed(value: str) -> set[str]:
    """The stems of what is eaten or drunk, with "alcohol" for any drink of it."""
    key = set(value_key(value))
    if any(w.strip(".,!") in lx.ALCOHOL for w in value.casefold().split()):
        key.add(stem("alcohol"))
    return key


def _takes_what_is_avoided(new: Claim, old: Claim) -> tuple[Relation, str, float] | None:
    """Eating or drinking (a meal, or a habit) what a diet, a condition or an abstinence rules
    out. Said as a change ("eating meat again") it ends the old fact; said plainly ("had three
    beers at the game", "I drink milk every night, no issues") one of the two is wrong, or it
    changed unsaid: a person decides."""
    took = _consumed(new.value)
    if old.attribute == "habit" and old.negated:
        avoided = _consumed(old.value) - {stem("eat"), stem("drink")}
        hit = bool(avoided) and avoided <= took
    elif old.attribute == "diet" and positive(old):
        hit = bool(took & {stem(w) for w in lx.DIET_EXCLUDES.get(old.value.casefold(), ())})
    elif old.attribute == "condition" and positive(old):
        excluded = {
            stem(w)
            for word, foods in lx.CONDITION_EXCLUDES.items()
            if word in old.value.casefold().replace("-", " ").split()
            for w in foods
        }
        hit = bool(took & excluded)
    else:
        return None
    if not hit:
        return "none", "", 0.0
    if new.attribute == "habit" and new.change:
        return "replaces", "takes what it avoided, now", 0.85
    return "replaces", f"takes what the {old.attribute} rules out", CONTRADICTION


def _cross_attribute(new: Claim, old: Claim) -> tuple[Relation, str, float] | None:
    """Rules between two attributes (a diet and an eating habit, a breakup and a partner)."""
    pair = (new.attribute, old.attribute)
    was_wed = new.value in ("divorced", "widowed", "separated") and old.value == "married"
    if pair == ("relationship", "relationship") and was_wed and positive(new) and old.negated:
        # "my first husband and I divorced in 2010" against "has never been married".
        return "replaces", "was married after all", CONTRADICTION
    if (
        new.past
        and new.attribute.startswith("verb:")
        and old.attribute in ("hobby", "habit")
        and positive(old)
        and _head_in(new.value, old.value)
    ):
        # "used to do chess club" ends "plays chess at a club on Thursdays".
        return "replaces", "used to", 0.75
    if pair == ("family", "partner") and positive(new) and positive(old):
        # "my ex-husband Daniel" ends "married to Daniel".
        if (new.qualifier or "").casefold().startswith("ex") and new.value == old.value:
            return "replaces", "an ex now", 0.85
        return None
    if pair == ("plan", "relationship") and positive(new) and positive(old):
        # "Sam and I are getting married in June" ends "dating Sam": engaged now.
        if new.value.casefold() in _WEDDING and old.value in ("in a relationship", "dating"):
            return "replaces", "engaged now", 0.8
        return "none", "", 0.0
    if pair == ("condition", "condition") and new.negated and new.value == INJURY:
        # "cast came off today and the doctor cleared me" ends "has a broken leg"; a lasting
        # illness ("has asthma") is no injury and stays.
        hurt = set(old.value.casefold().split()) & (lx.INJURIES | {"injury", "injured"})
        if positive(old) and hurt:
            return "replaces", "the injury healed", 0.8
        return "none", "", 0.0
    if pair[0] in ("meal", "habit") and positive(new) and not old.past:
        avoided = _takes_what_is_avoided(new, old)
        if avoided is not None:
            return avoided
    eats = new.attribute.startswith("verb:eat") or pair[0] in ("habit", "meal")
    if eats and old.attribute == "allergy" and positive(new) and positive(old) and not new.past:
        # "I've eaten peanut butter every day of my life" against "allergic to peanuts".
        if set(value_key(new.value)) & set(value_key(old.value)):
            return "replaces", "eats what they are said to be allergic to", CONTRADICTION
        return "none", "", 0.0
    if pair == ("family", "family_count") and new.negated and not new.value and positive(old):
        # "no kids" against "has two children": the same relatives, denied.
        same = lx.canonical_relations(new.qualifier or "") == lx.canonical_relations(
            old.qualifier or ""
        )
        if not same:
            return "none", "", 0.0
        if new.change:
            return "replaces", "ends every value", 0.9
        return "replaces", "denies what lasts", CONTRADICTION
    if {"language", "native_language"} == set(pair) and positive(new) and positive(old):
        # "Native Portuguese speaker" says "speaks Portuguese" again (and the reverse).
        if match_values(new.value, old.value) != "differs":
            return "same", "a native language is spoken", 0.9
        return "none", "", 0.0
    if pair == ("language", "learning") and positive(new) and positive(old):
        # "I speak German properly now" ends "is learning German".
        if match_values(new.value, old.value) != "differs":
            return "replaces", "speaks what was being learnt", 0.8
        return "none", "", 0.0
    if pair == ("habit", "diet") and positive(old):
        eaten = set(value_key(new.value))
        excluded = {stem(w) for w in lx.DIET_EXCLUDES.get(old.value.casefold(), ())}
        if eaten & excluded and new.negated:
            return "same", "the diet excludes it", 0.8
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
    if pair == ("relationship", "partner") and positive(new) and positive(old):
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
    loved_and_hated = pair in (("favourite", "likes"), ("likes", "favourite"))
    same_thing = loved_and_hated and match_values(new.value, old.value) != "differs"
    if pair == ("favourite", "likes") and same_thing and positive(new) and _hated(old):
        # "Coriander is my favourite herb" against "hates coriander": the opposite, with no
        # change said a person decides; said as a change ("my favourite now"), it replaces.
        if new.change:
            return "replaces", "now a favourite", 0.85
        return "replaces", "a favourite of what was hated", CONTRADICTION
    if pair == ("likes", "favourite") and same_thing and _hated(new) and positive(old):
        # "can't stand coriander any more" against "coriander is their favourite herb".
        if new.change:
            return "replaces", "no longer a favourite", 0.85
        return "replaces", "hates what was a favourite", CONTRADICTION
    if pair == ("job", "employer") and positive(new) and old.negated and old.value == "":
        # "finally got hired, I'm a dental hygienist" ends "is unemployed".
        return "replaces", "has work now", 0.85
    if pair == ("preference", "preference") and new.change and positive(new) and positive(old):
        # "team iPhone now" against "prefers Android phones": one platform at a time.
        new_side, old_side = _platforms(new.value), _platforms(old.value)
        if new_side and old_side and not new_side & old_side:
            return "replaces", "switched platforms", 0.8
    if pair in (("work", "job"), ("job", "work"), ("work", "work")):
        # "writes software for a living" is what a software engineer does; another kind of
        # work beside a job title is added, not a contradiction (people hold two jobs).
        work, other = (new, old) if new.attribute == "work" else (old, new)
        done = set(value_key(work.value.partition(" ")[2]))  # "writes software": software
        if positive(new) and positive(old) and done & set(value_key(other.value)):
            return "same", "the work the job is", 0.9
        if new.attribute == "work" and new.change and positive(new) and positive(old):
            # "doing freelance translating full time now" after "works as a waiter".
            return "replaces", "works at something else now", 0.75
        return "none", "", 0.0
    if pair == ("trait", "habit") and positive(new) and positive(old):
        if new.value.casefold() == "sober" and {stem("drink"), stem("alcohol")} & set(
            value_key(old.value)
        ):
            return "replaces", "sober now", 0.8
        return "none", "", 0.0
    if pair == ("diet", "habit") and positive(new) and positive(old):
        eaten = set(value_key(old.value))
        if eaten & {stem(w) for w in lx.DIET_EXCLUDES.get(new.value.casefold(), ())}:
            return "replaces", "a diet that excludes the habit", 0.8
        return "none", "", 0.0
    if pair == ("relationship", "partner"):
        if positive(new) and new.value in lx.ENDED_RELATIONSHIP and positive(old):
            return "replaces", "the relationship ended", 0.85
        return "none", "", 0.0
    if pair == ("partner", "relationship"):
        if positive(new) and positive(old) and old.value in ("single", "separated"):
            return "replaces", "a partner now", 0.8
        if (
            new.negated
            and new.value == ""
            and positive(old)
            and old.value not in (lx.ENDED_RELATIONSHIP | {"single"})
        ):
            return "replaces", "the relationship ended", 0.85
        return "none", "", 0.0
    if pair == ("trait", "family") and new.value == "parent" and positive(new):
        if old.negated and old.value == "" and old.qualifier in (None, "child"):
            return "replaces", "a parent now", 0.85
        return "none", "", 0.0
    if pair == ("job", "employer"):
        if new.value == "retired" and positive(new) and positive(old):
            return "replaces", "retired", 0.85
        return "none", "", 0.0
    if pair == ("employer", "job"):
        return "none", "", 0.0
    if pair == ("event", "family") and _says_none(old) and kin_kind(old.qualifier or "") == "child":
        # "we just had a baby boy" ends "has no children".
        if positive(new) and re.search(
            r"\b(?:baby|babies|twins|born|birth|adopted)\b", new.value, re.I
        ):
            return "replaces", "a child now", 0.85
        return "none", "", 0.0
    if (
        pair == ("event", "condition")
        and positive(old)
        and re.search(r"\b(?:baby|babies|twins|birth)\b", new.value, re.I)
    ):
        if old.value.casefold() == "pregnant" or old.value.casefold().startswith("expecting"):
            return "replaces", "the baby was born", 0.85
        return "none", "", 0.0
    return None


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

# Relations one holds with one person at a time (a second manager replaces the first).
_ONE_AT_A_TIME_RELATIONS = frozenset({"manager", "landlord"})


def _extra_words(new: str, old: str) -> int:
    return len(set(value_key(new)) ^ set(value_key(old)))
