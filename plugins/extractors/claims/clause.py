"""Reading one clause: its subject, predicate and the claims the reader makes of them."""

from __future__ import annotations

import re
from dataclasses import replace

from plugins.extractors import lexicon as lx
from plugins.extractors.claims.idioms import SINCE_DIVORCE, idiom_claims
from plugins.extractors.claims.inverted import inverted_claims
from plugins.extractors.claims.locations import lower_case_place
from plugins.extractors.claims.model import Claim
from plugins.extractors.claims.passing import here_in
from plugins.extractors.claims.phrases import diet_of, strip_det, with_article
from plugins.extractors.claims.predicates import Predicate, predicate
from plugins.extractors.claims.reader import Reader
from plugins.extractors.claims.splitting import COMPLEMENT_START, NAMING, NO_MORE
from plugins.extractors.claims.subjects import DETERMINERS, Subject, read_subject, starts_predicate
from plugins.extractors.claims.things import without_filler
from plugins.extractors.claims.values import clean_value, vague
from plugins.extractors.claims.words import (
    CHANGE_ADVERBS,
    IRREGULAR,
    PARTICIPLES,
    SKIP_ADVERBS,
    VERBS,
    stem,
)
from plugins.extractors.places import known_place

_LEADING_TIME = re.compile(
    r"^(?P<when>in\s+(?:my|our)\s+(?:free|spare|own)\s+time|(?:(?:last|this|next|early|late)\s+(?:\w+\s+)?"
    r"(?:week|month|year|summer|winter|spring|fall|autumn|weekend|night|monday|tuesday"
    r"|wednesday|thursday|friday|saturday|sunday)"
    r"|(?:in|since|on|back in|as of|starting(?!\s+(?:at|with|a|an|my|the|to)\b)|from)"
    # "on weekends i ...": not the "i"; "in 11th grade" is no time.
    r"\s+(?!\d+(?:st|nd|rd|th)\s+(?:grade|year|class|form)\b|(?:year|grade|class|form)\s+\d+\b)"
    r"(?:\w+\s+)?(?!(?:i|we|im|i'm|we're|grade|class|form)\b)\w+"
    r"|after\s+(?:\d+|a\s+few|many|several|[a-z]+)\s+(?:years|months|weeks|decades)"
    r"(?:\s+(?:at|in|with|of|as)\s+[\w' -]+?)?(?=,?\s+(?:i|we)\s)"
    r"|(?:a|one|two|three|four|five|six|a few|a couple of|several)\s+(?:days|weeks|months"
    r"|years|day|week|month|year)\s+ago"
    r"|yesterday|today|recently|lately|nowadays|these days|currently|now(?!\s+that\b)|as of now"
    # "monday I start at Aldi": a day said first, then who does what.
    r"|(?:tomorrow|tonight|(?:mon|tues|wednes|thurs|fri|satur|sun)day)(?=,?\s+(?:i|we)\b)"
    r"|at the moment|right now|for (?:the )?(?:past|last) (?:\w+ )?\w+))\s*,?\s+",
    re.IGNORECASE,
)


