"""The embedded default extractor: durable facts from what the user says, offline.

Used when no ``[llm]`` is configured, so a retrospective works end to end out of the box. It
answers a completion request the way a model would: one ``remember`` tool call per fact, or
the exact reply "Nothing new to save.". Each call carries the fact's subject, predicate and
object (read by :mod:`plugins.extractors.claims`) and the id of the message that said it.

What it reads: the user's own turns only (never the assistant's suggestions or restatements,
never tool output). What it passes over, sentence by sentence: questions, hypotheticals and
wishes, plans still being weighed ("thinking about", "maybe"), jokes and sarcasm, other
people's words (quotes, "she said"), requests to the assistant ("write me ...", "translate
..."), and anything the grammar cannot place. A sentence about someone else becomes a fact
about them ("My sister Maya lives in Porto": Maya lives in Porto; Maya is the user's sister).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from plugins.extractors import lexicon as lx
from plugins.extractors.claims import (
    ATTRIBUTE_NOUNS,
    Claim,
    is_school_stage,
    mentions,
    parse,
    phone_name,
    sentences,
    third_person,
    vague,
)
from plugins.llm.types import Completion, CompletionRequest, ToolCall, TranscriptEntry, Usage

EXTRACTOR_NAME = "offline-extractor"
EXTRACTOR_ID = "statements-v2"
EXTRACTOR_TAG = f"extractor:{EXTRACTOR_ID}"
NOTHING_NEW = "Nothing new to save."

# -- what is not a statement of fact ---------------------------------------------------------

_QUESTION_START = re.compile(
    r"^(?:what|how|why|where|when|which|who|whom|whose|do|does|did|should|shall|can|could"
    r"|would|will|is|are|am|was|were|have|has|any idea|any tips|any thoughts|thoughts on"
    r"|wondering|i wonder)\b",
    re.IGNORECASE,
)
_HYPOTHETICAL = re.compile(
    r"\b(?:if|what if|suppose|supposing|imagine|imagining|pretend|hypothetically|in theory"
    r"|wish|i'd(?!\s+(?:take|pick|choose)\b)|i would(?!\s+(?:take|pick|choose)\b)|would be"
    r"|someday|one day|dream of|dreaming of|fantasi[sz]e)\b",
    re.IGNORECASE,
)
_WEIGHING = re.compile(
    r"\b(?:thinking (?:about|of)|considering|might|maybe|perhaps|probably|possibly|not sure"
    r"|debating|wondering|hoping to|hope to|want to|wanna|would like to|trying to decide"
    r"|on the fence|tempted to|toying with|torn between|weighing|figuring out|planning on"
    r"|looking into|looking at|deciding|undecided|unsure|may or may not)\b",
    re.IGNORECASE,
)
_SARCASM = re.compile(
    r"(?:/s\b|\bjk\b|\bj/k\b|just kidding|\bkidding\b|yeah right|\bas if\b|\bsarcasm"
    r"|said no ?one ever|said nobody ever"
    r"|^\s*oh (?:great|joy|wonderful|fantastic|sure|yeah|perfect|lovely)\b|\brofl\b)",
    re.IGNORECASE,
)
# Irony that belongs to one clause: "i work nights at a bakery and will never be rich lol"
# jokes about the riches, not the job; an eye-roll turns praise around, not a diagnosis.
_IRONIC_CLAUSE = re.compile(
    r"\b(?:not|never)\b.{0,20}\blol\b|(?:\b(?:love|loving|great|fantastic|amazing|best|perfect"
    r"|thrilled|wonderful|awesome|fun)\b.*(?:🙄|🙃))",
    re.IGNORECASE,
)
_LAUGH = re.compile(r"\b(?:lol|lmao|haha+|hehe+|rofl)\b|😂|🤣|😜|😉", re.IGNORECASE)
_HYPERBOLE = re.compile(
    r"\b(?:totally|obviously|definitely|literally|clearly|of course|sure)\b|\b(?:millionaire"
    r"|billionaire|astronaut|president|king|queen|superhero|wizard|unicorn|genius|celebrity"
    r"|famous|rockstar|secret agent|spy|vampire|robot|alien|basically|practically"
    r"|at this point|professional)\b",
    re.IGNORECASE,
)
_REPORTED = re.compile(
    r"\b(?:said|says|say|told me|tells me|tell me that|wrote|writes|texted|asked|asks|replied"
    r"|according to|claims?|claimed|posted|tweeted|quote|quoted|the (?:email|message|letter"
    r"|text|sign|note|ad|article|book|song|movie|show|line) (?:said|says|reads|read))\b",
    re.IGNORECASE,
)
_CLINICIAN_SAYS = re.compile(
    r"^(?:(?:so|and|well|ok|okay|update|today|btw)\W+)*" + lx.CLINICIAN_SAYS + r"\s+(?=i\b|i'm\b)",
    re.IGNORECASE,
)
_QUOTED = re.compile(
    "\"[^\"]*\"|(?<!\\w)'[^']{3,}'(?!\\w)|\u201c[^\u201d]*\u201d|\u2018[^\u2019]{3,}\u2019"
)
_REQUEST = re.compile(
    r"^(?:please\s+)?(?:write|translate|tell me|give me|help|show me|explain|summari[sz]e|draft"
    r"|make|create|find|list|generate|compose|rewrite|rephrase|fix|check|suggest|recommend"
    r"|remind me|let's|lets|can you|could you|would you|will you|pls|plz|say|describe|calculate"
    r"|convert|compare|book|search|look up|proofread|edit|correct|answer|ignore|forget|act as"
    r"|pretend|roleplay|respond|reply)\b",
    re.IGNORECASE,
)
_CAPS_EMPHASIS = re.compile(r"\b(?:LOVE|ADORE|ENJOY|LIKE|BEST|GREAT|AMAZING|FUN)\b")


def statement_sentences(text: str) -> list[str]:
    """Return the sentences of a user's turn that can state a fact (see the module doc)."""
    sincere = _SINCERE.search(text)
    if sincere is not None:
        # "lol jk I'm a billionaire astronaut. for real tho I work as a nurse": what came
        # before "for real" was the joke; only what follows it is said in earnest.
        return statement_sentences(text[sincere.end() :])
    kept: list[str] = []
    whole = _without_quoted_message(text.strip())
    said = [part for sentence in sentences(whole) for part in _opening_reason(sentence)]
    for i, sentence in enumerate(said):
        if i + 1 < len(said) and _IRONY_AFTER.match(said[i + 1]):
            continue  # "i totally LOVE working saturdays. said no one ever": taken back at once
        # "could you call me Greta from now on?" asks for a name to be used: a statement.
        sentence = (
            _ASKED_TO_CALL.sub("call me ", sentence).rstrip("?")
            if _ASKED_TO_CALL.match(sentence)
            else sentence
        )
        # "I'm a librarian in Lyon, can you recommend ...?": the statement before the question.
        sentence = _WEIGHED_TAIL.sub("", _QUESTION_TAIL.sub("", sentence))
        sentence = _statement_before_question(sentence)
        sentence = _before_report(_MENTION_THAT.sub("", sentence))
        if _is_statement(sentence):
            kept.append(_QUOTED.sub(_title_or_blank, sentence).strip())
    return [s for s in kept if s]


