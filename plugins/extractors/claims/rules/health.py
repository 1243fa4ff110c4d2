"""Rules for health: diagnoses, allergies, injuries, recovery, death, and smoking."""

from __future__ import annotations

import re

from plugins.extractors import lexicon as lx
from plugins.extractors.claims.model import Claim
from plugins.extractors.claims.phrases import injured_part, strip_det
from plugins.extractors.claims.rules.work import WorkRules
from plugins.extractors.claims.things import game_played
from plugins.extractors.claims.values import clean_value, split_values, vague
from plugins.extractors.claims.words import stem


class HealthRules(WorkRules):
    """Rules for health: diagnoses, allergies, injuries, recovery, death, and smoking."""

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
            for v in split_values(strip_det(value))
        ]

    def _allergy(self, rest: str, low: str) -> list[Claim] | None:
        match = re.match(r"^(?:severely\s+|very\s+|deathly\s+|mildly\s+)?allergic\s+to\s+", low)
        if match is None:
            return None
        value = clean_value(rest[match.end() :])
        return [self.claim("allergy", strip_det(v)) for v in split_values(value) if v]

    def _cut_out(self, rest: str, low: str) -> list[Claim] | None:
        """ "cut out the oat lattes completely": stopped, as "quit" says."""
        match = re.match(r"^(?:out|back\s+on)\s+", low)
        if match is None or self.p.future:
            return [] if self.strict else None
        return self._quit(rest[match.end() :], low[match.end() :])

    def _injure(self, rest: str, low: str) -> list[Claim] | None:
        """ "tore my acl playing 5 a side": an injury the user has now."""
        match = re.match(r"^(?:my|her|his|their|a|an)\s+", low)
        if match is None:
            return [] if self.strict else None
        part = injured_part(clean_value(rest[match.end() :]))
        if vague(part) or len(part.split()) > 3:
            return []
        if match.group(0).strip() in ("a", "an") and part.casefold().split()[-1] not in _BODY:
            return []  # "tore a ligament", not "broke a glass"
        said = _INJURED.get(self.p.head, f"{self.p.head}ed")
        out = [self.claim("condition", f"{said} {part}", change=True)]
        game = game_played(rest)
        if game is not None and self.s.key == "user":
            # "tore my acl playing 5 a side": a game the user plays.
            out.append(self.claim("hobby", f"plays {game}"))
        return out

    def _smoke(self, rest: str, low: str) -> list[Claim] | None:
        verb = "smokes" if self.p.head == stem("smoke") else "vapes"
        return [self.claim("habit", verb)]

    def _recover(self, rest: str, low: str) -> list[Claim] | None:
        match = re.match(r"^(?:fully\s+)?from\s+", low)
        if match is None:
            return [] if self.strict else None
        value = clean_value(rest[match.end() :])
        if vague(value):
            return []
        done = not self.p.progressive
        return [
            self.claim("condition", strip_det(v), negated=done, change=True)
            for v in split_values(value)
        ]

    def _suffer(self, rest: str, low: str) -> list[Claim] | None:
        match = re.match(r"^from\s+", low)
        if match is None:
            return [] if self.strict else None
        value = clean_value(rest[match.end() :])
        return [] if vague(value) else [self.claim("condition", strip_det(value))]

    def _die(self, rest: str, low: str) -> list[Claim] | None:
        # "Rufus passed in June", "passed last week": a death said without "away".
        if self.p.head == stem("pass") and not re.match(PASSED_WHEN, low):
            return [] if self.strict else None
        if self.s.key == "user" or self.p.progressive or re.match(r"^(?:of|for|to|from)\b", low):
            # "I'm dying of boredom", "dying to see it": the one speaking is alive.
            return []
        return [self.claim("alive", "", negated=True, change=True)]

    def _diagnosed(self, rest: str, low: str) -> list[Claim] | None:
        return self._diagnosis(f"diagnosed {rest}", f"diagnosed {low}")

    def _heal(self, rest: str, low: str) -> list[Claim] | None:
        return [] if self.strict else None


PASSED_WHEN = (
    r"^(?:away|on|in\s+(?:" + lx.MONTH_PATTERN + r"|the\s+night|his\s+sleep|her\s+sleep|\d{4})"
    r"|last\s+(?:week|month|year"
    r"|night|\w+day)|this\s+(?:morning|week|month|year)|yesterday|recently|peacefully|suddenly"
    r"|over\s+the\s+weekend|at\s+the\s+weekend|earlier\s+this)\b"
)

_BODY = lx.words(
    """ligament tendon muscle meniscus cartilage rib ribs bone vertebra disc hamstring calf
    quad bicep biceps achilles acl mcl rotator wrist ankle knee elbow shoulder finger toe hip
    collarbone kneecap"""
)
_INJURED = {
    stem("tear"): "torn",
    stem("sprain"): "sprained",
    stem("fracture"): "fractured",
    stem("dislocate"): "dislocated",
    stem("injure"): "injured",
    stem("twist"): "twisted",
}
