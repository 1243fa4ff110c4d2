"""Chat phrasings said over plainly before the grammar reads them.

"we're officially Da Nang people now" is read as "I live in Da Nang now", "architect here, 31"
as "I'm a architect, 31", "born in Christchurch and never left" as "born in Christchurch and I
still live in Christchurch": each rewrite turns a way of speaking the clause grammar does not
know into one it does, so no reader needs a rule of its own for it.
"""

from __future__ import annotations

import re

from plugins.extractors import lexicon as lx
from plugins.extractors.claims.news import news_said_plainly
from plugins.extractors.claims.phrases import ON_A_DAY
from plugins.extractors.claims.subjects import REL_WORD, is_name
from plugins.extractors.places import known_place


def with_its_i(text: str) -> str:
    """ "am a self employed plumber in glasgow", "can't stand cilantro, tastes like soap": a
    statement with its "I" left out, said with it (not the question "am I ...", nor "can't
    stand it", where "it" is no thing). Sentences are kept as statements by it too."""
    text = _AM_A.sub(r"\g<lead>I am ", text)
    # "They've given me the ward sister post", "I got the head chef job": the job now (an
    # offer is not the job: it may be turned down).
    text = _GIVEN_THE_POST.sub(_given_the_post, text)
    # "I got the job at the county library": where the user works now.
    text = _GOT_THE_JOB_AT.sub(r"\g<lead>I now work at ", text)
    # "took a local job with Sysco", "Sam landed a policy job with the BC Government": the
    # new employer, the user's or the named person's.
    text = _TOOK_A_JOB_AT.sub(_works_there_now, text)
    # "got poached by Cardrona", "Keiko got poached by Air Canada": works there now.
    text = _POACHED_BY.sub(_works_there_now, text)
    # "working graveyard as a security guard at a warehouse": the job, "I'm" left out.
    text = _WORKING_AS.sub(r"\g<lead>I work as ", text)
    # "Been seeing a lovely fella called Ross", "been living in Leeds since May": "I've" left out.
    text = _BEEN_DOING.sub(r"\g<lead>I've been ", text)
    # "me and sam are official now", "Priya and I are together": dating.
    text = _OFFICIAL.sub(_official, text)
    # "type 2 diabetic, on metformin.": a condition, the "I'm" left out.
    text = _BARE_CONDITION.sub(r"\g<lead>I'm ", text)
    # "i've lived my whole life in lisbon": where the user lives (and always has).
    text = _LIVED_ALL_MY_LIFE.sub("I live in ", text)
    # "arsenal fan.", "huge Wolves fan": who the user supports, the "I'm a" left out.
    text = _BARE_FAN.sub(r"\g<lead>I'm a ", text)
    # "Day job's in the claims team at FBD Insurance": where the user works.
    text = _DAY_JOB_IN.sub(r"\g<lead>I work ", text)
    # "we picked up a huntaway pup from a farm": an animal brought home is a pet got.
    text = _PICKED_UP_A_PET.sub(_picked_up_a_pet, text)
    # "bought himself a Breville machine": what was bought, not for whom.
    text = _BOUGHT_ONESELF.sub(r"\g<verb> ", text)
    # "Marcus got totally hooked on espresso": likes it now.
    text = _GOT_HOOKED_ON.sub(lambda m: "I'm hooked on" if m.group("i") else "is hooked on", text)
    # "brayden switched his major to computer science": what he studies now.
    text = _SWITCHED_MAJOR.sub(_switched_major, text)
    # "doc says I have a herniated disc": the user's own health, as a clinician found it.
    text = _CLINICIAN_SAYS.sub("", text)
    # "I'm Priya by the way.": an aside closing the statement is no part of it.
    text = _BY_THE_WAY.sub(r"\g<end>", text)
    # "Got word this morning that I've made associate": the news itself.
    text = _GOT_WORD_THAT.sub("", text)
    # "i stay for yaba", "we dey stay for lekki": where the user lives, said the Nigerian way.
    text = _STAY_FOR.sub(lambda m: f"{m.group('who')} live in ", text)
    # "i dey lagos so i cant cook for her": where the user is, in Pidgin.
    text = _DEY_IN.sub(_dey_in, text)
    # "Priya and I tied the knot in Lisbon": married.
    # "chioma and i did our traditional wedding in august": married.
    text = _DID_OUR_WEDDING.sub("got married", text)
    text = _TIED_THE_KNOT.sub(
        lambda m: "getting married" if m.group(0)[:5].casefold() == "tying" else "got married", text
    )
    # "Jess and I have both gone vegetarian": what both did, each did.
    text = _BOTH.sub(r"\g<we>", text)
    text = _CANT_STAND.sub("I can't stand ", text)
    text = _SUBJECTLESS.sub(_with_i, text)
    # "first week at the new pharmacy in Chattogram done!": started there.
    text = _FIRST_WEEK_AT.sub(r"I started at a new \g<what> \g<where>", text)
    # "first week at monzo and standup is at 10": a job begun, where.
    text = _FIRST_WEEK_AT_NAMED.sub(_started_at, text)
    # "first month renting my own place in galway": how long, before what is being done.
    text = _HOW_LONG_FIRST.sub("", text)
    # "need a training plan, doing my first half marathon in rotterdam": a race ahead, its
    # "I'm" left out.
    text = _DOING_AHEAD.sub(r"I'm \g<doing>", text)
    # "since my Olav died two years ago I have much time for knitting": the statement, after
    # the reason said first (whose people the mention reader still sees).
    text = _REASON_FIRST.sub("", text)
    # "Three mornings a week I volunteer at the shelter", "In the evenings I play guitar":
    # when, after what is done, so the statement opens with its subject.
    return _WHEN_FIRST.sub(lambda m: f"{m.group('said')} {m.group('when').casefold()}", text)


_OPENS = (
    r"(?:^|(?<=[.!?]\s))(?P<lead>(?:(?:so|and|also|btw|update|news|finally|officially|oh)\W*\s+)*)"
)
# "Run a dairy farm in Gippsland", "Resigned in October", "Engaged as of last Saturday", "Back
# in Singapore since August", "based out of hull": the verb or the state a statement opens
# with, its "I" left out.
# Not a request ("Run the numbers", "Teach me"): a trade's verb takes a business, a place or a
# role after it.
_NOT_MINE = (
    r"(?:a|an|the|it|this|that|these|those|them|him|her|me|you|u|ur|your|when|how|what|to|no"
    r"|any|some|one|been|had|got|fun|patience|faith|mercy|pity|courage|look|go|try|nice|good"
    r"|great|lovely|safe|doing|being|more|less|up|hard|with|for|about|a\s+look|ya|yall)"
)
_SUBJECTLESS = re.compile(
    _OPENS + r"(?:(?P<does>(?:run|own|manage)\s+(?=(?:a|an|my|our|the\s+family)\s)"
    r"|(?:live|work)\s+(?=(?:in|on|near|at|as|for|from)\s)"
    r"|stay\s+(?=(?:in|at|near)\s)"
    # "hate coriander btw", "have 2 cats", "study law at UCT": typed fast, a feeling, a thing
    # had or a subject studied (not "Have a great day", "Love this", "study the chart").
    r"|(?:hate|love|adore|detest|prefer|have|study)\s+(?=[a-z\d])(?!" + _NOT_MINE + r"\b))"
    r"|(?P<did>(?:resigned|retired|quit|relocated|graduated|adopted|switched|bought)\s)"
    r"|(?P<is>(?:engaged|married|divorced|widowed|pregnant|single|retired)(?=\s+(?:as\s+of|since"
    r"|last|this|now|officially|finally|to|for)\b|\s*[.!,]|\s*$)|back\s+in\s+(?=(?-i:[A-Z]))"
    r"|based(?=\s+(?:in|out\s+of|near)\s)))",
    re.IGNORECASE | re.MULTILINE,
)