_SINCERE = re.compile(
    r"(?:^|[.!?,;]\s*|\s)(?:but\s+|ok\s+|okay\s+)?(?:for real(?:\s+(?:tho|though))?|seriously"
    r"\s+(?:tho|though)|but seriously|jok(?:es|ing) aside|in all seriousness|real talk"
    r"|no but really|but really|srsly tho|in real life|irl|out of character|ooc"
    r"|realistically(?:\s+(?:tho|though))?)\b[,:.!]*\s*",
    re.IGNORECASE,
)
# Conditions said as what someone is ("lactose intolerant"), not what someone has.
_CONDITION_ADJECTIVE = re.compile(
    r"(?:intolerant|diabetic|an(?:a)?emic|asthmatic|epileptic|autistic|dyslexic|deaf|blind"
    r"|colou?rblind|c(?:o)?eliac|sober|immunocompromised|insomniac|arthritic)$",
    re.IGNORECASE,
)
_TITLE_SMALL_WORDS = frozenset({"a", "an", "the", "of", "and", "in", "on", "to", "for", "at"})


def _title_or_blank(match: re.Match[str]) -> str:
    """Keep a quoted title ("Becoming Nicole") as its words; drop quoted speech, which is
    someone else's words and states nothing about the speaker."""
    inner = match.group(0)[1:-1].strip()
    words = inner.split()
    if not 1 <= len(words) <= 6:
        return " "
    capitalised = [w for w in words if w.casefold() not in _TITLE_SMALL_WORDS]
    titled = capitalised and all(w[:1].isupper() or w[:1].isdigit() for w in capitalised)
    speech = any(w.casefold() in ("i", "i'm", "we", "me", "my") for w in words)
    return inner if titled and not speech else " "


_SUBORDINATE = re.compile(
    r",?\s+(?:in case|if|unless|so that|because|since|whenever|but|though|although|so)\b.*$",
    re.IGNORECASE,
)


def is_statement_clause(clause: str) -> bool:
    """Return True if one clause of a kept sentence can state a fact (not weighed, wished,
    joked or asked). Only the main part counts: "my birthday is in October, in case you want
    to send cake" states the birthday."""
    main = _SUBORDINATE.sub("", clause) or clause
    return not (
        _HYPOTHETICAL.search(main)
        or _WEIGHING.search(main)
        or _SARCASM.search(main)
        or _IRONIC_CLAUSE.search(clause)
        or main.strip().endswith("?")
    )


