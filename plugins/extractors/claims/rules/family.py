"""Rules for family and relationships: partners, relatives, marriage, dating, break-ups, babies."""

from __future__ import annotations

import re

from plugins.extractors import lexicon as lx
from plugins.extractors.claims.model import Claim
from plugins.extractors.claims.phrases import (
    diet_of,
    has_date,
    injured_part,
    number,
    relation_claim,
)
from plugins.extractors.claims.reading import Reading
from plugins.extractors.claims.subjects import REL_WORD, is_name
from plugins.extractors.claims.things import game_played
from plugins.extractors.claims.values import clean_value, split_values, vague, when_of
from plugins.extractors.claims.words import stem

# "wedding planning", "wedding dress shopping": the noun, not a marrying.
_WEDDING_THING = re.compile(
    r"(?:planning|plans?|planner|dress|venue|day|party|guests?|list|budget|cake|photographer"
    r"|reception|invit\w*|speech|ring|rings|season|band|favou?rs?|shower|prep|stuff|costs?"
    r"|gifts?|present|playlist|menu|ceremony|vows|photos?|video|suit|shoes|hair)\b"
)


class FamilyRules(Reading):
    """Rules for family and relationships: partners, relatives, marriage, dating, babies."""

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
        if named is not None and is_name(named.group("who")):
            # "I've been seeing someone new, Priya": dating, and who.
            return [
                self.claim("relationship", "in a relationship"),
                self.claim("partner", named.group("who"), change=True),
            ]
        state = lx.RELATIONSHIP_STATES[match.group("state")]
        getting = low.startswith("getting") or self.p.progressive
        if getting and state == "married" and has_date(rest):
            return [self.claim("plan", "wedding", when=when_of(rest))]
        out = [self.claim("relationship", state)]
        if match.group("who"):
            who = _person_named(clean_value(rest[match.start("who") :]))
            if who and not vague(who):
                if state in lx.ENDED_RELATIONSHIP:
                    out.append(self.claim("partner", who, negated=True, change=True))
                else:
                    # "married to Sam", "engaged to Sam": who, and as what.
                    kind = {"married": "spouse", "engaged": "fiance"}.get(state)
                    out.append(self.claim("partner", who, qualifier=kind))
        return out

    def _relation_named(self, rest: str) -> list[Claim] | None:
        """ "Maya is my sister", "my sister is Maya", "my wife is called Jen"."""
        s = self.s
        low = rest.casefold()
        pet = re.match(r"^(?:my|the user's|user's|our)\s+(?:pet\s+)?(?P<kind>.+?)\s*[.!]?$", low)
        if pet is not None and s.name is not None and s.relation is None:
            kinds = [w for w in pet.group("kind").split() if lx.is_pet(w)]
            if kinds and pet.group("kind").split()[-1] == kinds[-1]:
                return [Claim("user", "pet", f"{kinds[-1]} {s.name}")]
        mine = re.match(rf"^(?:my|the user's|user's)\s+(?P<rel>{REL_WORD})\b", low)
        if mine is not None and s.name is not None and s.relation is None:
            rel = lx.relation_of(mine.group("rel")) or mine.group("rel")
            attribute, name, qualifier = relation_claim(rel, s.name)
            return [Claim("user", attribute, name, qualifier=qualifier, change=self.p.change)]
        if s.relation is not None and s.name is None and s.key.startswith("user's "):
            value = re.sub(r"^(?:called|named)\s+", "", rest, flags=re.I)
            value = clean_value(value)
            words = value.split()
            if 1 <= len(words) <= 2 and all(is_name(w, lower_ok=True) for w in words):
                named = words[0][:1].isupper() or re.match(r"^(?:called|named)\s", low)
                if not named and diet_of(value.casefold()):
                    return None
                if value.islower():
                    value = " ".join(w.capitalize() for w in words)  # "my boss is kevin"
                attribute, name, qualifier = relation_claim(s.relation, value)
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

    def _family(self, rest: str, low: str) -> list[Claim] | None:
        match = re.match(
            rf"^(?:our\s+|my\s+)?(?P<count>an?|one|two|three|four|five|six|seven|eight|nine|ten"
            rf"|\d+|a couple of|no|first|second|third|fourth|fifth|sixth)"
            rf"\s+(?:(?:older|younger|little|big|baby|twin|grown|adult|step|half|teenage|"
            rf"young|small)\s+)*(?P<rel>{REL_WORD})\b(?:\s*,?\s*(?:named|called)?\s*"
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
        names = [n for n in split_values(clean_value(names_text)) if is_name(n.split(" ")[0])]
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
        count = number(count_word) if count_word not in ("a", "an") else 1
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

    def _marry(self, rest: str, low: str) -> list[Claim] | None:
        if self.p.progressive and _WEDDING_THING.match(low):
            return []  # "wedding planning is a mystery to me": a wedding's thing, no marrying
        if (self.p.progressive or self.p.future) and has_date(rest):
            return [self.claim("plan", "wedding", when=when_of(rest))]
        value = _person_named(clean_value(re.sub(r"^to\s+", "", rest, flags=re.I)))
        out = [self.claim("relationship", "married", change=True)]
        if value and not vague(value) and is_name(value.split(" ")[0], lower_ok=True):
            out.append(self.claim("partner", value, change=True, qualifier="spouse"))
        return out

    def _engage(self, rest: str, low: str) -> list[Claim] | None:
        """ "Engaged to Priya" (a note), "got engaged to Sam": engaged, and to whom."""
        match = re.match(r"^to\s+", low)
        if match is None:
            return [] if self.strict else None
        value = _person_named(clean_value(rest[match.end() :]))
        out = [self.claim("relationship", "engaged", change=True)]
        if value and not vague(value) and is_name(value.split(" ")[0], lower_ok=True):
            out.append(self.claim("partner", value, qualifier="fiance", change=True))
        return out

    def _divorce(self, rest: str, low: str) -> list[Claim] | None:
        who = re.match(r"^(?:from\s+)?(?P<who>.+)$", rest, re.I)
        name = clean_value(who.group("who")) if who else ""
        if vague(name) or not is_name(name.split(" ")[0], lower_ok=True):
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
            r"^(?:(?:an?|this)\s+(?:(?:lovely|nice|new|great|sweet|cute|gorgeous|really|very|lad)\s+)*"
            r"(?:guy|girl|man|woman|person|boy|lady|dude|fella|fellow|bloke|lad|lass|chap)"
            r"|someone|somebody)\s+(?:called|named)\s+(?P<name>.+)$"
            # "seeing someone new, Priya": the name after a comma
            r"|^(?:someone|somebody)(?:\s+new)?,\s*(?P<name2>(?-i:[A-Z])[\w'-]+)",
            rest.strip(),
            re.I,
        )
        if named is not None:
            value = clean_value(named.group("name") or named.group("name2"))
        if vague(value) or not is_name(value.split(" ")[0], lower_ok=True):
            if (self.p.head == stem("date") or self.p.progressive) and re.match(
                r"^(?:someone|somebody)\b", low
            ):
                return [self.claim("relationship", "in a relationship")]
            return [] if self.strict else None
        return [self.claim("relationship", "in a relationship"), self.claim("partner", value)]

    def _break_up(self, rest: str, low: str) -> list[Claim] | None:
        match = re.match(r"^up\b(?:\s+with\s+)?", low)
        if match is None:
            if self.p.head == stem("break") and re.match(r"^(?:my|her|his)\s+\w+", low):
                part = injured_part(
                    clean_value(re.sub(r"^(?:my|her|his)\s+", "", rest, flags=re.I))
                )
                out = [self.claim("condition", f"broken {part}", change=True)]
                game = game_played(rest)
                if game is not None and self.s.key == "user":
                    out.append(self.claim("hobby", f"plays {game}"))
                return out
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


_SOMEONE_NAMED = re.compile(
    r"^(?:a|an|this|the|my)\s+(?:(?:lovely|wonderful|great|nice|amazing)\s+)?(?:woman|man|guy"
    r"|girl|lady|boy|person|fellow|gal|dude)\s+(?:named|called)\s+(?=[A-Z])"
)


def _person_named(value: str) -> str:
    """ "a woman named Ifeoma" is Ifeoma."""
    return _SOMEONE_NAMED.sub("", value)


_PAST = {"split": "split", "break": "broke", "broke": "broke", "breaking": "broke"}


def _past(verb: str) -> str:
    """ "split" -> "split", "broke" -> "broke" (how a breakup was said, in the past)."""
    return _PAST.get(verb.casefold(), "broke")
