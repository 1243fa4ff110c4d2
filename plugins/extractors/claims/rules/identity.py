"""Rules for who someone is: age, birth, origin, name and nickname."""

from __future__ import annotations

import re

from plugins.extractors import lexicon as lx
from plugins.extractors.claims.idioms import NOT_LIKED_KINDS
from plugins.extractors.claims.locations import place_value
from plugins.extractors.claims.model import CHANGED_MIND, TURNING, Claim
from plugins.extractors.claims.phrases import ON_A_DAY, has_date, number
from plugins.extractors.claims.reading import Reading
from plugins.extractors.claims.subjects import ATTRIBUTE_NOUNS, HANDLE_NOUNS, is_name, name_shaped
from plugins.extractors.claims.values import clean_value, vague


class IdentityRules(Reading):
    """Rules for who someone is: age, birth, origin, name, nickname and handles."""

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
        n = number(match.group("n"))
        if n is None or not 0 < n < 120:
            return []
        if not re.search(r"\d", match.group("n")) and "year" not in rest.casefold():
            return []
        return [self.claim("age", str(n))]

    def _birth(self, rest: str, low: str) -> list[Claim] | None:
        match = re.match(r"^born\s+(?:and\s+(?:raised|bred)\s+)?(?P<prep>in|on|at)\s+", low)
        if match is None:
            return None
        value = clean_value(rest[match.end() :]) or rest[match.end() :].strip(" .")
        if re.fullmatch(r"\d{4}", value):
            return [self.claim("birth_year", value, past=False)]
        if match.group("prep") == "on" or has_date(value):
            return [self.claim("birthday", value, past=False)]
        return [self.claim("origin", place_value(value), past=False)]

    def _origin(self, rest: str, low: str) -> list[Claim] | None:
        match = re.match(r"^(?:originally\s+)?from\s+", low)
        if match is None:
            return None
        value = clean_value(rest[match.end() :])
        return [] if vague(value) else [self.claim("origin", place_value(value), past=False)]

    def _own_name(self, rest: str) -> list[Claim] | None:
        s = self.s
        if not s.first_person or s.key != "user" or s.relation is not None:
            return None
        if self.p.negated:
            return None  # "I live in York, not Leeds": a contrast, not a name denied
        words = rest.strip(" .!,").split()
        lower_ok = self.greeted and len(words) == 1 and name_shaped(words[0])
        if not 1 <= len(words) <= 2 or not all(is_name(w, lower_ok=lower_ok) for w in words):
            return None
        if lower_ok:
            words = [w[:1].upper() + w[1:] for w in words]
        if any(w.casefold() in lx.NATIONALITIES | lx.RELIGIONS for w in words):
            return None
        return [self.claim("name", " ".join(words))]

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
            if vague(value):
                return []
            # Which way the mind changed is what memory held before: the reader of the
            # conversation, or reconciliation, turns it around (qualifier "changed mind").
            return [self.claim("likes", value, negated=True, change=True, qualifier=CHANGED_MIND)]
        return [] if self.strict else None

    def _hit_an_age(self, rest: str, low: str) -> list[Claim] | None:
        """ "hit 60 last weekend!", "reached 40 this year": a birthday, told by its number
        alone ("hit 60 mph", "hit 100 followers" name a unit)."""
        match = re.match(
            r"^(?:the\s+big\s+)?(?P<n>\d{2,3}|[a-z]+(?:-[a-z]+)?)(?:\s+years?\s+old)?"
            r"(?=\s*$|\s*[!.,;]|\s+(?:last|this|yesterday|today|on|in|and|lol)\b)",
            low,
        )
        n = number(match.group("n")) if match is not None else None
        if n is None or not 13 <= n <= 110 or self.p.negated or self.p.future:
            return [] if self.strict else None
        return [self.claim("age", str(n), change=True)]

    def _turn(self, rest: str, low: str) -> list[Claim] | None:
        became = re.match(
            r"^(?:me\s+)?into\s+(?:an?\s+)?(?:(?:total|big|real|huge|complete)\s+)?"
            r"(?P<x>[\w-]+)\s+(?:person|fan|addict|lover|nut|fiend|snob)\b",
            low,
        )
        if became is not None and became.group("x") not in NOT_LIKED_KINDS:
            # "I've turned into a coffee person", "it turned me into a chili addict".
            return [self.claim("likes", became.group("x"), change=True)]
        match = re.match(r"^(\d{1,3}|[a-z]+(?:[- ][a-z]+)?)\b", low)
        if match is None:
            return [] if self.strict else None
        n = number(match.group(1))
        if n is None or not 0 < n < 120:
            return [] if self.strict else None
        ahead = self.when is not None and re.match(
            r"(?:tomorrow|next|on|in|this|soon)\b", self.when, re.IGNORECASE
        )
        # "I turn 40 on 30 November": the day is the birthday.
        day = _ON_A_DAY.search(rest)
        birthday = [self.claim("birthday", day.group("day"))] if day is not None else []
        if self.p.progressive or self.p.future or (ahead and self.p.said != "turned"):
            # "turning 30 next saturday": the age a birthday brings, kept unless the same
            # sentence says the age now ("I'm 29 and turning 30": 29).
            return [self.claim("age", str(n), change=True, qualifier=TURNING), *birthday]
        return [self.claim("age", str(n), change=True), *birthday]

    def _call(self, rest: str, low: str) -> list[Claim] | None:
        match = re.match(r"^(?:me|him|her)\s+", low)
        if match is None:
            return [] if self.strict else None
        value = clean_value(rest[match.end() :])
        return [] if vague(value) else [self.claim("nickname", value)]


_ON_A_DAY = re.compile(ON_A_DAY, re.IGNORECASE)
