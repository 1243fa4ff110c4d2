"""Whole-sentence idioms whose meaning is not the sum of their words ("my maiden name is X", "I was
born in X")."""

from __future__ import annotations

import re

from plugins.extractors import lexicon as lx
from plugins.extractors.claims.locations import is_place_like, place_value
from plugins.extractors.claims.model import TURNING, Claim
from plugins.extractors.claims.passing import ON_A_TRIP, passing_claims
from plugins.extractors.claims.phrases import diet_of, relation_claim, with_article
from plugins.extractors.claims.subjects import NAME_TOKEN, REL_WORD, is_name
from plugins.extractors.claims.values import clean_value, vague
from plugins.extractors.places import known_place

_DIVORCE_FINAL = re.compile(
    r"^(?:the|my|our)\s+divorce\b(?:\s+from\s+\w+)?\s+(?:is|was|went|got|has been|just got)\s+"
    r"(?:(?:now|finally|officially)\s+)?(?:final|finali[sz]ed|through|done|official|granted)\b",
    re.IGNORECASE,
)

_DIVORCE_DONE = re.compile(
    r"^(?:(?:we|i|(?-i:[A-Z])[\w'-]+\s+and\s+i)\s+)?(?:finally\s+)?(?:finali[sz]ed|got)\s+"
    r"(?:our|my|the)\s+divorce\b",
    re.IGNORECASE,
)

_HAD_THE_BABY = re.compile(
    r"^(?:we\s+|i\s+)?(?:just\s+)?had\s+(?:the|our|my)\s+baby\b", re.IGNORECASE
)

_FORMERLY_AT = re.compile(
    r"^(?:formerly|previously|used to be|until recently)\s+(?:(?:at|with)\s+|(?=(?-i:[A-Z])))"
    r"(?P<org>[^,.;!]+)",
    re.IGNORECASE,
)

_MY_THING = re.compile(
    r"^(?P<x>[\w' -]{2,40}?)\s+(?:(?P<not>is\s+not|isn't|isnt|is\s+no\s+longer)\s+|is\s+)"
    r"(?:really\s+)?my\s+thing(?P<now>\s+(?:anymore|any\s+more|now))?\b",
    re.IGNORECASE,
)

_MAIDEN_NAME = re.compile(
    r"\b(?:going back to|went back to|back to|taking back|took back|reverting to|reverted to)"
    r"\s+my\s+maiden\s+name,?\s+(?P<name>[A-Z][\w'-]+)"
)


# "a morning person", "a positive person", "a private person": what the user is like, not likes.
NOT_LIKED_KINDS = frozenset(
    [
        "morning",
        "night",
        "evening",
        "people",
        "early",
        "positive",
        "negative",
        "happy",
        "patient",
        "private",
        "shy",
        "quiet",
        "nice",
        "good",
        "kind",
        "busy",
        "organized",
        "organised",
        "practical",
        "creative",
        "sensitive",
        "calm",
        "anxious",
    ]
)


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

_SWITCHED_ME = re.compile(
    r"\bswitched\s+me\s+(?:from\s+(?:the\s+|my\s+)?(?P<a>[a-z-]+)\s+)?(?:over\s+)?to\s+"
    r"(?:the\s+)?(?P<b>[a-z-]+)",
    re.IGNORECASE,
)

MEDICINE_SHAPED = re.compile(_MEDICINE_WORD, re.IGNORECASE)

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


NOT_MEDICINES = frozenset(["vitamin", "protein", "caffeine", "nicotine", "medicine"])

_OWN_BUSINESS = re.compile(
    r"\b(?:opened|started|launched|founded|set\s+up)\s+(?:my|our)\s+own\s+(?P<what>bakery|business"
    r"|shop|store|cafe|café|restaurant|studio|practice|clinic|company|firm|agency|salon|bar|gym"
    r"|consultancy|startup)(?:\s+in\s+(?P<where>(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?))?",
    re.IGNORECASE,
)

_RENTING_IN = re.compile(
    r"^(?:(?:i|we|me\s+and\s+(?-i:[A-Z])\w+|(?-i:[A-Z])\w+\s+and\s+(?:i|me))"
    r"(?:'ve|'re|\s+have|\s+are)?\s+)?(?:been\s+)?renting\s+"
    r"(?:(?:a|an|this|the|our|my)\s+[\w' ]{1,30}?\s+)?in\s+"
    r"(?P<where>(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?)",
    re.IGNORECASE,
)

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


# "the new flat in Morningside has a balcony", "my commute from Leith is brutal": where the
# user lives, said on the way to something else.
_HOME_SAID = re.compile(
    r"(?:\b(?:(?:my|our)\s+(?:(?P<new>new)\s+)?|the\s+(?P<the_new>new)\s+"
    r"|(?P<leased>(?:signed|got)\s+(?:the|a|our|my)\s+lease\s+(?:on|for)\s+(?:the|a|our|my)\s+(?:new\s+)?)"
    r"|(?<=moved\s)(?:in(?:to)?\s+)?(?:together\s*,?\s*)?(?:a\s+)?(?P<moved_new>new)\s+)"
    r"(?:flat|apartment|apt|house|place|home|condo|pad|res|dorm|digs|room)"
    r"\s+(?:(?:over|out|up|down)\s+)?in|\b(?:my|our|the)\s+commute\s+(?:in\s+)?from"
    r"|^(?:i|we)\s+(?:\w+\s+)?commute\s+(?:in\s+)?from"
    r"|^(?:i|we)\s+(?:drive|cycle|bike|ride|walk|bus|train|get\s+the\s+(?:train|bus))\s+(?:in\s+)?from"
    r"(?=\s+\S+(?:\s+\S+)?\s+to\s+.*\b(?:every\s+(?:day|morning|weekday)|daily|each\s+day|for\s+work)\b)"
    r"|\b(?:flying|fly|flew|heading|head|going|driving|drove|travelling|traveling|getting)\s+"
    r"(?:back\s+)?home\s+to)\s+"
    r"(?P<where>[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?)",
    re.IGNORECASE,
)

# "now that we're in Portobello the sea is ...": a move, said on the way.
_NOT_A_PLACE = frozenset(["our", "my", "the", "a", "an", "his", "her", "their", "work", "home"])
_NOW_THAT_IN = re.compile(
    r"\bnow\s+that\s+(?:we're|we\s+are|i'm|i\s+am|we\s+live|i\s+live|we've|i've|we|i)\s+"
    r"(?:(?:living|based|settled|moved|moving|finally|all|properly|up|down|out|over|back)\s+)*"
    r"(?:in|to|into)\s+(?P<where>(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?|[a-z][\w'-]+)",
    re.IGNORECASE,
)

