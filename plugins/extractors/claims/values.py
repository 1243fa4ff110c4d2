"""Cleaning a value out of the words after the verb, and when a statement says it happened."""

from __future__ import annotations

import re
from datetime import timedelta

_TIME_TAIL = re.compile(
    # How often: "on weekends", "on saturdays", "most mornings", "at the weekend".
    r"\s+(?P<when>(?:(?:on|at)\s+(?:the\s+)?weekends?|on\s+(?:mon|tues|wednes|thurs|fri|satur"
    r"|sun)days|most\s+(?:days|mornings|evenings|nights|weekends)|in\s+the\s+evenings"
    r"|(?:last|this|next|early|late|every|each)\s+(?:\w+\s+)?"
    r"(?:week|month|year|summer|winter|spring|fall|autumn|weekend|night|day|monday"
    r"|tuesday"
    r"|wednesday|thursday|friday|saturday|sunday|decade|semester|term|quarter|mon|tue|tues"
    r"|wed|thu|thur|thurs|fri|sat|sun|january|february|march|april|may|june|july|august"
    r"|september|october|november|december)s?\.?"
    r"|(?:in|since|on|by|until|till|from|starting|as of|back in|around|before|after|during"
    r"|over)\s+(?:the\s+|this\s+|next\s+|last\s+|coming\s+)?"
    r"(?:\d{1,4}(?:st|nd|rd|th)?|(?:jan|feb|mar|apr|may|jun|jul|aug|sep"
    r"|sept|oct|nov|dec)[a-z]*\.?|spring|summer|fall|autumn|winter|christmas|easter"
    r"|monday|tuesday|wednesday|thursday|friday|saturday|sunday|the\s+(?:\d{1,2}(?:st|nd|rd|th)"
    r"|weekend|summer|winter|spring|fall|autumn|morning|evening|past|future|end\s+of\s+\w+"
    r"|start\s+of\s+\w+|beginning\s+of\s+\w+|moment|new year)|a\s+(?:week|month|year|while"
    r"|bit|few\s+\w+|couple\s+of\s+\w+)|\w+\s+ago)"
    # "on 14 June", "on the 3rd of May": the month after the day.
    r"(?:\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?)?"
    r"(?:\s+\d{1,4}(?:st|nd|rd|th)?)?(?:,?\s+\d{4})?"
    r"|at\s+the\s+(?:start|beginning|end|turn)\s+of\s+(?:the\s+)?\w+(?:\s+\d{4})?"
    r"|(?:a|one|two|three|four|five|six|seven|eight|nine|ten|\d+|a few|a couple of|several"
    r"|many)\s+(?:days|weeks|months|years|day|week|month|year)\s+ago"
    r"|for\s+(?:the\s+)?(?:past\s+|last\s+)?(?:a|one|two|three|four|five|six|seven|eight"
    r"|nine|ten|\d+|a few|a couple of|several|many)?\s*(?:days|weeks|months|years|day|week"
    r"|month|year|decades|decade|ages|a while|a bit|now|good|life|ever)"
    r"|yesterday|today|tomorrow|tonight|recently|lately|now|nowadays|soon|again|already"
    r"|at the moment|atm|rn|right now|for now|these days|anymore|ANYMORE|full-time|part-time"
    r"|in the end|eventually|after all|finally|completely|entirely|altogether"
    r"|for good|for work|for a living|permanently|temporarily|a lot|so much|very much"
    r"|from now on|instead|any day|every day|everyday|these days|in the mornings?|halfway through"
    r"|full time|for good"
    r"|(?:once|twice|three\s+times|four\s+times|\d+\s+times|a\s+few\s+times|a\s+couple\s+of\s+times)"
    r"\s+(?:a|per|every)\s+(?:day|week|fortnight|month|year)"
    r"|(?:all\s+)?my\s+(?:whole\s+|entire\s+)?life|since\s+i\s+was\s+(?:born|\w+)"
    r"|(?:this|yesterday|tomorrow|last)\s+(?:morning|afternoon|evening)"
    r"|too|also|as well|either|ever since|originally|though|lol|haha|btw|k{4,}|(?:ja){2,}|rs(?:rs)+"
    r"|\(.*?\)))\b.*$",
    re.IGNORECASE,
)

_STOP_WORDS = re.compile(
    r"\s+(?:because|since|as|so|but|although|though|while|whereas|when|whenever|until|unless"
    r"|after|before|which|who|whom|whose|where|that|then|than|cause|cuz|coz|bc|if|and\s+(?:i"
    r"|we|my|our|she|he|they|it|now|then|also|just|the|this|that|these|those|there|will|would"
    r"|can|could|should|must|might|won't|can't|am|was|need|so)(?:'\w+)?\b"
    r"|in\s+(?:my|our|his|her|their)\s+(?:free|spare|down|off)\s+time|with\s+(?:my|our|his|her|their|the"
    r"|a|an|\d+|one|two|three|four|five|six)\b|myself|ourselves|starting\b|for\s+(?:my|our|his|her|their|the|a|an|work|school|college|university|uni|"
    r"fun|love)\b|to\s+(?:be|get|see|work|study|live|help|take|visit|start|join|find|feel|keep"
    r"|stay|remind|relax|unwind|express|connect|escape|bring|support|show|share|celebrate"
    r"|improve|enjoy|reduce|save|learn|make|give)\b"
    r"|,|;|:|\(|(?<!\b(?:Dr|Mr|Ms|St|Jr|Sr))(?<!\bMrs)\.\s|!|\?)(?:\s|$).*$|[.!?,;:]+$",
    re.IGNORECASE,
)