_REASON_FIRST = re.compile(
    r"(?:^|(?<=[.!?]\s))(?:(?:and|but|so)\s+)?(?:(?:since|ever\s+since|after|now\s+that"
    r"|because)\s+(?:my|our|the)\s"
    r"[^,.!?\n]{3,60}?\b(?:died|passed(?:\s+away)?|left|retired|moved|started|finished|ended"
    r"|came|arrived|began|closed|opened|broke\s+up|split(?:\s+up)?)(?:\s+[^,.!?\n]{0,25}?)?)"
    r",?\s+(?=(?:i|we)\s+(?!was\b|were\b))",
    re.IGNORECASE | re.MULTILINE,
)
_DOING_AHEAD = re.compile(
    r"(?:^|(?<=[.!?]\s)|(?<=,\s))(?P<doing>(?:doing|running)\s+(?=(?:my|a|the)\s+(?:first\s+)?"
    r"(?:half\s+)?(?:marathon|triathlon|10k|5k|ultra|race)\b))",
    re.IGNORECASE | re.MULTILINE,
)
_FIRST_WEEK_AT_NAMED = re.compile(
    r"(?:^|(?<=[.!?]\s))(?:(?:so|ok|update|and)\W*\s+)?(?:my\s+)?(?:first|1st)\s+(?P<span>week|fortnight|day"
    r"|month|shift|term|semester|year)\s+at\s+(?!(?:the|my|a|an|our|this|that|work|home|school"
    r"|uni|university|college|nursery|daycare|kindergarten|camp|church|gym|last|least|night)\b)"
    r"(?P<where>[\w&'-]+)\b"
    r"(?!\s+(?:school|uni|university|college|academy|gym|hospital|clinic)\b)"
    # "first week at flutterwave as senior engineer was mad busy": the job, too.
    r"(?:\s+as\s+(?:an?\s+)?(?P<job>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?)"
    r"(?=\s+(?:was|is|has|went|done|over|finished)\b|\s*[,.!;]|\s*$))?"
    r"(?:\s+(?:done|over|finished|complete|survived|was|went|is)\b[^,.!?\n]*)?",
    re.IGNORECASE | re.MULTILINE,
)
_HOW_LONG_FIRST = re.compile(
    r"(?:^|(?<=[.!?]\s))(?:my\s+)?(?:first|1st|second|2nd|third|3rd|\d+(?:st|nd|rd|th))\s+"
    r"(?:day|week|month|year|night)s?\s+(?=(?:renting|living|working|studying|teaching"
    r"|volunteering|training)\s)",
    re.IGNORECASE | re.MULTILINE,
)


def _started_at(found: re.Match[str]) -> str:
    """ "first week at monzo": a job begun; "first term at warwick": a course."""
    if found.group("span").casefold() in ("term", "semester", "year"):
        return f"I study at {found.group('where')}"
    job = found.group("job")
    if job and lx.is_occupation(job):
        return f"I started at {found.group('where')} as {job}"
    return f"I started at {found.group('where')}"


_FIRST_WEEK_AT = re.compile(
    r"(?:^|(?<=[.!?]\s))(?:my\s+)?(?:first|1st|second|2nd)\s+(?:week|day|month|shift)\s+(?:at|in)\s+"
    r"(?:the|my)\s+"
    r"new\s+(?!(?:school|uni|university|college|class|course|house|flat|home|place|apartment"
    r"|condo|room|neighbou?rhood|area|town|city|country)\b)"
    r"(?P<what>[\w-]+(?:\s+[\w-]+)?)\s+(?P<where>(?:in|at)\s+(?-i:[A-Z])[\w'-]+"
    r"(?:\s+(?-i:[A-Z])[\w'-]+)?)(?:\s+(?:done|over|finished|complete|survived))?\b",
    re.IGNORECASE | re.MULTILINE,
)
_GAVE_ME_A = re.compile(
    r"\b(?:(?:my|our)\s+)?[\w'-]+\s+(?:gave|got|bought|brought)\s+(?:me|us)\s+(?P<what>(?:a|an)\s+"
    r"(?:new\s+|little\s+|baby\s+)?(?P<kind>[\w-]+))\b",
    re.IGNORECASE,
)


def _got_a_pet(found: re.Match[str]) -> str:
    return f"I got {found.group('what')}" if lx.is_pet(found.group("kind")) else found.group(0)


_POSSESSIVE = {"him": "his", "her": "her"}
_WHOSE = {"he": "His", "hes": "His", "she": "Her", "shes": "Her"}
_CALLED = re.compile(
    r"(?:\s*[,.!;]+\s*|\s+and\s+|^)(?P<pronoun>he|she|hes|shes)(?:'s|\s+is)?\s+(?:called|named)\s+"
    r"(?=(?-i:[A-Z])|[a-z]+\b)",
    re.IGNORECASE | re.MULTILINE,
)
_WE_NAMED = re.compile(r",?\s+(?:and\s+)?we\s+(?:named|called)\s+(?P<pronoun>him|her)\s+", re.I)
_INTERVIEWING = re.compile(
    r"\b(?:i'?m|i\s+am)\s+(?:interviewing\s+(?:at|with)|(?:preparing|prepping|getting\s+ready)"
    r"\s+for\s+(?:a|my|the)\s+(?:job\s+)?interview\s+(?:at|with))\s+",
    re.IGNORECASE,
)
# "we've moved AGAIN, phoenix this time": the move, and where to.
_MOVED_AGAIN = re.compile(
    r"\b(?P<moved>moved|relocated)\s+(?:again|once\s+more)\W{0,3}\s+(?:to\s+)?"
    r"(?P<place>[\w'-]+(?:\s+[\w'-]+)?)\s+(?:this\s+time|now)\b",
    re.IGNORECASE,
)


def _moved_again(found: re.Match[str]) -> str:
    place = found.group("place")
    if not (known_place(place) or place[:1].isupper()):
        return found.group(0)
    return f"{found.group('moved')} to {place}"


_TRADE_WITH = re.compile(
    r"\b(?P<job>(?:i'?m|i\s+am)\s+(?:now\s+)?(?:a|an)\s+(?P<trade>[\w -]{2,30}?))\s+with\s+"
    r"(?=(?:the\s+)?(?-i:[A-Z])|the\s+(?:\w+\s+){0,2}(?:service|council|police|army|navy|trust"
    r"|department|ministry|board|agency|company|firm|bank|hospital|railway|airline)\b)",
    re.IGNORECASE,
)


def _trade_at(found: re.Match[str]) -> str:
    if not lx.is_occupation(found.group("trade")):
        return found.group(0)
    return f"{found.group('job')} at "


_RECEIVER = {"him": "he", "her": "she", "them": "they"}
_GOT_FOR_THEM = re.compile(
    r"\b(?:we|i)\s+(?:just\s+|finally\s+)?(?:got|bought|gave)\s+(?P<them>him|her|them)\s+(?=(?:a|an|the"
    r"|their|his|her)\s)",
    re.IGNORECASE,
)
_NEWS = {"married": "got married", "engaged": "got engaged", "divorced": "got divorced"}


def _with_i(found: re.Match[str]) -> str:
    said = (found.group("does") or found.group("did") or found.group("is")).lower()
    if found.group("is"):
        # "married!", "Engaged as of Saturday": news of a change, not only a state.
        news = _NEWS.get(said)
        return f"{found.group('lead')}I {news}" if news else f"{found.group('lead')}I'm {said}"
    return f"{found.group('lead')}I {said}"


_WHEN_FIRST = re.compile(
    r"(?:^|(?<=[.!?]\s))(?P<when>(?:(?:in|on|during)\s+the\s+(?:evenings?|mornings?|weekends?"
    r"|afternoons?)|(?:every|each|most)\s+(?:day|morning|evening|night|weekend|week|sunday|saturday"
    r"|monday|tuesday|wednesday|thursday|friday)|(?:one|two|three|four|five|\d)\s+(?:times|days"
    r"|mornings|evenings|nights)\s+a\s+(?:week|month)|(?:once|twice)\s+a\s+(?:day|week|month)"
    r"|on\s+weekends|at\s+weekends|these\s+days|nowadays|weekends|evenings|weeknights|sundays"
    r"|saturdays|mondays|tuesdays|wednesdays|thursdays|fridays))\s*,?\s+"
    r"(?P<said>(?:i|we)\s+[^,.!?\n]+)",
    re.IGNORECASE | re.MULTILINE,
)