# A sentence that only says the one before was not meant.
_IRONY_AFTER = re.compile(
    r"^\s*(?:said no ?one ever|said nobody ever|not|jk|j/k|/s|just kidding|kidding|yeah right)"
    r"[\s.!🙄🙃]*$",
    re.IGNORECASE,
)


_ASKED_TO_CALL = re.compile(
    r"^(?:(?:ok|okay|so|hey)\W+)?(?:random\s+but\s+)?(?:could|can|would|will)\s+(?:you|u|ya)\s+"
    r"(?:please\s+|pls\s+)?(?:just\s+)?call\s+me\s+",
    re.IGNORECASE,
)
_QUESTION_TAIL = re.compile(
    r",\s*(?:can|could|would|will|do|does|any|what|how|should|is|are)\b[^,]*\?\s*$"
    # "hi im julia, can you help me write a bio": the request, asked without a question mark
    r"|,\s*(?:(?:so\s+)?(?:can|could|would|will)\s+you|pls|please|need help|help me"
    r"|(?:so\s+)?any\s+(?:ideas|tips|suggestions|recommendations|advice))\b.*$",
    re.IGNORECASE,
)


def _before_report(sentence: str) -> str:
    """ "my sister sophie is a vet and she says i eat too much meat": the user's own clause
    before someone else's words; a sentence that opens with them is left whole (and refused).
    Quoted words after a colon are someone else's too ("she wrote: 'I'm engaged!'")."""
    sentence = _QUOTED_TAIL.sub("", sentence)
    label = re.match(r"^([\w ]{1,30}):\s+(?=\S)", sentence)
    labelled = label is not None and label.group(1).casefold().strip() not in ATTRIBUTE_NOUNS
    unasked = label is not None and re.search(
        r"\b(?:nobody|no one|no-one)\s+asked\b", label.group(1)
    )
    if label is not None and labelled and (unasked or not _REPORTED.search(label.group(1))):
        sentence = sentence[label.end() :]  # "update nobody asked for: I'm eating meat again"
    if _CLINICIAN_SAYS.match(sentence):
        return sentence
    reported = _REPORTED.search(sentence)
    if reported is None:
        return sentence
    head = sentence[: reported.start()]
    cuts = list(re.finditer(r",\s+|\s+(?:and|but|so)\s+", head))
    if not cuts or len(head[: cuts[-1].start()].split()) < 3:
        return sentence
    return head[: cuts[-1].start()].strip()


# "I'm a product manager at Shopify, and considering Wharton": what is weighed comes after.
_WEIGHED_TAIL = re.compile(
    r",?\s+(?:and|but)\s+(?:i'm\s+|im\s+|am\s+)?(?:thinking|considering|wondering|debating"
    r"|hoping|planning on|tempted|torn)\b.*$|,\s+(?:maybe|perhaps|probably)\b.*$",
    re.IGNORECASE,
)


def _statement_before_question(sentence: str) -> str:
    """ "my best friend Chloe just got a job at NASA JPL, gift ideas?": the statement before a
    short question tacked on after a comma."""
    if not sentence.rstrip().endswith("?") or ", " not in sentence:
        return sentence
    head, _, tail = sentence.rpartition(", ")
    if len(tail.split()) > 8 or len(head.split()) < 3 or _QUESTION_START.match(head):
        return sentence
    return head


_OPENING_SINCE = re.compile(
    r"^(?:ever\s+since|since|now\s+that|after)\s+(?P<fact>(?:we|i|i'm|we're)\b[^,]+?)"
    r"(?:,\s*|\s+(?=(?:i|i'm|im|we|it's|its|my)\s))(?P<rest>.+)$",
    re.IGNORECASE,
)


def _opening_reason(sentence: str) -> list[str]:
    """ "Since we moved to Vancouver in March I keep getting lost": what the opening clause
    says is a statement of its own, and so is the rest."""
    match = _OPENING_SINCE.match(sentence.strip())
    if match is None:
        return [sentence]
    return [match.group("fact"), match.group("rest")]


# "and mention I speak Polish": a request whose object is the user's own statement.
_MENTION_THAT = re.compile(
    r"^(?:and\s+|also\s+)?(?:pls\s+|please\s+)?(?:mention|add|say|note|include)\s+(?:that\s+)?"
    r"(?=(?:i|i'm|im|my|we|we're)\b)",
    re.IGNORECASE,
)
_QUOTE_OPENS = {"'": "'", '"': '"', "\u201c": "\u201d", "\u2018": "\u2019"}


def _without_quoted_message(text: str) -> str:
    """Drop a message quoted after a colon ("she wrote: 'Hi! I'm engaged to Karim!'"), which
    may hold sentences and apostrophes of its own: to its closing quote, else to the end."""
    opening = re.search(r":\s*(['\"\u201c\u2018])", text)
    if opening is None:
        return text
    close = _QUOTE_OPENS[opening.group(1)]
    tail = text[opening.end() :]
    ends = [m.end() for m in re.finditer(re.escape(close) + r"(?=[\s.!?,)]|$)", tail)]
    return text[: opening.start()] + (tail[ends[-1] :] if ends else "")


