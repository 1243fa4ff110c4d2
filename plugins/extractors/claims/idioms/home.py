"""Idioms for where the user lives: renting somewhere, a move done, a home or a commute said
on the way to something else, the weeks since arriving, a new home by its keys, a home
bought or shared, and a home restated."""

from __future__ import annotations

import re

from plugins.extractors.claims.locations import place_value
from plugins.extractors.claims.model import Claim
from plugins.extractors.claims.passing import ON_A_TRIP
from plugins.extractors.claims.values import clean_value, vague
from plugins.extractors.places import known_place

_RENTING_IN = re.compile(
    r"^(?:(?:i|we|me\s+and\s+(?-i:[A-Z])\w+|(?-i:[A-Z])\w+\s+and\s+(?:i|me))"
    r"(?:'ve|'re|\s+have|\s+are)?\s+)?(?:been\s+)?renting\s+"
    r"(?:(?:a|an|this|the|our|my)\s+[\w' ]{1,30}?\s+)?in\s+"
    r"(?P<where>(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?)",
    re.IGNORECASE,
)


def renting_in(text: str) -> list[Claim] | None:
    renting = _RENTING_IN.search(text)
    if renting is None:
        return None
    # "I've been renting in Leeds for 3 years", "we're renting in Toronto for now".
    place = place_value(clean_value(renting.group("where")))
    if vague(place) or not (place[:1].isupper() or known_place(place)):
        return None
    return [Claim("user", "residence", place)]


# "the move to Hyderabad is done": a change said by what it brought.
_MOVE_DONE = re.compile(
    r"\bthe\s+move\s+to\s+(?P<where>[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?)\s+(?:is\s+|was\s+)?"
    r"(?:finally\s+|all\s+|now\s+)?(?:done|complete|finished|over|sorted)\b"
    # "finally done moving to davao": the move, said done first.
    r"|\b(?:done|finished)\s+(?:with\s+)?moving\s+(?:to|into)\s+"
    r"(?P<to>[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?)",
    re.IGNORECASE,
)


def move_done(text: str) -> list[Claim] | None:
    move = _MOVE_DONE.search(text)
    if move is None or vague(move.group("where") or move.group("to")):
        return None
    where = place_value(clean_value(move.group("where") or move.group("to")))
    return [Claim("user", "residence", where[:1].upper() + where[1:], change=True)]


# "the new flat in Morningside has a balcony", "my commute from Leith is brutal": where the
# user lives, said on the way to something else.
_HOME_SAID = re.compile(
    r"(?:\b(?:(?:my|our)\s+(?:(?P<new>new)\s+)?|the\s+(?P<the_new>new)\s+"
    r"|(?P<leased>(?:signed|got)\s+(?:the|a|our|my)\s+lease\s+(?:on|for)\s+(?:the|a|our|my)\s+(?:new\s+)?)"
    r"|(?<=moved\s)(?:in(?:to)?\s+)?(?:together\s*,?\s*)?(?:a\s+)?(?P<moved_new>new)\s+)"
    r"(?:flat|apartment|apt|house|place|home|condo|pad|res|dorm|digs|room)"
    r"\s+(?:(?:over|out|up|down)\s+)?in|\b(?:my|our|the)\s+commute\s+(?:in\s+)?from"
    r"|^(?:i|we)\s+(?:\w+\s+)?commute\s+(?:[\w\u00c0-\u024f'-]+\s+){0,5}?from"
    r"|^(?:i|we)\s+(?:drive|cycle|bike|ride|walk|bus|train|get\s+the\s+(?:train|bus))\s+(?:in\s+)?from"
    r"(?=\s+\S+(?:\s+\S+)?\s+to\s+.*\b(?:every\s+(?:day|morning|weekday)|daily|each\s+day|for\s+work)\b)"
    r"|\b(?:flying|fly|flew|heading|head|going|driving|drove|travelling|traveling|getting)\s+"
    r"(?:back\s+)?home\s+to)\s+"
    r"(?P<where>[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?)",
    re.IGNORECASE,
)

_WAS = re.compile(r"\s*(?:\w+\s+){0,3}?(?:was|were|used\s+to\s+be)\b", re.IGNORECASE)
# "now that we're in Portobello the sea is ...": a move, said on the way.
_NOT_A_PLACE = frozenset(["our", "my", "the", "a", "an", "his", "her", "their", "work", "home"])
_NOW_THAT_IN = re.compile(
    r"\bnow\s+that\s+(?:we're|we\s+are|i'm|i\s+am|we\s+live|i\s+live|we've|i've|we|i)\s+"
    r"(?:(?:living|based|settled|moved|moving|finally|all|properly|up|down|out|over|back)\s+)*"
    r"(?:in|to|into)\s+(?P<where>(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?|[a-z][\w'-]+)",
    re.IGNORECASE,
)


