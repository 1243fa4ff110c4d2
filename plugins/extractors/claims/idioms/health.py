"""Idioms for health and habits: a habit n months gone, what brings a rash, medication taken,
prescribed, stopped or switched, what the user is off, and a break mended."""

from __future__ import annotations

import re

from plugins.extractors import lexicon as lx
from plugins.extractors.claims.model import Claim
from plugins.extractors.claims.phrases import diet_of
from plugins.extractors.claims.values import clean_value, vague

_FREE_OF = {
    "smoke": "smokes",
    "nicotine": "smokes",
    "cigarette": "smokes",
    "alcohol": "drinks alcohol",
    "booze": "drinks alcohol",
    "drink": "drinks alcohol",
    "vape": "vapes",
    "fag": "smokes",
    "cig": "smokes",
    "ciggie": "smokes",
}
_HOW_MANY = (
    r"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a\s+hundred"
    r"|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[\s-]\w+)?)"
)
_N_FREE = re.compile(
    rf"\b{_HOW_MANY}\s+(?:days?|weeks?|months?|years?)\s+(?:(?P<x>"
    + "|".join(_FREE_OF)
    + r")[\s-]+free\b|without\s+(?:a\s+single\s+|any\s+|a\s+)?(?P<y>"
    + "|".join(_FREE_OF)
    + r")s?\b"
    # "ninety days off the fags", "six months off the booze"
    + r"|off\s+(?:the\s+)?(?P<z>"
    + "|".join(_FREE_OF)
    + r")s?\b)",  # "one year without a single cigarette today"
    re.IGNORECASE,
)


def habit_free(text: str) -> list[Claim] | None:
    free = _N_FREE.search(text)
    if free is None:
        return None
    # "6 months smoke free today": the habit is over.
    habit = _FREE_OF[(free.group("x") or free.group("y") or free.group("z")).casefold()]
    return [Claim("user", "habit", habit, negated=True, change=True)]


_GIVES_ME_A_RASH = re.compile(
    r"^(?P<x>(?:the\s+|any\s+)?[a-z][\w' -]{1,30}?)\s+(?:always\s+|still\s+)?(?:gives|give)\s+me\s+"
    r"(?:a\s+|bad\s+|terrible\s+|awful\s+)*(?:rash|rashes|hives|eczema|an?\s+allergic\s+reaction"
    r"|allergies|an?\s+asthma\s+attack)\b",
    re.IGNORECASE,
)


def gives_me_a_rash(text: str) -> list[Claim] | None:
    reacts = _GIVES_ME_A_RASH.match(text)
    if reacts is None or vague(reacts.group("x")):
        return None
    # "cedar dust gives me a rash": what the user reacts to.
    return [
        Claim(
            "user",
            "allergy",
            clean_value(re.sub(r"(?i)^(?:the|any)\s+", "", reacts.group("x"))),
        )
    ]


# A drug's name by its ending ("lisinopril", "metformin", "sertraline").
_MEDICINE_WORD = (
    r"[a-z][a-z-]{3,}(?:ine|ol|il|in|ide|ate|one|am|ax|an|ex|um|ix|pril|artan|statin|mab"
    r"|cillin|mycin|pam|zole|done)"
)

_MEDICATION = re.compile(
    r"(?:^(?:i\s*'?m\s+(?:now\s+)?on|i\s+am\s+(?:now\s+)?on|(?:i\s+)?(?:(?:just|recently|now)\s+)?"
    r"(?:takes?|taking|am\s+taking|'m\s+taking|started\s+(?:on|taking)|began\s+(?:on|taking)|went\s+on))"
    r"|\b(?:put|started)\s+me\s+on)\s+"
    rf"(?P<med>{_MEDICINE_WORD})\b(?:\s+\d+(?:\.\d+)?\s*(?:mg|mcg|ml)\b)?"
    r"(?:\s+(?:daily|a\s+day|twice\s+a\s+day|every\s+day))?(?:\s+for\s+(?P<cond>[\w' -]+))?",
    re.IGNORECASE,
)

MEDICINE_SHAPED = re.compile(_MEDICINE_WORD, re.IGNORECASE)

NOT_MEDICINES = frozenset(["vitamin", "protein", "caffeine", "nicotine", "medicine"])


def medication(text: str) -> list[Claim] | None:
    medicine = _MEDICATION.search(text)
    if medicine is None or medicine.group("med").casefold() in NOT_MEDICINES:
        return None
    # "I take lisinopril for blood pressure", "my GP put me on metformin for diabetes".
    started = re.search(r"\b(?:now|started|began|went\s+on|put\s+me|new)\b", text, re.I)
    out = [Claim("user", "medication", medicine.group("med").casefold(), change=bool(started))]
    cond = clean_value(re.sub(r"(?i)^(?:my|the)\s+", "", medicine.group("cond") or ""))
    if cond and not vague(cond):
        out.append(Claim("user", "condition", cond))
    return out


# "the GP started me on Ozempic", "doc took me off the metformin": a clinician's word for a
# prescription; brand names rarely look like generic names, so the clinician vouches instead.
_CLINICIAN = re.compile(
    r"\b(?:doctor|doc|dr|gp|consultant|specialist|psychiatrist|cardiologist|nurse|hospital"
    r"|endocrinologist|neurologist|oncologist|rheumatologist|dermatologist|surgeon|they)\b",
    re.IGNORECASE,
)
_DOSE_FORM = (
    r"(?:\s+(?P<form>injections?|tablets?|pills?|jabs?|shots?|patch(?:es)?|inhalers?|drops))?"
)
_PRESCRIBED_ON = re.compile(
    r"\b(?:put|started|moved)\s+me\s+(?:on(?:to)?|over\s+to)\s+(?:the\s+|a\s+course\s+of\s+)?"
    r"(?P<med>[A-Za-z][\w-]{3,})" + _DOSE_FORM,
    re.IGNORECASE,
)
_TAKEN_OFF = re.compile(
    r"\b(?:took|taken|takes|take)\s+me\s+off\s+(?:the\s+|my\s+)?(?P<med>[A-Za-z][\w-]{3,})"
    + _DOSE_FORM,
    re.IGNORECASE,
)
_NOT_PRESCRIPTIONS = lx.words(
    """
    hold list rota shift shifts nights days waiting call speaker team project diet leave sick
    duty course plan path track road right wrong something anything
    """
)