_FORMER_THING = re.compile(
    r"^(?:my|our|the)\s+(?:old|previous|former|last)\s+(?:phone|car|laptop|computer|bike|van"
    r"|motorbike|tablet|mobile)\s+(?:was|were|used\s+to\s+be)\b",
    re.IGNORECASE,
)
_YEAR_AND_FIELD = re.compile(
    r"^(?:(?:i'm|im|i\s+am)\s+(?:in\s+)?(?:my\s+)?)?(?P<year>(?:\d+(?:st|nd|rd|th)|first|second"
    r"|third|fourth|fifth|final)[\s-](?:year|yr))\s+(?P<field>[a-z][\w -]{1,30}?)"
    r"(?<!\bstudent)\s+(?P<at>at|in)\s+(?=\S)",
    re.IGNORECASE,
)
_AGED_NOUN = re.compile(
    r"^(?P<me>i'm|im|i\s+am)\s+an?\s+(?P<n>[1-9]\d?)[\s-]*(?:years?|yrs?|y/?o)[\s-]*(?:old\s+)?(?=[a-z])",
    re.IGNORECASE,
)
_AT_AGE = re.compile(
    r"^at\s+(?:(?:nearly|almost|age)\s+)?(?P<n>[2-9]\d)\s*,?\s+(?=(?:i'm|im|i\s+(?!was|had|did|"
    r"\w+ed\b)|my\s+(?:knees?|back|body|joints?|hips?|eyes|hair|metabolism|skin|bones)\b))",
    re.IGNORECASE,
)
# "I'm 17 and in 11th grade", "a retired teacher, 68 years old": said of the subject before.
_SAID_AFTER_SUBJECT = re.compile(
    r"^(?:in\s+(?:\d+(?:st|nd|rd|th)\s+(?:grade|year|class|form)|(?:grade|year|class|form)\s+\d+)"
    r"|\d{1,3}\s+years?\s+old"
    r"|(?:based|living|stationed|posted|deployed|residing|settled)\s+(?:in|at|out\s+of|near))\b",
    re.IGNORECASE,
)
_BACK_TO_DOING = re.compile(
    r"\b(?:gone|went|going|got|getting)\s+back\s+to\s+(?=[a-z]{2,}ing\b)", re.IGNORECASE
)
_BARELY_ANYMORE = re.compile(
    r"\b(?P<who>i|we)\s+(?:barely|hardly|rarely|seldom)\s+(?=[a-z]+\b[^.;!?]*\b(?:anymore|any\s+more)\b)",
    re.IGNORECASE,
)
_BARE_INJURY = re.compile(
    r"^(?P<injury>(?:(?:a|partially|fully|badly)\s+)?(?:torn|broken|sprained|fractured|pulled"
    r"|dislocated|slipped|herniated|ruptured|bruised|cracked)\s+(?:left\s+|right\s+)?"
    r"(?:acl|mcl|meniscus|achilles|hamstring|calf|groin|quad|rotator\s+cuff|shoulder|elbow"
    r"|wrist|hand|finger|thumb|rib|ribs|collarbone|ankle|knee|foot|toe|hip|back|neck|leg|arm"
    r"|disc|disk|tooth|nose|jaw|pelvis|vertebra|tailbone|kneecap|shin|tibia|fibula|femur)"
    r"(?:\s+(?:ligament|tendon|disc|disk|muscle|bone))?)\s*[.!]*$",
    re.IGNORECASE,
)
_SUBJECTLESS_STATE = re.compile(
    r"^(?P<adv>(?:(?:just|finally|officially|recently|now|fully|newly|basically|completely)\s+)*)"
    r"(?P<what>(?P<done>promoted\s+to|hired\s+as|made\s+redundant|let\s+go|laid\s+off)"
    r"|unemployed|jobless|pregnant|single|divorced|widowed|sober)\b",
    re.IGNORECASE,
)


_LET_ME_GO = re.compile(
    r"^(?P<who>(?:the|my|our)\s+[\w'-]+|(?-i:[A-Z])[\w'&.-]+(?:\s+(?-i:[A-Z])[\w'&.-]+)?)\s+"
    r"(?:(?:finally|just)\s+)?(?:let\s+me\s+go(?=\s*$|\s*[,.!;]|\s+(?:on|last|yesterday|today"
    r"|this|after|in)\b)|laid\s+me\s+off|fired\s+me|sacked\s+me|made\s+me\s+redundant"
    r"|cut\s+(?:my|our)\s+(?:whole\s+|entire\s+)?(?:team|job|role|position|department))\b",
    re.IGNORECASE,
)


_POACHED_ME = re.compile(
    r"^(?:so\s+|and\s+|then\s+)?(?P<who>(?-i:[A-Z])[\w'&.-]+(?:\s+(?-i:[A-Z])[\w'&.-]+)?)\s+"
    r"(?:(?:finally|just)\s+)?(?:poached|headhunted|snapped)\s+me(?:\s+up)?\b",
    re.IGNORECASE,
)


# A course by its letters after "a" or "an" ("doing an MSc in ..."); "my MSc in X at Y" is
# read with its school where the user's course is mentioned.
_COURSE = (
    r"(?:master'?s|masters|phd|ph\.d\.?|degree|diploma|bachelor'?s|apprenticeship|course|mba"
    r"|(?<!my\s)(?:msc|ma|bsc|ba|mphil|llb|llm|pgce|meng|beng|mres))"
)
_DOING_A_COURSE = re.compile(
    rf"\b(?:doing|starting|beginning|finishing|studying\s+for)\s+(?:an?|my|the)\s+(?:{_COURSE}(?:\s+degree)?\s+in\s+(?!the\b|my\b)(?P<field>[\w-]+(?:\s+[\w-]+)?)"
    rf"|(?P<kind>(?!{_COURSE}\b)[\w-]+(?:\s+[\w-]+)?)\s+{_COURSE})\b",
    re.IGNORECASE,
)
_DOING_AT_SCHOOL = re.compile(
    r"\bdoing\s+(?P<field>[a-z][\w-]+(?:\s+[a-z][\w-]+)?)\s+at\s+"
    r"(?=(?:the\s+)?(?:\w+\s+){0,3}?(?:University|Uni|College|Polytechnic|Institute|School)\b)",
    re.IGNORECASE,
)
_TRAINING_AS = re.compile(
    r"\b(?:i'?m|i\s+am)\s+(?:now\s+)?training\s+(?:as|to\s+be(?:come)?)\s+(?:an?\s+)", re.IGNORECASE
)


