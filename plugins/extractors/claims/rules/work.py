"""Rules for work: employer, job, joining, quitting, retiring, freelancing."""

from __future__ import annotations

import re

from plugins.extractors import lexicon as lx
from plugins.extractors.claims.locations import bare_org, is_place_like, place_value
from plugins.extractors.claims.model import Claim
from plugins.extractors.claims.phrases import diet_of, has_date, strip_det, with_article
from plugins.extractors.claims.predicates import Predicate
from plugins.extractors.claims.reading import Reading
from plugins.extractors.claims.subjects import is_name
from plugins.extractors.claims.values import clean_value, vague, when_of
from plugins.extractors.claims.words import stem
from plugins.extractors.places import known_place

# A past-tense verb inside what would be a job title: "chewed", "broke" (but a "registered"
# nurse and a "trained" chef are what they are).
_A_BUSINESS = re.compile(
    r"^(?:a|an|my|our|the)\s+(?:(?:small|little|tiny|family|own|busy)\s+)*(?P<what>bakery|cafe|café"
    r"|shop|store|restaurant|salon|bar|pub|hostel|guesthouse|b&b|farm|business|company|clinic"
    r"|practice|studio|gym|stall|food\s+truck|kiosk|workshop|garage|nursery|daycare|izakaya"
    r"|bistro|diner|brewery|bookshop|bookstore)\b"
    r"(?:\s+(?:in|near|on|from|out\s+of)\s+(?P<where>(?-i:[A-Z])[\w'-]*(?:[\s-]+(?-i:[A-Z])[\w'-]*)*))?"
    r"(?:,?\s+(?:called|named)\s+(?P<name>(?-i:[A-Z])[\w'&-]*(?:\s+(?:&\s+)?(?-i:[A-Z])[\w'&.-]*)*))?",
    re.IGNORECASE,
)
_ON_THE_UNIT = re.compile(
    r"\s+on\s+(?:the\s+)?(?P<unit>[\w -]{2,30}?\s+(?:ward|unit|team|floor|desk|line))\s+at\s+",
    re.IGNORECASE,
)
_A_DEED = re.compile(
    r"(?!(?:registered|qualified|trained|certified|licensed|retired|experienced|skilled"
    r"|self-employed|unemployed|talented|dedicated|accredited|chartered|sworn|ordained"
    r"|appointed|elected|based|paid|unpaid|salaried|advanced|red|bed|shed|seed|speed|need"
    r"|feed|bleed|breed|weed|deed|reed|greed)$)[a-z]{3,}ed"
)


_LEFT_THE_WORKPLACE = re.compile(
    r"^(?:my|our|the|their|his|her)\s+(?:[\w'-]+\s+){0,2}?(?:salon|distillery|studio|practice"
    r"|bakery|pharmacy|surgery|depot|plant|mill|mine|garage|dealership|newsroom|agency|startup"
    r"|kitchen|clinic|hospital|restaurant|cafe|café|bar|hotel|factory|warehouse|bank|gym"
    r"|library|office|store|shop|firm|company|school|lab|site)\b(?!\s+(?:at|early|late|today"
    r"|tonight|yesterday|this\s+(?:morning|afternoon|evening)|for\s+(?:the|a)\s+day|around"
    r"|in\s+a\s+hurry)\b)",
    re.IGNORECASE,
)
"""A workplace left ("the Lekki salon"); not a place left for the day ("left the office at
six")."""


_A_DEGREE = re.compile(
    r"^(?:an?\s+|my\s+)?(?:[\w-]+\s+)?(?:master'?s|masters|phd|doctorate|degree|diploma|mba|msc"
    r"|bachelor'?s|bsc|llm|dphil)\b",
    re.IGNORECASE,
)


