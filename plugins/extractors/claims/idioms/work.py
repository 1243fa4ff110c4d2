"""Idioms for work: a new role or employer by the weeks into it, an offer turned down, a
promotion, a business of one's own, retirement, a last shift, notice handed in, an employer
bought or left, and a team or job said as a note."""

from __future__ import annotations

import re

from plugins.extractors import lexicon as lx
from plugins.extractors.claims.locations import is_place_like
from plugins.extractors.claims.model import Claim
from plugins.extractors.claims.phrases import with_article
from plugins.extractors.claims.values import clean_value, vague
from plugins.extractors.places import known_place

_WEEKS_INTO_A_ROLE = re.compile(
    r"\b(?:\w+\s+)?(?:days?|weeks?|months?)\s+into\s+(?:a|an|my|the)\s+(?:new\s+)?"
    r"(?P<role>[\w -]{0,40}?)\s*(?:role|job|position|gig|post)\s+(?:at|with)\s+"
    r"(?P<org>(?-i:[A-Z])[\w&'-]*(?:\s+(?-i:[A-Z])[\w&'-]*)*)",
    re.IGNORECASE,
)


def weeks_into_a_role(text: str) -> list[Claim] | None:
    into = _WEEKS_INTO_A_ROLE.search(text)
    if into is None or vague(into.group("org")):
        return None
    # "three weeks into a payroll role at Auckland Council": the job and where it is.
    role = clean_value(into.group("role"))
    out = [Claim("user", "employer", clean_value(into.group("org")), change=True)]
    if role and not vague(role):
        titled = Claim("user", "job", with_article(role), change=True)
        field = Claim("user", "work_field", role, change=True)
        out.insert(0, titled if lx.is_occupation(role) else field)
    return out


_TURNED_DOWN = re.compile(
    r"\b(?:turned\s+down|declined|rejected|said\s+no\s+to|passed\s+on)\s+(?:the|their|that|an?|my)\s+"
    r"(?P<what>[\w' -]{0,30}?)\s*(?:job\s+)?offer\b",
    re.IGNORECASE,
)


def offer_turned_down(text: str) -> list[Claim] | None:
    declined = _TURNED_DOWN.search(text)
    if declined is None:
        return None
    # "turned down the Berlin offer": the offer weighed is off.
    what = clean_value(f"{declined.group('what') or ''} offer")
    return [Claim("user", "any", what, negated=True, change=True)]


_PROMOTED_ME = re.compile(
    r"\b(?:promoted|bumped|moved)\s+me\s+(?:up\s+)?to\s+(?:an?\s+|the\s+)?(?P<job>[\w -]{2,40}?)"
    r"(?=\s*[!.,;?]|\s+(?:and|but|so|now|today|yesterday|last|this|at|in|on|from|as|effective"
    r"|for|over)\b|\s*$)"
    r"|\b(?:made\s+me|(?:got|was|been|just\s+got)\s+made)\s+(?:an?\s+|the\s+)?"
    r"(?P<made>[\w -]{2,40}?)"
    r"(?=\s*[!.,;?]|\s+(?:and|but|so|now|today|yesterday|last|this|at|in|on|from|as|effective"
    r"|for|over)\b|\s*$)",
    re.IGNORECASE,
)


def promoted(text: str) -> list[Claim] | None:
    said = _PROMOTED_ME.search(text)
    job = (said.group("job") or said.group("made")) if said is not None else ""
    if not job or not lx.is_occupation(job.casefold()):
        return None
    # "they promoted me to site manager", "they made me head chef": the job now.
    return [Claim("user", "job", with_article(clean_value(job)), change=True)]


_BUSINESSES = (
    r"bakery|business|shop|store|cafe|café|restaurant|studio|practice|clinic|company|firm|agency"
    r"|salon|bar|gym|consultancy|startup|izakaya|pub|bistro|diner|brewery|bookshop|bookstore"
    r"|workshop|garage|food\s+truck|stall|hostel|guesthouse|daycare|nursery"
)
_OWN_BUSINESS = re.compile(
    r"\b(?:opened|started|launched|founded|set\s+up)\s+(?:(?:my|our)\s+own\s+(?P<what>"
    + _BUSINESSES
    + r")|an?\s+(?:little\s+|small\s+|new\s+)?(?P<kind>"
    + _BUSINESSES
    + r")\s+(?:called|named)\s+(?P<name>(?-i:[A-Z])[\w'&-]*(?:\s+(?:(?:y|e|de|del|da|la|le|of"
    r"|and|&|the|on)\s+)?(?-i:[A-Z])[\w'&-]*){0,4}))"
    r"(?:\s+in\s+(?P<where>(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?))?",
    re.IGNORECASE,
)


