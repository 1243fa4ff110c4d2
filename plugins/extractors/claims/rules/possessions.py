"""Rules for things owned: having, getting, selling, switching, giving away."""

from __future__ import annotations

import re

from plugins.extractors import lexicon as lx
from plugins.extractors.claims.idioms import MEDICINE_SHAPED, NOT_MEDICINES
from plugins.extractors.claims.locations import place_value
from plugins.extractors.claims.model import Claim
from plugins.extractors.claims.phrases import diet_of, has_date, strip_det
from plugins.extractors.claims.rules.family import FamilyRules
from plugins.extractors.claims.rules.home import arriving_from
from plugins.extractors.claims.rules.work import WorkRules
from plugins.extractors.claims.subjects import EVENT_ALT, is_name
from plugins.extractors.claims.things import computer_in, pets_in, phone_in, vehicle_in
from plugins.extractors.claims.values import (
    clean_value,
    habitual,
    split_values,
    vague,
    when_of,
)
from plugins.extractors.claims.words import stem, stems

# "got into oregon state", "got into med school": admitted to a school, however it is typed.
_SCHOOL = re.compile(
    r"\b(?:university|college|uni|state|school|academy|institute|polytechnic|conservatoire)\b",
    re.IGNORECASE,
)


# Nothing after the verb that names a thing: "i don't drive", "i don't drive so the train".
_NOTHING_MORE = re.compile(r"^\W*$|^(?:so|and|but|anymore|any\s*more|at\s+all|yet|either|tho)\b")