def _prescribed(match: re.Match[str] | None, text: str) -> str | None:
    """The medicine a clinician put the user on (or took them off), if ``match`` names one."""
    if match is None:
        return None
    med = match.group("med").casefold()
    if med in _NOT_PRESCRIPTIONS or med in NOT_MEDICINES:
        return None
    vouched = match.group("form") is not None or _CLINICIAN.search(text) is not None
    if MEDICINE_SHAPED.fullmatch(med) is None and not vouched:
        return None
    return med


def prescribed(text: str) -> list[Claim] | None:
    on = _prescribed(_PRESCRIBED_ON.search(text), text)
    off = _prescribed(_TAKEN_OFF.search(text), text)
    if on is None and off is None:
        return None
    if on is None:
        return [Claim("user", "medication", off or "", negated=True, change=True)]
    return [Claim("user", "medication", on, change=True, previous=off)]


_SWITCHED_ME = re.compile(
    r"\bswitched\s+me\s+(?:from\s+(?:the\s+|my\s+)?(?P<a>[a-z-]+)\s+)?(?:over\s+)?to\s+"
    r"(?:the\s+)?(?P<b>[a-z-]+)",
    re.IGNORECASE,
)


def switched_medication(text: str) -> list[Claim] | None:
    switched = _SWITCHED_ME.search(text)
    shaped = switched is not None and any(
        MEDICINE_SHAPED.fullmatch(switched.group(g) or "") for g in ("a", "b")
    )
    if switched is None or not shaped:
        return None
    # "my psychiatrist switched me from sertraline to bupropion": the medication now.
    return [
        Claim(
            "user",
            "medication",
            switched.group("b").casefold(),
            change=True,
            previous=(switched.group("a") or "").casefold() or None,
        )
    ]


# "been off meat for a month now", "I'm off the booze": what the user stopped taking.
_OFF = re.compile(
    r"^(?:i\s*'?m\s+|i\s+am\s+|(?:i\s*'?ve\s+|i\s+have\s+)?been\s+|we\s*'?re\s+|went\s+"
    r"|gone\s+)?(?:completely\s+|totally\s+|fully\s+)?off\s+(?:the\s+)?(?:whole\s+)?"
    r"(?P<x>[a-z][\w-]+)\b",
    re.IGNORECASE,
)
_GIVEN_UP = set(lx.DIET_EXCLUDES["vegan"]) | lx.words(
    """
        sugar alcohol booze drink caffeine coffee carbs bread gluten cigarettes cigs smokes
        fags nicotine vaping weed cannabis soda chocolate sweets junk meds medication
        """
)


def off_something(text: str) -> list[Claim] | None:
    given_up = _OFF.match(text)
    if given_up is None:
        return None
    if given_up.group("x").casefold() in _GIVEN_UP:
        return [Claim("user", "any", given_up.group("x").casefold(), negated=True, change=True)]
    diet = diet_of(given_up.group("x").casefold())
    if diet is None:
        return None
    # "been off the whole keto thing since may": the diet is over.
    return [Claim("user", "diet", diet, negated=True, change=True)]


# "cast came off, the wrist has healed": a change said by what it brought.
_CAST_OFF = re.compile(
    r"\b(?:the\s+|my\s+)?cast\s+(?:came|comes|is|was|finally\s+came|got\s+taken)\s+off\b"
    r"|\b(?:got|had)\s+(?:the|my)\s+cast\s+(?:taken\s+)?off\b|\bout\s+of\s+(?:the|my)\s+cast\b",
    re.IGNORECASE,
)
_HEALED_PART = re.compile(
    r"\b(?:wrist|arm|leg|ankle|knee|foot|hand|finger|toe|rib|ribs|shoulder|collarbone|hip|elbow"
    r"|thumb|shin)\b",
    re.IGNORECASE,
)


def cast_off(text: str) -> list[Claim] | None:
    part = _HEALED_PART.search(text) if _CAST_OFF.search(text) else None
    if part is None:
        return None
    # "cast came off yesterday, wrist feels weird": the break has mended.
    what = part.group(0).casefold()
    return [Claim("user", "condition", what, negated=True, change=True, qualifier="healed")]


_HEALED = re.compile(
    r"\b(?:my\s+|the\s+)?(?P<part>wrist|arm|leg|ankle|knee|foot|hand|finger|toe|rib|ribs|shoulder"
    r"|collarbone|hip|back|elbow|neck)\b[^.!?]{0,40}?\b(?:has\s+|is\s+|'s\s+)?(?:healed|good\s+as"
    r"\s+new|all\s+better|fully\s+recovered|back\s+to\s+normal|back\s+to\s+100\s*%"
    r"|100\s*%\s+again)",
    re.IGNORECASE,
)


def healed(text: str) -> list[Claim] | None:
    mended = _HEALED.search(text)
    if mended is None:
        return None
    return [
        Claim(
            "user",
            "condition",
            mended.group("part").casefold(),
            negated=True,
            change=True,
            qualifier="healed",
        )
    ]