def own_business(text: str) -> list[Claim] | None:
    own = _OWN_BUSINESS.search(text)
    if own is None:
        return None
    # "opened my own bakery in Savannah": the user's work now, their own.
    where = f" in {own.group('where').strip()}" if own.group("where") else ""
    # "opened a bakery called Pan y Miel": the user's own, by its name.
    what = own.group("what") or f"{own.group('kind')} {own.group('name')}"
    return [Claim("user", "employer", f"their own {what}{where}", change=True)]


# "first monday of retirement": a change said by what it brought.
_RETIRED_NOW = re.compile(
    r"\b(?:(?:first|second|third|\w+th|last)\s+(?:\w+\s+)?(?:day|week|month|monday|morning|year)\s+of"
    r"|enjoying|into)\s+(?:my\s+)?"
    r"retirement\b",
    re.IGNORECASE,
)


def retired_now(text: str) -> list[Claim] | None:
    if not _RETIRED_NOW.search(text):
        return None
    return [Claim("user", "job", "retired", change=True)]


# "first week as a senior dev": the job now, said by what it brought.
_FIRST_AS = re.compile(
    r"\b(?:first\s+(?:day|week|fortnight|month|shift)|day\s+(?:one|1))\s+as\s+(?:an?\s+|the\s+)?"
    r"(?P<job>[\w -]+?)(?=\s+(?:and|at|but|so|was|is|went|done)\b|[,.!;]|$)"
    # "my first day as a transport planner at the Seoul Metropolitan Government": where, too.
    r"(?:\s+at\s+(?:the\s+)?(?P<org>(?-i:[A-Z])[\w&'-]+(?:\s+(?-i:[A-Z])[\w&'-]+){0,3}))?",
    re.IGNORECASE,
)


def first_weeks_as(text: str) -> list[Claim] | None:
    first_as = _FIRST_AS.search(text)
    job = clean_value(first_as.group("job")) if first_as is not None else ""
    if first_as is None or not job or not lx.is_occupation(job.casefold()):
        return None
    out = [Claim("user", "job", with_article(job), change=True)]
    org = clean_value(first_as.group("org") or "")
    if org and not vague(org) and not known_place(org):
        out.append(Claim("user", "employer", org, change=True))
    return out


# "we got acquired by Twiga": the user's employer is the buyer now.
_ACQUIRED_BY = re.compile(
    r"\b(?:we|(?:my|our)\s+(?:company|startup|firm|employer|work|agency))\s+(?:just\s+)?(?:got|was|were"
    r"|have\s+been|has\s+been)\s+(?:just\s+)?(?:acquired|bought(?:\s+out)?|taken\s+over)\s+by\s+"
    r"(?P<org>(?-i:[A-Z])[\w&'-]*(?:\s+(?-i:[A-Z])[\w&'-]*)?)",
    re.IGNORECASE,
)


def acquired_by(text: str) -> list[Claim] | None:
    acquired = _ACQUIRED_BY.search(text)
    if acquired is None:
        return None
    return [Claim("user", "employer", acquired.group("org"), change=True)]


# "my last shift at woolies was friday": the job there is over.
_LAST_SHIFT_AT = re.compile(
    r"\bmy\s+(?:very\s+)?last\s+(?:shift|day|week)\s+(?:at|with|for)\s+"
    r"(?P<org>[\w&'-]+(?:\s+(?-i:[A-Z])[\w&'-]+)?)\s+(?:was|is|will\s+be|'s)\b",
    re.IGNORECASE,
)


