"""What the user's way of naming things presupposes ("my boss Linda", "my 2012 Honda Civic"), even
in a question or a story about something else."""

from __future__ import annotations

import re

from plugins.extractors import lexicon as lx
from plugins.extractors.claims.model import ENGAGED_TO, INJURY, NOTE, Claim
from plugins.extractors.claims.phrases import number, relation_claim, with_article
from plugins.extractors.claims.subjects import (
    NAME_TOKEN,
    REL_WORD,
    is_name,
    name_shaped,
    names_nobody,
    second_name,
)
from plugins.extractors.places import known_place

# Relations whose bare mention ("my teenage son wants a motorbike") is worth remembering;
# "my friend" or "my boss" without a name says too little to keep.
_KEPT_BARE = frozenset(
    [
        "son",
        "daughter",
        "child",
        "kid",
        "baby",
        "sister",
        "brother",
        "twin",
        "wife",
        "husband",
        "partner",
        "boyfriend",
        "girlfriend",
        "fiance",
        "fiancee",
        "fiancé",
        "fiancée",
        "stepson",
        "stepdaughter",
        "grandson",
        "granddaughter",
    ]
)

_MENTION = re.compile(
    r"\b(?:my|our)\s+(?:(?P<count>two|three|four|five|six|2|3|4|5|6)\s+)?"
    r"(?:(?:little|big|older|younger|oldest|youngest|eldest|baby|teenage|teen"
    r"|new|adult|grown|twin|toddler|infant|newborn|\d+[- ]?(?:yo|year[- ]old))\s+)?"
    rf"(?P<rel>{REL_WORD})(?!['\w-])"
    rf"(?:,?\s+(?P<names>(?-i:{NAME_TOKEN}(?:\s+[A-Z][a-z][\w'-]*)?)"
    rf"(?:\s*(?:,|and|&)\s*(?-i:{NAME_TOKEN}))*))?",
    re.IGNORECASE,
)


_ORDINALS = {"second": 2, "third": 3, "fourth": 4, "fifth": 5, "2nd": 2, "3rd": 3, "4th": 4}
_NTH = r"second|third|fourth|fifth|2nd|3rd|4th"
_NTH_CHILD = re.compile(
    rf"\b(?:we|i)\s+(?:just\s+|finally\s+)?(?:welcomed|had)\s+our\s+(?P<nth>{_NTH})"
    r"(?:\s+(?:baby|child|kid|little\s+one|son|daughter|boy|girl))?\b"
    rf"|\b(?:our|my)\s+(?P<born>{_NTH})\s+(?:baby|child|kid|little\s+one|son|daughter)\s+"
    r"(?:arrived|was\s+born|is\s+here|came)\b",
    re.IGNORECASE,
)


def _one_name(words: str) -> str:
    """ "Wei Ming" is one name; "Maya Tuesday" is Maya, then a day."""
    first, _, second = words.partition(" ")
    return words if second and second_name(second) else first


_CAR_MENTION = re.compile(
    r"\b(?:my|our)\s+(?:(?:old|new|trusty|used|little|\d{4})\s+)*"
    r"(?P<car>(?P<brand>[a-z]+)(?:\s+(?P<model>(?-i:[A-Z0-9])[\w-]*|(?!(?:is|was|has|had|and|or"
    r"|but|to|in|at|on|for|with|from|broke|died|needs|keeps|got|just|still|that|the|a|lol|haha"
    r"|again|too|now|today|yesterday|because|since|which|who|it|its|runs|starts|won't|wont"
    r"|isn't|doesn't|can't|will|would|could|should|might|did|does|do|so|then|than|as|when"
    r"|where|while|if|outside|inside|into|onto|up|down|off|out|over|under)\b)[a-z][\w-]{2,}))?)",
    re.IGNORECASE,
)

