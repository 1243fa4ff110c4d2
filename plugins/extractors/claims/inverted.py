"""Statements whose subject is not at the front ("ramen is my favourite food", "Reykjavik is where I
live", "please call me Dan")."""

from __future__ import annotations

import re

from plugins.extractors import lexicon as lx
from plugins.extractors.claims.idioms import NOT_LIKED_KINDS
from plugins.extractors.claims.model import Claim
from plugins.extractors.claims.phrases import with_article
from plugins.extractors.claims.splitting import HEALED
from plugins.extractors.claims.subjects import is_name
from plugins.extractors.claims.values import clean_value, vague
from plugins.extractors.claims.words import CHANGE_ADVERBS, SKIP_ADVERBS

_FAVOURITE_OF = re.compile(
    r"^(?P<x>.+?)\s+(?:is|are|'s|has become|have become|became|is now|are now)\s+(?:now\s+)?"
    r"(?:my|our|the user's|user's)\s+(?:new\s+|all-time\s+)?favou?rite\s+(?P<what>[\w\- ]+?)"
    r"(?:\s+(?:now|these days|lately))?(?:,?\s+(?:honestly|tbh|ngl|lol|haha|btw|for real))*"
    r"\s*[.!]*$",
    re.IGNORECASE,
)
_A_NEW_FAVOURITE = re.compile(
    r"\b(?:has become|have become|became|is now|are now|new favou?rite|now|these days|lately)\b",
    re.IGNORECASE,
)

_BETTER_THAN = re.compile(
    r"^(?:(?:honestly|tbh|imo|personally)\s*,?\s+)?(?:(?P<x>[\w\- ]+?)\s+(?:is|are)\s+(?:(?:so|way"
    r"|much|just)\s+)?better\s+than\s+(?P<y>[\w\- ]+?)|(?:i'd|i would)\s+(?:take|pick|choose)"
    r"\s+(?P<x2>[\w\- ]+?)\s+over\s+(?P<y2>[\w\- ]+?)(?:\s+any\s+day)?)"
    r"(?P<now>,?\s+(?:now|i've come around|these days))?\s*[.!]*$",
    re.IGNORECASE,
)

_KIND_OF_PERSON = re.compile(
    r"^(?:i'm|i am)\s+(?:(?:more|much more|definitely|totally|really)\s+)*(?:of\s+)?(?:an?\s+)"
    r"(?:(?:big|huge|real|total)\s+)?(?P<x>[\w\-]+(?:\s+[\w\-]+)?)\s+(?:guy|person|girl|gal"
    r"|dude|type|kind of person)\b",
    re.IGNORECASE,
)

_CALLED_OFF = re.compile(
    r"^(?:(?:we|i|(?-i:[A-Z])[\w'-]+\s+and\s+i|me\s+and\s+[\w'-]+)\s+)?"
    r"(?:called|broke|call|break)\s+off\s+(?:the|our|my)\s+engagement"
    r"|^(?:the|our|my)\s+engagement(?:'s|\s+is)\s+off\b",
    re.IGNORECASE,
)

_FREELANCE = re.compile(
    r"^(?:i'm\s+|i am\s+|i\s+)?(?:went|going|gone|go)\s+freelance\b(?:\s+as\s+(?:an?\s+)?"
    r"(?P<job>[^,.;!?]+))?",
    re.IGNORECASE,
)

_TEAM = re.compile(r"^(?:i'm|i am|we're)\s+team\s+(?P<x>[\w\-]+)\s+now\b", re.IGNORECASE)

_HOME_OF = re.compile(
    r"^(?P<x>.+?)\s+is\s+where\s+(?:i|we|the user|user)\s+(?:live|lives|am based|is based)\b"
    r"|^home\s+(?:for me|for us)\s+is\s+(?P<y>.+?)\s*[.!]*$",
    re.IGNORECASE,
)

_ITS_ME = re.compile(
    r"^(?:it's|it is|this is)\s+(?P<x>(?-i:[A-Z])[\w\-']+)(?P<here>\s+here)?\s*$", re.IGNORECASE
)

_CALL_ME = re.compile(r"^(?:please\s+)?(?:just\s+)?call\s+me\s+(?P<x>.+)$", re.IGNORECASE)

_PET_NAME_IS = re.compile(
    r"^(?:the|my|our|the user's|user's)\s+(?P<kind>[\w\-]+)'s\s+name(?:'s|\s+is)\s+"
    r"(?P<now>now\s+)?(?P<x>[\w\-]+)"
    r"(?:\s+(?P<now2>now))?\b",
    re.IGNORECASE,
)


