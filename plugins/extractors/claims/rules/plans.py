"""Rules for planned events: planning, cancelling, rescheduling, celebrating."""

from __future__ import annotations

import re

from plugins.extractors.claims.model import Claim
from plugins.extractors.claims.phrases import date_phrase, strip_det
from plugins.extractors.claims.reading import Reading
from plugins.extractors.claims.values import clean_value, vague, when_of


class PlanRules(Reading):
    """Rules for planned events: planning, cancelling, rescheduling, celebrating."""

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
        return [self.claim("plan", strip_det(value), when=when_of(target))]

    def _cancel(self, rest: str, low: str) -> list[Claim] | None:
        value = clean_value(re.sub(r"^(?:my|our|the)\s+", "", rest, flags=re.I))
        if vague(value):
            return []
        return [self.claim("any", value, negated=True, change=True)]

    def _reschedule(self, rest: str, low: str) -> list[Claim] | None:
        # "pushed the Japan trip back to October": "back" says which way, not what.
        match = re.match(
            r"^(?P<what>.+?)\s+(?:(?:back|forward|up|out|ahead)\s+)?(?:to|until|till)\s+(?P<when>.+)$",
            rest,
            re.I,
        )
        what = clean_value(
            re.sub(r"^(?:my|our|the)\s+", "", match.group("what") if match else rest, flags=re.I)
        )
        # "deferred my London Marathon place": the event, not the place in it.
        what = re.sub(r"\s+(?:place|spot|entry|ticket|booking)$", "", what, flags=re.I)
        if vague(what):
            return []
        when = date_phrase(match.group("when")) if match else None
        return [self.claim("plan", what, change=True, when=when)]

    def _celebrate(self, rest: str, low: str) -> list[Claim] | None:
        match = re.match(r"^(?:my|his|her|their|our)\s+(\d{1,3})(?:st|nd|rd|th)\s+birthday", low)
        if match is not None:
            return [self.claim("age", match.group(1), change=True)]
        return [] if self.strict else None