def said_plainly(text: str) -> str:
    """``text`` with the phrasings below said the way the grammar reads them."""
    # "NB I'm allergic to shellfish", "Sir I have been diagnosed with ...": a label or a way
    # of address before the statement.
    text = _ADDRESS_LEAD.sub("", text)
    # "I am working in Pune as software tester only": an emphasis, no part of what is said.
    text = _ONLY_AT_THE_END.sub("", text)
    text = _BORN_AND_RAISED.sub("born in", text)
    text = _NEVER_LEFT.sub(r"born in \g<place> and I still live in \g<place>", text)
    # "Flying from home (Ulaanbaatar) to Seoul": where home is, said in brackets.
    home = _HOME_NAMED.search(text)
    if home is not None:
        homed = _HOME_NAMED.sub(r"\g<lead>\g<place>", text).rstrip()
        end = "" if homed.endswith((".", "!", "?")) else "."
        text = f"{homed}{end} I live in {home.group('place')}."
    # "we completed on a terrace house in Armley": bought it (a sale completes).
    text = _COMPLETED_ON.sub(r"\g<who> bought ", text)
    # "It's about 40 mins from us in Wolverhampton", "yeah i'm a plumber, bristol area".
    text = _FROM_US_IN.sub(r"\g<lead>. I live in \g<place>.", text)
    text = _PLACE_AREA.sub(_area_lived_in, text)
    # "Paramedic with the Welsh Ambulance Service": a trade opening a sentence, not a name.
    text = _OPENING_TRADE.sub(lambda m: m.group(0).casefold(), text)
    # "architect here, 31", "freelance ios dev in osaka here": who is speaking, introduced.
    text = _TRADE_HERE.sub(_trade_here, text)
    # "collected keys to my own 4-room in Punggol": moved in.
    text = _KEYS_TO.sub(r"\g<lead>moved into ", text)
    # "shifted to pune last month": moved (Indian English).
    text = _SHIFTED_TO.sub(_shifted, text)
    # Life news said in passing ("Friday was my final day at Deloitte"): see news.py.
    text = news_said_plainly(text)
    text = with_its_i(text)
    # "I'm 27, a software engineer at Digikala": the age, then the job.
    text = _AGE_THEN_JOB.sub(_age_then_job, text)
    # "Ethiopian food is my absolute favourite now": the favourite said the other way round.
    text = _IS_MY_FAVOURITE.sub(_my_favourite, text)
    # "I'll be 35 on 2 August": the birthday too.
    text = _BE_AGE_ON.sub(r"\g<lead>. My birthday is \g<day>", text)
    # "we're officially Da Nang people now": where the speaker lives.
    text = _PLACE_PEOPLE.sub(r"I live in \g<place>", text)
    # "a coworker dragged me to a bouldering gym and im hooked": into it now.
    text = _HOOKED.sub(r"I'm into \g<what> now", text)
    # "we keep a halal kitchen", "I keep kosher": the household's diet is the speaker's.
    text = _KEEP_A_DIET.sub(r"I'm \g<diet>", text)
    # "signed with Microsoft as a senior engineer", "accepted a job at Aldi": joined.
    text = _SIGNED_WITH.sub(r"\g<lead>I joined ", text)
    # "doing an internship at Volvo in Curitiba", "interning at Bosch": an intern there.
    text = _INTERNSHIP_AT.sub(_post_at, text)
    # "so we got him a little Fiat 500": what was got for someone is theirs, not the user's.
    text = _GOT_FOR_THEM.sub(lambda m: f"{_RECEIVER[m.group('them').lower()]} got ", text)
    # "my tita gave me a puppy, shih tzu, we named him Bantay": got a pet, and named it.
    text = _GAVE_ME_A.sub(_got_a_pet, text)
    text = _WE_NAMED.sub(lambda m: f". {_POSSESSIVE[m.group('pronoun').lower()]} name is ", text)
    # "we got a puppy, he's called Biscuit": the name, by the pronoun that follows.
    text = _CALLED.sub(lambda m: f". {_WHOSE[m.group('pronoun').lower()]} name is ", text)
    # "I'm interviewing at Canva next Tuesday", "preparing for a job interview at Siemens".
    text = _INTERVIEWING.sub("I have a job interview at ", text)
    # "two months in as head chef now": the job now.
    text = _TIME_IN_AS.sub(r"\g<lead>I'm now ", text)
    # "im a paramedic with the ambulance service now": where the trade is worked.
    text = _TRADE_WITH.sub(_trade_at, text)
    # "backend eng at zalando": the trade, its short form said out.
    text = _ENG_AT.sub("engineer", text)
    # "My flat is in Croydon and I live alone": where the speaker lives.
    text = _MY_HOME_IS_IN.sub("I live in ", text)
    # "As someone who's been at Coles for six years, how do I ...": the speaker has.
    text = _AS_SOMEONE_WHO.sub("I've ", text)
    # "I've been at Coles for six years", "been at Arup since 2019": where they work.
    text = _BEEN_AT.sub(r"I work at \g<org>. I have been there \g<how_long>", text)
    # "Since the knee surgery I've stopped running": why, before what is said.
    text = _SINCE_THE_EVENT.sub("", text)
    # "stopped running entirely and switched to rowing": two changes, not one.
    text = _STOPPED_AND.sub(r"\g<stop> \g<what>. I ", text)
    text = _CANT_ANYMORE.sub(r"I've stopped \g<doing>", text)
    # "My son Vivek is working in Dubai": where someone works, said as going on now.
    text = _IS_WORKING_IN.sub(r"\g<who> works \g<prep> ", text)
    # "I'm fully remote now at Figma": works there, from home.
    text = _REMOTE_AT.sub("I work remotely at ", text)
    # "34M, 190lbs, want a 16 week plan": age and sex, as forums write them.
    text = _AGE_SEX.sub(r"I'm \g<age>.", text)
    # "partner's name is kayla btw": the speaker's partner, its "my" left out.
    text = _RELATIVE_NAMED.sub(r"my \g<rel>'s name is", text)
    # "Orascom moved me to the Dubai office": where they live and work now.
    text = _MOVED_ME_TO.sub("I was transferred to ", text)
    # "Lionbridge hired me full-time": works there now.
    text = _HIRED_ME.sub(r"I joined \g<org>", text)
    # "so the house purchase is off for now": called off.
    text = _IS_OFF.sub(r"we cancelled the \g<what>", text)
    # "my diabetes is officially in remission": no longer has it.
    text = _IN_REMISSION.sub(r"I no longer have \g<what>", text)
    # "made the move to Hobart", "moved back home to Gdańsk", "since relocating to Vienna in
    # March", "settling into Darwin now": moved.
    text = _MADE_THE_MOVE.sub("moved to ", text)
    text = _MOVED_AGAIN.sub(_moved_again, text)
    text = _SINCE_MOVING.sub(r"I moved to \g<place>\g<when>. ", text)
    text = _SETTLING_INTO.sub(r"\g<lead>I've moved to ", text)
    # "traded the civic in last weekend, we got a 2023 rav4": sold one, and got the other.
    text = _TRADED_X_IN.sub(r"\g<verb> in \g<what>", text)
    sold = _SOLD.search(text)
    if sold is not None and _sold_by_the_user(text[: sold.start()]):
        text = _GOT_INSTEAD.sub(r"\g<lead>I bought \g<det> ", text)
    # "Has two kids: Leo (7) and Mia (4)": how many, then who.
    text = _COUNT_COLON.sub(r"\g<count>, ", text)
    # "I've outgrown my peanut allergy": no longer allergic.
    text = _OUTGROWN.sub(_outgrown, text)
    # "I've become a total coffee convert", "think I've become a horror fan": what they love now.
    text = _BECOME_A_FAN.sub(_fan_of, text)
    # "my 60th is coming up in May": a birthday.
    text = _MY_NTH.sub(r"\g<nth> birthday", text)
    # "it was my 35th yesterday": a birthday, said without the word.
    text = _WAS_MY_NTH.sub(r"\g<nth> birthday", text)
    # "As a 45 year old bloke, is it too late to learn guitar?": the speaker's age.
    text = _AS_AN_AGE.sub(r"I'm \g<age>. \g<0>", text)
    text = _AGE_OPENING.sub(r"I'm \g<age>", text)
    # "At 52, is it too late for me to learn the piano?": the age the speaker asks from.
    text = AT_AN_AGE_ASKING.sub(r"I'm \g<age>. ", text)
    # "birthday today, 35 🥲", "Another birthday on Saturday, 45 and still ...": the age now.
    text = _BIRTHDAY_THEN_AGE.sub(r"\g<birthday>. I'm \g<age>", text)
    # "my sister is 30 and vegan", "I'm 34 and asthmatic": the age, then a state of the same
    # person (not the speaker's when the sentence is about someone else).
    text = _AGE_AND_STATE.sub(_age_and_state, text)
    text = _AGE_AND_DOING.sub(r"\g<age>, and ", text)
    # "two months in and I'm staying vegan": the diet, said again.
    text = _STAYING_ON.sub(r"I'm \g<diet>", text)
    # "quit keto, now doing Mediterranean style", "I'm on the carnivore diet": how they eat.
    text = _DOING_A_DIET.sub(r"\g<lead>I follow a \g<diet> diet", text)
    # "... but these days it's all padel": what the speaker is into now (its own clause).
    text = _ALL_IT_IS.sub(r"I'm into \g<what> now", text)
    text = _PLACE_BASED.sub(_based_in, text)
    text = _RIP.sub(r"\g<who> passed away. ", text)
    # "Bruno crossed the rainbow bridge on Sunday", "Pepper was put to sleep": a pet died.
    text = _PET_DIED.sub("passed away", text)
    # "we lost Pepper on Saturday": died (a name lost at a time; "lost the match" is no one).
    text = _WE_LOST.sub(_lost_one, text)
    text = _ME_AND_MY.sub(r"\g<lead>\g<who> and I", text)
    return _BARE_CONTRACTION.sub(_apostrophe, text)


