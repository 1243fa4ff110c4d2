"""Rules for tastes and pastimes: likes, preferences, diet, sports, languages, habits."""

from __future__ import annotations

import re

from plugins.extractors import lexicon as lx
from plugins.extractors.claims.model import Claim
from plugins.extractors.claims.phrases import as_gerund, diet_of, strip_det, third_person
from plugins.extractors.claims.rules.home import HomeRules
from plugins.extractors.claims.things import computer_in, is_vehicle_named, phone_in, vehicle_in
from plugins.extractors.claims.values import (
    OFTEN,
    QUANTITY,
    clean_value,
    habitual,
    split_values,
    vague,
)
from plugins.extractors.claims.words import HABITUAL_VERBS, IRREGULAR, stem, stems


class PastimeRules(HomeRules):
    """Rules for tastes and pastimes: likes, preferences, diet, sports, languages, habits."""

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
        return [self.claim("likes", v) for v in split_values(value)]

    def _device_or_car(self, what: str) -> list[Claim] | None:
        """The phone, computer or car a phrase names, as the user's new one."""
        for attribute, found in (
            ("phone", phone_in(what)),
            ("computer", computer_in(what)),
            ("vehicle", vehicle_in(what) if is_vehicle_named(what) else None),
        ):
            if found is not None:
                return [self.claim(attribute, found, change=True)]
        return None

    def _pick_up(self, rest: str, low: str) -> list[Claim] | None:
        """ "Picked up pottery": a new pastime (not "picked up the kids"); "picked up the Ioniq
        5": the car (or phone) bought."""
        match = re.match(r"^up\s+", low)
        if match is not None and not (self.p.future or self.p.modal or self.p.negated):
            bought = self._device_or_car(rest[match.end() :])
            if bought is not None:
                return bought
        value = clean_value(rest[match.end() :]) if match else ""
        if not value or vague(value) or not (_is_activity(value) or value.casefold() in _PASTIMES):
            return [] if self.strict else None
        return [self.claim("hobby", f"does {value}", change=True)]

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
            value = as_gerund(value)
        if value.casefold() in ("it", "them", "that") and self.antecedent:
            plural = re.search(r"[^s]s$", self.antecedent.split(" ")[-1]) is not None
            if (value.casefold() == "them") != plural:
                return []  # "he hates them" after "I'm vegetarian": some plural said in passing
            value = self.antecedent
        if vague(value):
            return []
        # The verb as said ("can't stand", "loves") is kept for the sentence memory writes.
        how = "can't stand" if p.head in (stem("stand"), stem("bear")) else _base_verb(p.said)
        return [self.claim("likes", v, negated=negated, qualifier=how) for v in split_values(value)]

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
        bare = not value or re.match(r"^(?:alcohol|booze|at\s+all|anymore|any\s*more)\b", low)
        if self.p.head == stem("drink") and self.p.negated and bare:
            return [self.claim("habit", "drinks alcohol", negated=True)]  # "I don't drink"
        if vague(value) or re.match(
            r"^(?:out|in|lunch|dinner|breakfast|a lot|well)\b", value, re.I
        ):
            return [] if self.strict else None
        if self.p.future and not self.p.negated:
            return []
        said = self.p.said.casefold()
        once = (said in IRREGULAR or said.endswith("ed")) and not self.p.negated
        verb = {stem("eat"): "eats", stem("drink"): "drinks"}.get(self.p.head, "eats")
        one_time = self.when is not None and not habitual(self.when)
        if once and (one_time or re.match(r"^(?:an?|the|this|that|some|one|\d+)\s", value, re.I)):
            # "ate a shoe", "ate meat yesterday": a meal, not what the user eats; kept only to
            # compare ("had three beers" against "does not drink").
            return [] if self.strict else [self.claim("meal", f"{verb} {strip_det(value)}")]
        return [self.claim("habit", f"{verb} {strip_det(value)}")]

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
            value = value[played.end() :] if played else as_gerund(value)
        if vague(value) or self.p.past or _HOW_ONE_LEARNS.fullmatch(value):
            return []  # "I'm learning fast" says how, not what
        return [self.claim("learning", v) for v in split_values(value)]

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
            r"^(?:in|on|for|at)\s+(?:an?|the|my|our)\s+(?:[\w\-]+\s+)?(?P<game>[\w\-]+)\s+"
            r"(?:league|team|club|band|orchestra)\b",  # "i play at a chess club every thursday"
            low,
        )
        if league is not None:
            return [self.claim("hobby", f"plays {league.group('game')}")]
        value = _PLAY_TAIL.sub("", clean_value(rest))
        if re.match(r"^\d+\s*(?:x|times|nights|days|evenings|mornings|afternoons)\b", value, re.I):
            return [] if self.strict else None  # "I play 4 nights a week": how often, not what
        if vague(value) or re.match(
            # "played a top team", "played together for years": a match, not a game played.
            r"^(?:with|around|along|games? with|an?|for|together|professionally|against|at"
            r"|in|on|well|hard|it|again)\b",
            value,
            re.I,
        ):
            return [] if self.strict else None
        return [self.claim("hobby", f"plays {strip_det(value)}")]

    def _go_by(self, rest: str, low: str) -> list[Claim] | None:
        diet = diet_of(
            clean_value(
                re.sub(r"^(?:fully|full|totally|completely)\s+", "", rest, flags=re.I)
            ).casefold()
        )
        if diet is not None:
            return [self.claim("diet", diet, change=True, negated=False)]
        chose = re.match(r"^with\s+", low)
        if chose is not None and not self.p.future:
            # "went with a Pixel 9 in the end": the phone (or laptop, or car) chosen.
            chosen = self._device_or_car(rest[chose.end() :])
            if chosen is not None:
                return chosen
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

    def _avoid(self, rest: str, low: str) -> list[Claim] | None:
        value = clean_value(rest)
        if vague(value):
            return []
        return [self.claim("habit", f"eats {strip_det(value)}", negated=True)]

    def _follow(self, rest: str, low: str) -> list[Claim] | None:
        diet = re.match(r"^(?:an?\s+|the\s+)?(?:strict\s+)?(?P<diet>[\w\- ]+?)\s+diet\b", low)
        if diet is not None:
            value = diet_of(diet.group("diet")) or diet.group("diet")
            return [self.claim("diet", value)]
        return [] if self.strict else None

    def _do(self, rest: str, low: str) -> list[Claim] | None:
        value = clean_value(QUANTITY.sub("", rest))
        # "woodworking in my garage": where it is done is not what is done.
        value = re.sub(r"\s+(?:in|at)\s+(?:my|our|the)\s+[\w' -]+$", "", value, flags=re.I)
        if self.p.negated and self.p.change and not vague(value):
            # "not doing chicago anymore": whatever was to be done with it is off.
            return [self.claim("any", strip_det(value), negated=True, change=True)]
        diet = diet_of(re.split(r"\s+(?:since|for|now|these\s+days)\b", value.casefold())[0])
        if diet is not None and not self.p.negated:
            return [self.claim("diet", diet, change=self.p.change)]  # "doing keto since dec 1"
        paid = _FOR_WORK.search(value)
        said_when = _FOR_WORK.fullmatch(self.when or "") is not None
        if (paid is not None or said_when) and not self.p.negated:
            # "doing freelance translating full time now": the work, not a pastime.
            what = value if paid is None else value[: paid.start()] + value[paid.end() :]
            what = clean_value(what)
            if what and not vague(what):
                return [self.claim("work", f"does {strip_det(what)}", change=self.p.change)]
        if vague(value) or not _is_activity(value):
            return [] if self.strict else None
        return [self.claim("hobby", f"does {strip_det(value)}")]

    def _habitual(self, rest: str, low: str) -> list[Claim] | None:
        # "started swimming" is a habit begun, not something going on.
        begun = self.p.start and not self.p.future
        if self.p.progressive and not self.p.negated and not OFTEN.search(rest) and not begun:
            return [] if self.strict else None
        said = self.p.said.casefold()
        if (said in IRREGULAR or said.endswith("ed")) and not self.p.negated:
            # "ran the Berlin Marathon": something done, not a habit.
            value = clean_value(rest)
            return [] if vague(value) else [self.claim("event", f"{said} {value}")]
        verb = {stem(v): v for v in HABITUAL_VERBS.split()}.get(self.p.head, "")
        value = clean_value(rest)
        lessons = re.match(r"^(?P<what>lessons|classes|class|lesson)\b", value, re.I)
        if lessons is not None and self.p.said.casefold().endswith("ing"):
            # "started swimming lessons": lessons taken, not a stroke swum.
            taken = f"{self.p.said.casefold()} {lessons.group('what').casefold()}"
            return [self.claim("learning", taken)]
        if re.match(r"^[a-z]{3,}ing\b", value):
            value = ""  # "i run, training for the 10k": what the running is for, said after
        if value.casefold() in ("everywhere", "a lot", "daily", "every day"):
            value = ""
        third = third_person(verb)
        return [self.claim("hobby", f"{third} {value}".strip())]