class WorkRules(Reading):
    """Rules for work: employer, job, joining, quitting, retiring, freelancing."""

    def _employment_state(self, rest: str, low: str) -> list[Claim] | None:
        hired = re.match(
            r"^(?:hired|recruited|taken\s+on|brought\s+on)\s+as\s+(?:an?\s+)?(?P<job>[\w -]+?)\s+"
            r"(?:at|by|with|for)\s+(?P<org>.+)$",
            rest,
            re.IGNORECASE,
        )
        if hired is not None and lx.is_occupation(hired.group("job")):
            # "got hired as a warehouse supervisor at Mercado Libre": the job and the employer.
            org = clean_value(hired.group("org"))
            out = [self.claim("job", with_article(hired.group("job")), change=True)]
            return out + ([] if vague(org) else [self.claim("employer", org, change=True)])
        match = re.match(
            r"^(?:employed|working)\s+(?:at|by|for)\s+|^(?:hired|recruited)\s+(?:at|by)\s+"
            r"|^(?:now\s+)?with\s+(?=[A-Z])",
            rest,
            re.IGNORECASE,
        )
        if match is not None:
            if low.startswith("with ") and self.strict:
                return None
            value = clean_value(rest[match.end() :])
            if vague(value):
                return []
            out = [self.claim("employer", value, change=p_change(self.p, low))]
            role = _role_named(rest)
            if role is not None:
                out.append(self.claim("job", role))
            return out
        match = re.match(
            r"^(?:fired|laid off|let go|sacked|made redundant)\b(?:\s+(?:from|by))?\s*", low
        )
        if match is not None:
            value = clean_value(rest[match.end() :])
            value = "" if vague(value) or value.casefold() in ("my job", "work") else value
            if re.match(r"(?:in|during|after|before|on|with|because|due)\b", value, re.I):
                value = ""  # "let go in the restructuring": when or why, not from where
            if match.group(0).rstrip().endswith(" by") and not value[:1].isupper():
                value = ""  # "fired by my boss": who did it, not the employer
            how = re.split(r"\s+(?:from|by)\b", match.group(0))[0].strip()
            return [
                self.claim("employer", _strip_job(value), negated=True, change=True, qualifier=how)
            ]
        match = re.match(r"^(?:promoted|bumped\s+up|moved\s+up)\s+to\s+", low)
        if match is not None:
            value = clean_value(rest[match.end() :])
            return [] if vague(value) else [self.claim("job", value, change=True)]
        if re.match(r"^(?:retired|a retiree|a pensioner)\b", low):
            return [
                self.claim("job", "retired", change=True),
                self.claim("employer", "", negated=True, change=True),
            ]
        if re.match(r"^(?:unemployed|jobless|out of work|between jobs|looking for work)\b", low):
            return [self.claim("employer", "", negated=True, change=True)]
        if re.match(r"^(?:self-employed|self employed|freelance|freelancing)\b", low):
            return [self.claim("employer", "self-employed")]
        return None

    def _occupation(self, rest: str) -> list[Claim] | None:
        # "a sales rep for a cement company": who the work is for, which a value's "for a ..."
        # cut would lose.
        for_a = _FOR_A_BUSINESS.search(rest)
        text = clean_value(rest)
        # "a research assistant at NTNU working on battery models": what the work is about.
        text = re.sub(
            r"\s+(?:working|focusing|specialising|specializing)\s+(?:on|in)\s+.*$", "", text
        )
        text = re.sub(
            r"^(?:normally|usually|generally|basically|mostly|technically|only|just|merely|simply)\s+",
            "",
            text,
        )
        text = re.sub(
            r"\s+(?:there|here|irl|in\s+real\s+life|by\s+trade|by\s+profession)$",
            "",
            text,
            flags=re.I,
        )
        if re.match(r"^on\s+(?:a|an|the|my)\s", text, re.I):
            return None  # "I'm on a bajaj boxer now": riding it, not working as a boxer
        retired = re.match(
            r"^(?:an?\s+)?retired\s+(?P<job>[\w -]+?)(?:\s+(?:living|based)\s+in\s+"
            r"(?P<where>(?-i:[A-Z])[\w.'-]*(?:\s+(?-i:[A-Z])[\w.'-]*)*))?$",
            text,
            re.IGNORECASE,
        )
        if retired is not None and lx.is_occupation(retired.group("job").casefold()):
            # "a retired mining engineer living in Lusaka": retired, and what they were.
            out = [
                self.claim("job", "retired"),
                self.claim(
                    "job", with_article(retired.group("job")), past=True, qualifier="retired"
                ),
            ]
            if retired.group("where"):
                out.append(self.claim("residence", place_value(retired.group("where"))))
            return out
        local = re.fullmatch(
            r"(?:an?\s+)?(?:proud\s+|lifelong\s+|born-and-bred\s+)?(?P<place>[A-Z][\w.'-]*"
            r"(?:\s+[A-Z][\w.'-]*)*)\s+(?P<kind>resident|local|native|born and bred)",
            text,
        )
        if local is not None:
            # "a Leeds resident", "a Boston local": where the user lives; "a Cork native": from.
            place = place_value(local.group("place"))
            native = local.group("kind") in ("native", "born and bred")
            return [self.claim("origin" if native else "residence", place)]
        unit = _ON_THE_UNIT.search(text)
        before = re.sub(r"^(?:an?|the)\s+", "", text[: unit.start()]) if unit is not None else ""
        if unit is not None and lx.is_occupation(before):
            # "a registered nurse on the cardiac ward at Queen Mary": the job, where, and the ward.
            found = self._occupation(text[: unit.start()] + " at " + text[unit.end() :]) or []
            return [*found, self.claim("work_field", unit.group("unit"))]
        # "a nurse doing nights at St. Vincent's": the job, then what the job has the user doing;
        # "an engineer working at Google" is an engineer at Google.
        text = re.sub(r"\s+(?:working|employed)\s+(?=(?:at|for|with)\b)", " ", text)
        # "a trekking guide based in kathmandu": a job in a place.
        text = re.sub(r"\s+(?:based|located)\s+(?:in|out\s+of)\s+", " in ", text, flags=re.I)
        doing = re.match(
            r"^(?P<job>(?:an?\s+)?[\w-]+(?:\s+[\w-]+){0,3}?)\s+(?:[a-z]+ing\s+\S|(?:registered"
            r"|qualified|trained|certified|licensed|employed)\b)",
            text,
        )
        if doing is not None and lx.is_occupation(re.sub(r"^an?\s+", "", doing.group("job"))):
            text = doing.group("job")
        match = re.match(
            r"^(?P<article>(?:a|an|the)\s+)?(?P<job>.+?)(?:\s+(?P<prep>at|for|with|in|on|from)\s+"
            r"(?P<org>.+))?$",
            text,
            re.IGNORECASE,
        )
        if match is None:
            return None
        job = match.group("job")
        if re.search(r"\b(?:team|club|squad|league|side|crew)\b", text, re.I) and re.match(
            r"(?:vice[\s-]?)?captain\b|co-?captain\b", job, re.I
        ):
            # "vice-captain of a social cricket team": a pastime and a role in it, no job.
            return [self.claim("hobby", f"is {with_article(clean_value(text))}")]
        words = job.split()
        if any(_A_DEED.fullmatch(w.casefold()) for w in words[:-1]):
            return None  # "simba chewed my laptop charger": something done, not a job
        head = re.split(r"\s+of\s+", job, maxsplit=1)[0]
        named = not match.group("article") and not match.group("org") and len(words) <= 3
        named = named and all(w[:1].isupper() for w in words)
        if named and (len(words) == 1 or head.split()[-1].casefold() not in lx.OCCUPATIONS):
            return None  # "I'm Dev", "I'm now Laura Okafor": a name, not "Junior Developer"
        job_low = head.casefold()
        if diet_of(job_low) is not None or re.search(
            r"\b(?:person|fan|lover|type|kind|sort|bit|lot|big|huge|morning|night|such)\b", job_low
        ):
            return None
        org = _org_named(match.group("org")) if match.group("org") else None
        prep = (match.group("prep") or "").casefold()
        field = re.match(r"^(?P<field>[\w -]+?)\s+(?:at|for)\s+(?P<org>(?-i:[A-Z]).*)$", org or "")
        if field is not None and prep == "in" and not is_place_like(field.group("field")):
            # "a senior associate in audit at KPMG": the job in its field, at the employer.
            job = f"{job} in {field.group('field')}"
            org, prep = field.group("org"), "at"
        if org is not None and prep == "in":
            org = re.sub(r"\s+with\s+.*$", "", org)  # "in Ohio with student loans"
        employer = (
            clean_value(org)
            if org is not None and prep in ("at", "for", "with") and not has_date(org)
            else ""
        )
        known = lx.is_occupation(job_low)
        if not known and not (employer and match.group("article") and not self.strict):
            return None
        if self.strict and not match.group("article") and not lx.is_occupation(job_low.split()[-1]):
            return None
        job_text = with_article(job) if match.group("article") else job
        if employer and bare_org(employer):
            employer = employer[:1].upper() + employer[1:]  # "a junior dev at shopify"
        named = bool(employer) and employer[:1].isupper()
        if (
            org is not None
            and not named
            and not has_date(org)
            and prep in ("at", "for", "with", "in")
            and (prep != "in" or not is_place_like(clean_value(org)))
        ):
            job_text = f"{job_text} {prep} {clean_value(org)}"
        if for_a is not None and org is None:
            job_text = f"{job_text} for {for_a.group('org')}"
        out = [self.claim("job", job_text)]
        if named and not vague(employer):
            out.append(self.claim("employer", employer))
        if prep == "in" and org is not None and is_place_like(clean_value(org)):
            out.append(self.claim("residence", place_value(clean_value(org))))
        return out

    def _work(self, rest: str, low: str) -> list[Claim] | None:
        # "I work from home as a UX designer for a fintech": the mode, and the job.
        remote = re.match(r"^(?:from\s+home|remotely)\s+(?=as\b|at\b|for\b)", rest, re.I)
        mode = [self.claim("work_mode", "remote")] if remote is not None else []
        rest = re.sub(
            r"^(?:(?:early|late|long|night|day|evening|weekend|double)\s+)?(?:nights|days"
            r"|weekends|evenings|part[- ]time|full[- ]time|shifts?|remotely|from\s+home|freelance"
            r"|\d{1,2}(?::\d\d)?\s*(?:-|\u2013|to)\s*\d{1,2}(?::\d\d)?|nine\s+to\s+five)\s+"
            r"(?=as\b|at\b|for\b)",
            "",
            rest,
            flags=re.I,
        )
        low = rest.casefold()
        match = re.match(r"^(?:as|as an?)\s+", low)
        if match is not None:
            value = clean_value(rest[match.end() :])
            if vague(value):
                return []
            out = [*mode, self.claim("job", with_article(value))]
            org = re.search(r"\s(?:at|for|with)\s+(?P<org>[^,.;!?]+)", rest[match.end() :], re.I)
            if org is not None:
                org_value = clean_value(org.group("org"))
                if org_value and not vague(org_value):
                    out.append(self.claim("employer", org_value))
            return out
        match = re.match(
            r"^(?:[\w\-]+\s+){0,3}?(?:at|for)\s+(?=(?-i:[A-Z]))|^(?:at|for)\s+", rest, re.I
        )
        if match is not None:
            value = clean_value(rest[match.end() :])
            if vague(value) or re.match(r"^(?:myself|home|a living)\b", value, re.I):
                if value.casefold() == "myself":
                    return [self.claim("employer", "self-employed")]
                return []
            if value.casefold() in _NOT_EMPLOYERS:
                return []
            # "works at Google as a software engineer": the job too.
            role = re.search(
                r"\s+as\s+(?:an?\s+)?(?P<job>[^,.;!?]+)[.!]*$", rest[match.end() :], re.I
            )
            out = [self.claim("employer", _strip_job(value))]
            if role is not None and lx.is_occupation(clean_value(role.group("job")).casefold()):
                out.append(self.claim("job", with_article(clean_value(role.group("job")))))
            line = re.match(r"^in\s+(?P<field>[a-z][\w -]*?)\s+(?:at|for)\s+$", low[: match.end()])
            if line is not None and not is_place_like(line.group("field")):
                # "I work in compliance at Bradesco": the line of work, and where.
                out.append(self.claim("work_field", strip_det(line.group("field"))))
            return out
        how = re.match(
            r"^(?:fully\s+|mostly\s+|completely\s+)?(?P<how>from home|remotely|remote)\b", low
        )
        if how is not None:
            out = [self.claim("work_mode", how.group("how"))]
            # "I work from home in Daejeon now": the home is there.
            home = re.match(
                r"^\s+(?:in|out\s+in|up\s+in|down\s+in)\s+(?P<where>[\w' -]+)", rest[how.end() :]
            )
            if how.group("how") == "from home" and home is not None:
                place = place_value(clean_value(home.group("where")))
                if not vague(place) and (place[:1].isupper() or known_place(place)):
                    out.append(self.claim("residence", place[:1].upper() + place[1:]))
            return out
        if re.match(r"^(?:(?:in|from|at) the office|on-?site|in person)\b", low):
            return [self.claim("work_mode", "in the office")]
        match = re.match(r"^in\s+", low)
        if match is not None:
            # "i work in warehouse in ostrava as order picker": the job too.
            role = re.search(r"\s+as\s+(?:an?\s+)?(?P<job>[^,.;!?]+)", rest[match.end() :], re.I)
            if role is not None and lx.is_occupation(clean_value(role.group("job")).casefold()):
                job = self.claim("job", with_article(clean_value(role.group("job"))))
                field = f"in {rest[match.end() :][: role.start()]}"
                return [*(self._work(field, field.casefold()) or []), job]
            value = clean_value(rest[match.end() :])
            if vague(value):
                return []
            office = re.match(
                r"^(?:the\s+)?(?P<org>[A-Z][\w&'-]*(?:\s+[A-Z][\w&'-]*)*?)"
                r"(?:\s+[A-Z][\w-]*)?\s+(?:office|branch|headquarters|hq|plant|factory|store)\b",
                value,
            )
            if office is not None and not known_place(office.group("org")):
                # "working in Infosys Pune office": the employer, at one of its sites.
                return [self.claim("employer", re.sub(r"'s?$", "", office.group("org")))]
            if is_place_like(value):
                return [self.claim("work_location", value)] if not self.strict else []
            where = re.match(r"^(?P<field>.+?)\s+(?:at|for)\s+(?P<org>.+)$", value)
            if where is not None:
                # "in the warehouse at an Amazon fulfillment center": a field and an employer.
                return [
                    self.claim("work_field", strip_det(where.group("field"))),
                    self.claim("employer", where.group("org")),
                ]
            return [self.claim("work_field", strip_det(value))]
        role = re.search(r"\bas\s+(?:an?\s+)?(?P<job>[\w -]+?)(?=[,.;!]|$)", rest, re.I)
        if role is not None and lx.is_occupation(clean_value(role.group("job")).casefold()):
            # "work on the ferries out of bergen as a deckhand": the job, however it was placed.
            return [self.claim("job", with_article(clean_value(role.group("job"))))]
        match = re.match(r"^on\s+", low)
        if match is not None and _A_DEGREE.search(low[match.end() :]):
            # "working on a master's in history": a course of study, as "doing" one is.
            course = re.sub(r"^(?:my|an?)\s+", "", clean_value(rest[match.end() :]), flags=re.I)
            return [self.claim("education", course)]
        if match is not None and not self.strict:
            value = clean_value(rest[match.end() :])
            return [] if vague(value) else [self.claim("project", value)]
        return [] if self.strict else None

    def _join(self, rest: str, low: str) -> list[Claim] | None:
        if self.p.head == stem("start") and re.match(r"^(?:(?:a|my|our)\s+)?(?:new\s+)?job\b", low):
            tail = re.sub(r"^(?:(?:a|my|our)\s+)?(?:new\s+)?job\s*", "", rest, flags=re.I)
            return self._new_job(tail) or [self.claim("employer", "", negated=True, change=True)]
        if self.p.head == stem("start") and re.match(r"^(?:at|with|as)\s+", low):
            return self._new_job(rest)  # "starting at Chewy on monday as a senior analyst"
        if self.p.head == stem("start"):
            school = re.match(
                r"^(?:a\s+|my\s+|the\s+)?(?P<what>(?:[\w\-]+\s+){0,2}?(?:class|classes|course"
                r"|lessons|university|college|uni|school|kindergarten|grad school|med school"
                r"|law school|apprenticeship|degree|masters|phd))\b(?:\s+(?:at|in)\s+(?P<at>.+))?",
                rest,
                re.I,
            )
            if school is not None:
                what = school.group("what")
                where = clean_value(school.group("at") or "")
                attribute = (
                    "learning" if re.search(r"class|course|lesson", what, re.I) else "education"
                )
                value = f"{what} at {where}" if where and not has_date(where) else what
                return [self.claim(attribute, value, change=True)]
            return self._generic_or_none(rest, low)
        if re.match(r"^as\s+", low):
            # "joined as SDE-2 on 1st December": the post, and a new employer not named here.
            joined = self._new_job(rest)
            if not any(c.attribute == "employer" for c in joined):
                joined.append(self.claim("employer", "", negated=True, change=True))
            return joined
        value = clean_value(rest)
        value = re.sub(r"^(?:the\s+)?(?:team\s+at|staff\s+(?:at|of))\s+", "", value, flags=re.I)
        if vague(value):
            return []
        team = _ORG_TEAM.match(value)
        if team is not None:
            # "joined Equity Bank's digital team": the bank is where the user works now.
            return [self.claim("employer", team.group("org"), change=True)]
        if _MEMBERSHIP.search(value):
            # Joining a club, a programme or a group is something the user does, not a job.
            return [self.claim("hobby", f"belongs to {value}")] if not self.p.negated else []
        out = [self.claim("employer", value, change=True)]
        role = _role_named(rest)
        if role is not None:
            out.append(self.claim("job", role, change=True))  # "joined Monzo as a data analyst"
        return out

    def _new_job(self, tail: str) -> list[Claim]:
        out = []
        match = re.search(
            r"\bas\s+(?:an?\s+)?(?P<job>[^,.;!?]+?)(?=\s+(?:at|for|with)\b|\s*[,.;!?]|$)", tail
        )
        if match is not None:
            job = clean_value(match.group("job"))
            if job and not vague(job):
                out.append(self.claim("job", with_article(job), change=True))
        tail = _org_named(tail)
        # A dot before a capital inside one sentence is an abbreviation ("St. Mary's").
        match = re.search(r"\b(?:at|for|with)\s+(?P<org>(?:[^,.;!?]|\.(?=\s+[A-Z]))+)", tail)
        if match is not None:
            org = clean_value(match.group("org"))
            if org and not vague(org):
                out.append(self.claim("employer", org, change=True))
        return out

    def _leave(self, rest: str, low: str) -> list[Claim] | None:
        if _LEFT_THE_WORKPLACE.match(low) and not self.p.future:
            # "I finally left the Lekki salon", "Rogelio left the distillery": the workplace,
            # so the job there, is over.
            return [self.claim("employer", "", negated=True, change=True)]
        if re.match(r"^(?:my|our|the|their|his|her)\s+(?:job|position|role|company|firm)\b", low):
            match = re.search(r"\b(?:at|with)\s+(?P<org>.+)$", rest, re.I)
            org = clean_value(match.group("org")) if match else ""
            return [self.claim("employer", org, negated=True, change=True)]
        went_to = re.match(
            r"^for\s+(?P<org>(?-i:[A-Z])[\w&'.-]*(?:\s+(?-i:[A-Z])[\w&'.-]*){0,2})", rest
        )
        if went_to is not None and not self.p.future:
            org = clean_value(went_to.group("org"))
            first = org.split(" ")[0].casefold()
            if not (known_place(org) or vague(org) or first in _NOT_WORKPLACES):
                # "Rachel left for Figma": she works there now (a place would be a move).
                return [self.claim("employer", org, change=True)]
        value = clean_value(rest)
        # "we left rennes in the end": a place memory knows, typed in lower case, is a name.
        if vague(value) or not (is_name(value.split(" ")[0]) or known_place(value)):
            return []
        return [self.claim("any", value, negated=True, change=True)]

    def _packed_in(self, rest: str, low: str) -> list[Claim] | None:
        """ "packed in the thursday football", "jacked in my job": quit, as said in Britain."""
        match = re.match(r"^in\s+", low)
        if match is None or self.p.future:
            return [] if self.strict else None
        return self._quit(rest[match.end() :], low[match.end() :])

    def _quit(self, rest: str, low: str) -> list[Claim] | None:
        p = self.p
        if p.head == stem("resign") and (
            p.negated or p.modal or p.future or p.progressive or re.match(r"^(?:myself|to)\b", low)
        ):
            return []  # "resigning myself to it", "I'm resigning next week": not yet, or not so
        if p.head == stem("resign"):
            # "I resigned from Infosys", "resigned from my job at the bank", "I resigned".
            at = re.match(
                r"^from\s+(?:(?:my|the|our)\s+(?:job|position|role|post)(?:\s+(?:at|with)\s+|$))?",
                rest,
                re.I,
            )
            org = clean_value(rest[at.end() :]) if at else ""
            return [
                self.claim(
                    "employer",
                    "" if vague(org) else org,
                    negated=True,
                    change=True,
                    qualifier="quit",
                )
            ]
        if not rest.strip(" .!") or self.p.negated:
            return []  # "i cant stop long", "can't stop eating chocolate": nothing ended
        if re.match(r"^(?:my|the|our|their|his|her)\s+(?:job|position|role)\b", low):
            match = re.search(r"\b(?:at|with)\s+(?P<org>.+)$", rest, re.I)
            org = clean_value(match.group("org")) if match else ""
            return [self.claim("employer", org, negated=True, change=True, qualifier=self.p.said)]
        value = clean_value(re.sub(r"^(?:up\s+)?(?:on\s+)?", "", rest, flags=re.I))
        if vague(value):
            return []
        if value.casefold() in ("smoking", "drinking", "vaping"):
            return [
                self.claim(
                    "habit",
                    {"smoking": "smokes", "drinking": "drinks alcohol", "vaping": "vapes"}[
                        value.casefold()
                    ],
                    negated=True,
                    change=True,
                )
            ]
        return [self.claim("any", value, negated=True, change=True)]

    def _retire(self, rest: str, low: str) -> list[Claim] | None:
        if self.p.progressive or self.p.future:
            # "I'm retiring in June", "retiring at the end of the year": a plan until it comes.
            when = when_of(rest) or (rest.strip(" .!") if _LATER.search(rest) else None)
            return [self.claim("plan", "retire", when=when)]
        match = re.match(r"^from\s+", low)
        org = clean_value(rest[match.end() :]) if match else ""
        return [self.claim("job", "retired", change=True, qualifier=None if vague(org) else org)]

    def _become(self, rest: str, low: str) -> list[Claim] | None:
        value = clean_value(rest)
        if vague(value):
            return []
        if re.match(
            r"^(?:a\s+)?(?:mom|mum|mother|dad|father|parent|grandma|grandmother|"
            r"grandpa|grandfather|grandparent)\b",
            value,
            re.I,
        ):
            return [self.claim("trait", strip_det(value), change=True)]
        diet = diet_of(value.casefold())
        if diet is not None:
            return [self.claim("diet", diet, change=True)]
        head = re.split(r"\s+of\s+", strip_det(value), maxsplit=1)[0]
        if lx.is_occupation(head.casefold()):
            return [self.claim("job", with_article(strip_det(value)), change=True)]
        return [] if self.strict else [self.claim("state", value, change=True)]

    def _make(self, rest: str, low: str) -> list[Claim] | None:
        value = clean_value(rest)
        if re.match(r"^(?:some|the|this|that|these|those|my|our|it|dinner|lunch)\b", value, re.I):
            # "made some peach cobbler": a cobbler is baked, not a trade taken up.
            return [] if self.strict else None
        made = lx.is_occupation(value.casefold()) or value.casefold() in ("partner", "captain")
        if made and not self.p.progressive:  # "im making a dnd character" creates one
            return [self.claim("job", value, change=True)]
        return [] if self.strict else None

    def _run_business(self, rest: str, low: str) -> list[Claim] | None:
        """ "I run a small bakery in Fort-de-France": the user's own business is their work
        ("I run every morning" is left to the pastimes)."""
        shop = _A_BUSINESS.match(rest)
        if shop is None or self.p.negated or self.p.future or self.s.key != "user":
            return None
        where = f" in {shop.group('where')}" if shop.group("where") else ""
        called = f", {shop.group('name')}" if shop.group("name") else ""  # "called Crumb & Co"
        return [self.claim("employer", f"their own {shop.group('what').casefold()}{where}{called}")]

    def _freelance(self, rest: str, low: str) -> list[Claim] | None:
        if self.p.negated or self.p.stop:
            return [self.claim("employer", "self-employed", negated=True, change=True)]
        out = [self.claim("employer", "self-employed")]
        role = re.match(r"^as\s+", low)
        if role is not None:
            job = clean_value(rest[role.end() :])
            if job and not vague(job):
                out.append(self.claim("job", with_article(strip_det(job))))
        return out