# "i dont drive", "im a nurse", "we havent": contractions typed without the apostrophe.
_CONTRACTED = {
    "dont": "don't",
    "doesnt": "doesn't",
    "didnt": "didn't",
    "cant": "can't",
    "isnt": "isn't",
    "arent": "aren't",
    "wasnt": "wasn't",
    "werent": "weren't",
    "havent": "haven't",
    "hasnt": "hasn't",
    "hadnt": "hadn't",
    "couldnt": "couldn't",
    "shouldnt": "shouldn't",
    "wouldnt": "wouldn't",
    "im": "I'm",
    "ive": "I've",
    "youre": "you're",
    "theyre": "they're",
    "thats": "that's",
    "whats": "what's",
    "shes": "she's",
}
_BARE_CONTRACTION = re.compile(r"\b(?:" + "|".join(_CONTRACTED) + r")\b", re.IGNORECASE)


def _apostrophe(match: re.Match[str]) -> str:
    return _CONTRACTED[match.group(0).casefold()]


# "born and raised in Cebu": where the user is from (one clause, not two).
_BORN_AND_RAISED = re.compile(r"\bborn\s+and\s+(?:raised|bred)\s+in\b", re.IGNORECASE)
_KEEP_A_DIET = re.compile(
    r"\b(?:we|i)\s+keep\s+(?:an?\s+)?(?P<diet>halal|kosher|vegan|vegetarian|gluten-free)"
    r"(?:\s+(?:kitchen|home|house|household))?\b",
    re.IGNORECASE,
)
_LEAD_IN = (
    r"(?P<lead>^|[.!?,;:]\s*|\band\s+|\bso\s+)(?:(?:i|we)\s+)?(?:i'?m\s+|i\s+am\s+|i'?ve\s+)?"
)
_SIGNED_WITH = re.compile(
    _LEAD_IN + r"(?:just\s+|finally\s+|officially\s+)?(?:signed\s+(?:on\s+)?with"
    r"|accepted\s+(?:a|an|the)\s+(?:job|position|role|post)\s+(?:at|with))\s+(?=(?-i:[A-Z]))",
    re.IGNORECASE,
)
_INTERNSHIP_AT = re.compile(
    _LEAD_IN + r"(?:(?:doing|starting|started|got|landed|on|beginning|began)\s+(?:an?|my|the)\s+"
    r"(?:[\w-]+\s+){0,2}?(?P<post>internship|postdoc|residency|fellowship|apprenticeship)"
    r"|(?P<interning>interning))\s+(?:at|with)\s+(?=(?-i:[A-Z]))",
    re.IGNORECASE,
)
_HOLDER = {
    "internship": "an intern",
    "postdoc": "a postdoc",
    "residency": "a resident",
    "fellowship": "a fellow",
    "apprenticeship": "an apprentice",
}


def _post_at(found: re.Match[str]) -> str:
    """ "doing an internship at Volvo", "starting a postdoc at UCSF": what they are there."""
    post = (found.group("post") or "internship").casefold()
    return f"{found.group('lead')}I'm {_HOLDER[post]} at "


_TIME_IN_AS = re.compile(
    r"(?P<lead>^|[.!?,;:]\s*|\band\s+)(?:\d+|a|one|two|three|four|five|six|a\s+few|a\s+couple\s+of)"
    r"\s+(?:days?|weeks?|months?|years?)\s+in\s+as\s+(?=(?:an?\s+)?[\w-]+)",
    re.IGNORECASE,
)
_ENG_AT = re.compile(
    r"(?<=\w\s)eng(?=\s+(?:at|@|for|with|in)\s)|(?<=\s)eng(?=\s*(?:[.,!]|$))", re.IGNORECASE
)
_MY_HOME_IS_IN = re.compile(
    r"\b(?:my|our)\s+(?:(?:new|own|little|tiny|rented|current|shared)\s+)?(?:flat|house|home"
    r"|apartment|place|condo|pad|bungalow|cottage)\s+(?:is|'s)\s+(?:now\s+)?in\s+(?=(?-i:[A-Z]))",
    re.IGNORECASE,
)
_SINCE_THE_EVENT = re.compile(
    # not "since the divorce", which says something of its own
    r"^since\s+(?:the|my|our)\s+(?:[\w'-]+\s+){0,3}?(?:surgery|operation|accident|injury"
    r"|replacement|crash|fall)\s*,?\s+(?=(?:i|we)\b)",
    re.IGNORECASE,
)
_STOPPED_AND = re.compile(
    # the speaker's own: "he quit Sony and moved to Osaka" is his
    r"(?P<stop>\b(?:i'?ve|i\s+have|i|we'?ve|we)\s+(?:just\s+|completely\s+)?(?:stopped|quit"
    r"|gave\s+up))\s+(?P<what>\w+)(?:\s+(?:entirely|completely|altogether))?"
    r"\s+and\s+(?=(?:switched|moved|taken|took|started|picked|now)\b)",
    re.IGNORECASE,
)
_CANT_ANYMORE = re.compile(
    r"\bi\s+(?:can'?t|cannot)\s+(?P<doing>run|swim|cycle|climb|dance|play\s+\w+|lift)\s+"
    r"(?:any\s*more|now)\b",
    re.IGNORECASE,
)
_IS_WORKING_IN = re.compile(
    r"(?P<who>\b(?:my|our)\s+(?:\w+\s+)?[\w-]+(?:\s+(?-i:[A-Z])[\w'-]+)?)\s+(?:is|'s)\s+"
    r"(?:currently\s+|now\s+|still\s+)?working\s+(?P<prep>in|at|for)\s+(?=(?:the\s+)?(?-i:[A-Z]))",
    re.IGNORECASE,
)
_REMOTE_AT = re.compile(
    r"\b(?:i'?m|i\s+am)\s+(?:(?:fully|now|still|completely|100%)\s+)*remote\s+(?:now\s+)?"
    r"(?:at|for|with)\s+(?=(?-i:[A-Z]))",
    re.IGNORECASE,
)
_AGE_SEX = re.compile(r"^(?P<age>[1-9]\d)\s?(?:m|f|M|F)\b(?=\s*[,/.]|\s+\d)")
_RELATIVE_NAMED = re.compile(
    rf"(?:^|(?<=[.!?]\s))(?P<rel>{REL_WORD})'s\s+name\s+is\b", re.IGNORECASE
)
_MOVED_ME_TO = re.compile(
    r"\b(?:(?-i:[A-Z])[\w&'.-]+|they|work|my\s+(?:company|employer|firm|boss))\s+(?:just\s+|finally\s+)?"
    r"(?:moved|transferred|relocated|posted|sent)\s+me\s+(?:over\s+)?to\s+(?=(?:the\s+)?(?-i:[A-Z]))",
    re.IGNORECASE,
)
_HIRED_ME = re.compile(
    r"\b(?P<org>(?-i:[A-Z])[\w&'.-]+(?:\s+(?-i:[A-Z])[\w&'.-]+)?)\s+(?:just\s+|finally\s+|officially\s+)?"
    r"hired\s+me\b",
    re.IGNORECASE,
)
_IS_OFF = re.compile(
    r"\b(?:the|our|my)\s+(?P<what>[\w-]+(?:\s+[\w-]+)?)\s+is\s+(?:officially\s+)?(?:off|cancelled"
    r"|canceled|not\s+happening)\b(?:\s+for\s+now\b)?",
    re.IGNORECASE,
)
_IN_REMISSION = re.compile(
    r"\bmy\s+(?P<what>[\w-]+(?:\s+[\w-]+)?)\s+is\s+(?:now\s+|officially\s+|finally\s+)*in\s+remission\b",
    re.IGNORECASE,
)
_AS_SOMEONE_WHO = re.compile(
    r"^as\s+(?:someone|a\s+person|somebody)\s+who(?:'s|\s+has|'ve|\s+have)\s+(?=been\s)",
    re.IGNORECASE,
)
_BEEN_AT = re.compile(
    r"\b(?:i'?ve|i\s+have)\s+been\s+(?:working\s+)?at\s+"
    r"(?P<org>(?-i:[A-Z])[\w&'.-]+(?:\s+(?-i:[A-Z])[\w&'.-]+){0,2})\s+"
    r"(?P<how_long>for\s+(?:over\s+|almost\s+|nearly\s+)?(?:\d+|a|one|two|three|four|five|six|seven"
    r"|eight|nine|ten|a\s+few|a\s+couple\s+of)\s+(?:years?|months?)|since\s+(?:19|20)\d\d)",
    re.IGNORECASE,
)
_MADE_THE_MOVE = re.compile(
    r"\b(?:made\s+the\s+(?:big\s+)?move|moved\s+back\s+home)\s+to\s+", re.IGNORECASE
)
_SINCE_MOVING = re.compile(
    r"\bsince\s+(?:relocating|moving|the\s+move)\s+(?:back\s+)?to\s+"
    r"(?P<place>(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?)"
    r"(?P<when>\s+(?:in|last)\s+(?-i:[A-Z]?)[a-z]+)?,?\s*",
    re.IGNORECASE,
)
_SETTLING_INTO = re.compile(
    r"(?P<lead>^|[.!?]\s+|,\s*|\band\s+)(?:(?:i'?m|we'?re|i\s+am|we\s+are)\s+)?(?:still\s+)?"
    r"settling\s+in(?:to)?\s+(?=(?-i:[A-Z]))",
    re.IGNORECASE,
)
_TRADED_X_IN = re.compile(
    r"\b(?P<verb>traded|trading|traded\s+my)\s+(?P<what>(?:the|my|our)\s+[\w-]+(?:\s+[\w-]+)?)\s+in\b",
    re.IGNORECASE,
)
_SOLD = re.compile(r"\b(?:sold|traded\s+in|flogged|got\s+rid\s+of)\b", re.IGNORECASE)