_QUOTED_TAIL = re.compile(r":\s*['\"\u201c\u2018].*$")


def _is_statement(sentence: str) -> bool:
    s = sentence.strip()
    if not s or _QUESTION_START.match(s) or s.endswith("?"):
        return False
    if _SARCASM.search(s) or _HYPOTHETICAL.match(s):
        return False
    if _LAUGH.search(s) and _HYPERBOLE.search(s):
        return False
    if _CAPS_EMPHASIS.search(s) and re.search(r"\bjust\b", s, re.I):
        return False
    if _REPORTED.search(_CLINICIAN_SAYS.sub("", s, count=1)) or _REQUEST.match(s):
        return False
    return not re.match(r"^\s*(?:system|assistant|user)\s*:", s, re.I)


# -- facts in words --------------------------------------------------------------------------


def _who(subject: str) -> str:
    if subject == "user":
        return "The user"
    if subject.startswith("user's "):
        return "The " + subject
    return subject


def _mid(who: str) -> str:
    """The subject inside a sentence ("The user" -> "the user")."""
    return "the" + who[3:] if who.startswith("The ") else who


def _possessive(who: str) -> str:
    return f"{who}'" if who.endswith("s") and not who.endswith("'s") else f"{who}'s"


def _a(noun: str) -> str:
    """ "a MacBook", "an iPad", "an HP laptop" is beyond this: "a" unless a vowel starts it."""
    return f"an {noun}" if noun[:1].casefold() in "aeio" else f"a {noun}"


def _article(value: str) -> str:
    v = value.strip()
    if not v or re.match(r"^(?:an?|the|my|his|her|their|some|\d+)\s", v, re.I):
        return v
    if v[:1].isupper() or (v.endswith("s") and not v.endswith("ss")):
        return v
    # "a used car", "a university": a vowel that sounds like "y" or "w" takes "a".
    sounds_y = re.match(r"(?i)(?:us[eu]|uni|eu|one\b)", v) is not None
    return f"an {v}" if v[:1].casefold() in "aeiou" and not sounds_y else f"a {v}"


def _base(verb_phrase: str) -> str:
    """ "eats meat" -> "eat meat" (for "does not ...")."""
    first, _, rest = verb_phrase.partition(" ")
    if first.endswith("ies"):
        first = first[:-3] + "y"
    elif first.endswith(("ches", "shes", "sses", "xes")):
        first = first[:-2]
    elif first.endswith("s") and not first.endswith("ss"):
        first = first[:-1]
    return f"{first} {rest}".strip()