# What "left for" names that is no employer: a holiday, a season, a school, a day.
_NOT_WORKPLACES = (
    lx.words(
        """christmas xmas easter thanksgiving diwali eid ramadan hanukkah passover new
        holidays holiday summer winter spring autumn fall uni university college school work
        home lunch dinner breakfast good"""
    )
    | lx.MONTHS
    | lx.WEEKDAYS
)
_ORG_TEAM = re.compile(
    r"^(?:the\s+)?(?P<org>(?-i:[A-Z])[\w&.-]*(?:\s+(?-i:[A-Z])[\w&.-]*){0,3})'s\s+(?:[\w-]+\s+){0,2}"
    r"(?:team|department|division|unit|office|branch)\b",
    re.IGNORECASE,
)
_MEMBERSHIP = re.compile(
    r"\b(?:gym|club|band|team|choir|group|program|programme|community|society|association"
    r"|league|circle|network|church|movement|chapter|forum|meetup|collective|committee"
    r"|orchestra|troupe|crew|class|course|workshop)s?\b",
    re.IGNORECASE,
)

_NOT_EMPLOYERS = frozenset(
    [
        "night",
        "nights",
        "home",
        "weekends",
        "the",
        "weekend",
        "the",
        "moment",
        "the",
        "moment",
        "night",
        "shift",
        "night",
        "shifts",
        "a",
        "desk",
        "my",
        "desk",
        "the",
        "office",
    ]
) | {"night", "nights", "home", "weekends", "the weekend", "the moment", "my desk", "the office"}


