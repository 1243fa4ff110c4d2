"""Splitting a text into sentences and a sentence into clauses that each state one thing."""

from __future__ import annotations

import re

from plugins.extractors import lexicon as lx
from plugins.extractors.claims.introductions import introduction
from plugins.extractors.claims.openers import opening_statements
from plugins.extractors.claims.subjects import NAME_TOKEN, is_name, name_shaped, starts_predicate
from plugins.extractors.claims.words import (
    CHANGE_ADVERBS,
    IRREGULAR,
    MODALS,
    PARTICIPLES,
    QUOTES,
    SKIP_ADVERBS,
    VERBS,
    stem,
)

# No split after an initial or a title ("J.K. Rowling", "Dr. Osei", "St. Louis").
# An emoji ends a sentence too ("in leeds 🙂 need help w my cv"), except those that say how
# the sentence before it was meant (a wink, an eye-roll, laughter), which stay with it.
_SENTENCE_SPLIT = re.compile(
    r"(?<![\s.][A-Z]\.)(?<!^[A-Z]\.)(?<!\b(?:Dr|Mr|Ms|St|Jr|Sr)\.)(?<!\bMrs\.)(?<=[.!?])\s+"
    r"|\n+|\s*;\s*|\s+-{1,2}\s+|\s+\u2014\s+"
    "|\\s*(?:(?![\U0001f643\U0001f644\U0001f602\U0001f923\U0001f61c\U0001f609])"
    "[\U0001f300-\U0001faff\u2600-\u27bf])+\\s*"
    r"|\s+(?::-?\(|:-?\)|:D|<3|:'\()(?:\s+|$)"
)

_CONJUNCTION = re.compile(
    r",?\s+(?:and|but|so|plus|then|though|tho|although|while|whereas|yet|after)\s+(?:also\s+"
    r"|then\s+|actually\s+|of\s+course\s+|obviously\s+|naturally\s+|honestly\s+)?"
    r"|\s+to\s+(?=become\b)|,\s+"
    # "I go every saturday since I live 2 blocks away": a reason is a statement too.
    r"|,?\s+(?:because|'?cause|cuz|coz|cos|cus|bc|b/c|bcoz|bcz|bcs)\s+(?=(?:i|i'm|i've|we|we're|my|our)\b)"
    # "since I live nearby" is a reason; "since I was 8" a time, and no statement of its own.
    r"|,?\s+(?:since|as)\s+(?=(?:i|we)\s+(?:live|work|am|have|own|study|teach)\b|i'm\b|we're\b)"
    r"|,\s+(?=(?:i|i'm|i've|we|we're|my|our|she|he|they|she's|he's"
    r"|they're)\b)",
    re.IGNORECASE,
)

_STATEMENT_START = re.compile(
    r"^(?:(?i:i|i'm|i've|i'd|i'll|we|we're|we've|my|our|she|he|they|she's|he's|they're"
    r"|the user|user'?s?|everyone|everybody|people|friends|his|her|its|their)\b"
    r"|[A-Z][\w\-]*(?:'s)?\s+(?=\S))"
)


# "... and night shifts are killing me": a short noun phrase and a finite verb start a clause.
_NEW_SUBJECT = re.compile(
    r"^(?:(?:the|my|our|his|her|their|these|those)\s+)?(?!(?:i|a|an|to|of|in|on|at|for|with)\b)"
    r"[a-z][\w'-]*(?:\s+[a-z][\w'-]*)?\s+(?:is|are|was|were|has|have)\b"
)

NO_MORE = re.compile(
    r"^(?i:no\s+more|goodbye|good\s+bye|bye\s+bye|so\s+long|farewell)\s+(?P<what>[\w' -]+?)"
    r"(?:\s+(?i:for)\s+(?:(?i:me|us|him|her|them)"
    r"|(?:[Tt]he\s+)?(?P<who>user(?:'s\s+[\w-]+)?|[A-Z][\w-]+)))?\s*[.!]*\s*$"
)


