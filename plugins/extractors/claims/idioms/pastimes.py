"""Idioms for pastimes, likes and things had: a thing named or gone, an event signed up or
trained for, a pastime ended, taken up again or said by its habit, a group disbanded, a book
being written, and what the user likes or has fallen for."""

from __future__ import annotations

import re

from plugins.extractors import lexicon as lx
from plugins.extractors.claims.model import Claim
from plugins.extractors.claims.subjects import is_name
from plugins.extractors.claims.values import clean_value, vague

_THING_NAMED = re.compile(
    r"^(?:my|our)\s+(?:(?:old|new|little|trusty|own|small|first)\s+)*(?P<kind>boat|van|car|truck"
    r"|bike|motorbike|motorcycle|scooter|guitar|piano|violin|plant|farm|shop|cafe|bakery"
    r"|restaurant|business|company|podcast|channel|blog|canoe|kayak|yacht|tractor|camper"
    r"|caravan|ute|jeep|ship|sailboat|food\s+truck)\s+is\s+(?:called|named)\s+"
    r"(?P<name>(?-i:[A-Z])[\w'&-]*(?:\s+(?-i:[A-Z])[\w'&-]*)*)",
    re.IGNORECASE,
)


def thing_named(text: str) -> list[Claim] | None:
    named = _THING_NAMED.match(text)
    if named is None:
        return None
    # "my boat is called Bituin": a thing the user has, and its name.
    kind = named.group("kind").casefold()
    return [Claim("user", "possession", f"{kind} named {named.group('name')}")]


_SIGNED_UP_FOR = re.compile(
    r"\b(?:signed\s+up|registered|entered)\s+(?:for|in)\s+(?:the\s+)?"
    r"(?P<what>(?-i:[A-Z])[\w'-]*(?:\s+(?-i:[A-Z0-9])[\w'-]*)*|[\w -]{2,30}?(?:marathon|half"
    r"|10k|5k|race|triathlon|ultra|swim|ride|trek|hike))"
    r"(?:\s+(?P<when>(?:in|on|this|next)\s+[\w ]{2,20}?))?(?=[,.!;]|\s+(?:and|but|so)\b|\s*$)",
    re.IGNORECASE,
)


def signed_up_for(text: str) -> list[Claim] | None:
    signed_up = _SIGNED_UP_FOR.search(text)
    if signed_up is None:
        return None
    # "signed up for Midnattsloppet in august": an event the user will do.
    what = clean_value(signed_up.group("what"))
    return [Claim("user", "plan", f"do {what}", when=signed_up.group("when"))]


_NOT_BEEN_SINCE = re.compile(
    r"\b(?:haven'?t|have\s+not|hasn'?t)\s+been\s+to\s+(?:the\s+|my\s+|our\s+)?(?P<x>[\w' -]{2,30}?)"
    r"\s+(?:since|in\s+(?:months|ages|years|weeks))\b",
    re.IGNORECASE,
)


def not_been_since(text: str) -> list[Claim] | None:
    away = _NOT_BEEN_SINCE.search(text)
    if away is None or vague(away.group("x")):
        return None
    # "haven't been to chess club since february": that pastime is over.
    return [Claim("user", "any", clean_value(away.group("x")), negated=True, change=True)]


_HUNG_UP = re.compile(
    r"\b(?:hung|hang|hanging)\s+up\s+(?:my|the|our)\s+(?P<x>[a-z][\w-]+)\s+(?:boots|gloves|skates"
    r"|cleats|spikes|racket|racquet|shoes|jersey|whistle|bike)\b",
    re.IGNORECASE,
)


_APRON_HUNG_UP = re.compile(
    r"\b(?:hung|hang|hanging)\s+up\s+my\s+(?:apron|uniform|badge|scrubs|hard\s+hat|stethoscope)\b",
    re.IGNORECASE,
)