_FOR_A_BUSINESS = re.compile(
    r"^[^,;.!?]*?\s+for\s+(?P<org>an?\s+(?:[\w-]+\s+){0,3}?(?:company|firm|agency|startup|bank"
    r"|charity|hospital|school|nonprofit|non-profit|ngo|consultancy|brand|business|chain|retailer"
    r"|supplier|manufacturer|publisher|studio|council|airline|hotel|restaurant|clinic|fintech"
    r"|group|family|magazine|newspaper|paper|website|app))\b",
    re.IGNORECASE,
)


def _role_named(text: str) -> str | None:
    """The job an "as ..." names ("hired by Shopify as a data analyst"), when it is a trade."""
    role = re.search(r"\bas\s+(?:an?\s+)?(?P<job>[^,.;!?]+)", text, re.IGNORECASE)
    if role is None or not lx.is_occupation(clean_value(role.group("job")).casefold()):
        return None
    return with_article(clean_value(role.group("job")))


def _org_named(text: str) -> str:
    """ "a logistics startup called Freightly" is Freightly."""
    return re.sub(r"\b(?:an?|the)\s+(?:[\w-]+\s+){0,3}?(?:called|named)\s+", "", text, flags=re.I)


def _strip_job(value: str) -> str:
    return re.sub(r"^(?:my\s+)?(?:job|work)\s+(?:at|with)\s+", "", value, flags=re.I)


def p_change(p: Predicate, low: str) -> bool:
    """A change: marked, or said as an event (hired, promoted)."""
    return p.change or low.startswith(("hired", "recruited"))


_LATER = re.compile(r"\b(?:end\s+of|next|soon|this|in\s+\w+|by|after)\b", re.IGNORECASE)