# "we got acquired by Twiga": the user's employer is the buyer now.
_ACQUIRED_BY = re.compile(
    r"\b(?:we|(?:my|our)\s+(?:company|startup|firm|employer|work|agency))\s+(?:just\s+)?(?:got|was|were"
    r"|have\s+been|has\s+been)\s+(?:just\s+)?(?:acquired|bought(?:\s+out)?|taken\s+over)\s+by\s+"
    r"(?P<org>(?-i:[A-Z])[\w&'-]*(?:\s+(?-i:[A-Z])[\w&'-]*)?)",
    re.IGNORECASE,
)

# Changes said by what they brought: "first monday of retirement", "the move to Hyderabad is
# done", "first week as a senior dev", "I'm officially done with uppsala", "cast came off, the
# wrist has healed", "bubbles didn't make it through the holidays".
_RETIRED_NOW = re.compile(
    r"\b(?:(?:first|second|third|\w+th|last)\s+(?:\w+\s+)?(?:day|week|month|monday|morning|year)\s+of"
    r"|enjoying|into)\s+(?:my\s+)?"
    r"retirement\b",
    re.IGNORECASE,
)
_MOVE_DONE = re.compile(
    r"\bthe\s+move\s+to\s+(?P<where>[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?)\s+(?:is\s+|was\s+)?"
    r"(?:finally\s+|all\s+|now\s+)?(?:done|complete|finished|over|sorted)\b"
    # "finally done moving to davao": the move, said done first.
    r"|\b(?:done|finished)\s+(?:with\s+)?moving\s+(?:to|into)\s+"
    r"(?P<to>[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?)",
    re.IGNORECASE,
)
_FIRST_AS = re.compile(
    r"\bfirst\s+(?:day|week|month|shift)\s+as\s+(?:an?\s+|the\s+)?(?P<job>[\w -]+?)"
    r"(?=\s+(?:and|at|but|so|was|is|went|done)\b|[,.!;]|$)",
    re.IGNORECASE,
)
_DONE_WITH = re.compile(
    r"\b(?:i'?m|i\s+am)\s+(?:officially\s+|finally\s+|totally\s+)?(?:done|finished)\s+with\s+"
    r"(?P<x>[\w' -]+?)(?=\s+(?:and|but|so|now)\b|[,.!;]|$)",
    re.IGNORECASE,
)
_HEALED = re.compile(
    r"\b(?:my\s+|the\s+)?(?P<part>wrist|arm|leg|ankle|knee|foot|hand|finger|toe|rib|ribs|shoulder"
    r"|collarbone|hip|back|elbow|neck)\b[^.!?]{0,40}?\b(?:has\s+|is\s+|'s\s+)?(?:healed|good\s+as"
    r"\s+new|all\s+better|fully\s+recovered|back\s+to\s+normal|back\s+to\s+100\s*%"
    r"|100\s*%\s+again)",
    re.IGNORECASE,
)
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
_DID_NOT_MAKE_IT = re.compile(
    r"^(?P<name>[\w'-]+)\s+(?:didn'?t|did\s+not)\s+make\s+it(?!\s+(?:to|in|on|for|back)\b)",
    re.IGNORECASE,
)

# "Me and Jess made it official", "Sam and I are official now": a relationship begun.
_OFFICIAL = re.compile(
    rf"^(?:(?:me|i)\s+and\s+(?P<a>(?-i:{NAME_TOKEN}))|(?P<b>(?-i:{NAME_TOKEN}))\s+and\s+(?:i|me))"
    r"\s+(?:(?:just|finally)\s+)?(?:made\s+it\s+(?:facebook\s+|insta\s+)?official"
    r"|(?:are|'re)\s+(?:now\s+)?(?:official|together|a\s+couple|an\s+item)(?:\s+now)?"
    r"|got\s+together|started\s+(?:dating|going\s+out|seeing\s+each\s+other))\b",
    re.IGNORECASE,
)

# "physio cleared me, back to running": a sport taken up again.
_BACK_TO = re.compile(
    r"(?:^|,\s*|\band\s+)(?:now\s+|finally\s+|i'm\s+|im\s+|i\s+am\s+)?back\s+to\s+(?P<act>running|swimming|cycling|climbing|bouldering|skiing|hiking|lifting"
    r"|dancing|surfing|skating|rowing|training|yoga|pilates|the\s+gym|football|tennis|golf)\b",
    re.IGNORECASE,
)

# "been in cambridge three weeks now": how long the user has lived somewhere new.
_BEEN_IN_FOR = re.compile(
    r"^(?:(?:i|we)(?:'ve|\s+have)\s+)?been\s+(?:living\s+)?in\s+(?P<where>[\w'-]+(?:\s+[\w'-]+)?)"
    r"\s+(?:for\s+)?(?:a|an|one|two|three|four|five|six|a\s+few|a\s+couple\s+of|\d+)\s+"
    r"(?:days?|weeks?|months?|years?)(?:\s+now)?\b",
    re.IGNORECASE,
)

# "my last shift at woolies was friday": the job there is over.
_LAST_SHIFT_AT = re.compile(
    r"\bmy\s+(?:very\s+)?last\s+(?:shift|day|week)\s+(?:at|with|for)\s+"
    r"(?P<org>[\w&'-]+(?:\s+(?-i:[A-Z])[\w&'-]+)?)\s+(?:was|is|will\s+be|'s)\b",
    re.IGNORECASE,
)
_NOTICE = re.compile(
    r"\b(?:handed|gave|put|turned)\s+in\s+my\s+(?:notice|resignation|two weeks)"
    r"(?:\s+(?:at|to)\s+(?P<org>(?-i:[A-Z])[\w&'-]+(?:\s+(?-i:[A-Z])[\w&'-]+)?))?",
    re.IGNORECASE,
)