def hung_up(text: str) -> list[Claim] | None:
    if _APRON_HUNG_UP.search(text):
        # "hung up my apron at the hotel for good": the job is over.
        return [Claim("user", "job", "", negated=True, change=True)]
    hung = _HUNG_UP.search(text)
    if hung is None:
        return None
    # "hung up the rugby boots": the sport is over.
    return [Claim("user", "any", hung.group("x").casefold(), negated=True, change=True)]


# "the band split up", "our book club folded": a group the user was part of, over.
_DISBANDED = re.compile(
    r"^(?:since\s+|after\s+|when\s+)?(?:the|my|our)\s+(?P<x>band|choir|team|club|book\s+club"
    r"|group|league|crew|troupe|orchestra|ensemble|quartet|trio|duo)\s+(?:has\s+|have\s+|finally\s+)?"
    r"(?:split\s+up|broke\s+up|disbanded|folded|fell\s+apart|called\s+it\s+quits|shut\s+down)\b",
    re.IGNORECASE,
)


def disbanded(text: str) -> list[Claim] | None:
    over = _DISBANDED.match(text)
    if over is None:
        return None
    # "the band split up": what the user did with it is over.
    what = over.group("x").casefold()
    return [Claim("user", "any", what, negated=True, change=True, qualifier="disbanded")]


# "the corolla's gone", "my old bike is gone": a thing the user had, had no more.
_GONE = re.compile(
    r"^(?:the|my|our)\s+(?:old\s+)?(?P<x>[\w-]+)(?:'s|\s+is|\s+has)\s+(?:finally\s+|now\s+"
    r"|officially\s+|long\s+)?gone\b(?!\s+(?:up|down|out|off|to|for|through|crazy|quiet"
    r"|viral|well|bad|wrong|missing|on|back|into|from)\b)",
    re.IGNORECASE,
)


def thing_gone(text: str) -> list[Claim] | None:
    gone = _GONE.match(text)
    if gone is None or lx.is_pet(gone.group("x")) or vague(gone.group("x")):
        return None
    x = gone.group("x").casefold()
    return [Claim("user", "any", x, negated=True, change=True, qualifier="gone")]


# "I'm officially done with uppsala": a change said by what it brought.
_DONE_WITH = re.compile(
    r"\b(?:i'?m|i\s+am)\s+(?:officially\s+|finally\s+|totally\s+)?(?:done|finished)\s+with\s+"
    r"(?P<x>[\w' -]+?)(?=\s+(?:and|but|so|now)\b|[,.!;]|$)",
    re.IGNORECASE,
)


def done_with(text: str) -> list[Claim] | None:
    done = _DONE_WITH.search(text)
    if done is None or vague(clean_value(done.group("x"))):
        return None
    return [Claim("user", "any", clean_value(done.group("x")), negated=True, change=True)]


# "physio cleared me, back to running": a sport taken up again.
_BACK_TO = re.compile(
    r"(?:^|,\s*|\band\s+)(?:now\s+|finally\s+|i'm\s+|im\s+|i\s+am\s+)?back\s+to\s+(?P<act>running|swimming|cycling|climbing|bouldering|skiing|hiking|lifting"
    r"|dancing|surfing|skating|rowing|training|yoga|pilates|the\s+gym|football|tennis|golf)\b",
    re.IGNORECASE,
)


def back_to(text: str) -> list[Claim] | None:
    back = _BACK_TO.search(text)
    if back is None:
        return None
    act = back.group("act").casefold()
    hobby = f"goes {act}" if act.endswith("ing") else f"does {act}"
    return [Claim("user", "hobby", hobby, change=True)]


_MY_THING = re.compile(
    r"^(?P<x>[\w' -]{2,40}?)\s+(?:(?P<not>is\s+not|isn't|isnt|is\s+no\s+longer)\s+|is\s+)"
    r"(?:really\s+)?my\s+thing(?P<now>\s+(?:anymore|any\s+more|now))?\b",
    re.IGNORECASE,
)