def _studying(found: re.Match[str]) -> str:
    return f"studying {found.group('field') or found.group('kind')}"


_BARE_ALLERGY = re.compile(
    r"^(?:(?:severe|bad|serious|mild|major)\s+)?(?P<what>[a-z][\w-]+(?:\s+[a-z][\w-]+)?)\s+allergy"
    r"(?:\s+here)?(?=\s*[,.!]|\s*$)",
    re.IGNORECASE,
)


_GOT_THE_JOB = re.compile(
    r"^(?P<lead>(?:i\s+)?(?:finally\s+|just\s+)?)(?:got|took|landed|accepted)\s+the\s+"
    r"(?P<job>[\w-]+(?:\s+[\w-]+){0,2}?)\s+(?:job|position|role|post|title)\b"
    # "the senior developer title at my review": where it was given is no part of the job
    r"(?:\s+(?:at|in)\s+(?:my|the)\s+(?:annual\s+|performance\s+|mid-?year\s+|year-?end\s+)?"
    r"(?:review|appraisal|evaluation)\b)?",
    re.IGNORECASE,
)


# "I got the job at the British Council!!": works there now.
_GOT_THE_JOB_AT = re.compile(
    r"^(?:i\s+)?(?:finally\s+|just\s+|officially\s+)?(?:got|landed|accepted)\s+the\s+(?:job"
    r"|position|role|post|offer)\s+(?:at|with|from)\s+(?=(?:the\s+)?(?-i:[A-Z]))",
    re.IGNORECASE,
)


def _the_job_got(found: re.Match[str]) -> str:
    job = found.group("job")
    if job[:1].isupper() or not lx.is_occupation(job.casefold()):
        return found.group(0)  # "got the Manchester job": where, not what
    return f"I'm now {with_article(job)}"


def _with_subject(found: re.Match[str]) -> str:
    be = "I was" if found.group("done") else "I'm"
    return f"{be} {found.group('adv')}{found.group('what')}"


_BARE_AGE_NOW = re.compile(
    r"^(?:(?:also|and|plus|so|officially|well|finally)\s+)*(?P<n>[1-9]\d)\s+"
    r"(?=(?:now|as\s+of|today|officially|years?\s+old)\b)",
    re.IGNORECASE,
)


_JOB_POSITION = re.compile(
    r"\b(?P<got>got|landed|accepted|took|started|have|got\s+offered|was\s+offered)\s+(?:a|an|the)"
    r"\s+(?:new\s+|permanent\s+|full[- ]time\s+|part[- ]time\s+|temporary\s+|temp\s+)?"
    r"(?P<job>[\w-]+(?:\s+[\w-]+){0,2}?)\s+(?:position|role|post)\b",
    re.IGNORECASE,
)


def _as_a_job(match: re.Match[str]) -> str:
    if not lx.is_occupation(match.group("job")):
        return match.group(0)  # "I got a good position on the team"
    return f"{match.group('got')} a job as a {match.group('job')}"


_TAKEN_ON_AS = re.compile(
    r"^(?:they|the\s+\w+|my\s+(?:boss|manager|company|employer))\s+(?:hired|kept|took|brought"
    r"|signed)\s+me\s+(?:on\s+|back\s+|up\s+)?as\s+(?=an?\s)",
    re.IGNORECASE,
)
_NAMED_TOOK_ME_ON_AS = re.compile(
    r"^(?:and\s+)?(?P<who>(?-i:[A-Z])[\w'&.-]+(?:\s+(?-i:[A-Z])[\w'&.-]+)?)\s+(?:hired|kept|took"
    r"|brought|signed)\s+me\s+(?:on\s+|back\s+|up\s+)?(?:(?:full[- ]time|part[- ]time"
    r"|permanently)\s+)?as\s+(?=an?\s)",
    re.IGNORECASE,
)
_DIET_INTENSIFIER = re.compile(
    r"\b(?:pure|strict|strictly|fully|totally|completely|100%)\s+(?=(?:veg\w*|pescatarian"
    r"|kosher|halal|gluten[- ]free|dairy[- ]free|plant[- ]based)\b)",
    re.IGNORECASE,
)


