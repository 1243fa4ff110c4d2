"""Life news said in passing, said over plainly before the grammar reads it.

"Friday was my final day at Deloitte" is "I left Deloitte.", "farah and i hit 10 yrs married"
adds "I'm married to Farah", "day 100 without a cigarette" is "I quit smoking", "we got rid of
the car" is "we sold our car": news people give on the way to a request, in words that name
no attribute, said the way the clause grammar reads a change.
"""

from __future__ import annotations

import re

from plugins.extractors import lexicon as lx
from plugins.extractors.claims.subjects import is_name


def news_said_plainly(text: str) -> str:
    """``text`` with the news below said the way the grammar reads it."""
    # "No mushrooms though, I really can't stand them": what is refused is what is disliked.
    text = _NO_X_I_HATE_IT.sub(_refused_is_disliked, text)
    # "we brought home a rescue kitten": got one.
    text = _BROUGHT_HOME.sub(r"\g<who> got ", text)
    # "a rescue kitten, a little grey tabby called Mochi": the pet's name, said after.
    text = _PET_THEN_CALLED.sub(_pet_called, text)
    # "farah and i hit 10 yrs married next month": married to Farah.
    text = _YEARS_MARRIED.sub(_married_to, text)
    # "day 100 without a cigarette!!", "six months smoke-free", "a year sober": quit.
    text = _WITHOUT_FOR_A_TIME.sub(_quit_it, text)
    # "Friday was my final day at Deloitte", "Last day at Jumia was Friday": left the job.
    text = _LAST_DAY_AT.sub(
        lambda m: f"{m.group('lead')}I left {m.group('org') or m.group('org2')}.", text
    )
    # "Monday I resume at Flutterwave" (resume: start work), "I start in the audit team at
    # KPMG": the employer.
    text = _START_AT.sub(
        lambda m: f"{'started' if m.group('resume') else m.group('start')} at ", text
    )
    # "We got rid of the car in January": sold it, or gave it away; no longer the user's.
    text = _GOT_RID_OF.sub(
        lambda m: f"{m.group('who')} sold {_GOT_RID_OF_WHOSE[m.group('who').casefold()]} ", text
    )
    # "Since the move to Darwin I've been struggling": the move, said as past.
    return _SINCE_THE_MOVE.sub(r"I moved to \g<place>. Since then ", text)


_BROUGHT_HOME = re.compile(
    r"\b(?P<who>i|we)\s+(?:just\s+|finally\s+|recently\s+)?(?:brought\s+home|took\s+in"
    r"|rescued)\s+(?=(?:a|an)\s)",
    re.IGNORECASE,
)
_PET_THEN_CALLED = re.compile(
    r"\b(?P<pet>[a-z][\w-]*),\s+(?:a|an)\s+(?:[\w-]+\s+){0,4}?(?:called|named)\s+"
    r"(?=(?-i:[A-Z])|[a-z]+[.!,]?\s*$)",
    re.IGNORECASE,
)


def _pet_called(found: re.Match[str]) -> str:
    if not lx.is_pet(found.group("pet")):
        return found.group(0)
    return f"{found.group('pet')} called "


_YEARS_MARRIED = re.compile(
    r"\b(?:(?:my\s+(?:wife|husband|partner)\s+)?(?P<who>[\w'-]+)\s+and\s+(?:i|me)|we)\s+(?:just\s+)?"
    r"(?:hit|are\s+celebrating|celebrate|celebrated|will\s+have\s+been|have\s+been|are|turn)\s+"
    r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|forty|fifty)\s+"
    r"(?:yrs?|years)\s+(?:of\s+being\s+)?married\b",
    re.IGNORECASE,
)


def _married_to(found: re.Match[str]) -> str:
    who = found.group("who")
    if who is None or not is_name(who, lower_ok=True):
        return f"{found.group(0)}. I'm married"
    return f"{found.group(0)}. I'm married to {who[:1].upper()}{who[1:]}"