_ENDED = re.compile(
    r"\s+(?:\w+\s+){0,2}?(?:died|is\s+dead|was\s+stolen|got\s+stolen|got\s+nicked|was\s+nicked"
    r"|(?:was|got)\s+(?:written\s+off|totall?ed|scrapped|sold)|is\s+gone|gave\s+up\s+for\s+good)\b",
    re.IGNORECASE,
)
_PHONE_MENTION = re.compile(
    r"\b(?:my|our)\s+(?:(?:old|new|trusty)\s+)*(?P<phone>(?:iphone|pixel|galaxy|oneplus"
    r"|samsung(?:\s+galaxy)?)(?:\s+(?:\d+\w*|pro|max|plus|mini|ultra|se|s\d+\w*))*)\b",
    re.IGNORECASE,
)

PHONE_CASE = {"iphone": "iPhone", "oneplus": "OnePlus", "pixel": "Pixel", "galaxy": "Galaxy"}

_SAID_OF = re.compile(
    r"\b(?:is|are|was|were|like|basically|practically|literally|as|kinda|such)\s+$", re.IGNORECASE
)

_HERD_MENTION = re.compile(
    r"\b(?:my|our)\s+(?:\w+\s+)?(?P<kind>goats|chickens|hens|cows|sheep|pigs|ducks|bees|horses"
    r"|alpacas|donkeys|cattle|geese|rabbits|llamas)\b(?!\s+(?-i:[A-Z]))",
    re.IGNORECASE,
)
_PET_MENTION = re.compile(
    r"\b(?:my|our)\s+(?:(?P<count>two|three|four|\d)\s+)?(?:(?:old|new|little|baby|rescue|senior"
    r"|sweet)\s+)?(?P<kind>" + lx.COMPOUND_BREEDS + r"|[a-z-]+),?\s+"
    r"(?P<name>(?-i:(?:(?:Mr|Mrs|Ms|Dr|Sir|Lady|Captain|Prof)\.?\s+)?[A-Z][\w'-]*))"
    r"(?:\s*(?:,|and|&)\s*(?P<more>(?-i:[A-Z][\w'-]*)))?",
    re.IGNORECASE,
)


# "my shiba kuro will beg for the salmon", "my cats pixel and byte walked on the keyboard":
# names typed in lower case, known as names by the verb that follows them.
_PET_MENTION_LOWER = re.compile(
    r"\b(?:my|our)\s+(?:(?:old|new|little|baby|rescue|senior|sweet)\s+)?(?P<kind>[a-z-]+)\s+"
    r"(?P<name>(?-i:[a-z][a-z'-]{1,14}))(?:\s+(?:and|&)\s+(?P<more>(?-i:[a-z][a-z'-]{1,14})))?\s+"
    r"(?P<verb>(?-i:will|won't|is|was|has|had|keeps|kept|loves|hates|[a-z]+ed|[a-z]+s))\b",
    re.IGNORECASE,
)


# "thinking about leaving my job at Accenture", "should I tell my boss at Deloitte": where the
# user works, presupposed even by a plan being weighed or a question.
_JOB_MENTION = re.compile(
    r"\bmy\s+(?:current\s+|day\s+|full[- ]time\s+|part[- ]time\s+)?(?:job|role|position"
    r"|internship|boss|manager|team|colleagues?|coworkers?|co-workers?)\s+(?:at|with)\s+"
    r"(?P<org>(?-i:[A-Z])[\w&'-]+(?:\s+(?-i:[A-Z])[\w&'-]+){0,2})",
    re.IGNORECASE,
)


# "my mom in Surabaya asks me ...", "my brother Tom in Leeds": where a relative lives.
_RELATIVE_IN = re.compile(
    rf"\b(?:my|our)\s+(?P<rel>{REL_WORD})(?:\s+(?P<name>(?-i:{NAME_TOKEN})))?"
    # "my sister Renee's place in Pittsburgh": where she lives, on the way to it.
    r"(?:(?:'s|s')\s+(?:place|house|flat|apartment|condo|home|farm))?\s+"
    r"(?:(?:who\s+lives|living|back\s+home)\s+)?in\s+"
    r"(?P<where>(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?)",
    re.IGNORECASE,
)

# "doing my MSc in Civil Engineering at TU Delft": the user's course and school.
_COURSE_AT = re.compile(
    r"\bmy\s+(?P<course>msc|ma|mba|mphil|phd|bsc|ba|beng|meng|llb|llm|pgce|masters|master's"
    r"|bachelor's|degree|doctorate|a-levels?)\s+(?:in\s+(?P<field>[\w -]{2,40}?)\s+)?at\s+"
    r"(?P<school>(?-i:[A-Z])[\w&'.-]*(?:\s+(?-i:[A-Z])[\w&'.-]*){0,3})",
    re.IGNORECASE,
)