def claims_of_clause(
    clause: str,
    *,
    speaker: str,
    last_person: str | None,
    strict: bool,
    fact_text: bool,
    inherited: Subject | None,
    antecedent: str | None,
) -> tuple[list[Claim], Subject | None]:
    text = without_filler(clause.strip())
    if SINCE_DIVORCE.match(text):
        return [Claim("user", "relationship", "divorced", change=True)], None
    when = None
    match = _LEADING_TIME.match(text)
    if match is not None:
        when = match.group("when")
        text = text[match.end() :]
    text = without_filler(text)
    # "we are pure vegetarian", "strictly vegan": how strict a diet is, not another diet.
    text = _DIET_INTENSIFIER.sub("", text)
    # "I'm half Colombian": a nationality all the same.
    text = _PART_NATIONALITY.sub("", text)
    # "also i don't drink": the "also" belongs after the subject ("i also don't drink").
    # "also I'm 52": an age has no "also" to keep.
    text = re.sub(r"^(?:also|plus)\s+(i'm|im)\s+(?=\d)", r"\1 ", text, flags=re.I)
    # "also 42 now lol", "officially 30 as of yesterday": the age now, its "I'm" left out.
    text = re.sub(r"\b(\d{1,3})\s+years?\s+of\s+age\b", r"\1 years old", text, flags=re.I)
    text = _BARE_AGE_NOW.sub(r"I'm \g<n> ", text)
    # "4th year architecture at the polytechnic in krakow": a student's year and field.
    text = _YEAR_AND_FIELD.sub(r"I'm a \g<year> \g<field> student \g<at> ", text)
    # "I never went to university": studying, not a trip.
    text = re.sub(
        r"\b(?:went|go|gone|been)\s+to\s+(?=(?:university|uni|college)\b)",
        "studied at ",
        text,
        flags=re.I,
    )
    # "I've gone back to eating eggs", "im back to eating meat": started again.
    text = _BACK_TO_DOING.sub("started ", text)
    # "after a lot of back-and-forth I've started eating fish", "after months of waiting we
    # finally moved": how it came about; the statement is what follows.
    text = re.sub(
        r"^(?:so\s+|and\s+|but\s+)?(?:after|following)\s+(?:a\s+lot\s+of|lots\s+of|much|all"
        r"|some|(?:months|weeks|years|days)\s+of)\s+[\w' -]{1,40}?,?\s+(?=(?:i|i've|i'm|we|we've"
        r"|we're)\s)",
        "",
        text,
        flags=re.I,
    )
    # "had to put Mishti down yesterday", its "we" left out: a pet's death.
    text = re.sub(
        r"^(?:just\s+)?(?:had|have)\s+to\s+put\s+(?P<who>(?-i:[A-Z])[\w'-]+|(?:my|our|the)\s+(?:old\s+)?"
        r"(?:dog|cat|pup|puppy|kitty|rabbit|bunny|horse|pony|parrot|hamster))\s+down\b",
        r"\g<who> died",
        text,
        flags=re.I,
    )
    # "two weeks in as a pharmacy tech at Walgreens", "one month into my new job as a sous
    # chef": a new job, some time on.
    text = re.sub(
        r"^(?:(?:just|already|only)\s+)?(?:\w+|\d+)\s+(?:days?|weeks?|months?)\s+(?:in|into\s+"
        r"(?:my|the)\s+(?:new\s+)?(?:job|role|position))\s+as\s+(?=an?\s)",
        "I just started as ",
        text,
        flags=re.I,
    )
    # "well that's me retired!": the speaker, now.
    text = re.sub(
        r"\bthat'?s\s+me\s+(?=(?:retired|done|qualified|graduated|moved|engaged|married"
        r"|divorced|unemployed|sober|vegan|vegetarian|single)\b)",
        "I'm now ",
        text,
        flags=re.I,
    )
    # "guess who's a caseworker now": the speaker.
    text = re.sub(r"^guess\s+who(?:'s|\s+is)\s+", "I'm ", text, flags=re.I)
    # "officially unemployed lol", "promoted to senior nurse last week": a state or what was
    # done to the speaker, its "I'm" / "I was" left out.
    text = _SUBJECTLESS_STATE.sub(_with_subject, text)
    # "the agency let me go on Friday", "Ubisoft cut our whole team": the speaker lost the job.
    text = _LET_ME_GO.sub(r"I was laid off from \g<who>", text)
    # "doing a master's in economics at UCL", "doing my hairdressing apprenticeship",
    # "doing economics at University of Ghana": what the speaker studies.
    text = _DOING_A_COURSE.sub(_studying, text)
    text = _DOING_AT_SCHOOL.sub(r"studying \g<field> at ", text)
    text = _TRAINING_AS.sub(r"I'm a trainee ", text)
    # "Severe shellfish allergy here, I carry an EpiPen": the speaker's allergy, said bare.
    text = _BARE_ALLERGY.sub(r"I have a \g<what> allergy", text)
    # "got the lecturer job!!": the job now.
    text = _GOT_THE_JOB.sub(_the_job_got, text)
    text = _GOT_THE_JOB_AT.sub("I joined ", text)
    # "so Spotify poached me": the speaker works there now.
    text = _POACHED_ME.sub(r"I work at \g<who> now", text)
    # "I got a permanent lecturer position at X": a job as a lecturer.
    text = _JOB_POSITION.sub(_as_a_job, text)
    # "they kept me on as a postdoc", "the depot hired me as a dispatcher": the user's job;
    # "Irembo kept me on full time as a junior developer": and where.
    text = _NAMED_TOOK_ME_ON_AS.sub(r"I work at \g<who> as ", text)
    text = _TAKEN_ON_AS.sub("I work as ", text)

    # "I'm hardly a chef myself", "far from an expert": not one.
    text = re.sub(
        r"\b(i'm|im|i\s+am)\s+(?:hardly|scarcely|barely|far\s+from)\s+(?=an?\s)",
        r"\1 not ",
        text,
        flags=re.I,
    )
    # "i barely run anymore": as good as stopped.
    text = _BARELY_ANYMORE.sub(r"\g<who> don't ", text)
    # "well. torn meniscus.": an injury said as a bare noun phrase is the user's own.
    text = _BARE_INJURY.sub(r"I have a \g<injury>", text)
    text = re.sub(
        r"^(also|plus),?\s+(i'm|we're|he's|she's|they're|i|we|he|she|they)\b(?!')",
        r"\2 also",
        text,
        flags=re.I,
    )
    greeted = _GREETING.match(clause.strip()) is not None
    # "calling him rex", "we named her Mochi": the name the pet (or baby) was just given.
    text = NAMING.sub(lambda m: f"{_POSSESSIVE[m.group('who').casefold()]} name is ", text)
    inverted = inverted_claims(text, speaker, greeted=greeted)
    if inverted is not None:
        return inverted, None
    aside = _said_aside(text) if speaker == "user" else None
    if aside is not None:
        # "I'm a 29 year old PhD student", "at 34 my knees ...", "im a nurse here in nairobi":
        # a fact said on the way, and the clause read without it.
        rest, said, said_first = aside
        claims, subject = claims_of_clause(
            rest,
            speaker=speaker,
            last_person=last_person,
            strict=strict,
            fact_text=fact_text,
            inherited=inherited,
            antecedent=antecedent,
        )
        if said.attribute == "residence" and any(
            c.attribute == "residence" and c.subject == "user" for c in claims
        ):
            return claims, subject
        return ([said, *claims] if said_first else [*claims, said]), subject
    idiom = idiom_claims(text, speaker)
    if idiom is not None:
        if when is not None and when.casefold() in _NOW_PHRASES:
            idiom = [replace(c, change=True) for c in idiom]  # "now I'm on gliclazide"
        return idiom, None
    no_more = NO_MORE.match(text)
    if no_more is not None:
        # "got lasik, no more glasses": a clause with no verb that ends what it names.
        value = clean_value(strip_det(no_more.group("what")))
        if vague(value) or len(value.split()) > 3 or value.casefold() in lx.EXCLAIMED_NOUNS:
            return [], None
        who = no_more.group("who") or (inherited.key if inherited is not None else speaker)
        return [Claim(who, "any", value, negated=True, change=True, qualifier="no more")], None
    subject, rest = read_subject(
        text, speaker=speaker, last_person=last_person, fact_text=fact_text
    )
    if subject is None:
        said_after = _SAID_AFTER_SUBJECT.match(text) is not None
        # "my sister is a nurse and vegan": a bare state after a clause is its subject's.
        bare_state = _bare_complement(text) or _bare_diet(text)
        if inherited is not None and (starts_predicate(text) or said_after or bare_state):
            subject, rest = inherited, text
            if said_after:
                rest = f"is {text.split(',')[0]}"  # "in year 11 at st aldhelms, gcses in may"
            elif bare_state:
                rest = f"is {text}"
        elif fact_text or _subjectless_ok(text, strict):
            subject, rest = Subject(speaker, speaker == "user"), text
            first = text.split(" ", 1)[0].casefold()
            if (
                _bare_occupation(text)
                or _bare_diet(text)
                or not starts_predicate(text)
                or (first in PARTICIPLES and (stem(first) not in VERBS or first == "born"))
            ):
                # A note with its copula left out: "Allergic to shellfish.", "Born in 1988."
                rest = f"is {text}"
        else:
            return [], None
    pred = Predicate(words=rest.split(), head="be") if subject.note else predicate(rest)
    if pred is None:
        return [], subject
    if when is not None and when.casefold() in _NOW_PHRASES:
        pred.change = True
        when = None
    reader = Reader(subject, pred, strict, antecedent)
    reader.greeted = greeted
    if when is not None and reader.when is None:
        reader.when = when
    claims = [c for c in reader.read() if _well_formed(c.value) and not _an_amount_as_place(c)]
    claims = [_with_its_town(c, text) for c in claims]
    if _FORMER_THING.match(text):
        # "the old phone was a Samsung A52": what the user had before, not what they have.
        claims = [replace(c, past=True, change=True) for c in claims if c.subject == subject.key]
    return claims, subject


