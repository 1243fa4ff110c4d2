"""Rules for where someone lives, moved to, grew up, comes from, and travels."""

from __future__ import annotations

import re
from dataclasses import replace

from plugins.extractors import lexicon as lx
from plugins.extractors.claims.locations import place_value
from plugins.extractors.claims.model import Claim
from plugins.extractors.claims.phrases import date_phrase, strip_det
from plugins.extractors.claims.reading import Reading
from plugins.extractors.claims.subjects import EVENT_ALT
from plugins.extractors.claims.values import clean_value, vague, when_of
from plugins.extractors.claims.words import VERBS, stem


def arriving_from(r: Reading, rest: str, low: str) -> list[Claim] | None:
    """ "my sister Maya is flying in from Porto": where someone coming over lives (the user's
    own trips say nothing of where they live); None when nobody arrives from anywhere."""
    arriving = re.match(r"^(?:in\s+|over\s+|down\s+|up\s+|back\s+)?from\s+", low)
    if arriving is None:
        return None
    if r.s.key == "user":
        return []
    where = re.split(r"\s+(?:to|for|on|next|this|tomorrow)\b", rest[arriving.end() :])[0]
    value = clean_value(where)
    return [] if vague(value) else [r.claim("residence", place_value(value))]


_TOWN_CALLED = re.compile(
    r"\b(?:town|village|suburb|city|hamlet|neighbou?rhood|place|island)\s+(?:called|named)\s+"
    r"(?P<town>(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+){0,2})",
    re.IGNORECASE,
)


_FOR_A_TIME = re.compile(
    r"\b(?:for\s+(?:a|the|two|three|\d+|a\s+few|a\s+couple\s+of)\s+(?:\w+\s+)?"
    r"(?:days?|nights?|weeks?|months?|weekend)|until|till|over\s+(?:the\s+)?(?:weekend|summer"
    r"|holidays?|christmas))\b|\b(?:hotel|hostel|airbnb)\b",
    re.IGNORECASE,
)


# "living on gas station burritos", "live on ramen and savings": what one lives off, said with
# no article; a place one lives on has one ("on a boat", "on the coast") or a name ("on Elm St").
_LIVED_OFF = re.compile(
    r"^(?!(?:the|a|an|my|our|this|that|campus|base|site|board|premises)\b)(?-i:[a-z])",
    re.IGNORECASE,
)