def _sold_by_the_user(before: str) -> bool:
    """Whether who sold is the user: "sold the civic", "we sold it" (not "my mom sold her
    Buick and bought a Prius", whose Prius is hers)."""
    said = re.split(r"[.!?]\s+", before)[-1]
    return not said.strip() or re.search(r"\b(?:i|we|i've|we've|ive)\b", said, re.I) is not None


_GOT_INSTEAD = re.compile(
    r"(?P<lead>[,;]\s*(?:and\s+|then\s+|so\s+)?|\s(?:and|then|so)\s+)(?:(?:we|i)\s+)?(?:just\s+)?"
    # what was got is named as a model is ("a 2023 rav4", "the X100V"), not "a new one"
    r"(?:got|bought|picked\s+up)\s+(?P<det>a|an|the)\s+(?=(?:new\s+|used\s+)?[\w-]*(?-i:[A-Z0-9]))",
    re.IGNORECASE,
)
_COUNT_COLON = re.compile(
    r"(?P<count>\b(?:has|have|got)\s+(?:two|three|four|five|six|\d)\s+(?:kids|children|sons"
    r"|daughters|boys|girls|cats|dogs|siblings|brothers|sisters|grandchildren|grandkids))\s*:\s*",
    re.IGNORECASE,
)
_OUTGROWN = re.compile(
    r"\b(?:(?P<i>i'?ve\s+|i\s+have\s+|i\s+)|(?P<who>(?-i:[A-Z])[\w'-]+|he|she)(?:'s|\s+has)?\s+)?"
    r"(?:officially\s+|finally\s+|actually\s+)?(?:outgrown|outgrew|grown\s+out\s+of|grew\s+out"
    r"\s+of)\s+(?:my|the|his|her|their)\s+(?P<what>[\w-]+(?:\s+[\w-]+)?)\s+(?:allergy|one)\b",
    re.IGNORECASE,
)


def _outgrown(found: re.Match[str]) -> str:
    """ "I've outgrown my peanut allergy", "he's outgrown the sesame one": no longer allergic."""
    who = found.group("who")
    if who is None:
        return f"I'm no longer allergic to {found.group('what')}"
    return f"{who} is no longer allergic to {found.group('what')}"


_BECOME_A_FAN = re.compile(
    r"\b(?:(?:i\s+)?think\s+)?(?:i'?ve\s+|i\s+have\s+|i\s+)?(?:officially\s+|finally\s+|now\s+)?(?:become|turned\s+into"
    r"|converted\s+into)\s+(?:a|an)\s+(?:total\s+|complete\s+|full[\s-]on\s+|real\s+|massive\s+"
    r"|huge\s+|proper\s+|big\s+)?(?P<what>[\w-]+)\s+(?:person|convert|drinker|lover|fan|addict"
    r"|fiend)\b(?:\s+now\b)?"
    # "I'm a cat person now" is a preference the grammar reads itself.
    r"|\bi'?m\s+(?:a|an)\s+(?:total\s+|complete\s+|real\s+)?(?P<now>[\w-]+)\s+(?:convert"
    r"|drinker|fan)\s+now\b",
    re.IGNORECASE,
)


def _fan_of(found: re.Match[str]) -> str:
    return f"I love {found.group('what') or found.group('now')} now."


_MY_NTH = re.compile(
    r"(?P<nth>\bmy\s+[1-9]\d?(?:st|nd|rd|th))(?=\s+(?:is|'s)\s+(?:coming\s+up|next|soon|in|on"
    r"|this|tomorrow|approaching|around))",
    re.IGNORECASE,
)
_WAS_MY_NTH = re.compile(
    r"(?P<nth>\b(?:it\s+was|it's|its|was)\s+my\s+[1-9]\d(?:st|nd|rd|th))(?=\s+(?:yesterday|today"
    r"|on\s+\w+|last\s+\w+|this\s+\w+)\b)",
    re.IGNORECASE,
)
_AS_AN_AGE = re.compile(
    r"(?:^|(?<=[.!?]\s))as\s+an?\s+(?P<age>[1-9]\d?)[\s-]*(?:years?|yrs?|y/?o)(?:[\s-]*old)?\b",
    re.IGNORECASE,
)
_ONLY_AT_THE_END = re.compile(r"(?<=\w)\s+only(?=\s*[.!,]|\s*$)", re.IGNORECASE | re.MULTILINE)
_ADDRESS_LEAD = re.compile(
    r"^(?:nb|n\.b\.|ps|p\.s\.|sir|madam|ma'am|bro|bruh|dude|mate|doc|boss|fyi|btw"
    # "But reality is I am chartered accountant in Chennai": what is so, after a daydream.
    r"|(?:but\s+)?(?:the\s+|in\s+)?(?:reality|truth)(?:\s+is)?(?:\s+that)?"
    # "so the thing is we broke up in may", "long story short, I'm in Leeds now"
    r"|(?:so\s+|and\s+|but\s+)?(?:the\s+thing\s+is|long\s+story\s+short|basically|in\s+other\s+news"
    r"|fun\s+fact|big\s+news|quick\s+update|small\s+update))[,:.!]?\s+"
    r"(?=(?:i|i'm|i've|my|we|we're|our|(?-i:[A-Z])[\w'-]+\s+and\s+i|me\s+and)\b)",
    re.IGNORECASE | re.MULTILINE,
)
_AGE_AND_STATE = re.compile(
    r"(?P<who>\b(?:i'?m|i\s+am|im|(?:my|our)\s+[\w-]+(?:\s+(?-i:[A-Z])[\w'-]+)?(?:\s+is|'s))\s+)"
    r"(?P<age>\d{1,2}|1[01]\d)\s+and\s+(?P<state>[a-z][\w-]*)\b(?!\s+(?:a|an|the|of|in|on|to)\b)",
    re.IGNORECASE,
)
_STATES = (
    frozenset(lx.CONDITION_ADJECTIVES)
    | frozenset(lx.DIETS)
    | lx.words(
        "retired married single divorced widowed pregnant engaged separated disabled deaf blind"
        " unemployed"
    )
)


def _age_and_state(found: re.Match[str]) -> str:
    state = found.group("state")
    if state.casefold() not in _STATES:
        return found.group(0)
    who = found.group("who")
    return f"{who}{found.group('age')}. {who[:1].upper()}{who[1:]}{state}"


