"""A claim in words: one self-contained fact sentence ("The user lives in Lisbon.")."""

from __future__ import annotations

import re

from plugins.extractors import lexicon as lx
from plugins.extractors.claims import (
    CHANGED_MIND,
    ENGAGED_TO,
    NOTE,
    Claim,
    is_school_stage,
    phone_name,
    third_person,
)

# Conditions said as what someone is ("lactose intolerant"), not what someone has.
_CONDITION_ADJECTIVE = re.compile(
    r"(?:intolerant|diabetic|an(?:a)?emic|asthmatic|epileptic|autistic|dyslexic|deaf|blind"
    r"|colou?rblind|c(?:o)?eliac|sober|immunocompromised|insomniac|arthritic)$",
    re.IGNORECASE,
)


def _who(subject: str) -> str:
    if subject == "user":
        return "The user"
    if subject.startswith("user's "):
        return "The " + subject
    return subject


def _mid(who: str) -> str:
    """The subject inside a sentence ("The user" -> "the user")."""
    return "the" + who[3:] if who.startswith("The ") else who


def _possessive(who: str) -> str:
    return f"{who}'" if who.endswith("s") and not who.endswith("'s") else f"{who}'s"


def _a(noun: str) -> str:
    """ "a MacBook", "an iPad", "an HP laptop" is beyond this: "a" unless a vowel starts it."""
    return f"an {noun}" if noun[:1].casefold() in "aeio" else f"a {noun}"


def _article(value: str) -> str:
    v = value.strip()
    if not v or re.match(r"^(?:an?|the|my|his|her|their|some|\d+)\s", v, re.I):
        return v
    if v[:1].isupper() or (v.endswith("s") and not v.endswith("ss")):
        return v
    # "a used car", "a university": a vowel that sounds like "y" or "w" takes "a".
    sounds_y = re.match(r"(?i)(?:us[eu]|uni|eu|one\b)", v) is not None
    return f"an {v}" if v[:1].casefold() in "aeiou" and not sounds_y else f"a {v}"


def _base(verb_phrase: str) -> str:
    """ "eats meat" -> "eat meat" (for "does not ...")."""
    first, _, rest = verb_phrase.partition(" ")
    if first.endswith("ies"):
        first = first[:-3] + "y"
    elif first.endswith(("ches", "shes", "sses", "xes")):
        first = first[:-2]
    elif first.endswith("s") and not first.endswith("ss"):
        first = first[:-1]
    return f"{first} {rest}".strip()


_INSTITUTION = re.compile(
    r"\b(?:academy|high|school|college|university|uni|institute|polytechnic)\b|^St\.?\s|\bstate$",
    re.IGNORECASE,
)