def _with_its_town(claim: Claim, text: str) -> Claim:
    """ "We're in Umhlanga, Durban", "I live in Mylapore, Chennai": a neighbourhood and the
    town it is in, one place (one word: "Seoul, South Korea" says no more than "Seoul")."""
    if claim.attribute != "residence" or not claim.value or "," in claim.value:
        return claim
    town = re.search(
        re.escape(claim.value) + r",\s*(?P<town>[\w'-]+)\s*(?=[,.;!?)]|$"
        r"|\s+(?:so|and|but|now|since|for|with|too|lol|haha)\b)",
        text,
        re.IGNORECASE,
    )
    if town is None or not known_place(town.group("town")):
        return claim
    return replace(claim, value=f"{claim.value}, {town.group('town')}")


# A particle alone is what is left of a phrasal verb, not a value ("dropped out": "out").
_PARTICLES = frozenset(["out", "up", "off", "down", "away", "back", "over", "in", "on"])

_DANGLING_END = frozenset(
    [
        "a",
        "an",
        "the",
        "to",
        "of",
        "for",
        "with",
        "about",
        "at",
        "in",
        "on",
        "by",
        "from",
        "and",
        "or",
        "but",
        "my",
        "our",
        "your",
        "his",
        "her",
        "their",
        "its",
        "some",
        "any",
        "into",
        "like",
        "than",
        "as",
        "very",
        "so",
    ]
)