# "I'm 41 and doing about 25k a week", "I'm 29 and dad's 63", "im 51 na so ...", "I am 47
# and stubborn": the age, then something else (not "I'm 30 weeks pregnant").
_AGE_AND_DOING = re.compile(
    r"(?P<age>\b(?:i'?m|i\s+am)\s+(?:\d{1,2}|1[01]\d))\s+(?:and|so|but|na|now)\s+"
    r"(?!(?:a\s+)?half\b|\d)",
    re.IGNORECASE,
)
# "48, haven't written an essay since 1994", "61 and not about to learn to fix cars": an age
# opening a sentence, its "I'm" left out.
AT_AN_AGE_ASKING = re.compile(
    r"(?:^|(?<=[.!?]\s))at\s+(?P<age>1[6-9]|[2-9]\d)\s*,\s*(?=(?:is\s+it|am\s+i|can\s+i|should\s+i"
    r"|do\s+i|would\s+i|could\s+i|i'm|im|i\s+am|i\s+still|i\s+feel|i'm\s+still)\b)",
    re.IGNORECASE | re.MULTILINE,
)
_BIRTHDAY_THEN_AGE = re.compile(
    r"(?:^|(?<=[.!?]\s))(?P<birthday>(?:(?:it's|it\s+was|another|my)\s+)?birthday\s+(?:today"
    r"|yesterday|on\s+\w+|last\s+\w+|this\s+\w+))\W*\s+(?P<age>1[6-9]|[2-9]\d)\b"
    r"(?!\s*(?:%|kg|km|people|guests|of|years\s+ago|mins?|minutes|hours|quid|dollars))",
    re.IGNORECASE | re.MULTILINE,
)
_AGE_OPENING = re.compile(
    r"^(?P<age>1[6-9]|[2-9]\d)(?=,\s+(?![\d-])\w|\s+and\s+(?:not|still|never|counting|proud"
    r"|loving|feeling|single|happily|retired|stubborn)\b)",
    re.IGNORECASE | re.MULTILINE,
)
_GIVEN_THE_POST = re.compile(
    r"\b(?:they(?:'ve|\s+have)?|i(?:'ve|\s+have)?(?:\s+been)?|we(?:'ve)?)\s+(?:just\s+|finally\s+)?"
    r"(?:given\s+me|gave\s+me|got|landed|been\s+given|was\s+given)\s+the\s+"
    r"(?P<job>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?)\s+(?:post|job|role|position)\b"
    r"(?!\s+(?:interview|application|ad|advert|offer)\b)",
    re.IGNORECASE,
)


def _given_the_post(found: re.Match[str]) -> str:
    job = found.group("job")
    if not lx.is_occupation(job):
        return found.group(0)
    return f"I'm now a {job}"


_GOT_THE_JOB_AT = re.compile(
    r"(?P<lead>\b)(?:i(?:'ve|\s+have)?\s+)?(?:just\s+|finally\s+)?(?:got|landed|accepted|took)\s+the\s+"
    r"(?:new\s+)?job\s+(?:at|with)\s+(?![^.!?\n]*\b(?:interview|but\s+(?:turned|said\s+no|declined))\b)",
    re.IGNORECASE,
)
# Who took the job: the user ("i", or no one said), or a named person.
_WHO_TOOK = r"\b(?:(?P<who>i|(?-i:[A-Z])[\w'-]+)(?:'ve|\s+have|\s+has)?\s+)?"
_TOOK_A_JOB_AT = re.compile(
    _WHO_TOOK + r"(?:just\s+|finally\s+|officially\s+)?"
    r"(?:got|landed|accepted|took|bagged|scored)\s+an?\s+(?:new\s+)?(?P<kind>(?:[\w-]+\s+){0,2}?)"
    r"(?:job|position|role|post|gig)\s+(?:at|with)\s+(?=(?:the\s+)?(?-i:[A-Z]))"
    r"(?![^.!?\n]*\b(?:interview|but\s+(?:turned|said\s+no|declined))\b)",
    re.IGNORECASE | re.MULTILINE,
)


_POACHED_BY = re.compile(
    _WHO_TOOK + r"(?:just\s+|finally\s+)?"
    r"(?:got|been|was|were)\s+(?:head-?hunted|poached)\s+by\s+(?=(?:the\s+)?(?-i:[A-Z]))",
    re.IGNORECASE | re.MULTILINE,
)


def _works_there_now(found: re.Match[str]) -> str:
    """A job taken or a poaching said over as where the user (or the named person) works."""
    kind = (found.groupdict().get("kind") or "").strip()
    if kind and (lx.is_occupation(kind) or lx.is_occupation(kind.split()[-1])):
        return found.group(0)  # "a permanent lecturer position at ...": the job rule reads both
    who = found.group("who")
    if who is None:
        # "my brother got a job at Amazon", "she took a job with Aer Lingus": someone else's.
        said_by = re.search(r"([\w']+)\W*$", found.string[: found.start()])
        if said_by is not None and (
            said_by.group(1).casefold() in _SOMEONE or lx.relation_of(said_by.group(1)) is not None
        ):
            return found.group(0)
    if who is None and re.search(
        r"\b(?:\w+ing|\w+ed|week|month|year|ago|it|them|him|her)\s+$", found.string[: found.start()]
    ):
        return ", and I now work at "  # "quit Schneider last week took a job with Sysco"
    if who is None or who.casefold() == "i":
        return "I now work at "
    if not is_name(who) or known_place(who):
        return found.group(0)
    return f"{who} now works at "


_CLINICIAN_SAYS = re.compile(
    r"\b"
    + lx.CLINICIAN_SAYS
    + r"\s+(?=(?:i\s+(?:have|had|'ve\s+got|ve\s+got|got|am|need)|i'?m|im)\b)",
    re.IGNORECASE,
)
_PICKED_UP_A_PET = re.compile(
    r"\b(?P<verb>picked|pick|picking)\s+up\s+(?=(?:a|an|our|my)\s+(?:new\s+)?(?:[\w-]+\s+){0,2}?"
    r"(?:" + "|".join(sorted(lx.PETS, key=len, reverse=True)) + r")\b)",
    re.IGNORECASE,
)


def _picked_up_a_pet(found: re.Match[str]) -> str:
    return {"picked": "got ", "pick": "get ", "picking": "getting "}[found.group("verb").casefold()]


_BOUGHT_ONESELF = re.compile(
    r"\b(?P<verb>bought|buys|got|gets|treated|treats)\s+(?:himself|herself|myself|themselves"
    r"|ourselves)\s+(?=(?:an?|the|some|two|three|new)\b)",
    re.IGNORECASE,
)
_GOT_HOOKED_ON = re.compile(
    r"(?P<i>\bi\s+)?\b(?:got|getting)\s+(?:(?:totally|completely|really|properly|so|well|fully)\s+)?"
    r"hooked\s+on\b",
    re.IGNORECASE,
)
_SWITCHED_MAJOR = re.compile(
    r"\b(?P<who>[a-z][\w'-]*)\s+(?:has\s+|just\s+|finally\s+)*(?:switched|changed)\s+"
    r"(?:his|her|my|their)\s+(?:major|course|degree)\s+to\s+",
    re.IGNORECASE,
)


def _switched_major(found: re.Match[str]) -> str:
    who = found.group("who")
    if who.casefold() == "i":
        return "I'm now studying "
    if not is_name(who, lower_ok=True) or lx.relation_of(who) is not None:
        return found.group(0)
    return f"{who[:1].upper()}{who[1:]} is now studying "


_SOMEONE = lx.words(
    "he she they we it who someone somebody everyone everybody nobody one friend mate pal buddy"
    " boss colleague coworker neighbour neighbor"
)
_WORKING_AS = re.compile(
    r"(?:^|(?<=[.!?]\s))(?P<lead>\W*)working\s+(?:(?:graveyard|nights|days|weekends|shifts|lates"
    r"|earlies|part[\s-]time|full[\s-]time)\s+)?as\s+(?=an?\s)",
    re.IGNORECASE | re.MULTILINE,
)
_BEEN_DOING = re.compile(
    r"(?:^|(?<=[.!?]\s))(?P<lead>\W*(?:(?:so|and|also|btw|update)\W*\s+)?)been\s+(?=[a-z]+ing\b)",
    re.IGNORECASE | re.MULTILINE,
)
_OFFICIAL = re.compile(
    r"\b(?:me\s+(?:and|n|&)\s+(?P<a>[A-Za-z][\w'-]+)|(?P<b>(?-i:[A-Z])[\w'-]+)\s+(?:and|&)\s+(?:i|me))"
    r"\s+(?:are|r|'re)\s+(?:now\s+|finally\s+|officially\s+)*(?:official|together|dating|a\s+couple"
    r"|an\s+item|exclusive|seeing\s+each\s+other|a\s+thing)\b",
    re.IGNORECASE,
)


def _official(found: re.Match[str]) -> str:
    name = found.group("a") or found.group("b")
    if not is_name(name, lower_ok=True) or lx.relation_of(name) is not None:
        return found.group(0)
    return f"I'm dating {name[:1].upper()}{name[1:]}"