def home_said_on_the_way(text: str) -> list[Claim] | None:
    home = _HOME_SAID.search(text) or _NOW_THAT_IN.search(text)
    if home is None:
        return None
    if re.search(r"\bcommute\b", home.group(0), re.I) and _WAS.match(text, home.end()):
        return None  # "the commute from Brum was grim": where the user used to start from
    place = place_value(clean_value(home.group("where")))
    # "the new flat in kilimani": a new home is somewhere, whatever its case.
    moved_in = home.re is _HOME_SAID and any(
        home.group(g) for g in ("new", "the_new", "leased", "moved_new")
    )
    # "my commute from longhua to nanshan": where a commute starts is home, in any case.
    commute = re.search(r"\bcommute\b", home.group(0), re.I) is not None
    moved_in = moved_in or (commute and place.split()[0].casefold() not in _NOT_A_PLACE)
    if (
        vague(place)
        or not (place[:1].isupper() or known_place(place) or moved_in)
        or ON_A_TRIP.search(text)
    ):
        return None
    moved = (
        home.re is _NOW_THAT_IN
        or home.group("new")
        or home.group("the_new")
        or home.group("leased")
        or home.group("moved_new")
        or re.search(r"\bmoved\b|\bnow\b", text, re.I)
    )
    place = place[:1].upper() + place[1:]
    return [Claim("user", "residence", place, change=bool(moved))]


# "been in cambridge three weeks now": how long the user has lived somewhere new.
_BEEN_IN_FOR = re.compile(
    r"^(?:(?:i|we)(?:'ve|\s+have)\s+)?been\s+(?:living\s+)?in\s+(?P<where>[\w'-]+(?:\s+(?!\d)[\w'-]+)?)"
    r"\s+(?:for\s+)?(?:a|an|one|two|three|four|five|six|a\s+few|a\s+couple\s+of|\d+)\s+"
    r"(?:days?|weeks?|months?|years?)(?:\s+now)?\b",
    re.IGNORECASE,
)


def been_in_for(text: str) -> list[Claim] | None:
    been = _BEEN_IN_FOR.search(text)
    if been is None or not known_place(been.group("where")):
        return None
    return [Claim("user", "residence", place_value(been.group("where")), change=True)]


# "first month in Plano and I already miss snow": where the user lives now.
_FIRST_WEEKS_IN = re.compile(
    r"\b(?:(?:first|second|third)\s+(?:full\s+)?(?:day|week|fortnight|month|winter|summer|year)"
    # "three weeks into life in Aberdeen", "a month into life in Perth"
    r"|(?:\w+|a|an)\s+(?:days?|weeks?|months?)\s+into\s+(?:(?:our|my)\s+)?(?:new\s+)?life)\s+in\s+"
    r"(?P<where>(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?)",
    re.IGNORECASE,
)
_MONTH_OR_DAY = re.compile(
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december"
    r"|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec|(?:mon|tues|wednes|thurs|fri|satur|sun)day)$"
    r"|(?:the|a|my|our)$",
    re.IGNORECASE,
)


def first_weeks_in(text: str) -> list[Claim] | None:
    first_in = _FIRST_WEEKS_IN.search(text)
    if first_in is None or _MONTH_OR_DAY.match(first_in.group("where")):
        return None
    return [Claim("user", "residence", place_value(first_in.group("where")), change=True)]


# "our new place in Oakland", "got the keys to the new flat in Dundee", "shifted to my own flat
# in Hyderabad", "home base is Adelaide": where the user lives now.
_NEW_HOME_IN = re.compile(
    r"(?:\b(?:our|my)\s+new|\b(?:keys\s+to|moved\s+into|moving\s+into|settled\s+into|"
    r"settling\s+into)\s+(?:the|our|my|a)(?:\s+(?:new|own|first|little|lovely|tiny|small|wee"
    r"|nice|gorgeous|beautiful|big|bigger|cosy|cozy))*)\s+(?:house|home|flat"
    r"|apartment|condo|place|pad"
    r"|townhouse|digs)\s+(?:(?:over|out|up|down)\s+)?in\s+"
    r"(?P<where>[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)*)"
    r"|\b(?:i|we)\s+(?:have\s+|'ve\s+)?(?:just\s+|finally\s+)?shifted\s+(?:to|into)\s+"
    r"(?:(?:my|our|a)\s+(?:own\s+)?(?:new\s+)?(?:flat|house|home|apartment|place)\s+in\s+)?"
    r"(?P<shifted>[\w .'-]+)"
    r"|^home(?:\s+base)?\s+is\s+(?:now\s+)?(?P<base>[\w .'-]+)",
    re.IGNORECASE,
)