class HomeRules(Reading):
    """Rules for where someone lives, moved to, grew up, comes from, and travels."""

    def _residence_state(self, rest: str, low: str) -> list[Claim] | None:
        match = re.match(
            r"^(?:based|located|living|settled|stationed|posted|deployed|staying|residing)\s+"
            r"(?:in|at|out of|near|outside(?: of)?|around)\s+",
            low,
        )
        if match is None:
            match = re.match(r"^(?:moved|relocated|transferred)\s+(?:back\s+)?to\s+", low)
            if match is None:
                return self._posted(rest, low)
            return self._moved(rest[match.end() :])
        value = clean_value(rest[match.end() :])
        value = re.split(r"\s+and\s+(?=[a-z])", value, maxsplit=1)[0]  # "Thionville and commute"
        return [] if vague(value) else [self.claim("residence", place_value(value))]

    def _posted(self, rest: str, low: str) -> list[Claim] | None:
        """ "(currently) posted to Kaduna", "redeployed to Maiduguri since last week": where a
        posting puts someone is where they live now."""
        match = re.match(
            r"^(?:currently\s+|now\s+|just\s+)?(?:posted|deployed|redeployed|reposted|stationed"
            r"|seconded|reassigned)\s+(?:back\s+)?to\s+",
            low,
        )
        if match is None:
            return None
        # "posted to Kumasi by MTN": who posted them is no part of where.
        value = clean_value(re.split(r"\s+by\s+", rest[match.end() :], maxsplit=1)[0])
        return [] if vague(value) else [self.claim("residence", place_value(value), change=True)]

    def _live(self, rest: str, low: str) -> list[Claim] | None:
        rest = re.sub(r"^(?:alone|together|happily|full[- ]time)\s+", "", rest, flags=re.I)
        called = _TOWN_CALLED.search(rest)
        if called is not None:
            # "just outside Austin, in a little town called Dripping Springs": the town named.
            return [self.claim("residence", clean_value(called.group("town")))]
        # "i live across the border in Thionville", "just over the river in Leith".
        rest = re.sub(
            r"^(?:just\s+)?(?:across|over|up|down)\s+(?:the\s+)?(?:border|river|road|street|bay|hill"
            r"|water|valley)\s+(?=in\s)",
            "",
            rest,
            flags=re.I,
        )
        low = rest.casefold()
        with_whom = re.match(
            r"^with\s+(?P<who>.+?)(?:\s+(?:in|at|near|outside)\s+(?P<where>.+))?$", rest, re.I
        )
        if with_whom is not None:
            out = []
            if with_whom.group("where"):
                where = clean_value(with_whom.group("where"))
                if not vague(where):
                    out.append(self.claim("residence", place_value(where)))
            who = clean_value(with_whom.group("who"))
            if who and not self.strict:
                out.append(self.claim("lives_with", strip_det(who)))
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
                return [self.claim("residence", place_value(clean_value(far.group("place"))))]
            return [] if self.strict else None
        value = clean_value(rest[match.end() :])
        if match.group(0).strip() == "on" and _LIVED_OFF.search(value) is not None:
            return []  # "living on gas station burritos", "live on ramen and savings"
        value = re.split(r"\s+and\s+(?=[a-z])", value, maxsplit=1)[0]  # "Thionville and commute"
        return [] if vague(value) else [self.claim("residence", place_value(value))]

    def _stay(self, rest: str, low: str) -> list[Claim] | None:
        """ "my mother stays in Osaka", "I stay in Lekki": where one lives, as said in India,
        Nigeria or South Africa; "I'm staying in Rome for a week" is a visit."""
        p = self.p
        if p.said.casefold() not in ("stay", "stays") or p.progressive or p.negated or p.modal:
            return None  # "we stayed in Kyoto": a trip
        if re.match(r"^in\s+(?-i:[A-Z])", rest) is None or _FOR_A_TIME.search(rest):
            return None
        return self._live(rest, low)

    def _move(self, rest: str, low: str) -> list[Claim] | None:
        inside = re.match(r"^in\s+with\s+.+?\s+(?:in|near)\s+(?P<where>.+)$", rest, re.I)
        if inside is not None:
            return self._moved(inside.group("where"))
        event = re.match(
            rf"^(?:the|my|our)\s+(?P<what>(?:[\w\-]+\s+)?(?:{EVENT_ALT}))\b"
            r"(?:\s+(?:to|until)\s+(?P<when>.+))?",
            rest,
            re.I,
        )
        if event is not None:
            when = date_phrase(event.group("when")) if event.group("when") else None
            return [self.claim("plan", event.group("what"), change=True, when=when)]
        match = re.match(
            r"^(?:(?:the\s+(?:whole\s+)?family|my\s+family|our\s+family|us|everyone|the\s+kids"
            r"|everything)\s+)?(?:back\s+|over\s+|out\s+|here\s+|away\s+|down\s+|up\s+|across\s+)?"
            r"(?:to|into)\s+",
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
            return [self.claim("residence", place_value(value), negated=True, change=True)]
        return []

    def _settle(self, rest: str, low: str) -> list[Claim] | None:
        # "finally settled in Cuenca after two months of boxes": moved there.
        match = re.match(r"^(?:down\s+|in\s+at\s+)?in(?:to)?\s+", low)
        if match is None:
            return []
        where = re.split(r"\s+(?:after|with|since|for|and|but|so)\b", rest[match.end() :])[0]
        if re.match(
            r"^(?:the|my|our|a)\s+(?:new\s+)?(?:job|role|routine|team|school|course)\b", where, re.I
        ):
            return []  # "still settling into the new job": no home
        return self._moved(where)

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
        moved = [self.claim("residence", place_value(value), change=True)]
        job = _FOR_A_JOB_AT.search(target)
        if job is not None and not vague(job.group("org")):
            # "moved to Cape Town last week for a job at Groote Schuur": the new employer too.
            moved.append(self.claim("employer", clean_value(job.group("org")), change=True))
        return moved

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
        return [] if vague(value) else [self.claim("origin", place_value(value), past=False)]

    def _come(self, rest: str, low: str) -> list[Claim] | None:
        match = re.match(r"^(?:originally\s+)?from\s+", low)
        if match is None:
            return [] if self.strict else None
        value = clean_value(rest[match.end() :])
        return [] if vague(value) else [self.claim("origin", place_value(value), past=False)]

    def _travel(self, rest: str, low: str) -> list[Claim] | None:
        arriving = arriving_from(self, rest, low)
        if arriving is not None:
            return arriving
        match = re.match(r"^(?:back\s+)?(?:to|for)\s+", low)
        if self.p.head == stem("visit"):
            match = re.match(r"^", low)
        if match is None:
            return [] if self.strict else None
        target = rest[match.end() :]
        value = clean_value(target)
        when = when_of(target)
        first = value.split(" ", 1)[0]
        if vague(value) or (first.islower() and stem(first) in VERBS):
            # "going to try making it tonight" is an intention, not a destination.
            return [] if self.strict else None
        noun = {stem("fly"): "flight to", stem("visit"): "visit to"}.get(self.p.head, "trip to")
        event = f"{noun} {value}"
        if self.p.negated:
            return [self.claim("plan", event, negated=True, change=True)]
        if when is None or self.p.past or not (self.p.future or self.p.progressive):
            return [] if self.strict else None
        return [self.claim("plan", event, when=when)]


_FOR_A_JOB_AT = re.compile(
    r"\bfor\s+(?:a|an|the|my)\s+(?:new\s+)?(?:job|position|role|post|contract)\s+(?:at|with)\s+"
    r"(?P<org>(?-i:[A-Z])[\w&'-]*(?:\s+(?-i:[A-Z])[\w&'-]*)*)",
    re.IGNORECASE,
)