_BARE_CONDITION = re.compile(
    r"(?:^|(?<=[.!?]\s))(?P<lead>\W*)(?=(?:type\s+[12]\s+)?(?:diabetic|asthmatic|epileptic|coeliac"
    r"|celiac|anaemic|anemic|(?:lactose|gluten)\s+intolerant)\b(?!\s+(?:friendly|food|recipe|options?"
    r"|menu|snacks?|meals?)\b))",
    re.IGNORECASE | re.MULTILINE,
)
_LIVED_ALL_MY_LIFE = re.compile(
    r"\bi(?:'ve|\s+have)\s+lived\s+(?:(?:my|all\s+my)\s+)?(?:whole\s+|entire\s+)?life\s+in\s+",
    re.IGNORECASE,
)
_BARE_FAN = re.compile(
    r"(?:^|(?<=[.!?]\s))(?P<lead>\W*)(?=(?:(?:big|huge|massive|lifelong|life-long|die-?hard|proud)\s+)?"
    r"(?!(?:a|an|the|my|your|not|no|such|big|huge|massive|lifelong|proud|ceiling|desk|pedestal"
    r"|box|tower|extractor|exhaust|electric|cooling)\s)[\w.&'-]+(?:\s+[\w.&'-]+)?\s+fan\s*(?:[.!]|$))",
    re.IGNORECASE | re.MULTILINE,
)
_DAY_JOB_IN = re.compile(
    r"(?:^|(?<=[.!?]\s))(?P<lead>\W*(?:(?:so|and|but|also)\s+)?)(?:my\s+)?day\s+job(?:'s|\s+is)\s+"
    r"(?=(?:in|at|with|for)\s)",
    re.IGNORECASE | re.MULTILINE,
)
_BY_THE_WAY = re.compile(
    r",?\s+(?:by\s+the\s+way|btw|fyi|as\s+well)(?P<end>\s*(?:[.!?]|$))",
    re.IGNORECASE | re.MULTILINE,
)
_GOT_WORD_THAT = re.compile(
    r"\b(?:just\s+)?(?:got|had|received|heard)\s+(?:the\s+)?(?:word|news|confirmation|an?\s+email"
    r"|a\s+call|the\s+call)\s+(?:(?:this\s+morning|today|yesterday|last\s+night|earlier)\s+)?"
    r"that\s+(?=(?:i|i've|i'm|we|we've|we're)\b)",
    re.IGNORECASE,
)
_DEY_IN = re.compile(
    r"\b(?P<who>i|we)\s+(?:(?:still|now)\s+)?dey\s+(?:(?:for|in)\s+)?(?P<place>[A-Za-z][\w'-]+)\b",
    re.IGNORECASE,
)


def _dey_in(found: re.Match[str]) -> str:
    place = found.group("place")
    if not known_place(place):
        return found.group(0)
    return f"{found.group('who')} live in {place}"


_STAY_FOR = re.compile(
    r"\b(?P<who>i|we)\s+(?:(?:still|now|dey)\s+)*stay\s+for\s+(?=[a-z])(?!(?:a|an|the|some|few"
    r"|two|three|\d|dinner|lunch|breakfast|tea|drinks?|the\s+night|good|long|now|ever|more)\b)",
    re.IGNORECASE,
)
_DID_OUR_WEDDING = re.compile(
    r"\b(?:did|had)\s+our\s+(?:\w+\s+)?(?:wedding|marriage\s+ceremony)(?=\s+(?:in|on|last|this"
    r"|at|yesterday)\b|\s*[,.!]|\s*$)",
    re.IGNORECASE,
)
_TIED_THE_KNOT = re.compile(r"\b(?:tied|tying)\s+the\s+knot\b", re.IGNORECASE)
_BOTH = re.compile(
    r"\b(?P<we>(?:we|i)(?:'ve|\s+have|'re|\s+are|\s+were|\s+had|'d)?)\s+both\b(?=\s+[a-z])",
    re.IGNORECASE,
)
_AM_A = re.compile(r"(?:^|(?<=[.!?]\s))(?P<lead>\W*)am\s+(?=an?\s)", re.IGNORECASE)
_CANT_STAND = re.compile(
    r"(?:^|(?<=[.!?,;]\s)|(?<=\bbut\s))(?:can'?t|cannot)\s+stand\s+"
    r"(?!(?:it|this|that|them|him|her|he|she|they|you|when|how|people|being|the\s+thought)\b)",
    re.IGNORECASE,
)
_STAYING_ON = re.compile(
    r"\b(?:i'?m|i\s+am|we'?re|we\s+are)\s+(?:staying|remaining|sticking\s+with\s+being)\s+"
    rf"(?P<diet>{'|'.join(sorted(lx.DIETS, key=len, reverse=True))})\b",
    re.IGNORECASE,
)
_DOING_A_DIET = re.compile(
    r"(?P<lead>^|[,;]\s*|\b(?:now|and|honestly|currently|mostly)\s+)"
    r"(?:(?:i'?m|i\s+am|we'?re|i|we)\s+)?(?:now\s+)?"
    r"(?:doing|on|following|trying|eating|eat|follow)\s+(?:the\s+|a\s+)?"
    r"(?P<diet>(?!(?:same|whole|usual|normal|new|strict|proper|special|crash|liquid|fad)\b)"
    r"[a-z][\w-]+)\s+(?:diet|style|way\s+of\s+eating)\b",
    re.IGNORECASE,
)
_ALL_IT_IS = re.compile(
    r"\b(?:(?P<now>these\s+days|now|nowadays),?\s+)?it'?s\s+all\s+"
    r"(?!(?:good|fine|ok|okay|gone|over|done|set|sorted|new|same|right|well|great|fun|about|over)\b)"
    r"(?P<what>[\w-]+(?:\s+(?-i:[A-Z])[\w.-]+)*)"
    r"(?=\s+(?:for\s+me|now|these\s+days|nowadays)\b|,?\s+(?:\w+\s+)?times?\s+a\s+week\b"
    r"|(?(now)\s*[,.!]|(?!))|(?(now)\s*$|(?!)))",
    re.IGNORECASE,
)
_COMPLETED_ON = re.compile(
    r"\b(?P<who>we|i)\s+(?:just\s+|finally\s+|officially\s+)?completed\s+on\s+(?=(?:a|an|the|our|my)\s+"
    r"(?:\w+\s+){0,2}?(?:house|flat|home|apartment|condo|cottage|bungalow|terrace|semi)\b)",
    re.IGNORECASE,
)
_FROM_US_IN = re.compile(
    r"(?P<lead>\b(?:from|to|near)\s+us)\s+(?:here\s+)?in\s+"
    r"(?P<place>(?-i:[A-Z])[\w'.-]+(?:\s+(?-i:[A-Z])[\w'.-]+)?)",
    re.IGNORECASE,
)
_PLACE_AREA = re.compile(
    r"(?P<lead>,\s*|^)(?:the\s+)?(?P<place>[\w'-]+(?:\s+[\w'-]+)?)\s+area(?P<end>\s*[.!,]|\s*$)",
    re.IGNORECASE,
)


def _area_lived_in(found: re.Match[str]) -> str:
    """ "yeah i'm a plumber, 15 yrs, bristol area": a known place said as an area is where
    the speaker lives; any other "X area" is left as it was."""
    place = found.group("place")
    if not known_place(place):
        return found.group(0)
    return f". I live in {place[:1].upper() + place[1:]}{found.group('end')}"


_AGE_THEN_JOB = re.compile(
    r"(?P<age>\b(?:i'?m|i\s+am|im)\s+\d{1,2})(?:\s*,|\s+and)\s+(?=(?P<article>an?\s+)?(?P<word>[\w-]+))",
    re.IGNORECASE,
)


def _age_then_job(found: re.Match[str]) -> str:
    """ "I'm 27, a software engineer", "im 39, nurse in porto alegre": the age, then the job
    (a bare noun only when it is a trade)."""
    if found.group("article") is None and found.group("word").casefold() not in lx.OCCUPATIONS:
        return found.group(0)
    return f"{found.group('age')}. I'm " + ("" if found.group("article") else "a ")


_OPENING_TRADE = re.compile(
    "(?:(?<=^)|(?<=[.!?]\\s))(?:"
    + "|".join(
        sorted((w.capitalize() for w in lx.OCCUPATIONS if "-" not in w), key=len, reverse=True)
    )
    + r")(?=\s+(?:at|in|with|for)\s)"
)
_TRADE_HERE = re.compile(
    r"(?:(?<=^)|(?<=[.!?~:;]\s)|(?<=,\s)|(?<=\bhere\s)|(?<=!\s))"
    r"(?P<np>(?:an?\s+)?[a-z][\w-]*(?:\s+[a-z0-9][\w-]*){0,3}?)"
    r"(?P<where>\s+(?:in|at|with|for)\s+[\w' -]{2,40}?)?\s+here"
    r"(?:\s*\((?P<paren>[\w' -]{2,30})\))?(?=\s*[,.!]|\s*$)",
    re.IGNORECASE,
)
# "type 1 diabetic here", "coeliac here": who is speaking, by what they are.
_STATE_HERE = re.compile(
    r"^(?:type\s+[12]\s+)?diabetic$|^(?:coeliac|celiac|asthmatic|epileptic|vegan|vegetarian"
    r"|pescatarian|lactose\s+intolerant)$",
    re.IGNORECASE,
)