def render(claim: Claim) -> str | None:
    """Return one self-contained sentence saying ``claim``, or None if it says nothing."""
    who = _who(claim.subject)
    v = claim.value.strip()
    a = claim.attribute
    q = claim.qualifier
    neg, past = claim.negated, claim.past
    whose = _possessive(who)
    # When it happened is the fact's valid time (see claims.when_offset), not its text.
    when = ""
    text: str | None
    if a == "residence":
        text = (
            f"{who} used to live in {v}"
            if past
            else f"{who} no longer lives in {v}"
            if neg
            else f"{who} lives in {v}"
        )
    elif a == "origin":
        text = f"{who} is from {v}"
    elif a == "employer":
        if neg and q in ("laid off", "fired", "let go", "sacked", "made redundant"):
            text = f"{who} was {q}" + (f" from {v}" if v else "")
        elif neg and q in ("quit", "left"):
            text = f"{who} {q} their job" + (f" at {v}" if v else "")
        elif neg:
            text = f"{who} no longer works at {v}" if v else f"{who} left their job"
        elif v == "self-employed":
            text = f"{who} is self-employed"
        else:
            text = f"{who} used to work at {v}" if past else f"{who} works at {v}"
    elif a == "job":
        if v == "retired":
            text = f"{who} retired from {q}" if q else f"{who} is retired"
        elif v.startswith("teaches "):
            text = f"{who} {v}"
        else:
            verb = "used to work" if past else "no longer works" if neg else "works"
            text = f"{who} {verb} as {_article(v)}"
    elif a == "medication":
        text = f"{who} takes {v}" if not neg else f"{who} no longer takes {v}"
    elif a == "housing":
        text = f"{who} {v}" if not neg else None
    elif a == "blood_type":
        text = f"{whose} blood type is {v}"
    elif a == "work_field":
        # "I've never worked in coffee" is no field of work; "used to work in retail" was one.
        text = None if neg else f"{who} used to work in {v}" if past else f"{who} works in {v}"
    elif a == "work_mode":
        text = f"{who} works remotely" if v == "remote" else f"{who} works {v}"
    elif a == "relationship":
        if q in ("broke up", "split up") and not neg:
            text = f"{who} {q} with their partner and is {v}"
        else:
            text = f"{who} is not {v}" if neg else f"{who} is {v}"
    elif a == "partner":
        if neg:
            text = f"{who} is no longer with {v}" if v else None
        else:
            text = f"{whose} {q or 'partner'} is {v}"
    elif a == "age":
        text = f"{who} is in their {v}" if v.endswith("s") else f"{who} is {v} years old"
    elif a == "birthday":
        text = f"{whose} birthday is {v}"
    elif a == "birth_year":
        text = f"{who} was born in {v}"
    elif a == "name":
        text = f"{whose} name is {v}"
    elif a == "surname":
        text = f"{whose} surname is {v}"
    elif a == "nickname":
        text = f"{who} goes by {v}"
    elif a == "diet":
        text = f"{who} is no longer {v}" if neg or past else f"{who} is {v}"
    elif a == "allergy":
        text = f"{who} is not allergic to {v}" if neg else f"{who} is allergic to {v}"
    elif a == "condition":
        if q == "healed":
            text = f"{_possessive(who)} {v} has healed"
        elif v.startswith("expecting "):
            text = f"{who} is {v}"
        elif v == "pregnant":
            text = f"{who} is no longer pregnant" if neg else f"{who} is pregnant"
        elif not v and neg:
            text = f"{who} has no known health conditions"
        elif _CONDITION_ADJECTIVE.search(v):
            text = f"{who} is no longer {v}" if neg or past else f"{who} is {v}"
        else:
            text = f"{who} no longer has {v}" if neg or past else f"{who} has {v}"
    elif a == "pet":
        # "dog Pepper" is a dog named Pepper; "guinea pig" is a kind of its own.
        words = v.split()
        first_name = next((i for i, w in enumerate(words) if w[:1].isupper()), len(words))
        kind, name = " ".join(words[:first_name]), " ".join(words[first_name:])
        pet = f"a {kind} named {name}" if name else _article(kind) if kind else "pets"
        text = f"{who} no longer has {pet}" if neg else f"{who} has {pet}"
        if neg and not v:
            text = f"{who} has no pets"
        if q == "renamed" and name and not neg:
            text = f"{_possessive(who)} {kind}'s name is now {name}"
    elif a == "family":
        theirs = _possessive(_mid(who))
        if neg:
            text = f"{who} has no {q or 'family'}s" if not v else f"{v} is no longer {theirs} {q}"
        elif v and v != q:
            text = f"{v} is {theirs} {q}" if q else f"{v} is family of {_mid(who)}"
        else:
            text = f"{who} has {_article(q or v)}"
    elif a == "family_count":
        text = f"{who} has {v} {q}ren" if q == "child" else f"{who} has {v} {q}s"
    elif a == "likes":
        if past:
            text = f"{who} used to like {v}"
        elif neg and claim.change:
            text = f"{who} no longer likes {v}"
        elif q == "can't stand":
            text = f"{who} can't stand {v}"
        elif q is not None:
            text = f"{who} {third_person(q)} {v}"
        else:
            text = f"{who} dislikes {v}" if neg else f"{who} likes {v}"
    elif a == "preference":
        alt = f" over {claim.alternative}" if claim.alternative else ""
        text = f"{who} does not prefer {v}" if neg else f"{who} prefers {v}{alt}"
    elif a == "favourite":
        text = f"{whose} favourite {q or 'thing'} is {v}"
    elif a in ("habit", "hobby"):
        if past:
            text = f"{who} used to {_base(v)}"
        elif neg:
            text = f"{who} no longer {v}" if claim.change else f"{who} does not {_base(v)}"
        else:
            text = f"{who} {v}"
    elif a == "language":
        text = f"{who} speaks {v}"
    elif a == "project":
        # "writing a novel": what the user is working on.
        text = f"{who} is no longer {v}" if neg or past else f"{who} is {v}"
    elif a == "learning":
        taking = re.search(r"\b(?:class|classes|course|lessons)$", v, re.I)
        text = f"{who} is taking {_article(v)}" if taking else f"{who} is learning {v}"
    elif a == "vehicle":
        car = _a(v) if v[:1].isupper() and not v.endswith("s") else _article(v)  # "a Honda Civic"
        text = f"{who} no longer has {car}" if neg else f"{who} drives {car}"
    elif a in ("phone", "computer"):
        v = phone_name(v) if a == "phone" else v
        device = v if re.match(r"^(?:an?|the|my|their)\s", v, re.I) else _a(v)
        if neg:
            text = f"{who} no longer uses {device}"
        else:
            text = f"{who} switched to {device}" if claim.change else f"{who} uses {device}"
    elif a == "possession":
        text = f"{who} no longer has {_article(v)}" if neg else f"{who} has {_article(v)}"
    elif a == "plan":
        if neg:
            text = f"{whose} {v} was cancelled"
        else:
            verb = v.split(" ", 1)[0]
            if not claim.when:
                # "she's moving to Pasadena": an arranged move needs no date to be a plan.
                text = f"{who} plans to {v}" if verb in ("move", "relocate") else None
            elif verb.islower() and verb in lx.PLANNED_VERBS:
                text = f"{who} plans to {v} {claim.when}"  # "plans to run the marathon in october"
            else:
                text = f"{whose} {v} is {claim.when}"
    elif a == "education":
        if q == "graduated":
            text = f"{who} graduated from {v}" if v else f"{who} graduated"
        elif neg:
            text = f"{who} dropped out of {v}" if v else f"{who} dropped out"
        elif past:
            owned = v if v[:1].isupper() or v.startswith(("a ", "an ", "the ")) else f"their {v}"
            text = f"{who} finished {owned}"
        elif is_school_stage(v):
            text = f"{who} is in {v}"
        else:
            text = f"{who} studies {v}"
    elif a == "school_year":
        text = f"{who} is {_a(v)}" if not (neg or past) else None
    elif a == "degree":
        text = f"{who} has {_article(v)}"
    elif a == "trait":
        text = f"{who} is a parent" if v == "parent" else f"{who} is {v}"
    elif a in ("nationality", "religion"):
        text = f"{who} is {v[:1].upper() + v[1:]}"
    elif a == "fear":
        text = f"{who} is afraid of {v}"
    elif a == "handle":
        plural = (q or "").endswith("s")
        text = f"{whose} {q or 'handle'} {'are' if plural else 'is'} {v}"
    elif a == "native_language":
        text = f"{whose} native language is {v}"
    elif a == "event":
        text = f"{who} {v}"
    elif a == "alive":
        text = f"{who} passed away" if neg else None
    elif a == "work":
        text = f"{who} {v} for a living" if not (neg or past) else None
    elif a == "any":
        if q == "no more":
            text = f"No more {v} for {_mid(who)}" if v else None
        else:
            text = f"{who} stopped {v}" if v else None
    elif a == "switch":
        text = f"{who} switched to {v}"
    else:
        text = None
    if text is None:
        return None
    return text + when + "."


