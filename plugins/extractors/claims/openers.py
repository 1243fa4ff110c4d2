"""Openings that state a fact on the way to something else: "Since we moved to Vancouver I
keep getting lost", "As a Leeds resident, what do you reckon ...?", "being vegan I can't eat
that". The opening is a statement of its own, and so is the rest."""

from __future__ import annotations

import re

from plugins.extractors import lexicon as lx

_OPENING_SINCE = re.compile(
    r"^(?:ever\s+since|since|now\s+that|after)\s+(?P<fact>(?:we|i|i'm|we're)\b[^,]+?"
    # "since the band split up": a thing's own news; "since the divorce" is left to its rule.
    r"|(?:the|my|our)\s+\w+(?:\s+\w+)?\s+(?:split|broke|closed|shut|folded|disbanded|died"
    r"|left|moved|ended|finished|sold|went|got)\b[^,]*?)"
    r"(?:,\s*|\s+(?=(?:i|i'm|im|we|it's|its|my)\s))(?P<rest>.+)$",
    re.IGNORECASE,
)


_BEEN_SINCE = re.compile(
    r"^(?:it'?s|it\s+has)\s+been\s+(?:\w+\s+){1,3}?since\s+(?P<fact>(?:i|we)\s+.+)$", re.IGNORECASE
)
_SINCE_JOINING = re.compile(
    r"^(?:(?P<before>[^,]+?)(?:,\s*|\s+(?=since\s+moving)))?(?:ever\s+since|since|after)\s+"
    r"(?P<how>joining|starting\s+at|moving\s+(?:down\s+|up\s+|over\s+|back\s+)?to|leaving)\s+"
    r"(?P<what>[\w&' -]+?)"
    r"(?:,\s*|\s+(?=(?:i|i'm|im|i've|we|we're|it's|its|my)\s)|\s*$)(?P<rest>.*)$",
    re.IGNORECASE,
)
_DID = {
    "joining": "joined",
    "starting at": "started at",
    "moving to": "moved to",
    "leaving": "left",
}


# "As a Leeds resident, what do you reckon ...?", "being vegan I can't eat any of that": who
# the user is, said on the way to something else.
_OPENING_AS = re.compile(
    r"^(?:as|being)\s+(?P<who>(?:an?\s+)?[\w' -]{2,40}?)(?:,\s*|\s+(?=(?:i|i'm|im|my|the|this"
    r"|that|it|it's|there|everything|nothing|most|all|every)\s))"
    r"(?P<rest>.+)$",
    re.IGNORECASE,
)
_WHO_HERE = re.compile(
    r"^(?:(?:hi|hey|hello|morning|evening|ok|so|hiya)\W+\s*)?"
    r"(?P<who>(?:an?\s+)?[a-z0-9][\w' /-]{1,30}?)\s+here\b\s*(?:[,.!:;]+|\s-+)\s*(?P<rest>.*)$",
    re.IGNORECASE,
)
# "as a 41 year old", "44 yo here", "as a 44-year-old woman": an age said as who one is.
_AGED = re.compile(
    r"(?:an?\s+)?(?P<n>[1-9]\d)(?:[\s-]*(?:yo|y/o|y\.o\.)|[\s-]+years?[\s-]+old)"
    r"(?:\s+(?:woman|man|guy|girl|lady|gal|dude|mom|mum|dad|mother|father|female|male|person))?"
)
# "me (44f) and my husband", "I (32M) just started": an age tag after the speaker.
_SELF_AGE_TAG = re.compile(
    r"^(?P<before>.*?\b(?:i|me)\s*)\((?P<n>[1-9]\d)\s*(?:[mf]|yo|nb)?\)\s*(?P<after>.*)$",
    re.IGNORECASE,
)
_SOMEONE = re.compile(r"^someone\s+(?P<how>with|without|who|born)\s+(?P<what>.+)$", re.IGNORECASE)
# "as a kid, I lived in Paris", "as a result, ...": a time of life or a connective, not who
# the user is now.
_NOT_WHO = frozenset(
    lx.words(
        """
        kid child teen teenager boy girl baby student youngster reminder result joke treat gift
        favour favor rule whole matter first last bonus side aside heads-up fyi
        """
    )
)