# "first month in Plano and I already miss snow": where the user lives now.
_FIRST_WEEKS_IN = re.compile(
    r"\b(?:first|second|third)\s+(?:full\s+)?(?:day|week|month|winter|summer|year)\s+in\s+"
    r"(?P<where>(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?)",
    re.IGNORECASE,
)
_MONTH_OR_DAY = re.compile(
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december"
    r"|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec|(?:mon|tues|wednes|thurs|fri|satur|sun)day)$"
    r"|(?:the|a|my|our)$",
    re.IGNORECASE,
)
_FIRST_DAYS_AT = re.compile(
    r"\b(?:(?:first|second|third|\d+(?:st|nd|rd|th))\s+(?:full\s+)?(?:day|week|month|shift)"
    r"|(?:day|week|month)\s+\d+)\s+(?:at|with)\s+"
    r"(?:(?:the|my)\s+new\s+(?:job|role|gig|place)\s+(?:at|with)\s+)?"
    r"(?:(?P<org>(?-i:[A-Z])[\w&'-]+(?:\s+(?-i:[A-Z])[\w&'-]+)?)"
    # "week 2 at aga khan done": a name typed in lower case, told by what follows it.
    r"|(?P<low>(?!the\b|my\b|a\b|work\b|home\b|school\b)[a-z][\w&'-]+(?:\s+[a-z][\w&'-]+){0,2})"
    r"(?=\s*(?:done|over|complete|completed|finished|down|survived|in\s+the\s+bag)\b))",
    re.IGNORECASE,
)

_HOME_IN = re.compile(
    r"(?:^|,\s*|\b(?:we|i|we've|i've)\s+)(?:(?:just|finally)\s+)?"
    r"(?:(?P<bought>closed\s+on|bought|moved\s+into)"
    r"|split|share|rent|renting|sharing|splitting|(?:'ve\s+)?got|have|found)\s+(?:a|an|our|my)\s+"
    r"(?:new\s+|little\s+|shared\s+|small\s+|tiny\s+)?(?:house|home|flat|apartment|condo|place"
    r"|room|studio|townhouse"
    r"|\d-bed(?:room)?(?:\s+(?:house|flat|apartment))?)"
    r"(?:\s+with(?:\s+\w+){1,3}?)?\s+in\s+(?P<where>[\w .'-]+)",  # "with two friends in X"
    re.IGNORECASE,
)

# "our new place in Oakland", "got the keys to the new flat in Dundee", "shifted to my own flat
# in Hyderabad", "home base is Adelaide": where the user lives now.
_NEW_HOME_IN = re.compile(
    r"(?:\b(?:our|my)\s+new|\b(?:keys\s+to|moved\s+into|moving\s+into|settled\s+into|"
    r"settling\s+into)\s+(?:the|our|my)(?:\s+(?:new|own|first))?)\s+(?:house|home|flat"
    r"|apartment|condo|place|pad"
    r"|townhouse|digs)\s+(?:(?:over|out|up|down)\s+)?in\s+"
    r"(?P<where>[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)*)"
    r"|\b(?:i|we)\s+(?:have\s+|'ve\s+)?(?:just\s+|finally\s+)?shifted\s+(?:to|into)\s+"
    r"(?:(?:my|our|a)\s+(?:own\s+)?(?:new\s+)?(?:flat|house|home|apartment|place)\s+in\s+)?"
    r"(?P<shifted>[\w .'-]+)"
    r"|^home(?:\s+base)?\s+is\s+(?:now\s+)?(?P<base>[\w .'-]+)",
    re.IGNORECASE,
)

_PET_IS_NAMED = re.compile(
    r"^(?:the|my|our)\s+(?P<kind>[a-z-]+)\s+is\s+(?P<name>(?-i:[A-Z])[\w'-]+)\b(?!\s+(?:and|or)\b)",
    re.IGNORECASE,
)

_BEING_A = re.compile(
    r"^being\s+an?\s+(?P<job>(?:[\w-]+\s+){0,2}?[\w-]+)(?:\s+(?:at|for|with)\s+(?P<org>.+?))?"
    r"\s+(?:is|has|was|sucks|means|pays|gets|can)\b",
    re.IGNORECASE,
)

_RENAMED = re.compile(
    r"^(?:we|i)\s+(?:just\s+|finally\s+)?renamed\s+(?:the|our|my)\s+(?P<kind>[\w-]+)\s+(?:to\s+)?"
    r"(?P<name>[\w'-]+)",
    re.IGNORECASE,
)

_BORN = re.compile(
    r"^(?:our|my)\s+(?:(?:baby|little|new|newborn)\s+)?(?P<who>son|daughter|baby(?:\s+(?:boy|girl))?"
    r"|twins|boy|girl)(?:,?\s+(?P<name>(?-i:[A-Z])[\w'-]+|(?!(?:just|finally|has|is|was|"
    r"arrived)\b)[a-z][\w'-]+),?)?\s+(?:(?:was|were)\s+(?:just\s+)?born\b|(?:has\s+|finally\s+"
    r"|just\s+)*arrived\b(?!\s+(?:home|back|at|from|to|in)\b))",
    re.IGNORECASE,
)


# "we lost Biscuit in October", "had to put Mochi down": a pet (or person) named has died.
_LOST_NAMED = re.compile(
    r"^(?:we|i)\s+(?:just\s+|sadly\s+)?(?:lost|had\s+to\s+put|put|said\s+goodbye\s+to"
    r"|had\s+to\s+say\s+goodbye\s+to|buried|cremated)\s+(?:(?:our|my)\s+(?:[a-z-]+\s+)?)?"
    r"(?P<name>(?-i:[A-Z])[\w'-]+)(?P<down>\s+down)?\b",
    re.IGNORECASE,
)

_DIED_NAMED = re.compile(
    r"^(?P<name>(?-i:[A-Z])[\w'-]+)\s+(?:didn'?t|did\s+not)\s+make\s+it\b", re.IGNORECASE
)

# "the new kitten Miso is ...", "our new puppy, Max, ...": a pet just arrived, by name.
_NEW_PET = re.compile(
    r"^(?:the|our|my)\s+new\s+(?P<kind>[a-z-]+),?\s+(?P<name>(?-i:[A-Z])[\w'-]+)\b", re.IGNORECASE
)

# "since the divorce I've had the kids": a divorce behind the user (read before the leading
# time phrase is cut off the clause).
SINCE_DIVORCE = re.compile(r"^(?:ever\s+)?since\s+(?:the|my|our)\s+divorce\b", re.IGNORECASE)

# "Ella's 9", "Sam's 6": a person's age, said with a contraction.
_AGE_OF = r"(?-i:[A-Z])[\w-]+'s\s+\d{1,2}(?:\s+(?:years?\s+old|now))?(?![\w%:])"
_NAME_IS_AGE = re.compile(
    r"(?P<name>(?-i:[A-Z])[\w-]+)'s\s+(?P<n>\d{1,2})(?:\s+(?:years?\s+old|now))?(?![\w%:])"
)
_NAMES_AGES = re.compile(rf"^{_AGE_OF}(?:\s*(?:,\s*and|,|and|&)\s*{_AGE_OF})*\s*[.!]*$")