_IMPORTANCE = {
    "name": 0.9,
    "allergy": 0.95,
    "condition": 0.8,
    "diet": 0.8,
    "residence": 0.8,
    "employer": 0.75,
    "job": 0.75,
    "partner": 0.8,
    "relationship": 0.75,
    "family": 0.75,
    "pet": 0.7,
    "plan": 0.7,
    "birthday": 0.8,
    "age": 0.6,
}


# -- the extractor ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Statement:
    """One fact found in a user's turn."""

    text: str
    claim: Claim
    message_id: str

    @property
    def importance(self) -> float:
        return _IMPORTANCE.get(self.claim.attribute, 0.5)


# What an assistant's question asks about, and how a short answer to it reads.
_ASKED: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), attribute)
    for pattern, attribute in (
        (
            r"\bwhere (?:do|did) you (?:live|grow up)\b|\bwhere are you (?:based|located|living)\b",
            "residence",
        ),
        (r"\bwhere are you from\b|\bwhere do you come from\b", "origin"),
        (
            r"\bwhat do you do(?: for (?:work|a living))?\b|\bwhat(?:'s| is) your (?:job|occupation"
            r"|profession|line of work)\b|\bwhat do you work as\b",
            "job",
        ),
        (r"\bwhat(?:'s| is) your name\b|\bwhat should i call you\b", "name"),
        (r"\bhow old are you\b", "age"),
    )
)


def _answer(question: str, reply: str) -> Claim | None:
    """A short reply to the assistant's question about the user ("Where are you based?" -
    "glasgow, southside") as the claim it makes."""
    asked = [q for q in sentences(question) if q.strip().endswith("?")]
    if not asked:
        return None
    attribute = next((a for pattern, a in _ASKED if pattern.search(asked[-1])), None)
    words = re.split(r"[,.;!?]", reply.strip(), maxsplit=1)[0].split()
    if attribute is None or not 1 <= len(words) <= 3:
        return None
    value = " ".join(words).strip()
    if attribute == "job":
        if not lx.is_occupation(value.casefold()):
            return None
        return Claim("user", "job", value)
    if attribute == "age":
        return Claim("user", "age", value) if value.isdigit() and 0 < int(value) < 120 else None
    if attribute == "name":
        return Claim("user", "name", value[:1].upper() + value[1:]) if value.isalpha() else None
    if vague(value) or any(w.casefold() in lx.NOT_NAMES for w in words):
        return None
    return Claim("user", attribute, " ".join(w[:1].upper() + w[1:] for w in words))