_FOR_WORK = re.compile(
    r"\s*\b(?:full[\s-]time|part[\s-]time|for\s+a\s+living|professionally)\b", re.I
)

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

_DISLIKE = stems("hate dislike detest loathe despise")

_ACTIVITY = re.compile(
    r"(?:ing|ics|graphy|yoga|pilates|crossfit|karate|judo|ballet|taekwondo|archery|pottery|tai chi"
    r"|kung fu|aikido|jiu[- ]jitsu|boxing|parkour|triathlons?|marathons?|improv|theatre|theater"
    r"|calligraphy|origami|woodwork|embroidery)$",
    re.IGNORECASE,
)


_HOW_ONE_LEARNS = re.compile(
    r"(?:so\s+|really\s+|pretty\s+)?(?:fast|quickly|slowly|a\s+lot|so\s+much|loads|heaps|every\s+day"
    r"|on\s+the\s+job|the\s+hard\s+way|as\s+i\s+go)",
    re.IGNORECASE,
)


def _is_activity(value: str) -> bool:
    return bool(_ACTIVITY.search(strip_det(value).split(" (")[0].strip()))


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


def _base_verb(word: str) -> str | None:
    """The verb a preference was said with ("loves" -> "love"), for the sentence memory
    writes; None when it is the plain "like"."""
    base = {
        stem(v): v
        for v in ["love", "hate", "enjoy", "adore", "dislike", "detest", "loathe", "despise"]
    }
    return base.get(stem(word))