_DANGLING_START = frozenset(["and", "or", "but", "nor", "to"])

_FINITE_INSIDE = frozenset(
    [
        "has",
        "have",
        "had",
        "was",
        "were",
        "is",
        "are",
        "let",
        "lets",
        "would",
        "could",
        "will",
        "can",
        "should",
        "must",
        "might",
    ]
)


_AMOUNT = re.compile(
    r"^[£$€]?\d[\d,.]*k?\s*(?:quid|pounds|dollars|euros|bucks|a\s+(?:month|week|year)|per\b|pm\b|pw\b|/)",
    re.IGNORECASE,
)


def _an_amount_as_place(claim: Claim) -> bool:
    """ "take home is 2400 a month": money, not where the user lives."""
    return claim.attribute in ("residence", "origin") and bool(_AMOUNT.match(claim.value))


def _well_formed(value: str) -> bool:
    """Whether a value reads as a phrase, not a clause cut in the wrong place
    ("and supported has really meant", "creating a", "to")."""
    words = value.split()
    if not words:
        return True  # an empty value is a deliberate "no longer" claim
    if len(words) == 1 and words[0].casefold() in _PARTICLES:
        return False
    if words[0].casefold() in _DANGLING_START or words[-1].casefold() in _DANGLING_END:
        return False
    # A lower-case finite verb inside a value is a second clause ("Becoming Nicole" and
    # "Where the Wild Things Are" keep theirs: titles are capitalised), and so is the speaker
    # saying something of themselves ("sure I'll be made CEO").
    return not any(word in _FINITE_INSIDE or word in _SPEAKER_INSIDE for word in words[1:])