# "for my trip to Osaka in April": a trip the user has planned.
_TRIP_TO = re.compile(
    r"\b(?:my|our)\s+(?:upcoming\s+|next\s+|big\s+|first\s+)?(?P<kind>trip|holiday|vacation"
    r"|honeymoon)\s+to\s+(?P<where>(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?)"
    r"(?:\s+(?P<when>(?:in|this|next)\s+(?-i:[A-Za-z])\w+))?",
    re.IGNORECASE,
)

# "I proposed to Sofia on Christmas Eve and she said yes!!!": engaged now.
# "Tom proposed in June so we're engaged!!": the one who proposed, to the user.
_PROPOSED = re.compile(
    rf"\bi\s+(?:just\s+|finally\s+)?proposed\s+to\s+(?P<name>(?-i:{NAME_TOKEN}))"
    rf"|(?:^|[.!?:,]\s*|\band\s+)(?P<proposer>(?-i:{NAME_TOKEN}))\s+(?:just\s+|finally\s+)?"
    r"(?:proposed|popped\s+the\s+question)(?!\s+to\s+(?!me\b))",
    re.IGNORECASE,
)
_REFUSED = re.compile(r"\bsaid\s+no\b|\bturned\s+me\s+down\b|\brejected\b", re.IGNORECASE)


# "I work with Django at a fintech startup named Qonto", "on permanent nights at Nissan",
# "moved onto the day shift at Nissan": where the user works.
_WORKPLACE = re.compile(
    r"\b(?:work|working|job|intern|interning)\b[^.!?]*?\bat\s+an?\s+[\w -]{2,40}?\s+"
    r"(?:named|called)\s+(?P<named>(?-i:[A-Z])[\w&'-]+(?:\s+(?-i:[A-Z])[\w&'-]+){0,2})"
    r"|\b(?:on\s+(?:permanent\s+|regular\s+)?(?:nights|days|lates|earlies)"
    r"|(?:(?:day|night|early|late|morning|evening|weekend|graveyard|double|long|first"
    r"|\d{1,2}[- ]?(?:hour|hr)s?)\s+"
    r"|(?:(?:long|early|late|double)\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday"
    r"|sunday)\s+)shifts?"
    r"(?:\s+(?:in|on)\s+(?:the\s+)?[a-z][\w-]*)?"
    r"|long\s+day(?:\s+ahead)?|(?:got\s+off|did|pulled|finished)\s+a\s+double)\s+at\s+(?:the\s+)?"
    r"(?P<org>(?-i:[A-Z])[\w&'-]+(?:\s+(?-i:[A-Z])[\w&'-]+){0,2})",
    re.IGNORECASE,
)
_BESIDE = re.compile(
    r"\b(?:on\s+top\s+of|as\s+well\s+as|in\s+addition\s+to|alongside|besides)\b", re.IGNORECASE
)
_FOR_A_JOB_AT = re.compile(
    r"\b(?:for|got|took|landed|found|secured|start(?:ed|ing)?)\s+(?:a|an|my|the)\s+(?:new\s+)?"
    r"(?P<job>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?)\s+(?:job|role|position|post)\s+(?:at|with)\s+"
    r"(?P<org>(?-i:[A-Z])[\w&'-]+(?:\s+(?-i:[A-Z])[\w&'-]+){0,2})",
    re.IGNORECASE,
)


def _said_by_me(before: str) -> bool:
    """Whether the sentence a mention ends is the user's own doing ("I moved to Berlin for a
    job at ..."), not a relative's ("Tom's just moved to London, got a sous chef job at ...")."""
    clause = re.split(r"[.!?]\s+", before)[-1]
    mine = re.search(r"\b(?:i|i'm|im|i've|ive)\b", clause, re.IGNORECASE) or re.match(
        r"^\W*(?:(?:just|finally|so)\s+)?[a-z]+ed\b",
        clause,  # "moved to Lyon for ...", its "I" left out
    )
    someone_else = re.search(
        r"\b(?:he|she|they|his|her|their)\b|(?-i:[A-Z])[a-z]+'s\b", clause, re.IGNORECASE
    )
    return mine is not None and someone_else is None