# Chat spelling without apostrophes; only words that are not also words of their own
# ("ill", "id", "were", "its", "well" stay as they are).
_BARE_CONTRACTIONS = {
    "im": "I'm",
    "ive": "I've",
    "dont": "don't",
    "doesnt": "doesn't",
    "didnt": "didn't",
    "cant": "can't",
    "wont": "won't",
    "isnt": "isn't",
    "arent": "aren't",
    "wasnt": "wasn't",
    "werent": "weren't",
    "hasnt": "hasn't",
    "havent": "haven't",
    "hadnt": "hadn't",
    "couldnt": "couldn't",
    "shouldnt": "shouldn't",
    "wouldnt": "wouldn't",
    "youre": "you're",
    "theyre": "they're",
    "thats": "that's",
    "whats": "what's",
    "shes": "she's",
    "hes": "he's",
    "u": "you",
    "ur": "your",
}

_BARE_CONTRACTION = re.compile(
    r"(?<![\w'])(" + "|".join(_BARE_CONTRACTIONS) + r")(?![\w'])", re.IGNORECASE
)


_RELATION_WORDS = "|".join(sorted((re.escape(r) for r in lx.RELATIONS), key=len, reverse=True))

# "me mum", "me partner Jono": the possessive 'me' of spoken English (Irish, Northern, Aussie).
_POSSESSIVE_ME = re.compile(
    r"(?<![\w'])(?P<me>[Mm]e)\s+(?=(?:(?:little|big|older|younger|old|best)\s+)?"
    r"(?:" + _RELATION_WORDS + r")s?\b"
    # "Broke me wrist at the hurling": a part of the body.
    r"|(?:wrist|ankle|knee|leg|arm|back|hip|shoulder|foot|hand|finger|toe|neck|collarbone"
    r"|ribs?|hamstring)\b)"
)
# "Wife Lorraine's a teaching assistant": a note-taker's dropped "my" before a relation and
# the name that follows it ("Doctor Evans", "Coach Carter" are titles, not relations).
_TITLES = frozenset({"doctor", "dentist", "teacher", "coach", "therapist", "mentor"})
_BARE_RELATION = re.compile(
    r"(?:^|(?<=[.!?]\s))(?P<rel>(?i:"
    + "|".join(sorted((re.escape(r) for r in lx.RELATIONS - _TITLES), key=len, reverse=True))
    + r"))\s+(?=[A-Z][a-z]+\b|(?P<lower>[a-z][a-z'-]+)(?:\s+(?:is|was|lives|works|has|had|just"
    r"|got|moved|loves|hates|studies|started|quit|left|wants|says|said|thinks|reckons)\b"
    # "fiance carlo.": the name alone, said as a note
    r"|\s*(?:[.!]|$)))"
)


# "gf bea bday in may", "marco's b-day is next week": whose birthday, and when.
_BDAY = re.compile(
    r"\b(?P<name>[A-Za-z][a-z'-]+?)(?:'s)?\s+(?:bday|b-day|birthday)\s+(?:is\s+)?"
    r"(?P<when>in|on|next|this)\b",
    re.IGNORECASE,
)


def _bday(match: re.Match[str]) -> str:
    name = match.group("name")
    if not _a_lower_case_name(name) or name.casefold() in lx.RELATIONS:
        return match.group(0)
    return f"{name[:1].upper()}{name[1:]}'s birthday is {match.group('when')}"


# "Jake, my roommate, is from Texas": the name and its relation said as one subject.
_APPOSITIVE = re.compile(
    r"(?:^|(?<=[.!?]\s))(?P<name>[A-Z][a-z]+),\s+(?P<my>my|our)\s+(?P<rel>(?:(?:little|big|older"
    r"|younger|best)\s+)?(?i:" + _RELATION_WORDS + r")),\s+(?=[a-z])"
)


# "Sam's officially my husband": the name's "'s" is "is" before a relation of the user's.
_NAME_IS_MY = re.compile(
    r"\b(?P<name>[A-Z][a-z]+)'s\s+(?=(?:officially\s+|now\s+|also\s+|still\s+)?(?:my|our)\s+"
    r"(?:(?:little|big|older|younger|best|new)\s+)?(?i:" + _RELATION_WORDS + r")\b)"
)