def extract_statements(entries: Iterable[TranscriptEntry]) -> list[Statement]:
    """Return the facts the user's turns state, each once, in the order they were said."""
    found: list[Statement] = []
    seen: set[str] = set()
    asked = ""
    names: set[str] = set()
    person: tuple[str, str | None] | None = None  # who the last user turn was about
    pet: Claim | None = None  # and the pet it named last
    playing = False  # inside a role play the user set up: what they say is the character's
    for entry in entries:
        if entry.role == "assistant":
            asked = entry.text
            continue
        if entry.role != "user":
            continue
        reply_to, asked = asked, ""
        if _ROLE_PLAY_ENDS.search(entry.text):
            playing = False
        elif _ROLE_PLAY_STARTS.search(entry.text):
            playing = True
            continue
        if playing or _script_line(entry.text):
            continue  # "Derek: Hi, I led the propulsion team at Boeing": a line of the play
        answer = _answer(reply_to, entry.text) if reply_to else None
        if answer is not None:
            text = render(answer)
            if text is not None and text.casefold() not in seen and not entry.context:
                seen.add(text.casefold())
                found.append(Statement(text, answer, entry.message_id))
            continue
        # One parse over the turn's kept sentences: "we got a cat! her name is Waffles".
        kept = "\n".join(statement_sentences(_with_known_names(entry.text, names)))
        if kept:
            opening = _OPENING_PRONOUN.match(kept)
            mentioned = mentions(_mention_text(entry.text, names))
            # "she lives in Leeds btw", the turn after "my sister Priya ...": Priya; or the one
            # this turn named in a sentence that states nothing ("help me write a card for my
            # dad Giorgos. He's a retired fisherman"): Giorgos.
            before = None
            for candidate in (_last_person(mentioned), person):
                if before is None and candidate is not None and opening is not None:
                    pronoun = opening.group(1).casefold()
                    before = candidate[0] if candidate[1] in (None, pronoun) else None
            claims = parse(
                kept,
                speaker="user",
                strict=True,
                fact_text=False,
                keep=is_statement_clause,
                person_before=before,
                pet_before=pet,
            )
            pet = next((c for c in reversed(claims) if c.attribute == "pet"), None)
            claims += _new_mentions(mentioned, claims)
            names |= _names_in(claims)
            person = _last_person(claims) or (person if before is not None else None)
            # A context turn (said before the slice) is read for names, never remembered.
            for claim in [] if entry.context else claims:
                text = render(claim)
                if text is None or text.casefold() in seen:
                    continue
                seen.add(text.casefold())
                found.append(Statement(text, claim, entry.message_id))
        else:
            person = pet = None
            for claim in [] if entry.context else mentions(_mention_text(entry.text, names)):
                text = render(claim)
                if text is not None and text.casefold() not in seen:
                    seen.add(text.casefold())
                    found.append(Statement(text, claim, entry.message_id))
    return found


_ROLE_PLAY_STARTS = re.compile(
    r"\b(?:let'?s|lets|can we|we'll|wanna)\s+(?:do\s+a\s+|play\s+a\s+)?(?:role[\s-]?play|pretend)"
    r"|\brole[\s-]?play\b.*\byou(?:'re|\s+are)\b",
    re.IGNORECASE,
)
_ROLE_PLAY_ENDS = re.compile(
    r"\b(?:stop|end|enough|done with|out of)\b[\w ]{0,20}\b(?:role[\s-]?play|pretend\w*|game"
    r"|character)\b|\bok(?:ay)?,?\s+enough\b|\bin real life\b|\birl\b|\booc\b"
    r"|\bbreak(?:ing)?\s+character\b|\bback to (?:reality|real life)\b|\bthe real me\b"
    r"|\breal me\b",
    re.IGNORECASE,
)
_SPEAKER = re.compile(r"^\s*(?P<who>(?-i:[A-Z])[\w'-]+(?:\s+(?-i:[A-Z])[\w'-]+)?)\s*:\s+\S")
_LABELS = frozenset(
    [
        "update",
        "note",
        "edit",
        "ps",
        "fyi",
        "context",
        "btw",
        "also",
        "reminder",
        "correction",
        "question",
        "news",
        "background",
        "info",
        "summary",
        "tldr",
        "tl;dr",
        "me",
        "user",
        "bio",
        "profile",
        "about",
    ]
)


def _script_line(text: str) -> bool:
    """A turn that opens with a character's name and a colon is a line of a play or a script
    ("Derek: Hi, thanks for having me"); "Update: I moved" or "Job: nurse" is the user's."""
    speaker = _SPEAKER.match(text)
    if speaker is None:
        return False
    who = speaker.group("who").casefold()
    return (
        who not in _LABELS
        and who not in ATTRIBUTE_NOUNS
        and not any(w in lx.NOT_NAMES for w in who.split())
    )


def _new_mentions(mentioned: Sequence[Claim], said: Sequence[Claim]) -> list[Claim]:
    """The mentions the statements do not already cover ("my brother lives in Oslo" says
    the user has a brother; "The user has a brother." would only repeat it)."""
    subjects = {c.subject.casefold() for c in said}
    subjects |= {f"user's {lx.relation_of(c.qualifier or '') or ''}" for c in said}
    named = {c.value.casefold() for c in said if c.attribute in ("family", "partner", "pet")}
    kinds = {(c.attribute, c.value.split()[0].casefold()) for c in said if c.value}
    out = []
    for claim in mentioned:
        bare = claim.attribute == "family" and claim.value == claim.qualifier
        if bare and f"user's {claim.value}".casefold() in subjects | named:
            continue
        # A person the statements speak about is still the user's dad or boss: only a
        # statement of the relation itself makes the mention a repeat.
        if not bare and claim.value.casefold() in named:
            continue
        if claim.attribute in ("vehicle", "phone") and any(k[0] == claim.attribute for k in kinds):
            continue
        out.append(claim)
    return out