def my_thing(text: str) -> list[Claim] | None:
    thing = _MY_THING.match(text)
    if thing is None:
        return None
    # "horror isn't my thing anymore": no longer liked; "hiking is my thing": liked.
    value = clean_value(thing.group("x"))
    if vague(value):
        return None
    negated = bool(thing.group("not"))
    return [Claim("user", "likes", value, negated=negated, change=bool(thing.group("now")))]


_A_PERSON = re.compile(
    r"\b(?:i'?m|i\s+am|im)\s+(?P<not>not\s+|never\s+been\s+|no\s+longer\s+)?(?:(?:now|totally|definitely|such|more|more\s+of|fully|officially"
    r"|a\s+bit\s+of)\s+)*an?\s+(?P<x>cat|dog|morning|night|coffee|tea|beach|mountain|city|summer"
    r"|winter|book|people|early|indoor|outdoor)\s+(?P<who>person|people|guy|girl|gal)\b"
    r"(?P<now>\s+now)?",
    re.IGNORECASE,
)


def a_kind_of_person(text: str) -> list[Claim] | None:
    said = _A_PERSON.search(text)
    if said is None:
        return None
    # "I'm a cat person now": prefers cats; "a morning person": mornings.
    what = said.group("x").casefold()
    value = what if what in ("coffee", "tea", "people") else f"{what}s"
    now = bool(said.group("now")) or re.search(r"\bnow\b", text, re.IGNORECASE) is not None
    negated = bool(said.group("not"))
    return [Claim("user", "preference", value, negated=negated, change=now)]


# "training for the Berlin marathon in September": the event the user plans to do.
_TRAINING_FOR = re.compile(
    r"^(?:i\s*'?m|i\s+am|i\s+have\s+been|i'?ve\s+been)\s+(?:currently\s+)?training\s+for\s+"
    r"(?:the|a|my|an)\s+(?:first\s+)?(?P<event>[\w' -]{0,30}?(?:marathon|half|triathlon|ironman"
    r"|race|10k|5k|ultra|century|sportive|relay))\b(?:\s+(?P<when>in\s+\w+|next\s+\w+|this\s+\w+))?",
    re.IGNORECASE,
)


def training_for(text: str) -> list[Claim] | None:
    training = _TRAINING_FOR.match(text)
    if training is None:
        return None
    event = clean_value(training.group("event"))
    when = training.group("when")
    return [Claim("user", "plan", f"do the {event}", when=when)]


# "I'm writing my first novel": a project of the user's.
_WRITING_A = re.compile(
    r"^(?:i\s*'?m|i\s+am)\s+(?:currently\s+|finally\s+)?(?P<verb>writing|doing|working\s+on)\s+"
    r"(?:my|a|an)\s+(?:(?:first|second|third|new|debut|final\s+year|masters?|phd)\s+)?"
    r"(?P<what>novel|book|memoir|screenplay|thesis|dissertation|play|album|cookbook)\b"
    r"(?:\s+(?:on|about|into)\s+(?P<topic>[\w' -]+?)(?=\s+(?:at|in|for|with)\b|[,.!;]|$))?",
    re.IGNORECASE,
)


def writing_a(text: str) -> list[Claim] | None:
    writing = _WRITING_A.match(text)
    what = writing.group("what").casefold() if writing is not None else ""
    if writing is None or not (
        writing.group("verb").casefold() == "writing" or what in ("thesis", "dissertation")
    ):
        return None
    # "doing my thesis on coastal erosion"; "doing a play" is acting in it.
    topic = f" on {writing.group('topic')}" if writing.group("topic") else ""
    return [Claim("user", "project", f"writing a {what}{topic}")]


# "bouldering 3x a week at the Castle": a pastime said by its habit, without a subject.
_GERUND_HABIT = re.compile(
    r"^(?P<act>[a-z]+ing)\s+(?:(?:\d+x|\d+\s+(?:times|days|mornings|evenings|nights)|once|twice"
    r"|three\s+times|four\s+times)\s+(?:a|per)\s+(?:week|day|month|fortnight)"
    r"|(?:every|most)\s+(?:week|day|weekend|morning|evening|night|month|sunday|monday|tuesday"
    r"|wednesday|thursday|friday|saturday))",
    re.IGNORECASE,
)