# "gemma (wife) says ...", "copper (beagle) rides shotgun": who a name is, said in brackets;
# "wife (shalini, shes a dentist) wants ...": a relation's name said in brackets.
_NAME_THEN_WHO = re.compile(
    r"(?<![\w'])(?P<name>[^\W\d_][\w'-]+)\s+\((?:my\s+|our\s+|the\s+|a\s+)?(?P<who>[a-z][\w-]*)\)",
    re.IGNORECASE,
)
_WHO_THEN_NAME = re.compile(
    r"(?<![\w'])(?:(?:my|our)\s+)?(?P<who>[a-z][\w-]*)\s+\((?P<name>[^\W\d_][\w'-]+)"
    r"(?:,\s*(?P<rest>[^()]*))?\)",
    re.IGNORECASE,
)


def _who_in_brackets(match: re.Match[str]) -> str:
    who, name = match.group("who"), match.group("name")
    if not (lx.relation_of(who) or lx.is_pet(who)) or not name_shaped(name):
        return match.group(0)
    rest = match.groupdict().get("rest")
    return f"my {who.casefold()} {name[:1].upper() + name[1:]}" + (f" ({rest})" if rest else "")


# "me and the wife Gwen", "the missus says", "the other half's a nurse": a spouse or partner
# spoken of as "the" one, as British and Irish speakers do, is the user's own. "the wife" and
# "the husband" only before a name, after "me and" or "with", or opening a sentence before a
# verb ("the husband of a friend" is not).
_THE_PARTNER = re.compile(
    r"\b(?P<the>the|my)\s+(?P<word>missus|missis|mrs|wifey|other\s+half|better\s+half)\b(?!\s+of\b)"
    r"|(?:(?<=\bme\sand\s)|(?<=\bwith\s)|(?<=^)|(?<=[.!?]\s))(?P<plain>[Tt]he)\s+(?P<spouse>wife"
    r"|husband|hubby)\b(?=\s+(?-i:[A-Z])[a-z]+|\s*[,.!?]|\s+(?:and|is|was|says|said|reckons"
    r"|thinks|wants|'s|has|had|keeps|just)\b|'s\b)"
)
_PARTNER_WORDS = {"other half": "partner", "better half": "partner"}


def _the_partner(match: re.Match[str]) -> str:
    spouse = match.group("spouse")
    if spouse is not None:
        return f"{'M' if match.group('plain')[0] == 'T' else 'm'}y {spouse}"
    word = " ".join(match.group("word").casefold().split())
    opening = "M" if match.group("the")[0] in "TM" else "m"
    return f"{opening}y {_PARTNER_WORDS.get(word, 'wife')}"


# "Meg the collie", "me and Joey the budgie": a pet named before its kind.
_NAME_THE_PET = re.compile(r"\b(?P<name>(?-i:[A-Z])[a-z]+)\s+the\s+(?P<kind>[a-z]+)\b")


def _the_pet(match: re.Match[str]) -> str:
    if not lx.is_pet(match.group("kind")) or match.group("name").casefold() in lx.RELATIONS:
        return match.group(0)
    return f"my {match.group('kind')} {match.group('name')}"


# "Meet Pepper, a ten-week-old cocker spaniel", "Newest resident: Nell, a retired racing
# greyhound": a pet introduced by name, then what it is.
_MEET_THE_PET = re.compile(
    r"\b(?:meet|introducing|say\s+(?:hi|hello)\s+to|(?:newest|new|latest)\s+(?:resident|addition"
    r"|arrival|member)(?:\s+(?:of|to)\s+the\s+(?:family|household|house))?\s*:)\s+"
    r"(?P<name>(?-i:[A-Z])[a-z]+)\s*,\s+(?:a|an|our|my)\s+(?P<desc>(?:[\w-]+\s+){0,4})"
    r"(?P<kind>[a-z]+)(?=\s*(?:[,.!;:)\u2014-]|$)|\s+(?:who|which|that|from|with|and|named"
    r"|called)\b)",
    re.IGNORECASE,
)
# "safe for Gerald — my tortoise, inherited from my gran": a name, then whose pet it is.
_NAME_MY_PET = re.compile(
    r"\b(?P<name>(?-i:[A-Z])[a-z]+)\s*(?:\u2014|-{1,2}|,)\s*(?P<my>(?-i:my|our))\s+(?P<kind>[a-z]+)\b"
)