# "I'm on the data team at Canva", "working in Infosys Pune since 3 years as test lead".
_TEAM_AT = re.compile(
    r"^(?:i\s*'?m|i\s+am|i\s+work)\s+(?:now\s+)?(?:on|in|with)\s+(?:the|a)\s+[\w& -]{1,30}?\s+team"
    r"\s+(?:at|for|with)\s+(?P<org>(?-i:[A-Z])[\w&'-]+(?:\s+(?-i:[A-Z])[\w&'-]+)?)",
    re.IGNORECASE,
)
_WORKING_IN = re.compile(
    r"^(?:i\s*'?m|i\s+am|i\s+have\s+been|i'?ve\s+been)\s+working\s+(?:in|at|with)\s+"
    r"(?P<org>(?-i:[A-Z])[\w&'-]+(?:\s+(?-i:[A-Z])[\w&'-]+)?)(?:\s+(?:since|for)\s+[\w ]+?)?"
    r"(?:\s+as\s+(?:an?\s+)?(?P<job>[\w -]+?))?\s*[.!]*$",
    re.IGNORECASE,
)

# "training for the Berlin marathon in September": the event the user plans to do.
_TRAINING_FOR = re.compile(
    r"^(?:i\s*'?m|i\s+am|i\s+have\s+been|i'?ve\s+been)\s+(?:currently\s+)?training\s+for\s+"
    r"(?:the|a|my|an)\s+(?:first\s+)?(?P<event>[\w' -]{0,30}?(?:marathon|half|triathlon|ironman"
    r"|race|10k|5k|ultra|century|sportive|relay))\b(?:\s+(?P<when>in\s+\w+|next\s+\w+|this\s+\w+))?",
    re.IGNORECASE,
)

# "I'm writing my first novel": a project of the user's.
_WRITING_A = re.compile(
    r"^(?:i\s*'?m|i\s+am)\s+(?:currently\s+|finally\s+)?(?P<verb>writing|doing|working\s+on)\s+"
    r"(?:my|a|an)\s+(?:(?:first|second|third|new|debut|final\s+year|masters?|phd)\s+)?"
    r"(?P<what>novel|book|memoir|screenplay|thesis|dissertation|play|album|cookbook)\b"
    r"(?:\s+(?:on|about|into)\s+(?P<topic>[\w' -]+?)(?=\s+(?:at|in|for|with)\b|[,.!;]|$))?",
    re.IGNORECASE,
)

# "Spanish is my first language": the user's native language.
_FIRST_LANGUAGE = re.compile(
    r"^(?P<lang>(?-i:[A-Z])[a-z]+)\s+is\s+my\s+(?:first|native|mother|home)\s+"
    r"(?:language|tongue)\b",
    re.IGNORECASE,
)

# "bouldering 3x a week at the Castle": a pastime said by its habit, without a subject.
_GERUND_HABIT = re.compile(
    r"^(?P<act>[a-z]+ing)\s+(?:(?:\d+x|\d+\s+(?:times|days|mornings|evenings|nights)|once|twice"
    r"|three\s+times|four\s+times)\s+(?:a|per)\s+(?:week|day|month|fortnight)"
    r"|(?:every|most)\s+(?:week|day|weekend|morning|evening|night|month|sunday|monday|tuesday"
    r"|wednesday|thursday|friday|saturday))",
    re.IGNORECASE,
)


# "As a veggie, what do I order?", "as a nurse I see this a lot": what the user is, said as
# the standpoint of what follows.
_AS_A = re.compile(r"^as\s+an?\s+(?P<x>[\w-]+(?:\s+[\w-]+)?)\s*(?:,|$|\s+(?:i|we)\b)", re.I)

# "yeah still in manchester", "we're still living in Leeds": where the user lives, restated.
_STILL_IN = re.compile(
    r"^(?:(?:yeah|yep|yes|nope|no)\s*,?\s+)?(?:(?:i\s*'?m|i\s+am|we\s*'?re|we\s+are)\s+)?still\s+"
    r"(?:living\s+|based\s+)?in\s+(?P<where>[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)*)",
    re.IGNORECASE,
)

# "Native Portuguese speaker, fluent in English": languages said as a note.
_NATIVE_SPEAKER = re.compile(r"^(?:a\s+)?native\s+(?P<lang>(?-i:[A-Z])[a-z]+)\s+speaker\b", re.I)


# "I've fallen in love with running": a new liking (a person fallen for is not a pastime).
_FELL_FOR = re.compile(
    r"^(?:i\s*'?ve\s+|i\s+have\s+|i\s+)?(?:totally\s+|kind\s+of\s+|really\s+)?(?:fallen|fell)"
    r"\s+in\s+love\s+with\s+(?P<x>[\w' -]+)",
    re.IGNORECASE,
)

# "Priya, my wife, says hello": a name and what the person is to the user, in apposition.
_NAME_MY_RELATION = re.compile(
    rf"^(?P<name>(?-i:{NAME_TOKEN})),\s+my\s+(?P<rel>{REL_WORD})(?:,|\s*$)", re.IGNORECASE
)


def _standpoint_claims(text: str) -> list[Claim] | None:
    """What the user is, said as a standpoint, a restated home, or a native language."""
    as_a = _AS_A.match(text)
    if as_a is not None:
        what = as_a.group("x").casefold()
        diet = diet_of(what)
        if diet is not None:
            return [Claim("user", "diet", diet)]
        if lx.is_occupation(what):
            return [Claim("user", "job", with_article(what))]
    still = _STILL_IN.match(text)
    if still is not None:
        place = place_value(clean_value(still.group("where")))
        if not vague(place) and (place[:1].isupper() or known_place(place)):
            return [Claim("user", "residence", place[:1].upper() + place[1:])]
    native = _NATIVE_SPEAKER.match(text)
    if native is not None:
        return [Claim("user", "native_language", native.group("lang"))]
    fell = _FELL_FOR.match(text)
    if fell is not None:
        liked = clean_value(fell.group("x"))
        if not vague(liked) and not is_name(liked.split()[0]):
            return [Claim("user", "likes", liked, change=True)]
    named = _NAME_MY_RELATION.match(text)
    if named is not None and is_name(named.group("name")):
        rel = lx.relation_of(named.group("rel")) or named.group("rel").casefold()
        attribute, value, qualifier = relation_claim(rel, named.group("name"))
        return [Claim("user", attribute, value, qualifier=qualifier)]
    return None