# Not "opened my own bakery in Savannah", which the business rule reads whole.
_NOT_OPENED = r"(?<!opened\s)(?<!started\s)(?<!launched\s)(?<!founded\s)(?<!set up\s)"
_MY_BUSINESS = re.compile(
    _NOT_OPENED + r"\bmy\s+(?:own\s+|little\s+|small\s+|new\s+)?(?P<kind>(?!own\b)[a-z][\w-]+\s+)?"
    r"(?P<what>business|bakery|salon|startup|food\s+truck|catering\s+company)\b"
    r"(?:,?\s+(?:is\s+)?(?:called\s+|named\s+)?(?P<name>(?-i:[A-Z])[\w'&-]+(?:\s+(?-i:[A-Z])[\w'&-]+){0,3}))?"
    r"|\b(?:the\s+|our\s+)?business\s+is\s+(?:called\s+)?(?P<name2>(?-i:[A-Z])[\w'&-]+"
    r"(?:\s+(?-i:[A-Z])[\w'&-]+){0,3})",
    re.IGNORECASE,
)
_OWN_PLACE = re.compile(
    _NOT_OPENED
    + r"\bmy\s+own\s+(?P<kind>(?!own\b)[a-z][\w-]+\s+)?(?P<what>pharmacy|clinic|practice|shop"
    r"|store|restaurant|cafe|café|studio|agency|firm|garage|workshop|farm|salon|bakery|business)"
    r"\s+(?:here\s+)?in\s+(?P<where>(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?)",
    re.IGNORECASE,
)
# "my shift at the bakery starts in 10", "my book club in Leicester": where a part of the
# user's life takes place, said on the way to something else.
_MY_PLACE_OF = re.compile(
    r"\bmy\s+(?:(?:new|weekly|local|usual|regular)\s+)?(?P<what>shifts?|office|gym|church"
    r"|mosque|temple|book\s+club|running\s+club|club|choir|team|classes|class|school|uni"
    r"|university|college|lab|clinic|studio|practice|ward|course|allotment|dojo)\s+"
    r"(?P<prep>at|in)\s+(?P<where>(?:the\s+)?(?:(?-i:[A-Z])[\w'&.-]*(?:\s+(?-i:[A-Z])[\w'&.-]*){0,3}"
    r"|[a-z]+(?:\s+(?!(?:starts|is|was|closes|opens|begins|ends|finishes)\b)[a-z]+)?"
    r"(?=\s+(?:starts|is|was|closes|opens|begins|ends|finishes)\b"
    r"|\s*[,.!?]|\s*$)))",
    re.IGNORECASE,
)
# "just got off a double shift as a line cook": the job the shift is worked in.
_SHIFT_AS = re.compile(
    r"\b(?:my|a|the|double|night|day|long|first|another)\s+shifts?\s+as\s+an?\s+"
    r"(?P<job>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?)(?=\s+(?:at|in|for|with|and|so|but)\b|[,.!?]|$)",
    re.IGNORECASE,
)