def _met_pet(match: re.Match[str]) -> str:
    kind, name = match.group("kind"), match.group("name")
    if not lx.is_pet(kind) or not is_name(name):
        return match.group(0)
    # "a ten-week-old cocker spaniel": how old it is is not what it is.
    desc = [w for w in match.group("desc").split() if not re.search(r"\d|-olds?$", w)]
    return f"I have a {' '.join([*desc, kind])} named {name}."


def _named_pet(match: re.Match[str]) -> str:
    kind, name = match.group("kind"), match.group("name")
    if not lx.is_pet(kind) or not is_name(name) or name.casefold() in lx.RELATIONS:
        return match.group(0)
    return f"{match.group('my')} {kind} {name}"


# "My youngest, Destiny, is only 2", "our eldest just started school": a child by their order.
_MY_YOUNGEST = re.compile(
    r"\b(?P<my>(?-i:[Mm])y|(?-i:[Oo])ur)\s+(?P<which>youngest|eldest|oldest|middle\s+one|firstborn"
    r"|first-born)\b(?=\s*,|\s+(?-i:[A-Z])|\s+(?:is|was|has|had|just|turned|turns|started|starts"
    r"|goes|went|loves|hates|wants|got)\b|'s\b)",
    re.IGNORECASE,
)


# "my flatmate jonas is driving me nuts", "my gf jess has coeliac": a relative's name typed in
# lower case, as texting does; capitalised when it is no word of its own and a verb follows.
_MY_RELATION_NAMED_LOWER = re.compile(
    r"\b(?P<head>(?:my|our)\s+(?:(?:best|little|big|older|younger|twin|new)\s+)?(?:"
    + _RELATION_WORDS
    + r"))\s+(?P<name>[a-z][a-z'-]{1,14})\b(?=\s+(?:is|was|has|had|just|wants|says|said|thinks"
    r"|reckons|keeps|got|gets|would|will|can|could|talked|loves|hates|lives|works|started|moved"
    r"|finally|who)\b|'s\b"
    # "for my girlfriend chioma, she is a nurse", "gift ideas for my sister ngozi."
    r"|\s*,\s*(?:she|he|they|who|shes|hes)\b|\s*[.!?]|\s*$|\s+and\s)",
    re.IGNORECASE,
)
_CHAT_WORDS = lx.words("lol lmao omg tbh ngl idk btw pls plz ty irl af fr rn tho though too also")


def _a_lower_case_name(name: str) -> bool:
    """Whether a lower-case word where a name stands is one: no word of its own (a verb, an
    irregular past, a chat word, an -ing/-ed/-ly word, a relation)."""
    word = name.casefold()
    return not (
        not is_name(name, lower_ok=True)
        or word in IRREGULAR
        or word in _CHAT_WORDS
        or word.endswith(("ing", "ed", "ly"))
        or lx.relation_of(word) is not None
    )


def _named_lower(match: re.Match[str]) -> str:
    name = match.group("name")
    if not _a_lower_case_name(name):
        return match.group(0)
    return f"{match.group('head')} {name.capitalize()}"


# "I've been seeing someone new, marcus, he's a chef": the one named after a comma.
_SOMEONE_NAMED = re.compile(
    r"\b(?P<who>someone(?:\s+new)?|a\s+(?:new\s+)?(?:guy|girl|man|woman|lad|lass|bloke))\s*,\s+"
    r"(?P<name>[A-Za-z][a-z'-]+)\s*(?=,|\.|$)",
    re.IGNORECASE,
)


def _someone_named(match: re.Match[str]) -> str:
    name = match.group("name")
    if not _a_lower_case_name(name):
        return match.group(0)
    who = " ".join(w for w in match.group("who").split() if w.casefold() != "new")
    return f"{who} called {name.capitalize()}"


# "Has a daughter named Lily, age 4", "my son, Theo, who is 7": a named person's age said
# after their name, as a second sentence about them.
_NAMED_THEN_AGE = re.compile(
    r"\b(?P<name>(?-i:[A-Z])[a-z'-]+),\s+(?:age|aged|who\s+is|who's)\s+(?P<age>\d{1,3})\b"
    r"(?!\s*(?:%|kg|km|cm|lbs?|mins?|minutes|hours|months|weeks|days))"
)