def last_shift_at(text: str) -> list[Claim] | None:
    last_shift = _LAST_SHIFT_AT.search(text)
    if last_shift is None or vague(last_shift.group("org")):
        return None
    org = clean_value(last_shift.group("org"))
    return [Claim("user", "employer", org, negated=True, change=True)]


_NOTICE = re.compile(
    r"\b(?:handed|gave|put|turned)\s+in\s+my\s+(?:notice|resignation|two weeks)"
    r"(?:\s+(?:at|to)\s+(?P<org>(?-i:[A-Z])[\w&'-]+(?:\s+(?-i:[A-Z])[\w&'-]+)?))?",
    re.IGNORECASE,
)


def notice_handed_in(text: str) -> list[Claim] | None:
    notice = _NOTICE.search(text)
    if notice is None:
        return None
    # "handed in my notice at Zalando today": leaving the employer.
    org = clean_value(notice.group("org") or "")
    return [Claim("user", "employer", "" if vague(org) else org, negated=True, change=True)]


_FIRST_DAYS_AT = re.compile(
    r"\b(?:(?:first|second|third|\d+(?:st|nd|rd|th))\s+(?:full\s+)?(?:day|week|fortnight|month|shift)"
    r"|(?:day|week|month)\s+(?:\d+|one))\s+(?:at|with)\s+"
    r"(?:(?:the|my)\s+new\s+(?:job|role|gig|place)\s+(?:at|with)\s+)?"
    r"(?:(?P<org>(?-i:[A-Z])[\w&'-]+(?:\s+(?-i:[A-Z])[\w&'-]+)?)"
    # "week 2 at aga khan done": a name typed in lower case, told by what follows it.
    r"|(?P<low>(?!the\b|my\b|a\b|work\b|home\b|school\b)[a-z][\w&'-]+(?:\s+[a-z][\w&'-]+){0,2})"
    r"(?=\s*(?:done|over|complete|completed|finished|down|survived|in\s+the\s+bag)\b))",
    re.IGNORECASE,
)


def first_weeks_at(text: str) -> list[Claim] | None:
    first_days = _FIRST_DAYS_AT.search(text)
    if first_days is None:
        return None
    # "first full week at Delivery Hero done": the new employer.
    org = clean_value(first_days.group("org") or first_days.group("low"))
    if vague(org) or known_place(org):
        return None
    out = [Claim("user", "employer", org, change=True)]
    # "day one at Razorpay as a backend engineer": the job, too.
    role = _AS_A_JOB.match(text, first_days.end())
    if role is not None and lx.is_occupation(clean_value(role.group("job")).casefold()):
        out.append(Claim("user", "job", with_article(clean_value(role.group("job"))), change=True))
    return out


_AS_A_JOB = re.compile(
    r"\s+as\s+an?\s+(?P<job>[\w -]+?)(?=\s+(?:and|but|so|was|is|at|in|for)\b|[,.!;]|$)",
    re.IGNORECASE,
)


_BEING_A = re.compile(
    r"^being\s+an?\s+(?P<job>(?:[\w-]+\s+){0,2}?[\w-]+)(?:\s+(?:at|for|with)\s+(?P<org>.+?))?"
    r"\s+(?:is|has|was|sucks|means|pays|gets|can)\b",
    re.IGNORECASE,
)


def being_a(text: str) -> list[Claim] | None:
    being = _BEING_A.match(text)
    if being is None or not lx.is_occupation(being.group("job")):
        return None
    # "being a nurse at st mary's is killing my back": the user is one.
    out = [Claim("user", "job", with_article(being.group("job")))]
    org = clean_value(being.group("org") or "")
    if org and not vague(org) and not is_place_like(org):
        out.append(Claim("user", "employer", org))
    return out


_FORMERLY_AT = re.compile(
    r"^(?:formerly|previously|used to be|until recently)\s+(?:(?:at|with)\s+|(?=(?-i:[A-Z])))"
    r"(?P<org>[^,.;!]+)",
    re.IGNORECASE,
)


def formerly_at(text: str) -> list[Claim] | None:
    formerly = _FORMERLY_AT.match(text)
    if formerly is None:
        return None
    # "Formerly at Twitter, now freelancing": where the user no longer works.
    org = clean_value(formerly.group("org"))
    if vague(org):
        return None
    out = [Claim("user", "employer", org, negated=True, change=True)]
    if re.search(r"\bnow\s+(?:freelanc|self-employed|my own boss)", text, re.I):
        out.append(Claim("user", "employer", "self-employed", change=True))
    return out