def _mention_text(text: str, names: set[str]) -> str:
    """The turn's sentences whose way of naming things is meant: not sarcasm, a pretence or
    someone else's quoted words ("my boss Linda said ..." is the user's own way to say it)."""
    meant = [
        _QUOTED.sub(" ", sentence)
        for sentence in sentences(_with_known_names(_without_quoted_message(text), names))
        if not (_SARCASM.search(sentence) or _HYPOTHETICAL.match(sentence.strip()))
    ]
    return "\n".join(meant)


_OPENING_PRONOUN = re.compile(r"^\W*(she|he)\b", re.IGNORECASE)
_SHE = frozenset(
    [
        "sister",
        "mom",
        "mother",
        "mum",
        "wife",
        "daughter",
        "girlfriend",
        "aunt",
        "grandma",
        "grandmother",
        "niece",
        "fiancee",
        "stepmom",
        "stepmother",
        "stepsister",
    ]
)
_HE = frozenset(
    [
        "brother",
        "dad",
        "father",
        "husband",
        "son",
        "boyfriend",
        "uncle",
        "grandpa",
        "grandfather",
        "nephew",
        "fiance",
        "stepdad",
        "stepfather",
        "stepbrother",
    ]
)


def _last_person(claims: Sequence[Claim]) -> tuple[str, str | None] | None:
    """The last person the claims name, with the pronoun their relation takes if known."""
    for claim in reversed(claims):
        name = None
        if claim.attribute in ("family", "partner") and claim.value[:1].isupper():
            name = claim.value
        elif claim.subject != "user" and claim.subject[:1].isupper():
            name = claim.subject
        if name is None or not name.replace(" ", "").isalpha():
            continue
        relation = next(
            (
                lx.canonical_relations(c.qualifier or "")
                for c in claims
                if c.attribute in ("family", "partner") and c.value == name
            ),
            "",
        )
        pronoun = "she" if relation in _SHE else "he" if relation in _HE else None
        return name, pronoun
    return None


def _names_in(claims: Iterable[Claim]) -> set[str]:
    """The people and pets the claims name ("Maya", "Biscuit"), to know them again when the
    next turn types them in lower case ("biscuit died this morning")."""
    out: set[str] = set()
    for claim in claims:
        if claim.subject != "user" and not claim.subject.startswith("user's"):
            out.add(claim.subject)
        if claim.attribute in ("pet", "family", "partner") and claim.value:
            out.add(claim.value.split()[-1])
    return {n for n in out if n[:1].isupper() and n.isalpha()}


def _with_known_names(text: str, names: set[str]) -> str:
    for name in names:
        # "priya's a nurse now" and "priya's job": a name and its 's; not "it's" or "o'neil".
        text = re.sub(rf"(?<![\w']){re.escape(name.casefold())}(?!\w|'(?!s\b))", name, text)
    return text


class StatementExtractor:
    """An offline provider: answers with ``remember`` calls built from the user's statements."""

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        self._config = dict(config or {})

    def __repr__(self) -> str:
        return f"StatementExtractor(id={EXTRACTOR_ID!r})"

    @property
    def name(self) -> str:
        """Return the provider name."""
        return EXTRACTOR_NAME

    @property
    def model(self) -> str:
        """Return the extractor id recorded with what it writes."""
        return f"{EXTRACTOR_NAME}/{EXTRACTOR_ID}"

    async def complete(self, request: CompletionRequest) -> Completion:
        """Answer with one ``remember`` call per statement, or "Nothing new to save."."""
        if not any(t.name == "remember" for t in request.tools):
            return Completion(text=NOTHING_NEW, model=self.model)
        statements = extract_statements(request.transcript)
        calls = tuple(
            ToolCall(
                call_id=f"extract_{i}",
                name="remember",
                arguments={
                    "text": s.text,
                    "tags": [EXTRACTOR_TAG, s.claim.attribute],
                    "importance": s.importance,
                    "subject": s.claim.subject,
                    "predicate": s.claim.attribute,
                    "object": s.claim.value,
                    "source_message_ids": [s.message_id],
                    **({"when": s.claim.when} if s.claim.when else {}),
                },
            )
            for i, s in enumerate(statements)
        )
        return Completion(
            text="" if calls else NOTHING_NEW,
            tool_calls=calls,
            usage=Usage(),
            model=self.model,
            stop_reason="tool_use" if calls else "end_turn",
        )

    async def aclose(self) -> None:
        """Nothing to release."""