# "my five-year-old Isla", "our 3yo son Max": a child named after their age.
_AGED_CHILD = re.compile(
    r"\b(?P<my>(?-i:[Mm])y|(?-i:[Oo])ur)\s+(?P<age>\d{1,2}|"
    + "|".join(w for w in lx.NUMBER_WORDS if " " not in w)
    + r")(?:[- ](?:years?|yrs?)[- ]olds?|\s?yo|-yo)\s+"
    r"(?:(?P<rel>son|daughter|boy|girl|kid|child)\s+)?(?P<name>(?-i:[A-Z])[a-z'-]+)\b"
)


def _aged_child(match: re.Match[str]) -> str:
    name = match.group("name")
    if not is_name(name) or name.casefold() in lx.CAR_BRANDS | lx.PHONES:
        return match.group(0)
    age = match.group("age")
    years = int(age) if age.isdigit() else lx.NUMBER_WORDS[age.casefold()]
    return f"{match.group('my')} {match.group('rel') or 'child'} {name} ({years})"


# "Chloe's gone over to Perth", "Tom's started at Arup": a name's "'s" before a past
# participle is "has", not whose.
_NAME_HAS = re.compile(
    r"\b(?P<name>(?-i:[A-Z])[a-z]+)'s\s+(?=(?:just\s+|finally\s+|already\s+)?(?:gone|been|got"
    r"|moved|started|left|finished|become|quit|taken|found|passed|retired|joined|landed|bought"
    r"|sold|decided|switched|transferred)\b)"
)


def _my_relation(match: re.Match[str]) -> str:
    """ "Wife Lorraine's a teaching assistant", "gf xiaoyu is in chengdu": the dropped "my"
    (a lower-case word after the relation must be a name: "mum just called" is no one's)."""
    lower = match.group("lower")
    if lower is not None and not is_name(lower, lower_ok=True):
        return match.group(0)
    return f"My {match.group('rel').casefold()} "


def _spell_out(text: str) -> str:
    text = _BARE_CONTRACTION.sub(lambda m: _BARE_CONTRACTIONS[m.group(1).casefold()], text)
    text = _NAME_THEN_WHO.sub(_who_in_brackets, text)
    text = _WHO_THEN_NAME.sub(_who_in_brackets, text)
    text = _POSSESSIVE_ME.sub(lambda m: "My " if m.group("me")[0] == "M" else "my ", text)
    text = _THE_PARTNER.sub(_the_partner, text)
    text = _NAME_THE_PET.sub(_the_pet, text)
    text = _MEET_THE_PET.sub(_met_pet, text)
    text = _NAME_MY_PET.sub(_named_pet, text)
    text = _SOMEONE_NAMED.sub(_someone_named, text)
    text = _NAME_HAS.sub(r"\g<name> has ", text)
    text = _AGED_CHILD.sub(_aged_child, text)
    text = _NAMED_THEN_AGE.sub(r"\g<name>. \g<name> is \g<age>", text)
    text = _MY_YOUNGEST.sub(lambda m: f"{m.group('my')} {m.group('which')} child", text)
    text = _BDAY.sub(_bday, text)
    text = _BARE_RELATION.sub(_my_relation, text)
    # After the dropped "my" is put back: "fiance carlo." is "My fiance Carlo." too.
    text = _MY_RELATION_NAMED_LOWER.sub(_named_lower, text)
    text = _NAME_IS_MY.sub(lambda m: f"{m.group('name')} is ", text)
    text = _APPOSITIVE.sub(
        lambda m: f"{m.group('my').capitalize()} {m.group('rel')} {m.group('name')} ", text
    )
    return _LONG_WORD.sub(_respelled, text)


_LONG_WORD = re.compile(r"\b[a-z]{7,}\b")


