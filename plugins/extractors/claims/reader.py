"""The reader that turns a clause into claims: copula statements, things, events, and the verb rule
table."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from plugins.extractors import lexicon as lx
from plugins.extractors.claims.locations import lower_case_place, place_value
from plugins.extractors.claims.model import Claim
from plugins.extractors.claims.phrases import (
    date_phrase,
    diet_of,
    has_date,
    relation_claim,
    strip_det,
    third_person,
    with_article,
)
from plugins.extractors.claims.rules.education import EducationRules
from plugins.extractors.claims.rules.identity import IdentityRules
from plugins.extractors.claims.rules.pastimes import PastimeRules
from plugins.extractors.claims.rules.plans import PlanRules
from plugins.extractors.claims.rules.possessions import PossessionRules
from plugins.extractors.claims.subjects import ATTRIBUTE_NOUNS, HANDLE_NOUNS, OWNED_KIND, is_name
from plugins.extractors.claims.things import computer_in, phone_in
from plugins.extractors.claims.values import clean_value, split_values, vague, when_of
from plugins.extractors.claims.words import HABITUAL_VERBS, stem, stems

_IN_A_FIELD = re.compile(
    r"^in\s+(?P<field>(?:IT|HR|PR|QA|tech|sales|marketing|finance|accounting|accounts|admin"
    r"|retail|logistics|healthcare|hospitality|construction|engineering|insurance|banking"
    r"|consulting|operations|ops|customer\s+service|customer\s+support|tech\s+support"
    r"|software|recruitment|recruiting|real\s+estate|media|advertising|publishing|procurement"
    r"|compliance|cybersecurity|security|payroll)\b(?:\s+(?:support|sales|ops"
    r"|operations|management|admin))?)(?=[\s,.!?;:]|$)(?!\s+(?-i:[A-Z]))",
    re.IGNORECASE,
)
"""A line of work after "I'm in" ("IT support", "sales"), which the place rule would read as a
town."""
_BLOOD_TYPE = re.compile(
    r"^(?:blood\s+type\s+)?(?P<group>ab|a|b|o)\s*(?P<sign>negative|positive|neg|pos|[+-])$",
    re.IGNORECASE,
)

_BROKE = stems("die break crash quit fail")

_TRANSIENT = re.compile(
    r"\b(?:today|tonight|this week|this weekend|right now|for work|for a conference|visiting"
    r"|on (?:vacation|holiday|a trip|business)|for the (?:day|week|weekend)|until|till|at the"
    r"|airport|hotel|for a few)\b",
    re.IGNORECASE,
)

_CANCEL = stems("cancel scrap")

_RESCHEDULE = stems("postpone reschedule push delay move bump defer")

_SCHEDULED = stems("plan schedule book set")


_RELATIVE_DAY = re.compile(
    r"^(?:last|next|this|the\s+other)\s+(?:week|month|weekend|year|\w+day)\b|^(?:yesterday|today"
    r"|tomorrow|soon|recently|\d+\s+days?\s+ago|a\s+(?:few\s+)?(?:days?|weeks?)\s+ago"
    r"|(?:mon|tues|wednes|thurs|fri|satur|sun)day$)\b",
    re.IGNORECASE,
)


class Reader(IdentityRules, EducationRules, PastimeRules, PossessionRules, PlanRules):
    """Turns one clause's subject and predicate into claims."""

    def read(self) -> list[Claim]:
        p, s = self.p, self.s
        if p.modal:
            return []
        if s.thing is not None:
            return self._thing()
        if s.pet is not None:
            return self._pet_subject()
        out = self._copula() if p.head == "be" else self._verb()
        if s.with_person is not None:
            out = self._together(out, s.with_person)
        if s.relation is not None and s.name is not None and s.first_person:
            # "My sister Maya lives in Porto": a fact about Maya, and Maya is the user's sister.
            attribute, name, qualifier = relation_claim(s.relation, s.name)
            out = [*out, Claim("user", attribute, name, qualifier=qualifier)]
        elif s.relation is not None and s.name is not None and s.relative_of is not None:
            # "His wife Abena is a teacher", after Kwame: Abena is Kwame's wife.
            attribute, name, qualifier = relation_claim(s.relation, s.name)
            out = [*out, Claim(s.relative_of, attribute, name, qualifier=qualifier)]
        return out

    def _together(self, claims: list[Claim], other: str) -> list[Claim]:
        """ "Me and Ben got engaged": Ben is the partner; "Ana and Luis split up": both;
        "me and my girlfriend Hana live in Sapporo": both live there, Hana is the partner."""
        out = list(claims)
        words = other.split()
        rel = lx.relation_of(words[0]) if len(words) == 2 else None
        if self.s.key == "user" and rel is not None and is_name(words[1]):
            attribute, name, qualifier = relation_claim(rel, words[1])
            out.append(Claim("user", attribute, name, qualifier=qualifier))
            out.extend(
                replace(claim, subject=name)
                for claim in claims
                if claim.attribute not in ("relationship", "partner")
            )
            return out
        other = words[-1]
        for claim in claims:
            if claim.attribute == "relationship":
                ended = claim.value in lx.ENDED_RELATIONSHIP
                if self.s.key == "user" and is_name(other, lower_ok=True):
                    name = other[:1].upper() + other[1:]
                    wed = "spouse" if claim.value == "married" else None  # "Ana and I got married"
                    out.append(
                        replace(
                            claim,
                            attribute="partner",
                            value="" if ended else name,
                            negated=ended,
                            qualifier=wed,
                        )
                    )
                elif self.s.key != "user":
                    out.append(replace(claim, subject=other))
                    if ended:
                        out.extend(
                            Claim(who, "partner", "", negated=True, change=True)
                            for who in (self.s.key, other)
                        )
            elif self.s.key != "user":
                out.append(replace(claim, subject=other))
        return out

    # -- "my wedding is in June", "my name is Dana", "Job title: analyst"
    def _thing(self) -> list[Claim]:
        thing = self.s.thing or ""
        if thing.startswith("event:"):
            return self._event(thing[6:])
        p = self.p
        if p.head != "be" and p.progressive and ATTRIBUTE_NOUNS.get(thing) == "hobby":
            # "my hobby is surfing": the -ing form is the hobby, not something going on.
            value = clean_value(" ".join([p.said, *p.words]))
            return [] if vague(value) else [self.claim("hobby", v) for v in split_values(value)]
        if p.head != "be":
            return []
        rest = re.sub(r"^(?:called|named|now)\s+", "", p.rest, flags=re.I)
        value = clean_value(rest)
        if thing.startswith(("favourite", "favorite")):
            topic = thing.split(" ", 1)[1] if " " in thing else "thing"
            return [] if vague(value) else [self.claim("favourite", value, qualifier=topic)]
        attribute = ATTRIBUTE_NOUNS.get(thing)
        if attribute is None:
            if thing.replace(" ", "-") not in HANDLE_NOUNS:
                return []
            return [] if not value else [self.claim("handle", value, qualifier=thing)]
        if attribute == "age":
            return self._age(rest)
        if attribute == "residence":
            value = clean_value(re.sub(r"^(?:in|at|near|outside(?: of)?)\s+", "", rest, flags=re.I))
            return [] if vague(value) else [self.claim("residence", place_value(value))]
        if attribute in ("birthday", "birth_year"):
            date = clean_value(re.sub(r"^(?:on|in)\s+", "", rest, flags=re.I)) or rest.strip(" .")
            if _RELATIVE_DAY.match(date):
                return []  # "bday was last week": when it fell this year, not the date
            return [self.claim(attribute, date)] if date else []
        if attribute in ("name", "surname", "nickname"):
            words = value.split()[:3]
            if not words or not all(is_name(w, lower_ok=True) for w in words):
                return []
            return [self.claim(attribute, " ".join(words))]
        if attribute == "diet":
            diet = diet_of(value.casefold())
            return [self.claim("diet", diet or value)] if value else []
        if vague(value):
            return []
        if attribute == "job":
            job = strip_det(value)
            if " " not in job and not lx.is_occupation(job):
                return []  # "my job is great" says how the job is, not what it is
            return [self.claim("job", with_article(job))]
        if attribute == "hobby":
            return [self.claim("hobby", v) for v in split_values(value)]
        return [self.claim(attribute, value)]

    def _event(self, event: str) -> list[Claim]:
        """An event's date, a new date, or its cancellation."""
        p = self.p
        low = p.lower
        called_off = re.match(r"^(?:cancell?ed|called off)\b", low) or (
            # "the trip is off", not "the trip got off to a bad start"
            p.head == "be" and re.match(r"^off\b(?!\s+to\b)", low)
        )
        if p.head in _CANCEL or called_off or p.negated:
            return [self.claim("plan", event, negated=True, change=True)]
        if p.head in _RESCHEDULE or re.match(
            r"^(?:moved|pushed|postponed|rescheduled|delayed|bumped|changed)\b", low
        ):
            tail = p.rest if p.head in _RESCHEDULE else p.rest.split(" ", 1)[-1]
            date = date_phrase(re.sub(r"^(?:back\s+)?(?:to|until|till)\s+", "", tail))
            return [self.claim("plan", event, change=True, when=date or None)]
        rest = re.sub(
            r"^(?:planned|scheduled|booked|set|happening|coming up|taking place)\s+(?:for\s+)?",
            "",
            p.rest,
            flags=re.I,
        )
        date = rest.strip(" .!")
        if p.head not in ("be", stem("happen")) and p.head not in _SCHEDULED:
            return []
        if not date or not has_date(date):
            return []
        return [self.claim("plan", event, when=date_phrase(date))]

    # -- "my dog Rex died", "my cat is 12"
    def _pet_subject(self) -> list[Claim]:
        p = self.p
        pet = self.s.pet or ""
        kind = OWNED_KIND.get(pet.split(" ")[0], "pet")
        if kind != "pet":
            gone = (p.head in _BROKE and not p.lower.startswith("down")) or (
                p.head == "be" and re.match(r"^(?:dead|gone|broken|stolen|totall?ed)\b", p.lower)
            )
            if gone:
                return [Claim(self.s.key, kind, pet, negated=True, change=True)]
            # "my iphone 12 battery is dying": whatever is wrong with it, the user has one.
            return [Claim(self.s.key, kind, pet)] if " " in pet and self.s.first_person else []
        died = p.head in (stem("die"), stem("pass")) and not p.progressive  # not "is dying"
        if died or (p.head == "be" and re.match(r"^(?:dead|gone|put down)\b", p.lower)):
            return [Claim(self.s.key, "pet", pet, negated=True, change=True)]
        if p.head == stem("run") and p.lower.startswith("away"):
            return [Claim(self.s.key, "pet", pet, negated=True, change=True)]
        if p.head == "be" and re.match(r"^(?:called|named)\s+", p.lower):
            name = clean_value(re.sub(r"^(?:called|named)\s+", "", p.rest, flags=re.I))
            # "my dog is named Bella": the one dog, so a later name for it is a new name.
            named = f"{pet} {name[:1].upper() + name[1:]}"
            return [Claim(self.s.key, "pet", named, qualifier="named" if " " not in pet else None)]
        pet_name = pet.split()[-1] if " " in pet and pet.split()[-1][:1].isupper() else ""
        age = self._age(p.rest) if p.head == "be" and not p.negated and pet_name else []
        if age:
            # "my cat Biscuit is 2": the user has Biscuit, and Biscuit is 2.
            return [Claim(self.s.key, "pet", pet), Claim(pet_name, "age", age[0].value)]
        if p.head == "be" and not p.negated:
            name = clean_value(p.rest)
            if name and is_name(name.split(" ")[0]) and len(name.split()) == 1:
                return [Claim(self.s.key, "pet", f"{pet} {name}")]
        if " " in pet and pet.split()[-1][:1].isupper() and self.s.first_person:
            # "my dog Pepper hasn't had a walk": whatever the rest says, the user has Pepper.
            return [Claim(self.s.key, "pet", pet)]
        return []

    # -- copula ("am", "is", "'m", "got married")
    def _copula(self) -> list[Claim]:
        p = self.p
        rest = p.rest
        low = rest.casefold()
        if not rest:
            return []
        age = self._age(rest)
        if age:
            return age
        over = re.match(
            r"^(?:(?:so|totally|completely|sooo*)\s+)?over\s+"
            r"(?!the moon\b|it\b|(?:here|there|in|at|on|to|from|by|near|with|for|the)\b)",
            low,
        )
        if over is not None and not p.negated:
            # "I'm so over country music now": no longer liked.
            value = clean_value(rest[over.end() :])
            if not vague(value):
                return [self.claim("likes", value, negated=True, change=True)]
        device = re.match(r"^on\s+(?:an?\s+|my\s+)?(?P<x>.+)$", rest, re.I)
        if device is not None and not p.negated:
            # "I'm on a MacBook Air now", "on an iPhone 15": the device the user uses.
            for attribute, used in (
                ("computer", computer_in(device.group("x"))),
                ("phone", phone_in(device.group("x"))),
            ):
                if used is not None:
                    return [self.claim(attribute, used, change=p.change)]
        blood = _BLOOD_TYPE.match(clean_value(rest))
        if blood is not None:
            # "I'm O negative": a blood type, one per person.
            negative = blood.group("sign").casefold() in ("negative", "neg", "-")
            sign = "negative" if negative else "positive"
            return [self.claim("blood_type", f"{blood.group('group').upper()} {sign}")]
        back = re.match(r"^back\s+(?:to|into)\s+(?P<x>[a-z]+ing)\b", low)
        if back is not None and back.group("x") not in ("nothing", "something", "everything"):
            # "I'm back to bouldering next week": a pastime taken up again.
            return [self.claim("hobby", f"goes {back.group('x')}", change=True)]
        for rule in (
            self._relationship_state,
            self._diagnosis,
            self._birth,
            self._residence_state,
            self._origin,
            self._allergy,
            self._employment_state,
            self._fan,
            self._student,
        ):
            found = rule(rest, low)
            if found is not None:
                return found
        head = low.split(" ", 1)[0].strip(",.")
        diet = diet_of(clean_value(rest).casefold())
        if diet is not None:
            return [self.claim("diet", diet)]
        if head in lx.NATIONALITIES and len(low.split()) <= 2:
            return [self.claim("nationality", head)]
        if head in lx.RELIGIONS:
            return [self.claim("religion", head)]
        if head in lx.TRAITS:
            return [self.claim("trait", head)]
        trait = re.match(
            r"^(?:an?\s+)?(?:total\s+|real\s+|complete\s+|big\s+|huge\s+|bit of an?\s+)?(?P<t>"
            + "|".join(sorted(map(re.escape, lx.TRAIT_NOUNS), key=len, reverse=True))
            + r")\b",
            low,
        )
        if trait is not None:
            return [self.claim("trait", trait.group("t"))]
        condition = re.match(
            r"^(?:an?\s+)?(?:\d+\s+(?:weeks|months)\s+)?(?P<type>type\s+[12]\s+)?(?P<adj>"
            + "|".join(sorted(map(re.escape, lx.CONDITION_ADJECTIVES), key=len, reverse=True))
            + r")\b",
            low,
        )
        if condition is not None:
            value = condition.group("adj")
            if condition.group("type"):
                value = f"{condition.group('type').strip()} {value}"
            return [self.claim("condition", value)]
        if head == "sober":
            return [self.claim("trait", "sober")]
        habit = re.match(
            r"^(?:an?\s+)?(?P<ex>ex-|former\s+|reformed\s+)?(?:heavy\s+|social\s+|light\s+"
            r"|occasional\s+|chain\s+|daily\s+)?(?P<non>non-?\s?)?(?P<what>smoker|drinker|vaper"
            r"|teetotal(?:l?er)?)\b",
            low,
        )
        if habit is not None:
            what = habit.group("what")
            # "a non-smoker", "teetotal": the habit, denied, so smoking again contradicts it.
            denied = bool(habit.group("non")) or what.startswith("teetotal")
            verb = {"smoker": "smokes", "vaper": "vapes"}.get(what, "drinks alcohol")
            return [self.claim("habit", verb, past=bool(habit.group("ex")), negated=denied)]
        player = re.match(
            r"^(?:an?\s+)?(?:keen\s+|avid\s+|big\s+)?(?P<game>[\w\-]+(?:\s+[\w\-]+)?)"
            r"\s+player\b",
            low,
        )
        if player is not None:
            return [self.claim("hobby", f"plays {player.group('game')}")]
        if re.match(r"^an?\s+only\s+child\b", low):
            return [self.claim("family", "", negated=True, qualifier="sibling")]
        if re.match(
            r"^an?\s+(?:new\s+|first-time\s+|proud\s+)?(?:mom|mum|mother|dad|father|parent"
            r"|mama|papa)\b",
            low,
        ):
            return [self.claim("trait", "parent")]
        field = _IN_A_FIELD.match(rest)
        if field is not None and not p.negated:
            # "I'm in IT support", "im in sales now": the line of work, not a place.
            return [self.claim("work_field", clean_value(field.group("field")), change=p.change)]
        place = re.match(
            r"^(?:(?:back|over|out|up|down)\s+)?(?:home\s+)?(?:in|at)\s+(?P<where>(?-i:[A-Z])[\w\-]*"
            r"(?:\s+(?-i:[A-Z])[\w\-]*)*)",
            rest,
        ) or lower_case_place(rest)
        if place is not None and (
            p.change or low.startswith("back") or not self.strict or not _TRANSIENT.search(rest)
        ):
            where = place.group("where")
            if low.startswith(("at ", "back at")) and not self.strict:
                return [self.claim("employer", where)]
            if not low.startswith(("at ", "back at")):
                return [self.claim("residence", place_value(where), change=True)]
        inhouse = re.match(r"^(?:now\s+)?in-?house\s+at\s+", low)
        if inhouse is not None:
            return [self.claim("employer", clean_value(rest[inhouse.end() :]), change=True)]
        if head in ("afraid", "scared", "terrified") and " of " in f" {low}":
            value = clean_value(re.sub(r"^\w+\s+(?:to death\s+)?of\s+", "", rest))
            return [] if vague(value) else [self.claim("fear", value)]
        if head == "fluent" and low.startswith("fluent in "):
            return [self.claim("language", v) for v in split_values(clean_value(rest[10:]))]
        rel = self._relation_named(rest)
        if rel is not None:
            return rel
        if re.match(r"^(?:(?:now|finally|officially)\s+)?(?:a\s+)?homeowners?\b", low):
            return [self.claim("possession", "house", change=p.change)]  # owns their home
        job = self._occupation(rest)
        if job is not None:
            return job
        name = self._own_name(rest)
        if name is not None:
            return name
        if low.startswith(("in a relationship with ", "with ")) and self.s.key == "user":
            partner = clean_value(re.sub(r"^(?:in a relationship\s+)?with\s+", "", rest))
            if partner and is_name(partner.split(" ")[0], lower_ok=True):
                return [self.claim("partner", partner)]
        if not self.strict and not p.passive:
            value = clean_value(rest)
            if value and not vague(value):
                return [self.claim("state", value)]
        if p.passive and not self.strict:
            head_word = low.split(" ", 1)[0]
            value = clean_value(" ".join(rest.split(" ")[1:]))
            if value and not vague(value):
                return [self.claim(f"verb:{stem(head_word)}", value)]
        return []

    # -- verbs
    def _verb(self) -> list[Claim]:
        p = self.p
        h = p.head
        rest = p.rest
        low = p.lower
        if p.future and not has_date(rest) and h not in (stem("turn"),):
            return []
        arranged = p.future or (p.progressive and not p.past)
        # "doing keto since dec 1": a date something began is no plan.
        since = re.search(r"\bsince\b", rest, re.I) is not None
        if arranged and h in _EVENT_VERBS and has_date(rest) and not (p.negated or since):
            # "gonna do the Berlin marathon in september", "I'm running it in october":
            # something dated the user will do is a plan.
            what = clean_value(rest)
            if what and not vague(what):
                return [self.claim("plan", f"{_EVENT_VERBS[h]} {what}", when=when_of(rest))]
        paid_as = re.search(r"\bas\s+(?:an?\s+)(?P<job>[\w -]+?)\s*[.!]*$", rest, re.I)
        if h in (stem("make"), stem("earn")) and paid_as and lx.is_occupation(paid_as.group("job")):
            # "I make about 2,900 a month as a barista": the pay says the job.
            return [self.claim("job", with_article(paid_as.group("job")))]
        living = _FOR_A_LIVING.search(rest)
        if living is not None and p.said and not (p.negated or p.modal or p.future):
            # "I write software for a living" says what the work is, not a pastime.
            what = clean_value(rest[: living.start()] + rest[living.end() :])
            if what and not vague(what):
                return [self.claim("work", f"{third_person(p.said)} {what}")]
        for verbs, rule in _VERB_RULES:
            if h in verbs:
                found = rule(self, rest, low)
                if found is not None:
                    return found
        if self.strict:
            return []
        return self._generic(rest, low)