_HEALED = re.compile(
    r"\b(?:hamstring|knee|ankle|acl|wrist|shoulder|back|leg|arm|foot|hip|elbow|ribs?|finger|toe"
    r"|collarbone|injury)(?:'s|\s+is|\s+has|\s+finally)?\s+(?:fully\s+|finally\s+)?healed\b"
    r"|\b(?:i'?m|i\s+am|i've|i\s+have)\s+(?:now\s+)?(?:fully|completely)\s+recovered\b"
    r"|\bcast(?:'s|\s+is|\s+came|\s+has\s+come)\s+off\b"
    r"|\b(?:doctor|physio|doc|surgeon)\s+(?:has\s+|just\s+)?cleared\s+me\b"
    r"|\bback\s+to\s+full\s+training\b",
    re.IGNORECASE,
)
_SOMEONE_ELSES = re.compile(
    r"\b(?:my|our)\s+(?:\w+\s+)?(?:mom|mum|dad|son|daughter|wife|husband|partner|sister|brother"
    r"|friend|dog|cat|kid|boy|girl)(?:'s)?\b|\b(?:his|her|their)\s+(?:cast|knee|ankle|leg|arm)\b",
    re.IGNORECASE,
)
# "sitting in my driveway in Sarasota", "the geyser in our flat in Melville": the user's home.
_MY_HOME_IN = re.compile(
    r"\b(?:my|our)\s+(?:(?:little|new|own|rented|tiny)\s+)?(?P<what>driveway|house|flat|apartment"
    r"|condo|garden|back\s*yard|yard|porch|balcony|bungalow|cottage|townhouse|rowhouse"
    r"|duplex|bedsit|home)\s+(?:here\s+|out\s+|up\s+|down\s+)?in\s+"
    r"(?P<where>(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?)",
    re.IGNORECASE,
)
# "Biltong, our Jack Russell, is obsessed with walks": a pet, named before what it is.
_NAMED_THEN_PET = re.compile(
    rf"(?:^|[.!?,;:]\s+)(?P<name>(?-i:{NAME_TOKEN})),\s+(?:our|my)\s+(?:(?:old|new|little|young"
    r"|rescue|senior|big|sweet|elderly|lovely|daft|mad)\s+)*"
    rf"(?P<kind>{lx.COMPOUND_BREEDS}|[a-z]+(?:\s+[a-z]+)?)\s*,",
    re.IGNORECASE,
)
# "single mom of twins Jayden and Jordan": the user's children, named.
_PARENT_OF = re.compile(
    r"\b(?:mom|mum|mother|dad|father|parent)\s+(?:of|to)\s+(?:(?:two|three|four|2|3|4)\s+)?"
    rf"(?:twins|kids|boys|girls|sons|daughters|children)\s+(?P<names>(?-i:{NAME_TOKEN})"
    rf"(?:\s*(?:,|and|&)\s*(?-i:{NAME_TOKEN}))+)",
    re.IGNORECASE,
)
# "compared to Glasgow where I live now": where the user lives, even inside a question.
_WHERE_I_LIVE = re.compile(
    r"\b(?P<where>(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?),?\s+where\s+(?:i|we)\s+"
    r"(?:live|am\s+based|'m\s+based|are\s+based)\b",
    re.IGNORECASE,
)


# "a pad thai w/o peanuts, I'm allergic": the allergy, its object named just before.
_ALLERGIC_TO_IT = re.compile(
    r"\b(?:without|w/o|no|minus|free\s+of)\s+(?P<what>[a-z]+)\b[^.?!]{0,30}?\b(?:i'?m|i\s+am)"
    r"\s+(?:severely\s+|very\s+|super\s+|really\s+|badly\s+)?allergic\b(?!\s+to\b)",
    re.IGNORECASE,
)


# "because of my hypertension", "from my diabetes type 2": a condition the user names as
# theirs. Not one that passes ("my flu"), nor a number everyone has ("my cholesterol").
_PASSING_CONDITIONS = frozenset(["flu", "covid", "cholesterol", "allergies", "mono", "concussion"])
_MY_CONDITION = re.compile(
    r"\bmy\s+(?:(?P<kind_before>type\s+[12]|chronic|severe|mild)\s+)?(?P<what>"
    + "|".join(
        sorted((re.escape(c) for c in lx.CONDITIONS - _PASSING_CONDITIONS), key=len, reverse=True)
    )
    + r"|thyroid)(?:\s+(?P<kind_after>type\s+[12]))?\b(?!['-])",
    re.IGNORECASE,
)
# "I had heart attack in March", "I had knee replacement in 2022": health history that lasts.
_HAD_PROCEDURE = re.compile(
    r"\b(?:i|i've|i\s+have)\s+(?:had|undergone|underwent|survived)\s+(?:a\s+|an\s+|my\s+)?"
    r"(?:(?:small|minor|mild|major|massive|double|triple)\s+)?(?P<what>heart\s+attack|stroke"
    r"|(?:knee|hip|shoulder)\s+replacement|(?:heart\s+)?bypass|\w+\s+transplant|mastectomy"
    r"|hysterectomy|cataract\s+(?:surgery|operation)|(?:a\s+)?stent)\b",
    re.IGNORECASE,
)