def _respelled(match: re.Match[str]) -> str:
    """ "alergic", "vegitarian", "divorsed": a word the rules key on, mistyped by one letter
    (long words only, whose one-letter neighbours are seldom words themselves)."""
    word = match.group(0)
    if word in lx.TRIGGER_WORDS:
        return word
    for known in lx.TRIGGER_WORDS:
        if word.startswith(known) or known.startswith(word):
            continue  # "daughters", "engineered": the word itself, inflected
        if abs(len(known) - len(word)) <= 1 and known[0] == word[0] and _one_edit(word, known):
            return known
    return word


def _one_edit(a: str, b: str) -> bool:
    """Whether ``a`` becomes ``b`` by one insertion, deletion, substitution or swap."""
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        if a[i + 1 :] == b[i + 1 :]:
            return True
        return a[i : i + 2] == b[i + 1 : i - 1 : -1] and a[i + 2 :] == b[i + 2 :]
    return a[i:] == b[i + 1 :]


_AND_IDIOMS = re.compile(
    r"\b(?:back and forth|on and off|off and on|up and down|ups and downs|here and there"
    r"|now and then|now and again|over and over|again and again|more and more|less and less"
    r"|trial and error|pros and cons|wear and tear|sick and tired|rock and roll|by and large"
    r"|odds and ends|bits and pieces|touch and go|give and take|sooner or later)\b",
    re.IGNORECASE,
)


def sentences(text: str) -> list[str]:
    """Split ``text`` into sentences (at end punctuation, semicolons, dashes and newlines)."""
    text = re.sub(r"([!?])[!?1]+", r"\1", _spell_out(text.translate(QUOTES)))  # "!!!", "?!"
    # "after a lot of back and forth I've started eating fish": an idiom's "and" joins no
    # statements.
    text = _AND_IDIOMS.sub(lambda m: m.group(0).replace(" ", "-"), text)
    # "im kofi 👋 29, barista in leeds": a wave inside an introduction is a comma.
    text = _WAVE_IN_INTRODUCTION.sub(r"\1, ", text)
    # "worth a shot 😂 ok real question: I teach ...": elsewhere an emoji ends what it follows.
    text = _EMOJI_BETWEEN.sub("\n", text)
    text = _asides_after(text)
    clean = " ".join(text.replace("\n", " \n ").split(" "))
    out: list[str] = []
    for sentence in _SENTENCE_SPLIT.split(clean):
        if sentence and sentence.strip():
            out.extend(
                part for said in opening_statements(sentence.strip()) for part in introduction(said)
            )
    return out