# Gerunds of what a week holds that are not pastimes ("working 3 days a week").
_NOT_PASTIMES = lx.words(
    """
    going doing getting being having coming paying eating sleeping commuting driving working
    travelling traveling calling texting meeting seeing visiting taking feeling studying
    waking showering cooking cleaning shopping
    """
)


def _life_event_claims(text: str) -> list[Claim] | None:
    """A pet or person lost, a pet just arrived, a divorce behind, a child's age."""
    lost = _LOST_NAMED.match(text) or _DIED_NAMED.match(text)
    if lost is not None and is_name(lost.group("name")):
        put = lost.re is _LOST_NAMED and re.search(r"\bput\b", text, re.I)
        if not put or lost.group("down"):
            return [Claim(lost.group("name"), "alive", "", negated=True, change=True)]
    new_pet = _NEW_PET.match(text)
    kind = new_pet.group("kind").casefold() if new_pet is not None else ""
    if new_pet is not None and lx.is_pet(kind) and is_name(new_pet.group("name")):
        return [Claim("user", "pet", f"{kind} {new_pet.group('name')}", change=True)]
    if _NAMES_AGES.match(text):
        ages = [(m.group("name"), m.group("n")) for m in _NAME_IS_AGE.finditer(text)]
        if all(is_name(name) and 0 < int(n) < 100 for name, n in ages):
            return [Claim(name, "age", n) for name, n in ages]
    return None


def _work_and_pastime_claims(text: str) -> list[Claim] | None:
    """A team at an employer, a job said in Indian English, an event trained for, a book
    being written, a first language, a pastime said by its habit."""
    team = _TEAM_AT.match(text)
    if team is not None and not known_place(team.group("org")):
        return [Claim("user", "employer", clean_value(team.group("org")))]
    working = _WORKING_IN.match(text)
    if working is not None and not known_place(working.group("org")):
        out = [Claim("user", "employer", clean_value(working.group("org")))]
        job = clean_value(working.group("job") or "")
        if job and lx.is_occupation(job):
            out.append(Claim("user", "job", with_article(job)))
        return out
    training = _TRAINING_FOR.match(text)
    if training is not None:
        event = clean_value(training.group("event"))
        when = training.group("when")
        return [Claim("user", "plan", f"do the {event}", when=when)]
    writing = _WRITING_A.match(text)
    what = writing.group("what").casefold() if writing is not None else ""
    if writing is not None and (
        writing.group("verb").casefold() == "writing" or what in ("thesis", "dissertation")
    ):
        # "doing my thesis on coastal erosion"; "doing a play" is acting in it.
        topic = f" on {writing.group('topic')}" if writing.group("topic") else ""
        return [Claim("user", "project", f"writing a {what}{topic}")]
    first = _FIRST_LANGUAGE.match(text)
    if first is not None:
        return [Claim("user", "native_language", first.group("lang").capitalize())]
    habit = _GERUND_HABIT.match(text)
    if habit is not None and habit.group("act").casefold() not in _NOT_PASTIMES:
        return [Claim("user", "hobby", f"goes {habit.group('act').casefold()}")]
    return None


# "it was my 35th birthday yesterday", "celebrated my 40th": the age the birthday brought.
_NTH_BIRTHDAY = re.compile(
    r"\bcelebrat\w*\s+my\s+(?P<a>\d{1,3})(?:st|nd|rd|th)\b"
    r"|\bmy\s+(?P<b>\d{1,3})(?:st|nd|rd|th)\s+(?:birthday|bday|b-day)\b",
    re.IGNORECASE,
)
_AHEAD = re.compile(
    r"\b(?:next|coming|upcoming|tomorrow|soon|will|going\s+to|gonna|plan\w*|is\s+on"
    r"|'s\s+on|in\s+(?:a|\d+|two|three)\s+(?:days?|weeks?|months?))\b",
    re.IGNORECASE,
)


def _birthday_age(text: str) -> list[Claim] | None:
    said = _NTH_BIRTHDAY.search(text)
    if said is None:
        return None
    n = int(said.group("a") or said.group("b"))
    if not 0 < n < 120:
        return None
    # A birthday still to come brings its age then; one had is the age now.
    return [
        Claim(
            "user", "age", str(n), change=True, qualifier=TURNING if _AHEAD.search(text) else None
        )
    ]