# Gerunds of what a week holds that are not pastimes ("working 3 days a week").
_NOT_PASTIMES = lx.words(
    """
    going doing getting being having coming paying eating sleeping commuting driving working
    travelling traveling calling texting meeting seeing visiting taking feeling studying
    waking showering cooking cleaning shopping
    """
)


def gerund_habit(text: str) -> list[Claim] | None:
    habit = _GERUND_HABIT.match(text)
    if habit is None or habit.group("act").casefold() in _NOT_PASTIMES:
        return None
    return [Claim("user", "hobby", f"goes {habit.group('act').casefold()}")]


# "I've fallen in love with running": a new liking (a person fallen for is not a pastime).
_FELL_FOR = re.compile(
    r"^(?:i\s*'?ve\s+|i\s+have\s+|i\s+)?(?:totally\s+|kind\s+of\s+|really\s+)?(?:fallen|fell)"
    r"\s+in\s+love\s+with\s+(?P<x>[\w' -]+)",
    re.IGNORECASE,
)


def fell_for(text: str) -> list[Claim] | None:
    fell = _FELL_FOR.match(text)
    if fell is None:
        return None
    liked = clean_value(fell.group("x"))
    if vague(liked) or is_name(liked.split()[0]):
        return None
    return [Claim("user", "likes", liked, change=True)]


# "scrapped the Melbourne plan", "kicked keto to the curb": something given up, said by a
# figure of speech.
_GIVEN_UP_AS = re.compile(
    r"\b(?:scrapped|ditched|shelved|dropped|binned|called\s+off|gave\s+up\s+on)\s+(?:the|my|our)\s+"
    r"(?P<plan>[\w' -]{2,30}?\s+(?:plan|plans|idea|move))\b"
    r"|\bkicked\s+(?:the\s+)?(?P<x>[\w' -]{2,30}?)\s+to\s+the\s+(?:curb|kerb)\b",
    re.IGNORECASE,
)


def given_up_as(text: str) -> list[Claim] | None:
    given = _GIVEN_UP_AS.search(text)
    if given is None:
        return None
    what = clean_value(given.group("plan") or given.group("x"))
    how = "called off" if given.group("plan") else None
    return (
        None
        if vague(what)
        else [Claim("user", "any", what, negated=True, change=True, qualifier=how)]
    )


# "my whole team got me into padel": a pastime taken up.
_GOT_ME_INTO = re.compile(
    r"\b(?:got|dragged|talked|roped|pulled)\s+me\s+into\s+(?P<x>[a-z][\w' -]{1,25}?)"
    r"(?=\s+(?:and|but|so|now|last|this)\b|\s*[,.!;]|\s*$)",
    re.IGNORECASE,
)


def got_me_into(text: str) -> list[Claim] | None:
    into = _GOT_ME_INTO.search(text)
    if into is None or vague(into.group("x")) or into.group("x").casefold() in ("trouble", "it"):
        return None
    return [Claim("user", "hobby", f"does {clean_value(into.group('x'))}", change=True)]


# "we decided against vancouver, way too expensive": a plan weighed and dropped.
_DECIDED_AGAINST = re.compile(
    r"\b(?:decided|chose)\s+against\s+(?:the\s+)?(?P<x>[\w' -]{2,30}?)(?=\s*[,.;!]|\s+(?:in\s+the"
    r"\s+end|after\s+all|because|cos|since|way|too)\b|\s*$)",
    re.IGNORECASE,
)


def decided_against(text: str) -> list[Claim] | None:
    against = _DECIDED_AGAINST.search(text)
    if against is None or vague(against.group("x")):
        return None
    what = clean_value(against.group("x"))
    return [Claim("user", "any", what, negated=True, change=True, qualifier="decided against")]