def _trade_here(found: re.Match[str]) -> str:
    np = re.sub(r"^an?\s+", "", found.group("np"))
    np = re.sub(r"^(?:night|day|late|early)[\s-]+shift\s+", "", np, flags=re.I)  # the trade
    if _STATE_HERE.match(np):
        return f"I'm {np}"
    trade = re.sub(r"^(?:freelance|self-employed|senior|junior|retired)\s+", "", np.casefold())
    if not lx.is_occupation(trade) or trade.split()[-1] in _NOT_TRADES:
        return found.group(0)
    paren = found.group("paren")
    # "night shift nurse here (osaka)": where, in brackets.
    where = f" in {paren}" if paren and known_place(paren) else found.group("where") or ""
    return f"I'm a {np}{where}"


# "long time lurker here", "big fan here": who is speaking, but no trade.
_NOT_TRADES = lx.words(
    "here there lurker fan reader listener follower user beginner newbie member viewer"
    " subscriber customer lover noob"
)
_KEYS_TO = re.compile(
    r"(?P<lead>\b(?:i|we)\s+|^|(?<=[.!?]\s))(?:(?:just|finally)\s+)?(?:collected|got|picked\s+up)\s+"
    r"(?:the\s+)?keys\s+(?:to|for)\s+(?=(?:my|our)\s)",
    re.IGNORECASE,
)
_SHIFTED_TO = re.compile(
    r"\b(?:shifted|packed\s+up|upped\s+sticks|decamped|relocated\s+(?:ourselves|myself)"
    r"|gone\s+over|headed\s+over)\s+to\s+"
    r"(?P<place>[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?)\b"
    # "gone over to Perth for the weekend": a trip, not a move.
    r"(?!\s+(?:for\s+(?:the|a|an|two|three|\d+)\s+(?:day|night|weekend|week|holiday|break|visit"
    r"|few)|to\s+(?:see|visit|watch)|on\s+holiday)\b)",
    re.IGNORECASE,
)


def _shifted(found: re.Match[str]) -> str:
    place = found.group("place")
    if not (place[:1].isupper() or known_place(place)):
        return found.group(0)  # "shifted to a new role": not a place
    return f"moved to {place}"


_KINDS = lx.words(
    "food cuisine dish meal drink music band artist singer song album film movie show book"
    " author sport team game player season colour color city country place holiday"
)
_IS_MY_FAVOURITE = re.compile(
    r"(?:(?<=^)|(?<=[.!?]\s)|(?<=,\s))(?P<what>(?-i:[A-Z])?[\w'-]+(?:\s+[\w'-]+){0,3}?)\s+"
    r"(?:is|are|has\s+always\s+been|have\s+always\s+been)\s+my\s+"
    r"(?:absolute\s+|all[- ]time\s+|new\s+|total\s+|ultimate\s+)?fav(?:ou?rite|e)\b"
    r"(?:\s+(?P<kind>[a-z]+))?",
    re.IGNORECASE,
)


def _my_favourite(found: re.Match[str]) -> str:
    what, kind = found.group("what"), (found.group("kind") or "").casefold()
    if what.casefold().split()[0] in ("it", "this", "that", "he", "she", "they", "which", "who"):
        return found.group(0)  # "it's my favourite": what "it" is, another sentence says
    last = what.casefold().split()[-1]
    if kind in _KINDS:
        return f"my favourite {kind} is {what}"
    if kind and kind not in ("now", "these", "nowadays", "too", "lol", "tbh", "honestly"):
        return found.group(0)  # "Tuesday is my favourite day": a kind not known here
    tail = f" {found.group('kind')}" if found.group("kind") else ""
    if last in _KINDS:
        return f"my favourite {last} is {what}{tail}"
    return f"I love {what}{tail}"


_BE_AGE_ON = re.compile(rf"(?P<lead>\b(?:i'?ll|i\s+will)\s+be\s+\d{{1,3}})\s+{ON_A_DAY}", re.I)
_PLACE_PEOPLE = re.compile(
    r"\b(?:we'?re|we\s+are|i'?m|i\s+am)\s+(?:(?:officially|now|finally|proper|true)\s+)*"
    r"(?P<place>(?-i:[A-Z])[\w'.-]+(?:\s+(?-i:[A-Z])[\w'.-]+){0,2})\s+(?:people|folks|locals)\b",
    re.IGNORECASE,
)
_HOOKED = re.compile(
    r"\b(?:\w+\s+){0,3}?(?:taught|got|dragged|introduced|took|brought)\s+me\s+(?:to\s+|into\s+|on\s+)?"
    r"(?:a\s+|the\s+|some\s+)?(?P<what>[a-z][\w-]+)(?:\s+(?:gym|class|classes|club|lessons|session))?"
    r"[^.!?]*?\b(?:and|now)\s+(?:i'?m|i\s+am|im)\s+(?:totally\s+|completely\s+|so\s+|now\s+)?hooked\b",
    re.IGNORECASE,
)
_HOME_NAMED = re.compile(
    r"(?P<lead>\b(?:from|back\s+to|to)\s+)home\s+\((?P<place>(?-i:[A-Z])[\w'.-]+(?:\s+(?-i:[A-Z])[\w'.-]+)?)\)",
    re.IGNORECASE,
)
# "born in Christchurch and never left": lives there still.
_NEVER_LEFT = re.compile(
    r"\bborn\s+in\s+(?P<place>(?-i:[A-Z])[\w'.-]+(?:\s+(?-i:[A-Z])[\w'.-]+)*)\s*,?\s+"
    r"(?:and|but)\s+(?:i\s+)?(?:(?:have\s+|'ve\s+)?never\s+(?:left|moved\s+away)"
    r"|still\s+live\s+(?:there|here))\b",
    re.IGNORECASE,
)
# "we're Munich-based now": based in Munich ("a London-based firm" is the firm's).
_PLACE_BASED = re.compile(
    r"(?:\b(?P<be>i'?m|i\s+am|we'?re|we\s+are|am|are|is)\s+|^|(?<=[,.;!]\s))"
    r"(?P<place>(?-i:[A-Z])[\w'.]+(?:\s+(?-i:[A-Z])[\w'.]+)?)-based\b(?(be)|(?=\s+now\b|\W*$))",
    re.IGNORECASE,
)


def _based_in(found: re.Match[str]) -> str:
    return f"{found.group('be') or 'I am'} based in {found.group('place')}"


# "me and my girlfriend Hana live in Sapporo": said the way "my girlfriend Hana and I" reads.
_ME_AND_MY = re.compile(
    rf"(?P<lead>^|[,.!?;]\s+)(?:me|i)\s+(?:and|&)\s+(?P<who>(?:my|our)\s+(?:\w+\s+)?{REL_WORD}"
    r"(?:\s+(?-i:[A-Z])[\w'-]*)?)"
    r"(?=\s+(?:are|were|live|lived|have|had|moved|just|got|both|still|now)\b)",
    re.IGNORECASE,
)
_PET_DIED = re.compile(
    r"\b(?:crossed\s+(?:over\s+)?the\s+rainbow\s+bridge|was\s+put\s+to\s+sleep)\b", re.I
)
_WE_LOST = re.compile(
    r"\b(?:we|i)\s+(?:sadly\s+|just\s+)?lost\s+(?:(?:our|my)\s+(?:\w+\s+)?)?(?P<who>[\w'-]+)"
    r"(?=\s+(?:on|last|this|yesterday|in\s+(?:the\s+night|" + lx.MONTH_PATTERN + r"))\b)",
    re.IGNORECASE,
)


def _lost_one(found: re.Match[str]) -> str:
    who = found.group("who")
    if not is_name(who, lower_ok=True) or lx.relation_of(who) or lx.is_pet(who):
        return found.group(0)
    return f"{who[:1].upper()}{who[1:]} passed away"


# "RIP Bubbles 🐟": Bubbles died.
_RIP = re.compile(r"^\W*(?:rip|r\.i\.p\.?)\s+(?P<who>(?-i:[A-Z])[\w'-]+)\b\W*", re.IGNORECASE)