def render(claim: Claim) -> str | None:
    """Return one self-contained sentence saying ``claim``, or None if it says nothing."""
    who = _who(claim.subject)
    v = claim.value.strip()
    if claim.subject == "user":
        # "loves my job at Google": the fact speaks of the user, not as them.
        v = re.sub(r"\b(?:my|our)\b", "their", v, flags=re.IGNORECASE)
    a = claim.attribute
    q = claim.qualifier
    neg, past = claim.negated, claim.past
    whose = _possessive(who)
    # When it happened is the fact's valid time (see claims.when_offset), not its text.
    when = ""
    text: str | None
    if a == "residence":
        text = (
            f"{who} used to live in {v}"
            if past
            else f"{who} no longer lives in {v}"
            if neg
            else f"{who} lives in {v}"
        )
    elif a == "origin":
        text = f"{who} is from {v}"
    elif a == "employer":
        if neg and q in ("laid off", "fired", "let go", "sacked", "made redundant"):
            text = f"{who} was {q}" + (f" from {v}" if v else "")
        elif neg and q in ("quit", "left"):
            text = f"{who} {q} their job" + (f" at {v}" if v else "")
        elif neg:
            text = f"{who} no longer works at {v}" if v else f"{who} left their job"
        elif v == "self-employed":
            text = f"{who} is self-employed"
        else:
            text = f"{who} used to work at {v}" if past else f"{who} works at {v}"
    elif a == "job":
        if v == "retired":
            text = f"{who} retired from {q}" if q else f"{who} is retired"
        elif v.startswith("teaches "):
            text = f"{who} {v}"
        elif past and q == "retired":
            # "I'm a retired nurse": what they were, said the way they said it.
            text = f"{who} is a retired {_ARTICLE.sub('', v)}"
        else:
            verb = "used to work" if past else "no longer works" if neg else "works"
            text = f"{who} {verb} as {_article(v)}"
    elif a == "medication":
        text = f"{who} takes {v}" if not neg else f"{who} no longer takes {v}"
    elif a == "housing":
        text = f"{who} {v}" if not neg else None
    elif a == "blood_type":
        text = f"{whose} blood type is {v}"
    elif a == "work_field":
        # "I've never worked in coffee" is no field of work; "used to work in retail" was one.
        text = None if neg else f"{who} used to work in {v}" if past else f"{who} works in {v}"
    elif a == "work_mode":
        remote = v in ("remote", "remotely", "from home")
        # "works remotely, from home": both words people search by.
        text = f"{who} works remotely" + (", from home" if v == "from home" else "")
        text = text if remote else f"{who} works {v}"
    elif a == "relationship":
        if q in ("broke up", "split up") and not neg:
            text = f"{who} {q} with their partner and is {v}"
        else:
            text = f"{who} is not {v}" if neg else f"{who} is {v}"
    elif a == "partner":
        if neg:
            text = f"{who} is no longer with {v}" if v else None
        else:
            text = (
                f"{who} is married to {v}"
                if q == "spouse"
                else f"{who} is engaged to {v}"
                if q == ENGAGED_TO
                else f"{whose} {q or 'partner'} is {v}"
            )
    elif a == "age":
        text = f"{who} is in their {v}" if v.endswith("s") else f"{who} is {v} years old"
    elif a == "birthday":
        text = f"{whose} birthday is {v}"
    elif a == "birth_year":
        text = f"{who} was born in {v}"
    elif a == "name":
        text = f"{whose} name is {v}"
    elif a == "surname":
        text = f"{whose} surname is {v}"
    elif a == "nickname":
        text = f"{who} goes by {v}"
    elif a == "diet" and v.casefold() in lx.DIETS:
        text = f"{who} is no longer {v}" if neg or past else f"{who} is {v}"
    elif a == "diet":
        # "the Mediterranean diet": a way of eating, not a word for the eater.
        text = f"{who} no longer follows a {v} diet" if neg or past else f"{who} follows a {v} diet"
    elif a == "allergy":
        text = f"{who} is not allergic to {v}" if neg else f"{who} is allergic to {v}"
    elif a == "condition":
        if q == "healed":
            text = f"{_possessive(who)} {v} has healed"
        elif v.startswith("expecting "):
            text = f"{who} is {v}"
        elif v == "pregnant":
            text = f"{who} is no longer pregnant" if neg else f"{who} is pregnant"
        elif not v and neg:
            text = f"{who} has no known health conditions"
        elif _CONDITION_ADJECTIVE.search(v):
            text = f"{who} is no longer {v}" if neg or past else f"{who} is {v}"
        else:
            text = f"{who} no longer has {v}" if neg or past else f"{who} has {v}"
    elif a == "pet":
        # "dog Pepper" is a dog named Pepper; "guinea pig" is a kind of its own.
        words = v.split()
        first_name = next((i for i, w in enumerate(words) if w[:1].isupper()), len(words))
        kind, name = " ".join(words[:first_name]), " ".join(words[first_name:])
        pet = f"a {kind} named {name}" if name else _article(kind) if kind else "pets"
        text = f"{who} no longer has {pet}" if neg else f"{who} has {pet}"
        if neg and not v:
            text = f"{who} has no pets"
        if q == "renamed" and name and not neg:
            text = f"{_possessive(who)} {kind}'s name is now {name}"
    elif a == "family":
        theirs = _possessive(_mid(who))
        if neg:
            text = (
                f"{who} has no {lx.plural(q) if q else 'family'}"
                if not v
                else f"{v} is no longer {theirs} {q}"
            )
        elif v and v != q:
            text = f"{v} is {theirs} {q}" if q else f"{v} is family of {_mid(who)}"
        else:
            text = f"{who} has {_article(q or v)}"
    elif a == "family_count":
        text = f"{who} has {v} {q}ren" if q == "child" else f"{who} has {v} {q}s"
    elif a == "likes":
        if past:
            text = f"{who} used to like {v}"
        elif neg and claim.change:
            text = f"{who} no longer likes {v}"
        elif q == "can't stand":
            text = f"{who} can't stand {v}"
        elif q is not None and q != CHANGED_MIND:
            text = f"{who} {third_person(q)} {v}"
        else:
            text = f"{who} dislikes {v}" if neg else f"{who} likes {v}"
    elif a == "preference":
        alt = f" over {claim.alternative}" if claim.alternative else ""
        text = f"{who} does not prefer {v}" if neg else f"{who} prefers {v}{alt}"
    elif a == "favourite":
        text = f"{whose} favourite {q or 'thing'} is {v}"
    elif a in ("habit", "hobby"):
        if past:
            text = f"{who} used to {_base(v)}"
        elif neg:
            text = f"{who} no longer {v}" if claim.change else f"{who} does not {_base(v)}"
        else:
            text = f"{who} {v}"
    elif a == "language":
        text = f"{who} speaks {v}"
    elif a == "project":
        # "writing a novel": what the user is working on.
        text = f"{who} is no longer {v}" if neg or past else f"{who} is {v}"
    elif a == "learning":
        taking = re.search(r"\b(?:class|classes|course|lessons)$", v, re.I)
        text = f"{who} is taking {_article(v)}" if taking else f"{who} is learning {v}"
    elif a == "vehicle":
        car = _a(v) if v[:1].isupper() and not v.endswith("s") else _article(v)  # "a Honda Civic"
        text = f"{who} no longer has {car}" if neg else f"{who} drives {car}"
        text = f"{who} used to drive {car}" if past and not neg else text
    elif a in ("phone", "computer"):
        v = phone_name(v) if a == "phone" else v
        device = v if re.match(r"^(?:an?|the|my|their)\s", v, re.I) else _a(v)
        if neg:
            text = f"{who} no longer uses {device}"
        elif past:
            text = f"{who} used to use {device}"
        else:
            text = f"{who} switched to {device}" if claim.change else f"{who} uses {device}"
    elif a == "possession":
        text = f"{who} no longer has {_article(v)}" if neg else f"{who} has {_article(v)}"
    elif a == "plan":
        if neg:
            text = f"{whose} {v} was cancelled"
        else:
            verb = v.split(" ", 1)[0]
            if not claim.when:
                # "she's moving to Pasadena": an arranged move needs no date to be a plan.
                text = f"{who} plans to {v}" if verb in ("move", "relocate") else None
            elif verb.islower() and verb in lx.PLANNED_VERBS:
                text = f"{who} plans to {v} {claim.when}"  # "plans to run the marathon in october"
            else:
                text = f"{whose} {v} is {claim.when}"
    elif a == "education":
        if q == "graduated":
            text = f"{who} graduated from {v}" if v else f"{who} graduated"
        elif neg:
            text = f"{who} dropped out of {v}" if v else f"{who} dropped out"
        elif past and not claim.change and claim.qualifier is None and " at " in v:
            text = f"{who} studied {v}"  # "I studied law at Bristol"
        elif past:
            owned = v if v[:1].isupper() or v.startswith(("a ", "an ", "the ")) else f"their {v}"
            text = f"{who} finished {owned}"
        elif is_school_stage(v):
            text = f"{who} is in {v}"
        elif q == "student" and not past:
            parts = re.split(r"\s+(in|at)\s+", v, maxsplit=1)  # "med in almaty"
            where = f" {parts[1]} {parts[2]}" if len(parts) == 3 else ""
            text = f"{who} is {_a(parts[0])} student{where}"
        elif _INSTITUTION.search(v) and " at " not in v and " in " not in v:
            text = f"{who} goes to {v}"  # "Hartley Academy", "St Mary's"
        elif re.match(r"(?:university|college|uni|school|sixth form)\s+(?:at|in)\s", v, re.I):
            text = f"{who} goes to {v}"  # "university at York"
        elif re.match(r"(?:a|an|the)\s", v, re.I):
            text = f"{who} goes to {v}"  # "a colegio in medellín"
        else:
            text = f"{who} studies {v}"
    elif a == "school_year":
        text = f"{who} is {_a(v)}" if not (neg or past) else None
    elif a == "degree":
        text = f"{who} has {_article(v)}"
    elif a == "trait":
        text = f"{who} is a parent" if v == "parent" else f"{who} is {v}"
    elif a in ("nationality", "religion"):
        text = f"{who} is {v[:1].upper() + v[1:]}"
    elif a == "fear":
        text = f"{who} is afraid of {v}"
    elif a == "handle":
        plural = (q or "").endswith("s")
        text = f"{whose} {q or 'handle'} {'are' if plural else 'is'} {v}"
    elif a == "native_language":
        text = f"{whose} native language is {v}"
    elif a == "event":
        text = f"{who} {v}"
    elif a == "alive":
        text = f"{who} passed away" if neg else None
    elif a == "work":
        text = f"{who} {v} for a living" if not (neg or past) else None
    elif a == "any":
        if q == "no more":
            text = f"No more {v} for {_mid(who)}" if v else None
        elif q == "gone":
            text = f"{who} no longer has the {v}" if v else None
        elif q == "called off":
            text = f"{who} called off the {v}" if v else None
        elif q == "decided against":
            text = f"{who} decided against {v}" if v else None  # not "left": never went
        elif q == "disbanded":
            text = f"{_possessive(who)} {v} split up" if v else None
        elif v[:1].isupper():
            text = f"{who} left {v}"  # "left Perth", "quit Tesco"
        else:
            text = f"{who} stopped {v}" if v else None
    elif a == "switch":
        text = f"{who} switched to {v}"
    elif a == NOTE:
        text = claim.value.rstrip(".")  # said over already (see statements.notes)
    else:
        text = None
    if text is None:
        return None
    return text + when + "."


_ARTICLE = re.compile(r"^(?:an?|the)\s+", re.IGNORECASE)