_SPEAKER_INSIDE = frozenset(["I", "I'll", "I'm", "I've", "I'd", "i'll", "i'm", "i've", "i'd"])


_PART_NATIONALITY = re.compile(
    r"\b(?:half|part|a\s+quarter|quarter)[\s-]+(?=(?:"
    + "|".join(sorted(lx.NATIONALITIES, key=len, reverse=True))
    + r")\b)",
    re.IGNORECASE,
)
_GREETING = re.compile(r"^(?:hey+|hi+|hell+o+|hiya|yo|morning|evening)\b", re.IGNORECASE)

_POSSESSIVE = {"him": "his", "her": "her", "it": "its"}


def _bare_complement(text: str) -> bool:
    """ "completely obsessed with dinosaurs": a complement whose copula was left out."""
    for word in text.split():
        w = word.casefold().strip(",")
        if w in SKIP_ADVERBS or w in CHANGE_ADVERBS or w == "completely":
            continue
        return w in COMPLEMENT_START
    return False


_NOW_PHRASES = frozenset(
    {
        "now",
        "currently",
        "nowadays",
        "these days",
        "recently",
        "lately",
        "as of now",
        "right now",
        "at the moment",
    }
)

_GERUND_SUBJECT_VERBS = frozenset(
    [
        "is",
        "was",
        "has",
        "can",
        "could",
        "will",
        "would",
        "makes",
        "made",
        "helps",
        "helped",
        "gives",
        "gave",
        "keeps",
        "kept",
        "lets",
        "brings",
        "brought",
        "means",
        "meant",
        "feels",
        "felt",
        "seems",
        "seemed",
        "gets",
        "got",
        "takes",
        "took",
        "fascinates",
        "reminds",
        "relaxes",
        "calms",
        "inspires",
        "matters",
        "sounds",
        "looks",
        "pushes",
        "pushed",
    ]
)


# "No wonder", "no problem": set phrases, not a note that the user has none of something.
_NO_IDIOMS = frozenset(
    [
        "wonder",
        "problem",
        "problems",
        "worries",
        "worry",
        "way",
        "idea",
        "doubt",
        "clue",
        "kidding",
        "joke",
        "thanks",
        "rush",
        "biggie",
        "matter",
        "question",
    ]
)


def _imperative(words: list[str]) -> bool:
    """ "Don't quit", "never give up": advice, unless a word says it is the speaker's habit
    ("don't play football anymore")."""
    verb = words[1]
    if verb.endswith(("ing", "ed")) or IRREGULAR.get(verb, verb) != verb:
        return False
    return not any(word in ("anymore", "again", "now", "nowadays") for word in words) and (
        "any more" not in " ".join(words) and "these days" not in " ".join(words)
    )


def _bare_occupation(text: str) -> bool:
    """ "call centre agent at vodafone", "associate professor as of this month", "3rd yr med
    student at UG": an occupation of two to four words and no article, then where or since
    when (without one, "keeps kosher" or "goes by DJ" could pass for an occupation)."""
    parts = re.split(
        r"\s+(?:at|for|with|in)\s+|\s+(?:now|as\s+of|since|from)\b|,", text.casefold(), maxsplit=1
    )
    words = parts[0].strip(" ,.!").split()
    longest = 4 if words and _YEAR_OF_STUDY.match(words[0]) else 3
    # One word will do when a place follows it: "waitress at a diner in marietta".
    one = re.match(r"^(\S+)\s+(?:at|in)\s+(?:a|an|the)\s", text.casefold())
    # ... or when the one word is a trade of its own: "postdoc in marine biology at UTas".
    alone = re.match(r"^(\S+)\s+(?:at|in|with|for)\s", text.casefold())
    known = alone is not None and alone.group(1) in lx.OCCUPATIONS
    shortest = (
        0 if (one is not None or known) and stem(words[0] if words else "") not in VERBS else 1
    )
    return (
        len(parts) == 2
        and shortest < len(words) <= longest
        and not any(w in DETERMINERS or w in SKIP_ADVERBS for w in words)
        and lx.is_occupation(" ".join(words))
    )