class PossessionRules(FamilyRules, WorkRules):
    """Rules for things owned: having, getting, selling, switching, giving away."""

    def _gift(self, rest: str, low: str) -> list[Claim] | None:
        """ "my son got me the iPhone 16": a gift, so the user has it now."""
        if not low.startswith("me ") or self.s.key == "user":
            return None
        given = rest[3:]
        pets = pets_in(given)
        if pets:
            return [Claim("user", "pet", pet, change=True) for pet in pets]  # "brought me a kitten"
        for attribute, found in (
            ("phone", phone_in(given)),
            ("vehicle", vehicle_in(given)),
            ("computer", computer_in(given)),
        ):
            if found is not None:
                return [Claim("user", attribute, found, change=True)]
        return []

    def _get(self, rest: str, low: str) -> list[Claim] | None:
        if self.p.head == stem("get") and re.match(
            r"^(?:asked|told|called|paid|invited|stuck|caught|lost|hurt|sick|[a-z]{3,}ed)\b", low
        ):
            return []  # "i get asked this at every party": something done to the user
        gift = self._gift(rest, low)
        if gift is not None:
            return gift
        title = _A_TITLE_GOT.match(rest)
        if title is not None and self.p.head == stem("get") and not self.p.negated:
            job = title.group("job")
            if lx.is_occupation(job) and not vague(job):
                # "Milica just got head chef at a restaurant in Vienna": the job, as a title.
                out = [self.claim("job", job, change=True)]
                org = clean_value(title.group("org") or "")
                return out + ([] if vague(org) else [self.claim("employer", org, change=True)])
        drug = re.match(r"^(?P<med>[a-z][a-z-]+)\b", low)
        med = drug.group("med") if drug is not None else ""
        medicine = MEDICINE_SHAPED.fullmatch(med) is not None and med not in NOT_MEDICINES
        post = re.match(
            r"^(?:a|an|the)\s+(?:[\w-]+\s+){0,3}?(?:job|contract|position|role|post|placement)"
            r"\s+(?:at|with)\s+(?P<org>.+)$",
            rest,
            re.IGNORECASE,
        )
        if post is not None and self.p.head in (stem("take"), stem("land")) and not self.p.negated:
            # "took a 12 month contract at Royal Darwin Hospital": the new employer.
            org = clean_value(post.group("org"))
            return [] if vague(org) else [self.claim("employer", org, change=True)]
        if self.p.head == stem("take") and medicine and not self.p.past:
            return [self.claim("medication", med)]  # "Takes sertraline daily"
        if self.p.head == stem("take") and not re.match(r"^(?:a\s+)?(?:new\s+)?job\b", low):
            if re.search(r"\b(?:class|course|lessons?)\b", low):
                value = clean_value(strip_det(rest))
                return [self.claim("learning", value)]
            return [] if self.strict else None
        if re.match(r"^into\s+", low):
            value = clean_value(rest[5:])
            if vague(value):
                return []
            if value[:1].isupper() or _SCHOOL.search(value):
                return [self.claim("education", value, change=True)]
            if re.match(r"^(?:a|an)\s", value, re.I):
                # "got into a fight", "got into a bad spot": a situation, not a new interest.
                return []
            return [self.claim("likes", re.sub(r"^really\s+", "", value), change=True)]
        if re.match(r"^(?:a\s+)?(?:new\s+)?job\b", low):
            tail = re.sub(r"^(?:a\s+)?(?:new\s+)?job\s*", "", rest, flags=re.I)
            found = self._new_job(tail)
            return found if found else []
        if re.match(r"^(?:a\s+)?(?:promotion|promoted)\b", low):
            tail = re.sub(r"^(?:a\s+)?(?:promotion|promoted)\s*(?:to\s+)?", "", rest, flags=re.I)
            value = clean_value(tail)
            return [self.claim("job", value, change=True)] if value and not vague(value) else []
        return self._have(rest, low, acquired=True)

    def _have(self, rest: str, low: str, acquired: bool = False) -> list[Claim] | None:
        gift = self._gift(rest, low) if acquired else None
        if gift is not None:
            return gift
        p = self.p
        # "bought a MacBook Air": a thing newly got, as much as "got" says it.
        acquired = acquired or (p.head in _ACQUIRING and not p.negated and not p.future)
        none = re.match(
            r"^(?:no|any)\s+(?:known\s+)?(?:(?:medical|health|serious|chronic|drug|food|medication"
            r"|nut|pet|seasonal)\s+)?(?P<kind>[\w\-]+)\b",
            low,
        )
        if none is not None and (p.negated or low.startswith("no ")):
            kind = none.group("kind")
            attribute = _KIND_ATTRIBUTE.get(kind) or ("pet" if lx.is_pet(kind) else None)
            if attribute is not None:
                qualifier = lx.relation_of(kind) if attribute == "family" else None
                return [self.claim(attribute, "", negated=True, qualifier=qualifier)]
        if re.match(
            r"^(?:an?\s+|my\s+|our\s+)?(?:(?:new|first|second|dream|summer|weekend|part-time"
            r"|full-time|proper)\s+)?job\s+(?:at|with)\s+",
            low,
        ):
            value = clean_value(re.sub(r"^.*?\bjob\s+(?:at|with)\s+", "", rest, flags=re.I))
            return (
                []
                if vague(value)
                else [self.claim("employer", value, change=acquired or self.p.change)]
            )
        housing = re.match(
            r"^(?:an?\s+|our\s+own\s+|my\s+own\s+|our\s+|my\s+)?(?:new\s+|small\s+|tiny\s+"
            r"|little\s+|big\s+)?(?:apartment|flat|house|condo|studio|place|home|lease)\s+"
            r"(?:in|near|outside)\s+(?P<where>.+)$",
            rest,
            re.I,
        )
        if housing is not None and p.head in _HOUSING_VERBS:
            value = clean_value(housing.group("where"))
            if vague(value):
                return []
            if p.head in (stem("own"), stem("buy")):
                # Owning a house somewhere is a possession (it can be sold), not a residence.
                return [
                    self.claim(
                        "possession", clean_value(strip_det(rest)), change=acquired or self.p.change
                    )
                ]
            out = [self.claim("residence", place_value(value), change=acquired or self.p.change)]
            if p.head == stem("rent") and not p.negated and not p.past:
                # "Rents an apartment in Madrid": where, and that the home is rented.
                out.append(self.claim("housing", "rents their home"))
            return out
        event = re.match(
            rf"^(?:an?\s+|my\s+|the\s+)?(?P<what>(?:[\w\-]+\s+){{0,2}}?(?:{EVENT_ALT}))\b"
            r"(?P<tail>.*)$",
            rest,
            re.I,
        )
        if event is not None and has_date(event.group("tail")):
            where = re.match(
                r"^\s+(?P<prep>at|with|in)\s+(?P<org>(?:an?\s+|my\s+|the\s+)?[\w\-]+"
                r"(?:\s+(?-i:[A-Z])[\w\-]*)*)",
                event.group("tail"),
            )
            what = event.group("what") + (
                f" {where.group('prep')} {where.group('org')}" if where else ""
            )
            return [self.claim("plan", what, when=when_of(event.group("tail")))]
        if self.p.said.casefold() == "had" and re.match(
            r"^(?:a|her|his|their|our|my)\s+(?:first\s+|second\s+|new\s+)?baby\b", low
        ):
            return [self.claim("event", f"had {clean_value(rest)}", change=True)]
        injury = re.match(
            r"^(?:an?\s+)?(?:bad\s+|badly\s+)?(?P<how>broken|sprained|torn|fractured|dislocated"
            r"|injured|pulled|twisted|bad)\s+(?P<part>(?:(?:left|right|lower|upper)\s+)?[\w\-]+)",
            low,
        )
        if injury is not None:
            return [self.claim("condition", f"{injury.group('how')} {injury.group('part')}")]
        pets = pets_in(rest)
        if pets:
            return [self.claim("pet", pet, change=p.change or acquired) for pet in pets]
        family = self._family(rest, low)
        if family is not None:
            return family
        match = re.match(
            r"^(?:an?\s+|bad\s+|severe\s+|mild\s+|chronic\s+)*(?P<what>[\w\-']+(?:\s+[\w\-']+)?)"
            r"\s+allergy\b",
            low,
        )
        if match is not None:
            return [self.claim("allergy", strip_det(match.group("what")))]
        match = re.match(r"^(?:an?\s+)?allergy\s+to\s+", low)
        if match is not None:
            value = clean_value(rest[match.end() :])
            return [self.claim("allergy", strip_det(v)) for v in split_values(value)]
        words = [re.sub(r"'s$", "", w.strip(",.")) for w in low.split()]
        stripped = [w for w in words if w not in _SEVERITY]
        two = " ".join(stripped[:2])
        if stripped and (
            stripped[0] in lx.CONDITIONS
            or two in lx.CONDITIONS
            or two.replace(" ", "-") in lx.CONDITIONS
        ):
            value = clean_value(rest)
            return [self.claim("condition", strip_det(v)) for v in split_values(value)]
        if re.search(
            r"\b(?:type [12] diabetes|high blood pressure|a bad back|a heart condition)", low
        ):
            return [self.claim("condition", clean_value(strip_det(rest)))]
        match = re.match(
            r"^(?:an?\s+)?(?:phd|ph\.d\.|doctorate|master'?s|masters|bachelor'?s|bachelors|degree"
            r"|mba|ba|bs|bsc|msc|ma)\b(?:\s+degree)?\s+(?:in\s+)?",
            low,
        )
        if match is not None:
            return [self.claim("degree", clean_value(rest))]
        consumed = self._consumed(rest, low)
        if consumed is not None:
            return consumed
        vehicle = vehicle_in(rest)
        if vehicle is not None:
            return [self.claim("vehicle", vehicle, change=p.change or acquired)]
        computer = computer_in(rest)
        if computer is not None:
            return [self.claim("computer", computer, change=p.change or acquired)]
        phone = phone_in(rest)
        if phone is not None:
            return [self.claim("phone", phone, change=p.change or acquired)]
        if p.negated and re.match(r"^(?:a\s+|any\s+)?(?:pets?|animals?)\b", low):
            return [self.claim("pet", "", negated=True)]  # "never owned a pet in my life"
        if self.p.head in (stem("own"), stem("buy")) or (acquired and self.p.head == stem("buy")):
            value = clean_value(rest)
            return [] if vague(value) else [self.claim("possession", strip_det(value))]
        # "a home in Porto" is owned; "(get) home at 7" is where the user arrives.
        if re.match(r"^(?:a\s+(?:house|home)|condo|apartment|flat|cabin|cottage)\b|^house\b", low):
            value = clean_value(rest)
            return [self.claim("possession", strip_det(value))]
        if self.strict:
            return []
        value = clean_value(rest)
        if vague(value) or re.match(
            r"^(?:to|a (?:question|meeting|call|chat|look))\b", value, re.I
        ):
            return []
        return [self.claim("possession", strip_det(value), change=acquired or self.p.change)]

    def _consumed(self, rest: str, low: str) -> list[Claim] | None:
        """ "had a great steak at dinner", "I have a couple of beers after work": eating or
        drinking, read by the head noun. Once (past, or now) it is a meal, which contradicts a
        diet but is no fact to keep; as a habit it is one."""
        p = self.p
        if p.head != stem("have") or p.negated or p.future or p.modal:
            return None
        phrase = re.split(
            r",|\s+(?:at|for|with|after|before|in|on|by|last|yesterday|tonight|of\s+my\s+life"
            r"|this|every|most\s+(?:days|nights|evenings|mornings|weekends|weeks)|and|but|so"
            r"|because)\b",
            low,
            maxsplit=1,
        )[0]
        said = [w.strip(".!?") for w in phrase.split()]
        head = said[-1] if said else ""
        if head in _DISHES:  # "lamb chops", "a chicken sandwich": the dish of what is named
            head = next((w for w in said if w in lx.FOOD_AND_DRINK), "")
        if head not in lx.FOOD_AND_DRINK:
            return None
        verb = "drinks" if head in lx.DRINKS else "eats"
        value = f"{verb} {head}"
        one_time = self.when is not None and not habitual(self.when)
        if p.past or p.said.casefold() in ("had", "having") or p.progressive or one_time:
            return [] if self.strict else [self.claim("meal", value)]
        return [self.claim("habit", value)]

    def _lose(self, rest: str, low: str) -> list[Claim] | None:
        if re.match(r"^(?:my|our|their|his|her)\s+job\b", low):
            return [self.claim("employer", "", negated=True, change=True)]
        pets = pets_in(rest)
        if pets:
            return [self.claim("pet", pet, negated=True, change=True) for pet in pets]
        return [] if self.strict else None

    def _sell(self, rest: str, low: str) -> list[Claim] | None:
        if self.p.head == stem("trade") and re.search(r"\bfor\s+\S", rest):
            return self._switch(rest, low)  # "traded in the corolla for a Subaru Outback"
        if self.p.head == stem("trade"):
            rest = re.sub(r"^in\s+", "", rest, flags=re.I)  # "traded in my car"
        said = self.p.said.casefold()
        if said in ("sell", "sells", "trade", "trades") and not self.p.negated:
            # "I sell insurance to farmers": the present simple tells a trade, not a sale.
            return [] if self.strict else None
        # "sold my ps5 on ebay", "to a friend", "for £300": where and for what, not the thing.
        value = clean_value(re.split(r"\s+(?:to|for|on|via|through)\s+", rest, maxsplit=1)[0])
        if vague(value):
            return []
        vehicle = vehicle_in(value)
        if vehicle is not None:
            return [self.claim("vehicle", vehicle, negated=True, change=True)]
        if is_name(value.split(" ")[0]) or self.p.head != stem("sell"):
            return [self.claim("any", value, negated=True, change=True)]
        return [self.claim("possession", strip_det(value), negated=True, change=True)]

    def _drive(self, rest: str, low: str) -> list[Claim] | None:
        arriving = arriving_from(self, rest, low)
        if arriving is not None:
            return arriving
        hired = re.match(r"^for\s+(?P<org>[A-Z][\w&'-]*(?:\s+[A-Z][\w&'-]*)*)", rest)
        if hired is not None and not self.p.past:
            # "driving for UPS", "I drive for Uber": who the user drives for is their employer.
            org = clean_value(hired.group("org"))
            return [] if vague(org) else [self.claim("employer", org)]
        if self.p.negated and _NOTHING_MORE.match(low):
            return [self.claim("habit", "drives", negated=True)]  # "i don't drive so ..."
        trade = _DRIVEN_FOR_WORK.match(rest)
        if trade is not None and self.s.key == "user" and not self.p.negated:
            # "i drive a taxi in bishkek", "I drive a van for DPD": the work, not a car owned.
            route = f" on the {trade.group('route')}" if trade.group("route") else ""
            out = [self.claim("job", f"a {trade.group('what').casefold()} driver{route}")]
            org = trade.group("org")
            if org and not vague(org):
                out.append(self.claim("employer", clean_value(org)))
            return out
        vehicle = vehicle_in(rest) or clean_value(rest)
        if vague(vehicle) or re.match(r"^(?:to|for|home|around|a lot)\b", vehicle, re.I):
            return [] if self.strict else None
        return [self.claim("vehicle", vehicle)]

    def _ride(self, rest: str, low: str) -> list[Claim] | None:
        """ "ride a honda wave to work": the vehicle; "ride horses" is left to the pastimes."""
        what = re.split(r"\s+(?:to|for|around|every|daily|each|at|in)\b", rest, maxsplit=1)[0]
        vehicle = vehicle_in(what) if not self.p.negated else None
        return None if vehicle is None else [self.claim("vehicle", vehicle)]

    def _keep(self, rest: str, low: str) -> list[Claim] | None:
        pets = pets_in(rest)
        if pets:
            return [self.claim("pet", pet) for pet in pets]
        kept = re.match(
            r"^(?P<what>bees|chickens|hens|goats|sheep|pigeons|ducks|pigs|cows|alpacas)\b", low
        )
        if kept is not None and not self.p.negated:
            # "i keep bees on a smallholding near Llandeilo": and where, if it is said.
            where = _KEPT_WHERE.match(rest[kept.end() :])
            said = f"{kept.group('what')}{where.group(0) if where else ''}"
            return [self.claim("hobby", f"keeps {said}")]
        return [] if self.strict else None

    def _use(self, rest: str, low: str) -> list[Claim] | None:
        phone = phone_in(rest)
        if phone is not None:
            return [self.claim("phone", phone)]
        computer = computer_in(re.split(r"\s+for\s+", rest, maxsplit=1)[0])
        if computer is not None:
            return [self.claim("computer", computer)]
        return [] if self.strict else None

    def _switch(self, rest: str, low: str) -> list[Claim] | None:
        match = re.match(
            r"^(?:over\s+)?(?:[\w\-]+\s+)?(?:from\s+(?P<a>.+?)\s+)?to\s+(?P<b>.+)$", rest, re.I
        )
        rest = re.sub(r"^in\s+(?=\S)", "", rest, flags=re.I)  # "traded in the corolla for ..."
        swap = re.match(r"^(?P<a>.+?)\s+for\s+(?P<b>.+)$", rest, re.I)
        backwards = re.match(r"^(?:over\s+)?to\s+(?P<b>.+?)\s+from\s+(?P<a>.+)$", rest, re.I)
        if backwards is not None:
            match = backwards  # "switched to Neovim from VS Code"
        if match is None and swap is not None and self.p.head in (stem("swap"), stem("trade")):
            match = swap
        if match is None:
            return [] if self.strict else None
        b = clean_value(match.group("b"))
        a = clean_value(match.group("a")) if match.group("a") else None
        if a is not None:
            a = re.sub(r"\s+in$", "", a, flags=re.I)  # "traded the Focus in for a Kia"
        if vague(b):
            return []
        diet = diet_of(b.casefold())
        if diet is not None:
            return [self.claim("diet", diet, change=True, previous=a)]
        phone = phone_in(b)
        if phone is not None:
            return [self.claim("phone", phone, change=True, previous=a)]
        computer = computer_in(b)
        if computer is not None:
            return [self.claim("computer", computer, change=True, previous=a)]
        traded = self.p.head in (stem("swap"), stem("trade"))
        vehicle = vehicle_in(b) if a is not None and (traded or vehicle_in(a) is not None) else None
        if vehicle is not None:
            return [self.claim("vehicle", vehicle, change=True, previous=a)]
        if self.p.head == stem("transfer") and a is not None:
            # "transferred from ohio state to Purdue": a school (or an office) for another.
            return [self.claim("education", b, change=True, previous=a)]
        if a is None:
            return [self.claim("switch", b, change=True)]
        return [self.claim("preference", b, change=True, previous=a)]

    def _give(self, rest: str, low: str) -> list[Claim] | None:
        if re.match(r"^up\b", low):
            return self._quit(re.sub(r"^up\b\W*", "", rest, flags=re.I), low[3:])
        if re.match(r"^birth\b", low):
            return [self.claim("condition", "pregnant", negated=True, change=True)]
        if re.search(r"\baway\b", low):
            value = clean_value(re.sub(r"\baway\b", "", rest, flags=re.I))
            return [] if vague(value) else [self.claim("any", value, negated=True, change=True)]
        return [] if self.strict else None

    def _rehome(self, rest: str, low: str) -> list[Claim] | None:
        value = clean_value(rest)
        return [] if vague(value) else [self.claim("any", value, negated=True, change=True)]