# "I'm on the data team at Canva", "working in Infosys Pune since 3 years as test lead".
_TEAM_AT = re.compile(
    r"^(?:i\s*'?m|i\s+am|i\s+work)\s+(?:now\s+)?(?:on|in|with)\s+(?:the|a)\s+[\w& -]{1,30}?\s+team"
    r"\s+(?:at|for|with)\s+(?P<org>(?-i:[A-Z])[\w&'-]+(?:\s+(?-i:[A-Z])[\w&'-]+)?)",
    re.IGNORECASE,
)


def team_at(text: str) -> list[Claim] | None:
    team = _TEAM_AT.match(text)
    if team is None or known_place(team.group("org")):
        return None
    return [Claim("user", "employer", clean_value(team.group("org")))]


_WORKING_IN = re.compile(
    r"^(?:i\s*'?m|i\s+am|i\s+have\s+been|i'?ve\s+been)\s+working\s+(?:in|at|with)\s+"
    r"(?P<org>(?-i:[A-Z])[\w&'-]+(?:\s+(?-i:[A-Z])[\w&'-]+)?)(?:\s+(?:since|for)\s+[\w ]+?)?"
    r"(?:\s+as\s+(?:an?\s+)?(?P<job>[\w -]+?))?\s*[.!]*$",
    re.IGNORECASE,
)


def working_in(text: str) -> list[Claim] | None:
    working = _WORKING_IN.match(text)
    if working is None or known_place(working.group("org")):
        return None
    out = [Claim("user", "employer", clean_value(working.group("org")))]
    job = clean_value(working.group("job") or "")
    if job and lx.is_occupation(job):
        out.append(Claim("user", "job", with_article(job)))
    return out


# "my new boss at DSV is way less micromanagey": the user works at DSV now.
# "I'm back in the office full time now", "we're back to the office five days a week": the way of
# working changed from remote.
_BACK_IN_THE_OFFICE = re.compile(
    r"\bback\s+(?:in|at|to)\s+the\s+office\b(?=.*\b(?:now|full[\s-]time|every\s+day|five\s+days"
    r"|5\s+days|for\s+good)\b)|\bback\s+(?:in|at|to)\s+the\s+office\s+(?:full[\s-]time|for\s+good)\b",
    re.IGNORECASE,
)


def back_in_the_office(text: str) -> list[Claim] | None:
    if _BACK_IN_THE_OFFICE.search(text) is None:
        return None
    return [Claim("user", "work_mode", "in the office", change=True)]


_NEW_AT = re.compile(
    r"\bmy\s+new\s+(?:boss|manager|team|job|role|office|colleagues|coworkers|workplace|employer)\s+"
    r"(?:at|with)\s+(?P<org>(?-i:[A-Z])[\w&'-]*(?:\s+(?-i:[A-Z])[\w&'-]*)*)",
    re.IGNORECASE,
)


def new_at(text: str) -> list[Claim] | None:
    new = _NEW_AT.search(text)
    if new is None or known_place(new.group("org")):
        return None
    return [Claim("user", "employer", clean_value(new.group("org")), change=True)]


# "finished my shift at the bar in Lapa": where the user's shifts are is where they work.
_SHIFT_AT = re.compile(
    r"\b(?:finished|started|did|doing|on|after)\s+(?:my|a|the)\s+(?:\w+\s+)?shift\s+at\s+"
    r"(?P<org>(?:the|a)\s+[\w' -]{2,30}?\s+in\s+(?-i:[A-Z])[\w'-]+|(?-i:[A-Z])[\w&'-]*"
    r"(?:\s+(?-i:[A-Z])[\w&'-]*)*)",
    re.IGNORECASE,
)


def shift_at(text: str) -> list[Claim] | None:
    shift = _SHIFT_AT.search(text)
    if shift is None or known_place(shift.group("org")):
        return None
    return [Claim("user", "employer", clean_value(shift.group("org")))]