_Rule = Callable[[Reader, str, str], list[Claim] | None]


def _rules() -> tuple[tuple[frozenset[str], _Rule], ...]:
    r = Reader
    table: tuple[tuple[str, _Rule], ...] = (
        ("live reside", r._live),
        ("stay", r._stay),
        ("move relocate", r._move),
        ("settle", r._settle),
        ("grow", r._grow),
        ("come", r._come),
        ("work", r._work),
        ("freelance", r._freelance),
        ("join start", r._join),
        ("get land take bring", r._get),
        ("have own adopt buy rescue rent sign lease find", r._have),
        ("lose", r._lose),
        ("sell trade", r._sell),
        ("leave", r._leave),
        ("quit stop abandon ditch resign", r._quit),
        ("pack jack", r._packed_in),
        ("cut", r._cut_out),
        ("retire", r._retire),
        ("become", r._become),
        ("teach", r._teach),
        ("study enrol enroll", r._study),
        ("graduate", r._graduate),
        ("drop", r._drop),
        ("marry wed remarry", r._marry),
        ("engage", r._engage),
        ("divorce", r._divorce),
        ("date see", r._date),
        ("break split", r._break_up),
        ("tear sprain fracture dislocate injure twist", r._injure),
        ("separate", r._separate),
        ("like love enjoy adore hate dislike detest loathe despise mind stand bear", r._like),
        ("prefer", r._prefer),
        ("eat drink", r._eat),
        ("smoke vape", r._smoke),
        ("speak", r._speak),
        ("learn", r._learn),
        ("play", r._play),
        ("drive", r._drive),
        ("ride", r._ride),
        ("use", r._use),
        ("switch swap trade transfer", r._switch),
        ("change rename update", r._change),
        ("travel fly visit head", r._travel),
        ("plan intend", r._plan),
        ("expect", r._expect),
        ("go", r._go_by),
        ("pick", r._pick_up),
        ("turn", r._turn),
        ("hit reach", r._hit_an_age),
        ("recover", r._recover),
        ("suffer", r._suffer),
        ("call", r._call),
        ("cancel", r._cancel),
        ("postpone reschedule push delay defer", r._reschedule),
        ("give", r._give),
        ("keep", r._keep),
        ("avoid", r._avoid),
        ("follow", r._follow),
        ("die", r._die),
        ("pass", r._pass),
        ("do practice", r._do),
        ("run manage operate", r._run_business),
        (HABITUAL_VERBS, r._habitual),
        ("finish complete", r._finish),
        ("diagnose", r._diagnosed),
        ("hold earn", r._hold),
        ("upgrade", r._switch),
        ("make", r._make),
        ("celebrate", r._celebrate),
        ("rehome", r._rehome),
    )
    return tuple((stems(verbs), rule) for verbs, rule in table)


_EVENT_VERBS = {stem(v): v for v in lx.PLANNED_ACTIVITY_VERBS}

_FOR_A_LIVING = re.compile(r"\s*\bfor\s+a\s+living\b", re.IGNORECASE)

_VERB_RULES = _rules()