# "My wife and I just had twins, Amara and Zola!": the user's new children, by name.
_NEW_CHILDREN = re.compile(
    r"\b(?:we|i|(?:my|our)\s+(?:wife|husband|partner)\s+and\s+i)\s+(?:just\s+|finally\s+)?"
    r"(?:had|welcomed)\s+(?:a\s+|our\s+)?(?:baby\s+)?(?P<kind>twins|triplets|boy|girl|son"
    r"|daughter|baby)\b[,!:]?\s*(?:(?:named|called)\s+)?"
    rf"(?P<names>(?-i:{NAME_TOKEN})(?:\s*(?:,|and|&)\s*(?-i:{NAME_TOKEN}))*)",
    re.IGNORECASE,
)
_CHILD_WORD = {"boy": "son", "son": "son", "girl": "daughter", "daughter": "daughter"}
# "the baby came early, a little girl, we named her Nevaeh": the child, named at birth.
_BABY_NAMED = re.compile(
    r"\b(?:(?:baby|little)\s+(?P<kind>boy|girl)|baby|newborn)\b[^.!?]{0,60}?\b(?:we|we've|we\s+have"
    r"|we\s+just)\s+(?:named|called)\s+(?:him|her|them)\s+"
    rf"(?P<names>(?-i:{NAME_TOKEN})(?:\s+(?:and|&)\s+(?-i:{NAME_TOKEN}))?)",
    re.IGNORECASE,
)
# "Ethan arrived on 12 May, 3.2kg!": a birth, told by the newborn's weight.
_ARRIVED_WEIGHING = re.compile(
    rf"(?:^|[.!?]\s+)(?:baby\s+)?(?P<names>(?-i:{NAME_TOKEN}))\s+(?:arrived|came|is\s+here"
    r"|made\s+(?:his|her)\s+(?:appearance|entrance))\b[^.!?]{0,40}?\b\d+(?:[.,]\d+)?\s*"
    r"(?:kg|kgs|lbs?|pounds)\b",
    re.IGNORECASE,
)