_FREE_OF = {
    "smoke": "smokes",
    "nicotine": "smokes",
    "cigarette": "smokes",
    "alcohol": "drinks alcohol",
    "booze": "drinks alcohol",
    "drink": "drinks alcohol",
    "vape": "vapes",
}
_N_FREE = re.compile(
    r"\b(?:\d+|a|one|two|three|six|nine)\s+(?:days?|weeks?|months?|years?)\s+(?P<x>"
    + "|".join(_FREE_OF)
    + r")[\s-]+free\b",
    re.IGNORECASE,
)
_GIVES_ME_A_RASH = re.compile(
    r"^(?P<x>(?:the\s+|any\s+)?[a-z][\w' -]{1,30}?)\s+(?:always\s+|still\s+)?(?:gives|give)\s+me\s+"
    r"(?:a\s+|bad\s+|terrible\s+|awful\s+)*(?:rash|rashes|hives|eczema|an?\s+allergic\s+reaction"
    r"|allergies|an?\s+asthma\s+attack)\b",
    re.IGNORECASE,
)
_THING_NAMED = re.compile(
    r"^(?:my|our)\s+(?:(?:old|new|little|trusty|own|small|first)\s+)*(?P<kind>boat|van|car|truck"
    r"|bike|motorbike|motorcycle|scooter|guitar|piano|violin|plant|farm|shop|cafe|bakery"
    r"|restaurant|business|company|podcast|channel|blog|canoe|kayak|yacht|tractor|camper"
    r"|caravan|ute|jeep|ship|sailboat|food\s+truck)\s+is\s+(?:called|named)\s+"
    r"(?P<name>(?-i:[A-Z])[\w'&-]*(?:\s+(?-i:[A-Z])[\w'&-]*)*)",
    re.IGNORECASE,
)
_WEEKS_INTO_A_ROLE = re.compile(
    r"\b(?:\w+\s+)?(?:days?|weeks?|months?)\s+into\s+(?:a|an|my|the)\s+(?:new\s+)?"
    r"(?P<role>[\w -]{0,40}?)\s*(?:role|job|position|gig|post)\s+(?:at|with)\s+"
    r"(?P<org>(?-i:[A-Z])[\w&'-]*(?:\s+(?-i:[A-Z])[\w&'-]*)*)",
    re.IGNORECASE,
)
_SIGNED_UP_FOR = re.compile(
    r"\b(?:signed\s+up|registered|entered)\s+(?:for|in)\s+(?:the\s+)?"
    r"(?P<what>(?-i:[A-Z])[\w'-]*(?:\s+(?-i:[A-Z0-9])[\w'-]*)*|[\w -]{2,30}?(?:marathon|half"
    r"|10k|5k|race|triathlon|ultra|swim|ride|trek|hike))"
    r"(?:\s+(?P<when>(?:in|on|this|next)\s+[\w ]{2,20}?))?(?=[,.!;]|\s+(?:and|but|so)\b|\s*$)",
    re.IGNORECASE,
)
_NOT_BEEN_SINCE = re.compile(
    r"\b(?:haven'?t|have\s+not|hasn'?t)\s+been\s+to\s+(?:the\s+|my\s+|our\s+)?(?P<x>[\w' -]{2,30}?)"
    r"\s+(?:since|in\s+(?:months|ages|years|weeks))\b",
    re.IGNORECASE,
)
_TURNED_DOWN = re.compile(
    r"\b(?:turned\s+down|declined|rejected|said\s+no\s+to|passed\s+on)\s+(?:the|their|that|an?|my)\s+"
    r"(?P<what>[\w' -]{0,30}?)\s*(?:job\s+)?offer\b",
    re.IGNORECASE,
)
_PROMOTED_ME = re.compile(
    r"\b(?:promoted|bumped|moved)\s+me\s+(?:up\s+)?to\s+(?:an?\s+|the\s+)?(?P<job>[\w -]{2,40}?)"
    r"(?=\s*[!.,;?]|\s+(?:and|but|so|now|today|yesterday|last|this|at|in|from)\b|\s*$)"
    r"|\b(?:made\s+me|(?:got|was|been|just\s+got)\s+made)\s+(?:an?\s+|the\s+)?"
    r"(?P<made>[\w -]{2,40}?)"
    r"(?=\s*[!.,;?]|\s+(?:and|but|so|now|today|yesterday|last|this|at|in|from)\b|\s*$)",
    re.IGNORECASE,
)
# "rafael and i called it quits", "we parted ways": a relationship over.
_SPLIT = re.compile(
    r"^(?:we|i|(?P<a>[\w'-]+)\s+and\s+(?:i|me)|(?:i|me)\s+and\s+(?P<b>[\w'-]+))\s+"
    r"(?:have\s+|finally\s+|officially\s+|just\s+)*(?:called\s+it\s+quits|parted\s+ways"
    # "daria and i split in july" (not "we split the bill")
    r"|split(?:\s+up)?(?=\s*(?:$|[,.!;]|(?:in|last|this|on|after|yesterday|a\s+while|months?"
    r"|weeks?|for\s+good)\b))"
    r"|went\s+(?:our|separate)\s+(?:separate\s+)?ways|are\s+(?:done|over|finished|through)\b"
    r"(?!\s+(?:with|for|at|in|by|eating|packing|cooking)\b)|ended\s+(?:it|things))",
    re.IGNORECASE,
)
_HUNG_UP = re.compile(
    r"\b(?:hung|hang|hanging)\s+up\s+(?:my|the|our)\s+(?P<x>[a-z][\w-]+)\s+(?:boots|gloves|skates"
    r"|cleats|spikes|racket|racquet|shoes|jersey|whistle|bike)\b",
    re.IGNORECASE,
)
# "the band split up", "our book club folded": a group the user was part of, over.
_DISBANDED = re.compile(
    r"^(?:since\s+|after\s+|when\s+)?(?:the|my|our)\s+(?P<x>band|choir|team|club|book\s+club"
    r"|group|league|crew|troupe|orchestra|ensemble|quartet|trio|duo)\s+(?:has\s+|have\s+|finally\s+)?"
    r"(?:split\s+up|broke\s+up|disbanded|folded|fell\s+apart|called\s+it\s+quits|shut\s+down)\b",
    re.IGNORECASE,
)
# "the corolla's gone", "my old bike is gone": a thing the user had, had no more.
_GONE = re.compile(
    r"^(?:the|my|our)\s+(?:old\s+)?(?P<x>[\w-]+)(?:'s|\s+is|\s+has)\s+(?:finally\s+|now\s+"
    r"|officially\s+|long\s+)?gone\b(?!\s+(?:up|down|out|off|to|for|through|crazy|quiet"
    r"|viral|well|bad|wrong|missing|on|back|into|from)\b)",
    re.IGNORECASE,
)