# What can be "better" in the sense of healed ("my knee is better", not "the weather is").
_AILING = (
    frozenset(
        [
            "knee",
            "knees",
            "ankle",
            "back",
            "arm",
            "leg",
            "wrist",
            "shoulder",
            "hip",
            "neck",
            "foot",
            "feet",
            "head",
            "stomach",
            "elbow",
            "hand",
            "finger",
            "toe",
            "eye",
            "eyes",
            "ear",
            "throat",
            "tooth",
            "jaw",
            "chest",
            "acl",
            "cold",
            "cough",
            "flu",
            "migraine",
            "rash",
            "fever",
            "injury",
            "cut",
            "burn",
            "bruise",
            "sprain",
            "fracture",
        ]
    )
    | lx.CONDITIONS
)


def inverted_claims(text: str, speaker: str, *, greeted: bool = False) -> list[Claim] | None:
    """Statements whose subject is not at the front: "ramen is my favourite food",
    "Reykjavik is where I live", "please call me Dan"."""
    healed = HEALED.match(text)
    part_word = "" if healed is None else healed.group("part").casefold()
    if (
        healed is not None
        and part_word not in lx.NOT_NAMES
        and not part_word.endswith("ing")
        and part_word not in ("become", "get", "got", "feel", "felt", "be", "been", "things")
        and part_word not in SKIP_ADVERBS
        and part_word not in CHANGE_ADVERBS
        and (healed.group("how").casefold() in ("healed", "recovered") or part_word in _AILING)
    ):
        part = healed.group("part").casefold()
        # "The user's wrist has healed" (as memory writes it), "Maya's knee is better".
        whose = healed.group("whose")
        who = speaker if whose is None or whose.casefold() == "user" else whose
        return [Claim(who, "condition", part, negated=True, change=True, qualifier="healed")]
    better = _BETTER_THAN.match(text)
    if better is not None:
        # "cats are better than dogs", "i'd take tea over coffee any day": what the user prefers.
        x = clean_value(better.group("x") or better.group("x2") or "")
        y = clean_value(better.group("y") or better.group("y2") or "")
        if not vague(x) and not vague(y) and len(x.split()) <= 3 and len(y.split()) <= 3:
            return [
                Claim(speaker, "preference", x, alternative=y, change=bool(better.group("now")))
            ]
    team = _TEAM.match(text)
    if team is not None:
        return [Claim(speaker, "preference", clean_value(team.group("x")), change=True)]
    kind_of = _KIND_OF_PERSON.match(text)
    if (
        kind_of is not None
        and not vague(kind_of.group("x"))
        and kind_of.group("x").casefold() not in NOT_LIKED_KINDS
        and not kind_of.group("x").casefold().endswith(("ive", "ous", "ful", "al", "ent", "ant"))
    ):
        # "i'm more of a chess guy", "I'm a big coffee person": what the user likes; "I'm a
        # coffee person now" likes it as a change.
        now = re.search(r"\b(?:now|these\s+days|nowadays)\b", text[kind_of.end() :], re.I)
        return [Claim(speaker, "likes", clean_value(kind_of.group("x")), change=bool(now))]
    if _CALLED_OFF.match(text):
        return [
            Claim(speaker, "relationship", "engaged", negated=True, change=True),
            Claim(speaker, "plan", "wedding", negated=True, change=True),
        ]
    freelance = _FREELANCE.match(text)
    if freelance is not None:
        out = [Claim(speaker, "employer", "self-employed", change=True)]
        if freelance.group("job"):
            out.append(Claim(speaker, "job", with_article(clean_value(freelance.group("job")))))
        return out
    match = _FAVOURITE_OF.match(text)
    if match is not None:
        value = clean_value(match.group("x"))
        return (
            []
            if vague(value)
            else [
                Claim(
                    speaker,
                    "favourite",
                    value,
                    qualifier=match.group("what").casefold().strip(),
                    change=_A_NEW_FAVOURITE.search(text) is not None,
                )
            ]
        )
    match = _HOME_OF.match(text)
    if match is not None:
        value = clean_value(match.group("x") or match.group("y") or "")
        return [] if vague(value) else [Claim(speaker, "residence", value)]
    renamed = _PET_NAME_IS.match(text)
    if renamed is not None and renamed.group("kind").casefold() in lx.PETS:
        name = renamed.group("x")
        if is_name(name, lower_ok=True):
            kind = renamed.group("kind").casefold()
            value = f"{kind} {name[:1].upper() + name[1:]}"
            changed = bool(renamed.group("now") or renamed.group("now2"))
            return [
                Claim(
                    speaker, "pet", value, change=changed, qualifier="renamed" if changed else None
                )
            ]
    match = _ITS_ME.match(text)
    # "Hi, it's Dan" and "it's Dan here" introduce the speaker; a bare "It's Seattle"
    # answers some other question.
    if match is not None and (greeted or match.group("here")) and is_name(match.group("x")):
        return [Claim(speaker, "name", match.group("x"))]
    match = _CALL_ME.match(text)
    if match is not None:
        value = clean_value(match.group("x"))
        value = re.sub(r"\s+(?:from now on|please)$", "", value, flags=re.I)
        return [] if vague(value) else [Claim(speaker, "nickname", value, change=True)]
    return None