def _in_passing(text: str) -> list[Claim]:
    """Where a relative lives, a course, a trip, a proposal: said on the way to a request."""
    out: list[Claim] = []
    for match in _RELATIVE_IN.finditer(text):
        rel = lx.relation_of(match.group("rel"), canonical=True) or ""
        where = match.group("where")
        if rel and known_place(where):
            name = match.group("name")
            who = name if name and is_name(name) else f"user's {rel}"
            out.append(Claim(who, "residence", where))
    for match in _COURSE_AT.finditer(text):
        course = re.sub(r"(?i)^masters$", "master's", match.group("course"))
        field = f" in {match.group('field')}" if match.group("field") else ""
        out.append(Claim("user", "education", f"{course}{field} at {match.group('school')}"))
    for match in _TRIP_TO.finditer(text):
        if known_place(match.group("where")):
            kind = match.group("kind").casefold()
            out.append(
                Claim("user", "plan", f"{kind} to {match.group('where')}", when=match.group("when"))
            )
    for match in _WORKPLACE.finditer(text):
        org = match.group("named") or match.group("org")
        if not known_place(org):
            # "weekend shifts at Home Depot on top of Publix": a second job, beside the first.
            beside = _BESIDE.search(text, match.end()) is not None
            out.append(Claim("user", "employer", org, also=beside))
    job_at = _FOR_A_JOB_AT.search(text)
    if (
        job_at is not None
        and lx.is_occupation(job_at.group("job").casefold())
        and _said_by_me(text[: job_at.start()])
    ):
        # "moved to Berlin for a data analyst job at Zalando": the job and where.
        out.append(Claim("user", "job", with_article(job_at.group("job").casefold())))
        out.append(Claim("user", "employer", job_at.group("org")))
    own = _MY_BUSINESS.search(text)
    if own is not None:
        # "a website for my catering business in Kampala", "business is Nakato Kitchen".
        name = own.group("name") or own.group("name2")
        kind = own.group("kind") or ""
        what = f"their own {kind}{own.group('what') or 'business'}" + (f" {name}" if name else "")
        out.append(Claim("user", "employer", what))
    for place in _OWN_PLACE.finditer(text):
        # "I have my own pharmacy here in Lekki": where the user works, and so lives.
        kind = place.group("kind") or ""
        out.append(Claim("user", "employer", f"their own {kind}{place.group('what')}"))
        if known_place(place.group("where")):
            out.append(Claim("user", "residence", place.group("where")))
    for place in _MY_PLACE_OF.finditer(text):
        what, where = place.group("what").casefold(), place.group("where")
        is_are = "are" if what.endswith("s") and what != "class" else "is"
        out.append(
            Claim("user", NOTE, f"The user's {what} {is_are} {place.group('prep')} {where}.")
        )
    shift = _SHIFT_AS.search(text)
    if shift is not None and lx.is_occupation(shift.group("job").casefold()):
        out.append(Claim("user", "job", with_article(shift.group("job").casefold())))
    born = _NEW_CHILDREN.search(text)
    if born is not None:
        relation = _CHILD_WORD.get(born.group("kind").casefold(), "child")
        for name in re.split(r"\s*(?:,|\band\b|&)\s*", born.group("names")):
            if is_name(name):
                out.append(Claim("user", "family", name, change=True, qualifier=relation))
    for found in (_BABY_NAMED.search(text), _ARRIVED_WEIGHING.search(text)):
        if found is None or (born is not None and born.group("names") == found.group("names")):
            continue
        kind = found.groupdict().get("kind")
        relation = _CHILD_WORD.get((kind or "").casefold(), "child")
        named = [
            n
            for n in re.split(r"\s*(?:\band\b|&)\s*", found.group("names"))
            if is_name(n) and not names_nobody(n)
        ]
        out += [Claim("user", "family", n, change=True, qualifier=relation) for n in named]
    if _HEALED.search(text) and not _SOMEONE_ELSES.search(text):
        # "hamstring's healed", "cast came off today": an injury is over.
        out.append(
            Claim("user", "condition", INJURY, negated=True, change=True, qualifier="healed")
        )
    for match in _MY_CONDITION.finditer(text):
        kind = match.group("kind_before") or match.group("kind_after") or ""
        what = match.group("what").casefold()
        what = "a thyroid condition" if what == "thyroid" else f"{kind} {what}".strip()
        out.append(Claim("user", "condition", what))
    for match in _HAD_PROCEDURE.finditer(text):
        what = " ".join(match.group("what").casefold().split())
        out.append(Claim("user", "condition", f"had {with_article(what)}"))
    allergic = _ALLERGIC_TO_IT.search(text)
    if allergic is not None:
        out.append(Claim("user", "allergy", allergic.group("what").casefold()))
    for match in _MY_HOME_IN.finditer(text):
        if known_place(match.group("where")):
            out.append(Claim("user", "residence", match.group("where")))
    for match in _NAMED_THEN_PET.finditer(text):
        kind = match.group("kind").casefold()
        compound = re.fullmatch(lx.COMPOUND_BREEDS, kind) is not None
        if is_name(match.group("name")) and (compound or lx.is_pet(kind.split()[-1])):
            out.append(
                Claim(
                    "user", "pet", f"{kind if compound else kind.split()[-1]} {match.group('name')}"
                )
            )
    for match in _PARENT_OF.finditer(text):
        for name in re.split(r"\s*(?:,|\band\b|&)\s*", match.group("names")):
            if is_name(name):
                attribute, value, qualifier = relation_claim("child", name)
                out.append(Claim("user", attribute, value, qualifier=qualifier))
    for match in _WHERE_I_LIVE.finditer(text):
        if known_place(match.group("where")):
            out.append(Claim("user", "residence", match.group("where")))
    proposed = _PROPOSED.search(text)
    to_whom = proposed and (proposed.group("name") or proposed.group("proposer"))
    if to_whom and is_name(to_whom) and not _REFUSED.search(text):
        out.append(Claim("user", "relationship", "engaged", change=True))
        out.append(Claim("user", "partner", to_whom, qualifier=ENGAGED_TO))
    return out


