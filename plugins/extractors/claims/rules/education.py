"""Rules for schooling: studying, teaching, graduating, degrees and exams."""

from __future__ import annotations

import re

from plugins.extractors.claims.model import Claim
from plugins.extractors.claims.phrases import CLASS_YEAR, IN_SCHOOL, school_stage, strip_det
from plugins.extractors.claims.rules.health import PASSED_WHEN, HealthRules
from plugins.extractors.claims.values import clean_value, vague


class EducationRules(HealthRules):
    """Rules for schooling: studying, teaching, graduating, degrees and exams."""

    def _student(self, rest: str, low: str) -> list[Claim] | None:
        year = CLASS_YEAR.match(low)
        if year is not None:
            # "I'm a junior now": the year of school or college, one at a time.
            out = [self.claim("school_year", year.group("year"))]
            if year.group("stage"):
                out.append(self.claim("education", school_stage(year.group("stage"))))
            elif year.group("where"):
                where = clean_value(rest[year.start("where") : year.end("where")])
                out += [] if vague(where) else [self.claim("education", where)]
            return out
        stage = IN_SCHOOL.match(low)
        if stage is not None:
            # "Kavya is in high school", "he's in 5th grade": where in schooling someone is.
            out = [self.claim("education", school_stage(stage.group("stage")))]
            where = stage.group("where")
            if where is not None:
                # "in Year 13 at Hartley Academy": the school too.
                where = clean_value(rest[stage.start("where") : stage.end("where")])
                out += [] if vague(where) else [self.claim("education", where)]
            return out
        match = re.match(
            r"^(?:an?\s+)?(?P<what>(?:[\w\-']+\s+){0,4}?)(?:student|undergrad|freshman|sophomore"
            r"|phd candidate|doctoral candidate)\b",
            low,
        )
        if match is None or re.search(r"\b(?:former|ex)\b", match.group(0)):
            match = re.match(
                r"^(?:studying|majoring in|enrolled (?:in|at)|doing (?:a|an|my) \w+ in)\s+", low
            )
            if match is None:
                return None
            value = clean_value(rest[match.end() :])
            return [] if vague(value) else [self.claim("education", value)]
        what = " ".join(match.group("what").split())
        what = re.sub(
            r"\b(?:first|second|third|fourth|final|\d+(?:st|nd|rd|th))[- ](?:year|yr)\b", "", what
        ).strip()
        tail = rest[match.end() :].strip()
        place = re.match(r"^(?P<prep>at|in|of)\s+(?P<x>.+)$", tail, re.I)
        where = clean_value(place.group("x")) if place else ""
        prep = place.group("prep").casefold() if place else ""
        joiner = ("in" if prep == "in" else "at") if where and what else ""
        value = " ".join(part for part in (what, joiner, where) if part)
        if not what:
            return [self.claim("education", value or "student")]
        return [self.claim("education", value, qualifier="student")]  # "a med student in X"

    def _teach(self, rest: str, low: str) -> list[Claim] | None:
        where = r"(?:^|\s+)(?:at|in|from|for|on|online)\b"
        subject = clean_value(re.split(where, rest, maxsplit=1, flags=re.I)[0])
        # "teach kids maths" teaches maths; "teach people about X" is not a job title.
        subject = re.sub(_TAUGHT_PEOPLE, "", subject).strip()
        # "teach cello privately", "teach yoga part-time": how, not what.
        subject = re.sub(
            r"\s+(?:privately|part[\s-]time|full[\s-]time|freelance|remotely|online|on\s+the\s+side"
            r"|too|as\s+well)\b.*$",
            "",
            subject,
            flags=re.I,
        ).strip()
        if not subject and re.match(where, rest, re.I) and not self.p.future:
            out = [self.claim("job", "a teacher")]  # "I teach in Cork"
            at = re.match(r"^\s*at\s+(?P<org>[A-Z][^,.;!?]*)", rest)
            if at is not None:
                # "teaching at Leeds Uni for 10 years": where, too.
                org = clean_value(at.group("org"))
                out += [] if vague(org) else [self.claim("employer", org)]
            return out
        if vague(subject) or re.match(r"^(?:about|how|what|that|to|the|a|an)\b", subject, re.I):
            return []
        if len(subject.split()) > 3 or re.search(r"\b(?:like|such as)\b", subject, re.I):
            return []
        out = [self.claim("job", f"{subject} teacher")]
        remote = re.search(
            r"\b(?:online\s+from|from\s+home\s+in)\s+(?P<where>(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?)",
            rest,
        )
        if remote is not None:
            # "I teach Spanish online from Quito": where the user teaches from is home.
            out.append(self.claim("residence", remote.group("where")))
        # "at Leeds Uni", "at a secondary school in Kampala": where the teaching is.
        match = re.search(
            r"\sat\s+(?P<org>[A-Z][^,.;!?]*|(?:a|an|the)\s+[\w' -]+?\s+in\s+[A-Z][^,.;!?]*)"
            r"|\sin\s+(?P<inside>(?:a|an|the)\s+[\w' -]*?(?:school|college|academy|university|uni"
            r"|liceo|lycee|gymnasium)\s+in\s+[A-Z][^,.;!?]*)",
            rest,
        )
        if match is not None:
            out.append(
                self.claim("employer", clean_value(match.group("org") or match.group("inside")))
            )
        return out

    def _study(self, rest: str, low: str) -> list[Claim] | None:
        degree = self._study_for(rest)
        if degree is not None:
            return degree
        value = clean_value(re.sub(r"^(?:in|at|on)\s+", "", rest, flags=re.I))
        if vague(value) or re.match(r"^(?:for|hard|a lot)\b", value, re.I):
            return []
        value = re.sub(r"^(?:at|in)\s+", "", value, flags=re.I)
        return [self.claim("education", value)]

    def _study_for(self, rest: str) -> list[Claim] | None:
        """ "studying for a bachelor's in biology": the subject of the degree."""
        match = re.match(
            r"^for\s+(?:a|an|my|the|her|his)\s+(?:\w+'?s?\s+)?(?:degree|diploma|bachelor'?s|master'?s"
            r"|masters|phd|doctorate|certificate|bsc|msc|ba|ma|bs|ms|beng|meng|mphil|llm|mba)"
            r"(?:\s+degree)?\s+in\s+(?P<x>.+)$",
            rest,
            re.I,
        )
        if match is None:
            # "studying for a nursing degree": the degree names its subject first.
            named = re.match(
                r"^for\s+(?:a|an|my|the)\s+(?P<x>[a-z][\w -]{2,30}?)\s+(?:degree|diploma)\b",
                rest,
                re.I,
            )
            if named is not None and not vague(named.group("x")):
                return [self.claim("education", f"{clean_value(named.group('x'))} degree")]
        if match is None:
            # "studying for an MBA at Warwick": a degree named by its letters is its subject.
            match = re.match(
                r"^for\s+(?:a|an|my|the)\s+(?P<x>mba|msc|bsc|ma|ba|mphil|llb|llm|phd|pgce)\b"
                r"(?:\s+at\s+(?P<at>.+))?$",
                rest,
                re.I,
            )
            if match is None:
                return None
            at = clean_value(match.group("at") or "")
            where = f" at {at}" if at and not vague(at) else ""
            return [self.claim("education", f"{match.group('x')}{where}")]
        value = clean_value(match.group("x"))
        return [] if vague(value) else [self.claim("education", value)]

    def _graduate(self, rest: str, low: str) -> list[Claim] | None:
        match = re.match(r"^(?:from\s+)?", low)
        value = clean_value(rest[match.end() if match else 0 :])
        return [
            self.claim(
                "education",
                "" if vague(value) else value,
                past=True,
                change=True,
                qualifier="graduated",
            )
        ]

    def _drop(self, rest: str, low: str) -> list[Claim] | None:
        match = re.match(r"^out\s+(?:of\s+)?", low)
        if match is None:
            return [] if self.strict else None
        value = clean_value(rest[match.end() :])
        return [self.claim("education", "" if vague(value) else value, negated=True, change=True)]

    def _finish(self, rest: str, low: str) -> list[Claim] | None:
        value = clean_value(re.sub(r"^(?:my|our|the)\s+", "", rest, flags=re.I))
        if vague(value):
            return []
        if not _SCHOOLING.search(value):
            # "finished another painting" is an afternoon's work, not schooling.
            return self._generic_or_none(rest, low)
        if self.p.said.casefold() in ("finish", "finishes", "finishing") and not self.p.negated:
            # "while I finish school": still at it, nothing finished yet; "finishing a mechanical
            # engineering degree at Purdue" says what the user studies, and where.
            degree = re.match(
                r"^(?P<what>[\w ]+?)\s+(?:degree|diploma|course)(?:\s+at\s+(?P<at>.+))?$",
                value,
                re.I,
            )
            if degree is None or vague(degree.group("what")):
                return []
            where = f" at {degree.group('at')}" if degree.group("at") else ""
            return [self.claim("education", f"{strip_det(degree.group('what'))}{where}")]
        if self.p.negated:
            return [self.claim("education", value, negated=True, change=True)]
        return [self.claim("education", value, past=True, change=True)]

    def _hold(self, rest: str, low: str) -> list[Claim] | None:
        match = re.match(
            r"^(?:an?\s+)?(?:phd|ph\.d\.|doctorate|master'?s|masters|bachelor'?s|bachelors|degree"
            r"|mba|ba|bs|bsc|msc|ma|diploma)\b",
            low,
        )
        if match is None:
            return [] if self.strict else None
        return [self.claim("degree", clean_value(strip_det(rest)))]

    def _pass(self, rest: str, low: str) -> list[Claim] | None:
        if re.match(PASSED_WHEN, low):
            return self._die(rest, low)  # "passed away", "Rufus passed in June"
        exam = re.match(
            r"^(?:my|the|our)?\s*(?P<what>(?:[\w\-]+\s+){0,2}?(?:bar|exam|exams|test"
            r"|boards|finals|driving test|thesis defen[cs]e))\b",
            low,
        )
        if exam is None or self.p.negated:
            return [] if self.strict else None
        return [self.claim("event", f"passed the {exam.group('what').strip()}", change=True)]


_SCHOOLING = re.compile(
    r"\b(?:school|college|university|uni|degree|masters?|master's|phd|ph\.d|doctorate|thesis"
    r"|dissertation|course|courses|program|programme|bootcamp|training|apprenticeship"
    r"|residency|internship|studies|exams?|semester|bachelor'?s?|diploma|certificate"
    r"|certification|grade|year\s+of\s+\w+|mba|msc|bsc|ba|ma|mphil|llb|llm|md|a-levels|gcses)\b",
    re.IGNORECASE,
)

_TAUGHT_PEOPLE = re.compile(
    r"^(?:the\s+)?(?:people|kids|children|students|adults|others|everyone|them|him|her|us"
    r"|teens|teenagers|beginners|folks)\s*",
    re.IGNORECASE,
)