_VAGUE = re.compile(
    r"^(?:it|that|this|these|those|them|you|your|him|her|us|me|one|something|anything"
    r"|everything|nothing|stuff|things|here|there|what|which|who|how|when|where|why|so|such"
    r"|the idea|the way|the fact|way|lot|bit|lots|a lot|a bit|the same|same|more|less|someone"
    r"|somebody|anyone|anybody|everyone|everybody|each other|one another|as much|so much|a ton"
    r"|all|both"
    r"|tons)\b",
    re.IGNORECASE,
)

_PUNCT_CUT = re.compile(
    r"\s*(?:[,;:!?(]|(?<!\b(?:Dr|Mr|Ms|St|Jr|Sr))(?<!\bMrs)(?<![\s.][A-Z])\.(?:\s|$)|\s-\s).*$"
)

QUANTITY = re.compile(
    r"^(?:way\s+too\s+much|way\s+too\s+many|too\s+much|too\s+many|so\s+much|a\s+lot\s+of"
    r"|lots\s+of|tons\s+of|loads\s+of|plenty\s+of)\s+",
    re.IGNORECASE,
)

_DURATION_TAIL = re.compile(
    r"\s+for\s+(?:about\s+|almost\s+|nearly\s+|over\s+|around\s+|like\s+)?(?:\d+|an?|one|two"
    r"|three|four|five|six|seven|eight|nine|ten|a few|a couple of|several|many)\s+(?:years?"
    r"|months?|weeks?|days?|decades?)(?:\s+now)?$",
    re.IGNORECASE,
)

_FREQUENCY = (
    r"(?:\d+\s*x|\d+\s+times|once|twice|three\s+times|four\s+times|five\s+times)\s+"
    r"(?:a|per|each|every)\s+(?:week|day|month|weekend|fortnight)"
)
FREQUENCY_TAIL = re.compile(rf"\s+{_FREQUENCY}$", re.IGNORECASE)
OFTEN = re.compile(
    rf"\b(?:{_FREQUENCY}|every\s+(?:day|morning|evening|night|week|weekend)|daily|weekly)\b",
    re.IGNORECASE,
)
"""How often something is done: said of a progressive ("I'm swimming 3 times a week") it is a
habit, not what is happening now."""

_APPROXIMATOR_TAIL = re.compile(
    r"\s+(?:for\s+)?(?:about|around|roughly|nearly|almost|approximately|over|some)\s*$",
    re.IGNORECASE,
)


def clean_value(text: str) -> str:
    """Cut a value at the words that end it and the time phrases that trail it."""
    value = QUANTITY.sub("", _PUNCT_CUT.sub("", " ".join(text.split())))
    for _ in range(3):
        before = value
        value = _STOP_WORDS.sub("", value).strip()
        value = _TIME_TAIL.sub("", " " + value).strip()
    while before != value:
        before = value
        value = _STOP_WORDS.sub("", value).strip()
    # "played guitar for about five years": the time went, its "about" must too.
    value = _DURATION_TAIL.sub("", _APPROXIMATOR_TAIL.sub("", value))
    value = FREQUENCY_TAIL.sub("", value)  # "crossfit 5x a week": crossfit
    value = re.sub(r"(?<=\w)\s+(?:thing|stuff|business)$", "", value)  # "the ankle thing"
    value = re.sub(r"\s+(?:actually|tbh|honestly|lol|btw|haha+)$", "", value, flags=re.I)
    return value.strip(" \"'.,;:!?")


def when_of(text: str) -> str | None:
    """Return the first time phrase in ``text`` ("last month", "on June 3rd"), if any."""
    match = _TIME_TAIL.search(" " + text)
    if match is None:
        return None
    when = match.group("when")
    return when if when.casefold() not in ("too", "also", "as well", "either", "again") else None


_UNITS = {"day": 1, "week": 7, "month": 30, "year": 365}

_COUNTS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "a few": 3,
    "a couple of": 2,
    "several": 4,
}


def when_offset(when: str | None) -> timedelta | None:
    """How long before it was said a time phrase puts an event ("last month": about 30
    days; "3 weeks ago": 21 days; "yesterday": 1 day); None when it names no past moment."""
    if not when:
        return None
    low = " ".join(when.casefold().split())
    if low == "yesterday":
        return timedelta(days=1)
    match = re.fullmatch(
        r"(?:just\s+)?last\s+(day|week|weekend|month|year|summer|winter|spring|fall|autumn)", low
    )
    if match is not None:
        unit = match.group(1)
        days = {
            "weekend": 3,
            "summer": 180,
            "winter": 180,
            "spring": 180,
            "fall": 180,
            "autumn": 180,
        }.get(unit, _UNITS.get(unit, 0))
        return timedelta(days=days)
    match = re.fullmatch(
        r"(\d+|a|an|one|two|three|four|five|six|a few|a couple of|several)\s+"
        r"(day|week|month|year)s?\s+ago",
        low,
    )
    if match is not None:
        count = int(match.group(1)) if match.group(1).isdigit() else _COUNTS[match.group(1)]
        return timedelta(days=count * _UNITS[match.group(2)])
    return None


def split_values(value: str) -> list[str]:
    parts = re.split(r",\s*(?:and\s+|&\s+)?|\s+and\s+|\s+&\s+|\s+as well as\s+", value)
    return [p.strip() for p in parts if p.strip()]


def vague(value: str) -> bool:
    """Return True if ``value`` points outside the statement ("that", "it", "something")."""
    return not value or _VAGUE.match(value) is not None


# "every single day of my life", "most nights", "for years": a habit told, not one time.
_HABITUAL = re.compile(
    r"^(?:every|each|most|all|for|since|on\s+weekends|daily|nightly|always|usually)\b", re.I
)


def habitual(when: str) -> bool:
    """Return True if a time said is a habit's ("most evenings"), not one occasion's."""
    return _HABITUAL.match(when) is not None