def mentions(text: str) -> list[Claim]:
    """What the user's way of naming things presupposes: "my boss Linda" is the user's boss,
    "our twins Leo and Mia" two children, "my 2012 Honda Civic" a car, "my iphone 12" a
    phone, even in a question or a story about something else."""
    out: list[Claim] = []
    for match in _MENTION.finditer(text):
        rel = lx.relation_of(match.group("rel")) or ""
        if rel == "twin" and match.group("rel").casefold().endswith("s"):
            rel = "child"  # "our twins Leo and Mia" are the user's children
        names = re.split(r"\s*(?:,|\band\b|&)\s*", match.group("names") or "")
        names = [_one_name(re.sub(r"'s$", "", n)) for n in names if n]
        names = [n for n in names if is_name(n.split()[0])]
        for name in names:
            attribute, value, qualifier = relation_claim(rel, name)
            out.append(Claim("user", attribute, value, qualifier=qualifier))
        said_of = _SAID_OF.search(text[: match.start()])
        if not names and rel in _KEPT_BARE and said_of is None:
            # Not "my basil plant is basically my child": what something is likened to.
            count = match.group("count")
            if count and match.group("rel").casefold().endswith("s"):
                # "my three kids are driving me crazy": how many there are.
                out.append(Claim("user", "family_count", str(number(count)), qualifier=rel))
            else:
                out.append(Claim("user", "family", rel, qualifier=rel))
    nth = _NTH_CHILD.search(text)
    if nth is not None:
        # "we welcomed our third on Sunday": one child more, so three now.
        count = _ORDINALS[(nth.group("nth") or nth.group("born")).casefold()]
        out.append(Claim("user", "family_count", str(count), change=True, qualifier="child"))
    for match in _CAR_MENTION.finditer(text):
        brand = match.group("brand").casefold()
        if brand in lx.CAR_BRANDS and brand not in ("mini", "golf", "jeep"):
            model = match.group("model") or ""
            model = model[:1].upper() + model[1:]  # "my dacia dokker": the Dokker
            value = f"{brand.capitalize() if brand not in ('bmw', 'vw') else brand.upper()} {model}"
            # "my old vw golf finally died": a car the user had, and has no more.
            ended = _ENDED.match(text[match.end() :]) is not None
            out.append(Claim("user", "vehicle", value.strip(), negated=ended, change=ended))
    for match in _HERD_MENTION.finditer(text):
        # "my goats keep getting in the pepper beds": animals the user keeps.
        out.append(Claim("user", "pet", match.group("kind").casefold()))
    for match in _PET_MENTION.finditer(text):
        kind, name = match.group("kind").casefold(), re.sub(r"'s$", "", match.group("name"))
        if match.group("count") and kind.endswith("s"):
            kind = kind[:-1]  # "my two cats Pepper and Miso"
        names = [name] + (
            [match.group("more")] if match.group("count") and match.group("more") else []
        )
        # "my border collie Bonnie": the breed whole.
        breed = re.fullmatch(lx.COMPOUND_BREEDS, kind) is not None
        for one in names:
            if (breed or lx.is_pet(kind)) and is_name(one.split()[-1]):
                out.append(Claim("user", "pet", f"{kind} {one}"))
    for match in _PET_MENTION_LOWER.finditer(text):
        kind = match.group("kind").casefold()
        names = [n for n in (match.group("name"), match.group("more")) if n]
        if not lx.is_pet(kind) or not all(name_shaped(n) and not lx.is_pet(n) for n in names):
            continue
        kind = kind[:-1] if len(names) > 1 and kind.endswith("s") else kind
        out += [Claim("user", "pet", f"{kind} {n.capitalize()}") for n in names]
    for match in _JOB_MENTION.finditer(text):
        org = match.group("org")
        if not known_place(org):
            out.append(Claim("user", "employer", org))
    for match in _PHONE_MENTION.finditer(text):
        words = match.group("phone").split()
        words[0] = PHONE_CASE.get(words[0].casefold(), words[0].capitalize())
        out.append(Claim("user", "phone", " ".join(words)))
    return out + _in_passing(text)