def new_home_in(text: str) -> list[Claim] | None:
    new_home = _NEW_HOME_IN.search(text)
    if new_home is None:
        return None
    where = new_home.group("where") or new_home.group("shifted") or new_home.group("base")
    place = place_value(clean_value(where))
    if vague(place) or not (place[:1].isupper() or known_place(place)):
        return None
    return [Claim("user", "residence", place, change=new_home.group("base") is None)]


_HOME_IN = re.compile(
    r"(?:^|,\s*|\b(?:we|i|we've|i've)(?=['\s])\s*)(?:(?:just|finally)\s+)?"
    r"(?:(?P<bought>closed\s+on|bought|moved\s+into)|(?P<signed>signed\s+(?:for|on))"
    r"|split|share|rent|renting|sharing|splitting|(?:'ve\s+)?got|have|found"
    # "I'm in an apartment in Lakewood now": where the user is housed.
    r"|(?:'m|\s*am|'re|\s*are)\s+(?:now\s+|currently\s+)?in"
    # "I've been in this apartment in Austin 4 years".
    r"|(?:'ve|\s*have)\s+been\s+in)\s+(?:a|an|our|my|this)\s+"
    r"(?:(?:new|little|shared|small|tiny|big|cosy|cozy|rented|[\w]+-[\w]+"
    r"|\d+\s*(?:br|bd|bhk|bed|bedroom))\s+)"
    r"{0,2}(?:house|home|flat|apartment|condo|place"
    r"|room|studio|townhouse|terrace|semi|bungalow|cottage|farmhouse|villa|duplex|bedsit"
    r"|\d-bed(?:room)?(?:\s+(?:house|flat|apartment))?)"
    r"(?:\s+with(?:\s+\w+){1,3}?)?\s+in\s+(?P<where>[\w .'-]+)",  # "with two friends in X"
    re.IGNORECASE,
)


def home_in(text: str) -> list[Claim] | None:
    home = _HOME_IN.search(text)
    if home is None:
        return None
    # "closed on a house in Denver", "I split a place in Philly": where the user lives ("in
    # Austin 4 years": for how long is no part of the place).
    where = re.split(r"\s+(?:for\s+)?\d+\s+(?:years?|yrs?|months?|weeks?)\b", home.group("where"))[
        0
    ]
    place = place_value(clean_value(where))
    if vague(place) or not (place[:1].isupper() or known_place(place)):
        return None
    moved = bool(home.group("bought") or home.group("signed"))
    out = [Claim("user", "residence", place, change=moved)]
    if home.group("bought"):
        out.append(Claim("user", "housing", "owns their home", change=True))
    return out


# "yeah still in manchester", "we're still living in Leeds": where the user lives, restated.
_STILL_IN = re.compile(
    r"^(?:(?:yeah|yep|yes|nope|no)\s*,?\s+)?(?:(?:i\s*'?m|i\s+am|we\s*'?re|we\s+are)\s+)?still\s+"
    r"(?:living\s+|based\s+)?in\s+(?P<where>[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)*)",
    re.IGNORECASE,
)


def still_in(text: str) -> list[Claim] | None:
    still = _STILL_IN.match(text)
    if still is None:
        return None
    place = place_value(clean_value(still.group("where")))
    if vague(place) or not (place[:1].isupper() or known_place(place)):
        return None
    return [Claim("user", "residence", place[:1].upper() + place[1:])]


# "rent in botafogo went up 20%": where the user pays rent is where they live.
_RENT_IN = re.compile(
    r"\b(?:my\s+|our\s+|the\s+)?rent\s+in\s+(?P<where>[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?)\s+"
    r"(?:went|has\s+gone|is\s+going|just\s+went|is|was|got)\b",
    re.IGNORECASE,
)


def rent_in(text: str) -> list[Claim] | None:
    rent = _RENT_IN.search(text)
    if rent is None:
        return None
    place = place_value(clean_value(rent.group("where")))
    if vague(place) or place.casefold() in ("the", "my", "our", "this", "that"):
        return None
    return [Claim("user", "residence", place[:1].upper() + place[1:])]


# "the movers dropped everything at our Fukuoka apartment", "just finished unpacking in Sfax":
# the user's home now.
_NAMED_HOME = re.compile(
    r"\b(?:our|my)\s+(?:new\s+)?(?P<where>(?-i:[A-Z])[\w'-]+)\s+(?:apartment|flat|house|place|home)\b"
    r"|\b(?:finished\s+|done\s+|still\s+)?unpack(?:ing|ed)\s+in\s+(?P<at>(?-i:[A-Z])[\w'-]+)",
    re.IGNORECASE,
)


def named_home(text: str) -> list[Claim] | None:
    home = _NAMED_HOME.search(text)
    if home is None:
        return None
    place = home.group("where") or home.group("at")
    return [Claim("user", "residence", place_value(place), change=True)]