# "(the one on Lexington, I go every saturday since I live in Asheville)": an aside of a few
# words ("Mia (6)" stays where it is), and where its sentence ends.
_ASIDE = re.compile(r"\s*\(([^()]*\s[^()]*\s[^()]*)\)")
_VERB_GOES_ON = re.compile(
    r"\s*(?:has|have|had|is|was|are|were|will|would|can|could|just|also|still|now|never|always"
    r"|says|said|told|tells|got|gets|lives|works|moved|started|turned|did|does|do)\b",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|\n|;|\s-{1,2}\s|\s\u2014\s")


def _asides_after(text: str) -> str:
    """ "My friend Orla (we were at school in Sligo) has just told me she's ill": an aside
    between a subject and its verb is a sentence of its own, said just before the one it
    interrupts, which reads on without it (split there, "has just told me" would lose who
    told, and "Sligo" would be who "she" is; said after, it would stand between Orla and the
    next "she"). Elsewhere ("Maya is flying in (she's a dentist) and ...") the aside is a
    sentence where it stands, so its "she" is who was just named."""
    start = 0
    while (aside := _ASIDE.search(text, start)) is not None:
        said = aside.group(1).strip()
        rest = text[aside.end() :]
        if _VERB_GOES_ON.match(rest) is None:
            text = f"{text[: aside.start()]}\n{said}\n{rest.lstrip(' ')}"
            start = aside.start() + len(said) + 2
            continue
        head = text[: aside.start()]
        ends = list(_SENTENCE_END.finditer(head))
        opening = ends[-1].end() if ends else 0
        gap = " " if rest[:1].isalnum() else ""
        text = f"{head[:opening]}\n{said}\n{head[opening:].lstrip(' ')}{gap}{rest}"
        start = opening + len(said) + 2 + len(head) - opening
    return text


_EMOJI_BETWEEN = re.compile(r"(?<=\w)\s*[\U0001f300-\U0001faff\u2600-\u27bf\ufe0f\u200d]+\s+(?=\w)")

_WAVE_IN_INTRODUCTION = re.compile(
    "^((?:(?:hi+|hey+|hiya|hell+o+)[,!]?\\s+)?(?:I'm|i am)\\s+[A-Za-z][\\w'\\-]*)\\s*"
    "[\U0001f300-\U0001faff\u2600-\u27bf]+[,.!]?\\s*(?=\\d|from\\b|in\\b|based\\b)",
    re.IGNORECASE,
)


def clauses(sentence: str) -> list[str]:
    """Split a sentence at conjunctions that start a new statement.

    "I moved to Lisbon and I work as a nurse" and "... and work as a nurse" are two
    statements; "I like tea and coffee" and "two cats, Miso and Tofu" are one.
    """
    parts: list[str] = []
    start = 0
    for match in _CONJUNCTION.finditer(sentence):
        after = sentence[match.end() :]
        before = sentence[start : match.start()].strip(" ,")
        if re.fullmatch(NAME_TOKEN, before) and not re.fullmatch(r"(?i:i|me)", before):
            continue  # "Ana and Luis split up": one subject, two people
        if re.fullmatch(r"(?i:i|me)", before) and re.match(rf"(?-i:{NAME_TOKEN})\s", after):
            continue  # "Me and Jess made it official": one subject, two people
        if re.match(r"(?i:i|me)\s", after) and re.fullmatch(
            r"(?:my|our)\s+[\w\-]+(?:\s+[\w\-']+)?", before, re.IGNORECASE
        ):
            continue  # "my partner Daniel and I got engaged": one subject, two people
        if _starts_statement(after):
            parts.append(sentence[start : match.start()])
            start = match.end()
    parts.append(sentence[start:])
    return [p.strip(" ,") for p in parts if p.strip(" ,")]


_JOB_AT = re.compile(
    r"(?:an?\s+)?(?P<job>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2})\s+(?:at|for|with)\s+\w", re.IGNORECASE
)
COMPLEMENT_START = frozenset(
    [
        "obsessed",
        "allergic",
        "married",
        "engaged",
        "divorced",
        "based",
        "originally",
        "vegan",
        "vegetarian",
        "pregnant",
        "retired",
        "addicted",
        "fluent",
    ]
)


def _starts_statement(text: str) -> bool:
    words = text.split(" ")
    while len(words) > 1 and words[0].casefold().strip(",") in (
        CHANGE_ADVERBS | SKIP_ADVERBS | {"then", "also", "completely"}
    ):
        words.pop(0)
    if words and words[0].casefold() in COMPLEMENT_START:
        return True
    if len(words) <= 3 and words[0].casefold().strip(".!") in lx.DIETS:
        return True  # "..., so basically pescatarian now": the diet, its "I'm" left out
    if NAMING.match(" ".join(words)):
        return True  # "..., calling him rex"
    if (
        " ".join(words[:2]).casefold() in ("no longer", "not anymore")
        or words[0].casefold() == "not"
    ):
        return True  # "retired this year and no longer works"
    if len(words) > 1 and words[0].casefold() in (MODALS | {"will", "won't", "can't", "never"}):
        return True  # "... and will never be rich": its own clause, with the subject before
    if re.match(
        r"(?:after|following)\s+[\w' -]{1,40}?,?\s+(?:i|i've|i'm|we|we've|we're)\s", text, re.I
    ):
        return True  # "... and after a lot of back-and-forth I've started eating fish"
    if re.match(r"turning\s+\d", text, re.I):
        return True  # "I'm 29 and turning 30 next week": two statements, one subject
    if re.match(
        r"(?:currently\s+|now\s+)?(?:living|working|studying|based|residing|stationed|posted"
        r"|deployed)\s+(?:in|at|as|for|from)\b"
        r"|(?:currently\s+|now\s+|just\s+)?(?:posted|deployed|redeployed|stationed)\s+to\b",
        text,
        re.I,
    ):
        return True  # "from Brazil but living in Toronto": the subject before, a new statement
    if re.match(
        r"\d{1,3}\s+years?\s+(?:of\s+age|old)\b|in\s+(?:\d+\w*|year\s+\d+)\s+(?:grade|year|class)\b"
        r"|in\s+(?:grade|year|class)\s+\d+\b",
        text,
        re.I,
    ):
        return True  # "a retired teacher, 68 years of age", "I'm 17 and in 11th grade"
    if re.match(r"[1-9]\d\s+(?:now|today|as\s+of)\b", text, re.I):
        return True  # "birthday yesterday, 28 now": the age now, its "I'm" left out
    if re.match(lx.CLINICIAN_SAYS, text, re.IGNORECASE):
        return True  # "..., and the doctor told me I have celiac disease"
    job_at = _JOB_AT.match(text)
    if job_at is not None and lx.is_occupation(job_at.group("job")):
        return True  # "i am in munich, engineer at bmw": the job, its "I'm" left out
    opened = _TIME_OPENING.match(text)
    if opened is not None and _starts_statement(text[opened.end() :]):
        return True  # "... and in my free time i run": a time said first, then the statement
    text = " ".join(words)
    if HEALED.match(text) or NO_MORE.match(text) or _NEW_SUBJECT.match(text):
        return True
    match = _STATEMENT_START.match(text)
    if match is not None:
        word = match.group(0).strip()
        if word[:1].isupper() and word.casefold().rstrip("'s") not in lx.NOT_NAMES:
            # A name must be followed by what a predicate starts with ("and Bob works ...").
            rest = text[match.end() :]
            return starts_predicate(rest) and not word.casefold().startswith(("i ", "i'"))
        return True
    first = text.split(" ", 1)[0].casefold().strip(",")
    second = text.split(" ")[1].casefold().strip(",.!") if len(text.split()) > 1 else ""
    if first in ("was", "were", "got", "get", "gets") and second in PARTICIPLES:
        return True  # "I passed the exam and was promoted to inspector"
    if (
        first.endswith("ing")
        and len(first) > 5
        and (
            (stem(first) in VERBS and second in ("a", "an", "the", "my", "our", "some"))
            or second.isdigit()
        )
    ):
        return True  # "I'm 24 and finishing a degree", "I'm vegan and hosting 6 people"
    # A verb with its subject left out ("... and work as a nurse"), not a gerund in a list.
    return (
        (stem(first) in VERBS or first in IRREGULAR)
        and not first.endswith("ing")
        and len(text.split()) > 1
        and first not in ("like", "love")
    )


_TIME_OPENING = re.compile(
    r"(?:in\s+(?:my|our)\s+(?:free|spare|own)\s+time|on\s+(?:the\s+)?weekends?|at\s+weekends?"
    r"|at\s+night|these\s+days|most\s+(?:days|nights|evenings|mornings)|after\s+work"
    r"|in\s+the\s+(?:evenings?|mornings?)|tomorrow|tonight|yesterday|today|(?:last|this)\s+(?:week"
    r"|month|year|night|morning)|(?:next\s+|this\s+|last\s+)?(?:mon|tues|wednes|thurs|fri|satur"
    r"|sun)day)\s*,?\s+(?=(?:i|we)\b|" + lx.CLINICIAN_SAYS + r")",
    re.IGNORECASE,
)

HEALED = re.compile(
    r"^(?:my\s+|(?:the\s+)?(?P<whose>user|(?-i:[A-Z][\w\-]+))'s\s+|the\s+)?"
    r"(?P<part>[\w\-]+?)(?:'s|\s+is|\s+has)?\s+(?:(?:fully|finally|completely"
    r"|all)\s+)?(?P<how>healed|recovered|better|back to normal)\b",
    re.IGNORECASE,
)

NAMING = re.compile(
    r"^(?:(?:we|i)(?:'re|'m|'ve|'d| are| am| have| had)?\s+(?:just\s+|finally\s+)?)?"
    r"(?:calling|naming|named|called|call|name"
    r"|renamed|renaming|rename)"
    r"\s+(?P<who>him|her|it)\s+(?=\w)",
    re.IGNORECASE,
)