# A title got without an article ("got head chef", not "got a tutor", someone hired).
_A_TITLE_GOT = re.compile(
    r"^(?!(?:a|an|the|my|our|some)\s)(?P<job>[a-z][\w -]{2,30}?)(?:\s+(?:job|role|position))?"
    r"(?:\s+(?:at|with)\s+(?P<org>.+))?$",
    re.IGNORECASE,
)
_KEPT_WHERE = re.compile(
    r"\s+(?:on|at|in)\s+(?:a|an|the|my|our)\s+[\w' -]+?\s+(?:near|in|outside)\s+(?-i:[A-Z])[\w'-]+",
    re.IGNORECASE,
)
_DRIVEN_FOR_WORK = re.compile(
    r"^(?:an?\s+|the\s+)(?P<what>taxi|cab|bus|minibus|school\s+bus|truck|lorry|van|delivery\s+van"
    r"|tram|forklift|ambulance|trolleybus|tuk[\s-]?tuk|rickshaw|matatu|jeepney|dump\s+truck"
    r"|tractor|train|coach)\b"
    r"(?:\s+on\s+the\s+(?P<route>[\w\u2013' -]{2,40}?\s+(?:route|line|run)))?"
    r"(?:[^,.;]*?\bfor\s+(?P<org>(?-i:[A-Z])[\w&'-]*(?:\s+(?-i:[A-Z])[\w&'-]*)*))?",
    re.IGNORECASE,
)
_DISHES = lx.words(
    "chops roast stew pie sandwich sandwiches soup salad tacos taco roll rolls skewers kebab"
    " wings nuggets fillet fillets shake shakes curry"
)
_HOUSING_VERBS = stems("have own rent buy get sign lease find")


# "no <kind>": the attribute every value of the kind belongs to.
_KIND_ATTRIBUTE = {
    "pets": "pet",
    "pet": "pet",
    "animals": "pet",
    "kids": "family",
    "children": "family",
    "kid": "family",
    "child": "family",
    "siblings": "family",
    "sibling": "family",
    "allergies": "allergy",
    "conditions": "condition",
    "condition": "condition",
    "illnesses": "condition",
    "problems": "condition",
    "issues": "condition",
    "car": "vehicle",
    "cars": "vehicle",
    "job": "employer",
    "partner": "partner",
    "boyfriend": "partner",
    "girlfriend": "partner",
}


# How bad a condition is, said before it ("early-stage Parkinson's").
_SEVERITY = frozenset(
    [
        "a",
        "an",
        "the",
        "bad",
        "severe",
        "mild",
        "chronic",
        "early-stage",
        "late-stage",
        "stage",
        "early",
        "advanced",
        "acute",
    ]
)

_ACQUIRING = frozenset(stem(v) for v in ("buy", "adopt", "rescue", "lease"))