_HABIT_QUIT = {
    "cigarette": "smoking",
    "cig": "smoking",
    "smoke": "smoking",
    "smoking": "smoking",
    "vape": "vaping",
    "vaping": "vaping",
    "drink": "drinking",
    "alcohol": "drinking",
    "booze": "drinking",
    "sober": "drinking",
}
_WITHOUT_FOR_A_TIME = re.compile(
    r"\b(?:day|week|month)\s+\d+\s+(?:without|with\s+no)\s+(?:a\s+)?(?P<what>cigarette|cig|smoke"
    r"|smoking|vape|vaping|drink|alcohol|booze)s?\b"
    r"|\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|a|an)\s+(?:days?|weeks?|months?"
    r"|years?)\s+(?:(?P<free>smoke|alcohol|booze|vape)[- ]free|(?P<sober>sober))\b",
    re.IGNORECASE,
)


def _quit_it(found: re.Match[str]) -> str:
    what = (found.group("what") or found.group("free") or found.group("sober")).casefold()
    return f"I quit {_HABIT_QUIT[what]}"


_ORG = r"(?P<org>(?-i:[A-Z])[\w&'.-]*(?:\s+(?-i:[A-Z])[\w&'.-]*){0,3})"
_LAST_DAY_AT = re.compile(
    r"(?P<lead>^|[.!?;]\s+)(?:(?:\w+\s+){1,2}was\s+my\s+(?:final|last)\s+day\s+at\s+"
    + _ORG
    + r"|(?:my\s+)?(?:final|last)\s+day\s+at\s+"
    + _ORG.replace("org", "org2")
    + r"\s+(?:was|is)\s+\w+)\W*(?=\s|$)",
    re.IGNORECASE | re.MULTILINE,
)
_START_AT = re.compile(
    r"\b(?:(?P<resume>resume[ds]?|resuming)|(?P<start>start(?:ed|ing|s)?|joined|joining)\s+in\s+"
    r"(?:the|their|its)\s+(?:[\w-]+\s+){0,2}(?:team|department|division|unit|office))\s+at\s+"
    r"(?=(?-i:[A-Z]))",
    re.IGNORECASE,
)
_NO_X_I_HATE_IT = re.compile(
    r"(?P<lead>^|[.!?]\s+)(?:(?:and|but|also|oh|please|pls|plz)\s+)?no\s+"
    r"(?!(?:worries|problem|problems|way|idea|clue|thanks|biggie|need|doubt|one|rush)\b)"
    r"(?P<what>[a-z][\w'-]*(?:\s+(?!(?:though|tho|please|pls|plz|for)\b)[a-z][\w'-]*)?)(?:\s+(?:though|tho|please|pls|plz|for\s+me))?"
    r"\s*[,.!;:-]+\s*(?:i\s+|i'm\s+|im\s+)?(?:(?:really|just|honestly|genuinely|absolutely"
    r"|seriously)\s+)?(?P<hate>can't\s+stand|cannot\s+stand|hate|loathe|detest|despise"
    r"|don't\s+like|can't\s+do|allergic\s+to)\s+(?:them|it|those|that|the\s+stuff"
    r"|the\s+things?)\b(?!\s+when)",
    re.IGNORECASE,
)


def _refused_is_disliked(found: re.Match[str]) -> str:
    hate = found.group("hate")
    said = f"I'm {hate}" if hate.casefold().startswith("allergic") else f"I {hate}"
    return f"{found.group('lead')}{said} {found.group('what')}"


_GOT_RID_OF = re.compile(
    r"\b(?P<who>i|we)\s+(?:finally\s+)?got\s+rid\s+of\s+(?:the|my|our)\s+(?=(?:old\s+)?(?:car"
    r"|van|truck|bike|motorbike|motorcycle|scooter|boat|caravan|camper|piano)\b)",
    re.IGNORECASE,
)
_GOT_RID_OF_WHOSE = {"i": "my", "we": "our"}
# "Since the move to Darwin I've been struggling with the humidity": the move, said as past.
_SINCE_THE_MOVE = re.compile(
    r"\b(?:ever\s+)?since\s+(?:the|our|my)\s+(?:big\s+)?(?:move|relocation)\s+to\s+"
    r"(?P<place>(?-i:[A-Z])[\w'-]+(?:\s+(?!I\b|I')(?-i:[A-Z])[\w'-]+)?),?\s+",
    re.IGNORECASE,
)