_CONDITION_ADJ = "|".join(sorted(map(re.escape, lx.CONDITION_ADJECTIVES), key=len, reverse=True))


def _said_aside(text: str) -> tuple[str, Claim, bool] | None:
    """A fact the user says on the way to the rest of a clause: the rest, the fact, and
    whether the fact comes before the rest's claims."""
    aged = _AGED_NOUN.match(text)
    if aged is not None:
        rest = f"{aged.group('me')} a {text[aged.end() :]}"
        return rest, Claim("user", "age", aged.group("n")), True
    at_age = _AT_AGE.match(text)
    if at_age is not None:
        return text[at_age.end() :], Claim("user", "age", at_age.group("n")), False
    here = here_in(text)
    if here is not None and here[1]:
        return here[1], here[0], False
    return None


def _bare_diet(text: str) -> bool:
    # "still veggie after all these years", "vegan for a decade now": how long, no part of it.
    text = re.sub(r"\s+(?:after|for|since)\s+.*$", "", text, flags=re.I)
    words = [w for w in text.casefold().split() if w not in CHANGE_ADVERBS | SKIP_ADVERBS]
    return 0 < len(words) <= 3 and diet_of(" ".join(words)) is not None


_YEAR_OF_STUDY = re.compile(r"\d+(?:st|nd|rd|th)$|first$|second$|third$|fourth$|final$")


def _subjectless_ok(text: str, strict: bool) -> bool:
    if not strict:
        return True
    words = [w.casefold().strip(",.!?") for w in text.split()]
    while words and (words[0] in CHANGE_ADVERBS or words[0] in SKIP_ADVERBS or words[0] == "also"):
        words.pop(0)
    if not words:
        return False
    first = words[0]
    if first == "in" and len(words) <= 4 and lower_case_place(" ".join(words)) is not None:
        return True  # "currently in sheffield"
    if (
        first in ("live", "work", "study")
        and len(words) > 2
        and words[1] in ("in", "at", "for", "on", "as")
    ):
        return True  # "live in austin" answers where, with its "I" left out
    if first in ("hit", "turned", "reached") and len(words) > 1 and words[1].isdigit():
        return True  # "hit 60 last weekend!": a birthday, its "I" left out
    if first in ("posted", "deployed", "redeployed", "stationed") and words[1:2] == ["to"]:
        return True  # "posted to Abuja now": a posting, with its "I" left out
    if first.endswith("ing") and any(word in _GERUND_SUBJECT_VERBS for word in words[1:]):
        # "Losing my job was hard", "Playing games helps me unwind": the -ing phrase is
        # the subject, so the clause says nothing the user did.
        return False
    if first in ("don't", "dont", "never") and len(words) > 1 and _imperative(words):
        return False
    if first == "no" and len(words) > 1 and words[1] in _NO_IDIOMS:
        return False
    if first in ("been", "don't", "dont", "didn't", "haven't", "havent", "never", "can't", "no"):
        return True
    if first in ("gonna", "planning") or (
        first == "not" and len(words) > 1 and words[1].endswith("ing")
    ):
        return True  # "gonna do the Berlin marathon in september", "not doing chicago anymore"
    if first == "not" and words[-1] in ("anymore", "any more") and len(words) <= 5:
        return True  # "not (a) vegetarian anymore": a state ended, the "I'm" left out
    if _bare_occupation(" ".join(words)):
        return True  # "call centre agent at vodafone": a job said as a bare noun phrase
    if _bare_diet(" ".join(words)):
        return True  # "basically pescatarian now": a diet, the "I'm" left out
    if re.fullmatch(r"(?:type\s+[12]\s+)?(?:" + _CONDITION_ADJ + r")[.!]*", " ".join(words)):
        return True  # "type 1 diabetic.": a condition, the "I'm" left out
    if first in ("a", "an"):
        noun = []
        for word in words[1:5]:
            if word in ("as", "at", "in", "for", "since", "from", "now", "with", "based", "living"):
                break
            noun.append(word)
        return lx.is_occupation(" ".join(noun))
    # In a chat turn a subject-less statement starts with a verb ("Moved to Denver.",
    # "just bought a flat", "flying to Tokyo on the 3rd").
    return stem(first) in VERBS and (
        first.endswith(("s", "ed", "ing")) or first in IRREGULAR or first in ("allergic",)
    )