def idiom_claims(text: str, speaker: str) -> list[Claim] | None:
    """Statements said in a fixed phrase rather than a subject and a verb."""
    if speaker != "user":
        return None
    free = _N_FREE.search(text)
    if free is not None:
        # "6 months smoke free today": the habit is over.
        habit = _FREE_OF[free.group("x").casefold()]
        return [Claim("user", "habit", habit, negated=True, change=True)]
    reacts = _GIVES_ME_A_RASH.match(text)
    if reacts is not None and not vague(reacts.group("x")):
        # "cedar dust gives me a rash": what the user reacts to.
        return [
            Claim(
                "user",
                "allergy",
                clean_value(re.sub(r"(?i)^(?:the|any)\s+", "", reacts.group("x"))),
            )
        ]
    named = _THING_NAMED.match(text)
    if named is not None:
        # "my boat is called Bituin": a thing the user has, and its name.
        kind = named.group("kind").casefold()
        return [Claim("user", "possession", f"{kind} named {named.group('name')}")]
    into = _WEEKS_INTO_A_ROLE.search(text)
    if into is not None and not vague(into.group("org")):
        # "three weeks into a payroll role at Auckland Council": the job and where it is.
        role = clean_value(into.group("role"))
        out = [Claim("user", "employer", clean_value(into.group("org")), change=True)]
        if role and not vague(role):
            titled = Claim("user", "job", with_article(role), change=True)
            field = Claim("user", "work_field", role, change=True)
            out.insert(0, titled if lx.is_occupation(role) else field)
        return out
    signed_up = _SIGNED_UP_FOR.search(text)
    if signed_up is not None:
        # "signed up for Midnattsloppet in august": an event the user will do.
        what = clean_value(signed_up.group("what"))
        return [Claim("user", "plan", f"do {what}", when=signed_up.group("when"))]
    away = _NOT_BEEN_SINCE.search(text)
    if away is not None and not vague(away.group("x")):
        # "haven't been to chess club since february": that pastime is over.
        return [Claim("user", "any", clean_value(away.group("x")), negated=True, change=True)]
    declined = _TURNED_DOWN.search(text)
    if declined is not None:
        # "turned down the Berlin offer": the offer weighed is off.
        what = clean_value(f"{declined.group('what') or ''} offer")
        return [Claim("user", "any", what, negated=True, change=True)]
    promoted = _PROMOTED_ME.search(text)
    job = (promoted.group("job") or promoted.group("made")) if promoted is not None else ""
    if job and lx.is_occupation(job.casefold()):
        # "they promoted me to site manager", "they made me head chef": the job now.
        return [Claim("user", "job", with_article(clean_value(job)), change=True)]
    split = _SPLIT.match(text)
    if split is not None:
        who = split.group("a") or split.group("b") or ""
        who = who[:1].upper() + who[1:] if is_name(who, lower_ok=True) else ""
        how = "split up" if re.search(r"\bsplit\b", split.group(0), re.I) else "broke up"
        return [
            Claim("user", "relationship", "single", change=True, qualifier=how),
            Claim("user", "partner", who, negated=True, change=True),
        ]
    hung_up = _HUNG_UP.search(text)
    if hung_up is not None:
        # "hung up the rugby boots": the sport is over.
        return [Claim("user", "any", hung_up.group("x").casefold(), negated=True, change=True)]
    disbanded = _DISBANDED.match(text)
    if disbanded is not None:
        # "the band split up": what the user did with it is over.
        what = disbanded.group("x").casefold()
        return [Claim("user", "any", what, negated=True, change=True, qualifier="disbanded")]
    gone = _GONE.match(text)
    if gone is not None and not lx.is_pet(gone.group("x")) and not vague(gone.group("x")):
        x = gone.group("x").casefold()
        return [Claim("user", "any", x, negated=True, change=True, qualifier="gone")]
    birthday = _birthday_age(text)
    if birthday is not None:
        return birthday
    medicine = _MEDICATION.search(text)
    if medicine is not None and medicine.group("med").casefold() not in NOT_MEDICINES:
        # "I take lisinopril for blood pressure", "my GP put me on metformin for diabetes".
        started = re.search(r"\b(?:now|started|began|went\s+on|put\s+me|new)\b", text, re.I)
        out = [Claim("user", "medication", medicine.group("med").casefold(), change=bool(started))]
        cond = clean_value(re.sub(r"(?i)^(?:my|the)\s+", "", medicine.group("cond") or ""))
        if cond and not vague(cond):
            out.append(Claim("user", "condition", cond))
        return out
    on = _prescribed(_PRESCRIBED_ON.search(text), text)
    off = _prescribed(_TAKEN_OFF.search(text), text)
    if on is not None or off is not None:
        if on is None:
            return [Claim("user", "medication", off or "", negated=True, change=True)]
        return [Claim("user", "medication", on, change=True, previous=off)]
    own = _OWN_BUSINESS.search(text)
    if own is not None:
        # "opened my own bakery in Savannah": the user's work now, their own.
        where = f" in {own.group('where').strip()}" if own.group("where") else ""
        return [Claim("user", "employer", f"their own {own.group('what')}{where}", change=True)]
    switched = _SWITCHED_ME.search(text)
    shaped = switched is not None and any(
        MEDICINE_SHAPED.fullmatch(switched.group(g) or "") for g in ("a", "b")
    )
    if switched is not None and shaped:
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
    renting = _RENTING_IN.search(text)
    if renting is not None:
        # "I've been renting in Leeds for 3 years", "we're renting in Toronto for now".
        place = place_value(clean_value(renting.group("where")))
        if not vague(place) and (place[:1].isupper() or known_place(place)):
            return [Claim("user", "residence", place)]
    given_up = _OFF.match(text)
    if given_up is not None and given_up.group("x").casefold() in _GIVEN_UP:
        return [Claim("user", "any", given_up.group("x").casefold(), negated=True, change=True)]
    diet = diet_of(given_up.group("x").casefold()) if given_up is not None else None
    if diet is not None:
        # "been off the whole keto thing since may": the diet is over.
        return [Claim("user", "diet", diet, negated=True, change=True)]
    if _RETIRED_NOW.search(text):
        return [Claim("user", "job", "retired", change=True)]
    move = _MOVE_DONE.search(text)
    if move is not None and not vague(move.group("where") or move.group("to")):
        where = place_value(clean_value(move.group("where") or move.group("to")))
        return [Claim("user", "residence", where[:1].upper() + where[1:], change=True)]
    first_as = _FIRST_AS.search(text)
    job = clean_value(first_as.group("job")) if first_as is not None else ""
    if job and lx.is_occupation(job.casefold()):
        return [Claim("user", "job", with_article(job), change=True)]
    done = _DONE_WITH.search(text)
    if done is not None and not vague(clean_value(done.group("x"))):
        return [Claim("user", "any", clean_value(done.group("x")), negated=True, change=True)]
    part = _HEALED_PART.search(text) if _CAST_OFF.search(text) else None
    if part is not None:
        # "cast came off yesterday, wrist feels weird": the break has mended.
        what = part.group(0).casefold()
        return [Claim("user", "condition", what, negated=True, change=True, qualifier="healed")]
    healed = _HEALED.search(text)
    if healed is not None:
        return [
            Claim(
                "user",
                "condition",
                healed.group("part").casefold(),
                negated=True,
                change=True,
                qualifier="healed",
            )
        ]
    gone = _DID_NOT_MAKE_IT.match(text)
    if gone is not None and (is_name(gone.group("name")) or gone.group("name").islower()):
        name = gone.group("name")
        return [Claim(name[:1].upper() + name[1:], "alive", "", negated=True, change=True)]
    acquired = _ACQUIRED_BY.search(text)
    if acquired is not None:
        return [Claim("user", "employer", acquired.group("org"), change=True)]
    home = _HOME_SAID.search(text) or _NOW_THAT_IN.search(text)
    if home is not None:
        place = place_value(clean_value(home.group("where")))
        # "the new flat in kilimani": a new home is somewhere, whatever its case.
        moved_in = home.re is _HOME_SAID and any(
            home.group(g) for g in ("new", "the_new", "leased", "moved_new")
        )
        # "my commute from longhua to nanshan": where a commute starts is home, in any case.
        commute = re.search(r"\bcommute\b", home.group(0), re.I) is not None
        moved_in = moved_in or (commute and place.split()[0].casefold() not in _NOT_A_PLACE)
        if (
            not vague(place)
            and (place[:1].isupper() or known_place(place) or moved_in)
            and not ON_A_TRIP.search(text)
        ):
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
    official = _OFFICIAL.search(text)
    if official is not None and is_name(official.group("a") or official.group("b")):
        partner = official.group("a") or official.group("b")
        return [
            Claim("user", "relationship", "in a relationship", change=True),
            Claim("user", "partner", partner, change=True, qualifier="partner"),
        ]
    back = _BACK_TO.search(text)
    if back is not None:
        act = back.group("act").casefold()
        hobby = f"goes {act}" if act.endswith("ing") else f"does {act}"
        return [Claim("user", "hobby", hobby, change=True)]
    been = _BEEN_IN_FOR.search(text)
    if been is not None and known_place(been.group("where")):
        return [Claim("user", "residence", place_value(been.group("where")), change=True)]
    last_shift = _LAST_SHIFT_AT.search(text)
    if last_shift is not None and not vague(last_shift.group("org")):
        org = clean_value(last_shift.group("org"))
        return [Claim("user", "employer", org, negated=True, change=True)]
    notice = _NOTICE.search(text)
    if notice is not None:
        # "handed in my notice at Zalando today": leaving the employer.
        org = clean_value(notice.group("org") or "")
        return [Claim("user", "employer", "" if vague(org) else org, negated=True, change=True)]
    first_in = _FIRST_WEEKS_IN.search(text)
    if first_in is not None and not _MONTH_OR_DAY.match(first_in.group("where")):
        return [Claim("user", "residence", place_value(first_in.group("where")), change=True)]
    first_days = _FIRST_DAYS_AT.search(text)
    if first_days is not None:
        # "first full week at Delivery Hero done": the new employer.
        org = clean_value(first_days.group("org") or first_days.group("low"))
        if not vague(org) and not known_place(org):
            return [Claim("user", "employer", org, change=True)]
    new_home = _NEW_HOME_IN.search(text)
    if new_home is not None:
        where = new_home.group("where") or new_home.group("shifted") or new_home.group("base")
        place = place_value(clean_value(where))
        if not vague(place) and (place[:1].isupper() or known_place(place)):
            return [Claim("user", "residence", place, change=new_home.group("base") is None)]
    home = _HOME_IN.search(text)
    if home is not None:
        # "closed on a house in Denver", "I split a place in Philly": where the user lives.
        place = place_value(clean_value(home.group("where")))
        if not vague(place) and (place[:1].isupper() or known_place(place)):
            out = [Claim("user", "residence", place, change=bool(home.group("bought")))]
            if home.group("bought"):
                out.append(Claim("user", "housing", "owns their home", change=True))
            return out
    named_pet = _PET_IS_NAMED.match(text)
    if named_pet is not None and lx.is_pet(named_pet.group("kind").casefold()):
        name = named_pet.group("name")
        if is_name(name):
            return [Claim("user", "pet", f"{named_pet.group('kind').casefold()} {name}")]
    introduced = _PRONOUN_IS_MY.match(text)
    if introduced is not None:
        # "she's my daughter Lila btw": the person a "she" in what follows means.
        rel = lx.relation_of(introduced.group("rel")) or introduced.group("rel").casefold()
        name = introduced.group("name")
        if name and is_name(name):
            attribute, value, qualifier = relation_claim(rel, name)
            return [Claim("user", attribute, value, qualifier=qualifier)]
    being = _BEING_A.match(text)
    if being is not None and lx.is_occupation(being.group("job")):
        # "being a nurse at st mary's is killing my back": the user is one.
        out = [Claim("user", "job", with_article(being.group("job")))]
        org = clean_value(being.group("org") or "")
        if org and not vague(org) and not is_place_like(org):
            out.append(Claim("user", "employer", org))
        return out
    renamed = _RENAMED.match(text)
    if renamed is not None and lx.is_pet(renamed.group("kind").casefold()):
        name = renamed.group("name")
        if is_name(name, lower_ok=True):
            value = f"{renamed.group('kind').casefold()} {name[:1].upper() + name[1:]}"
            return [Claim("user", "pet", value, change=True, qualifier="renamed")]
    born = _BORN.match(text)
    if born is not None:
        # "our son was born on tuesday": a child, and a pregnancy over.
        who = born.group("who").casefold()
        rel = (
            "son"
            if who in ("son", "boy", "baby boy")
            else "daughter"
            if "girl" in who or who == "daughter"
            else "child"
        )
        name = born.group("name")
        name = name[:1].upper() + name[1:] if name else None
        child = Claim("user", "family", name or rel, qualifier=rel, change=True)
        return [Claim("user", "condition", "pregnant", negated=True, change=True), child]
    if _DIVORCE_FINAL.match(text) or _DIVORCE_DONE.match(text):
        return [Claim("user", "relationship", "divorced", change=True)]
    if _HAD_THE_BABY.search(text):
        # "Had the baby! A girl, June": a pregnancy over.
        return [Claim("user", "condition", "pregnant", negated=True, change=True)]
    formerly = _FORMERLY_AT.match(text)
    if formerly is not None:
        # "Formerly at Twitter, now freelancing": where the user no longer works.
        org = clean_value(formerly.group("org"))
        if not vague(org):
            out = [Claim("user", "employer", org, negated=True, change=True)]
            if re.search(r"\bnow\s+(?:freelanc|self-employed|my own boss)", text, re.I):
                out.append(Claim("user", "employer", "self-employed", change=True))
            return out
    thing = _MY_THING.match(text)
    if thing is not None:
        # "horror isn't my thing anymore": no longer liked; "hiking is my thing": liked.
        value = clean_value(thing.group("x"))
        if not vague(value):
            negated = bool(thing.group("not"))
            return [Claim("user", "likes", value, negated=negated, change=bool(thing.group("now")))]
    maiden = _MAIDEN_NAME.search(text)
    if maiden is not None:
        return [Claim("user", "surname", maiden.group("name"), change=True)]
    return (
        _life_event_claims(text)
        or _work_and_pastime_claims(text)
        or _standpoint_claims(text)
        or passing_claims(text)
    )


_PRONOUN_IS_MY = re.compile(
    rf"^(?:she|he)(?:'s|\s+is)\s+my\s+(?P<rel>{REL_WORD})(?:,?\s+(?P<name>(?-i:{NAME_TOKEN})))?",
    re.IGNORECASE,
)