_LIVING_IN = re.compile(
    r"(?P<who>.+?)\s+(?:living|based|settled)\s+in\s+(?P<where>(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?)",
    re.IGNORECASE,
)


def _who_as(who: str) -> str | None:
    """The statement an "as a ..." opening makes, or None when it says no who."""
    someone = _SOMEONE.match(who)
    if someone is not None:
        what = someone.group("what")
        return {
            "with": f"I have {what}",
            "without": f"I have no {what}",
            "born": f"I was born {what}",
        }.get(someone.group("how").casefold(), f"I {what}")
    living = _LIVING_IN.fullmatch(who)
    if living is not None:
        # "as a vegan living in Oslo": who the user is, and where.
        what = _who_as(living.group("who"))
        return f"{what} and I live in {living.group('where')}" if what else None
    words = who.casefold().split()
    aged = _AGED.fullmatch(who.casefold())
    if aged is not None:
        return f"I'm {aged.group('n')}"  # "as a 41 year old I should stretch more"
    if words[-2:] == ["only", "child"]:
        return "I have no siblings"  # "as an only child I always wanted siblings"
    if not words or words[-1] in _NOT_WHO or (words[0] in ("a", "an") and len(words) == 1):
        return None
    last = words[-1]
    known = (
        last in ("resident", "local", "native", "parent", "mum", "mom", "dad", "mother", "father")
        or lx.is_occupation(last)
        or last in lx.DIETS
        or last in lx.CONDITION_ADJECTIVES  # "being diabetic, I skip dessert"
        or last in lx.NATIONALITIES
        or (len(words) > 2 and words[-2] == "of")  # "a mum of two"
    )
    return f"I'm {who}" if known else None


def _how(said: str) -> str:
    """ "moving down to" is "moving to"."""
    return " ".join(w for w in said.casefold().split() if w not in ("down", "up", "over", "back"))


def opening_statements(sentence: str) -> list[str]:
    """ "Since we moved to Vancouver in March I keep getting lost": what the opening clause
    says is a statement of its own, and so is the rest."""
    tagged = _SELF_AGE_TAG.match(sentence.strip())
    if tagged is not None:
        rest = f"{tagged.group('before')}{tagged.group('after')}".strip()
        return [f"I'm {tagged.group('n')}", *opening_statements(rest)]
    been = _BEEN_SINCE.match(sentence.strip())
    if been is not None:
        # "it's been a month since I went pescatarian": what happened then still holds.
        return [been.group("fact")]
    match = _OPENING_SINCE.match(sentence.strip())
    if match is not None:
        return [match.group("fact"), match.group("rest")]
    joined = _SINCE_JOINING.match(sentence.strip())
    if joined is not None:
        # "since joining wise last month i'm writing kotlin": the user joined Wise.
        return [
            *([joined.group("before")] if joined.group("before") else []),
            f"I {_DID[_how(joined.group('how'))]} {joined.group('what')}",
            *([joined.group("rest")] if joined.group("rest") else []),
        ]
    here = _WHO_HERE.match(sentence.strip())
    if here is not None:
        who = here.group("who")
        said = _who_as(who if re.match(r"(?i)an?\s", who) else f"a {who}")
        if said is not None:
            # "single mom here, waitress at a diner", "baker here.": who is speaking.
            return [said, here.group("rest")] if here.group("rest") else [said]
    match = _OPENING_AS.match(sentence.strip())
    said = _who_as(match.group("who")) if match is not None else None
    if match is None or said is None:
        return [sentence]
    return [said, match.group("rest")]
