"""Which sentences and clauses of a user's turn state a fact.

Passed over: questions, hypotheticals and wishes, plans still being weighed, jokes and
sarcasm, other people's words (quotes, "she said"), requests to the assistant, and what a
label or a clinician's report wraps around the user's own words.
"""

from __future__ import annotations

import re

from plugins.extractors import lexicon as lx
from plugins.extractors.claims import labels_an_attribute, leading_label, sentences
from plugins.extractors.claims.plain import AT_AN_AGE_ASKING, with_its_i
from plugins.extractors.statements.referents import (
    person_named,
    relative_clauses,
    with_antecedent,
)

_QUESTION_START = re.compile(
    r"^(?:what|how|why|where|when|which|who|whom|whose|do|does|did|should|shall|can|could"
    r"|would|will|is|are|am|was|were|have|has|any idea|any tips|any thoughts|thoughts on"
    r"|wondering|i wonder)\b",
    re.IGNORECASE,
)
HYPOTHETICAL = re.compile(
    # "say i moved to canada, how would my taxes work": a supposition.
    r"(?:^|(?<=,\s))(?:let'?s\s+)?say\s+(?=(?:i|we)\s+\w+ed\b)|"
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
SARCASM = re.compile(
    r"(?:/s\b|\bjk\b|\bj/k\b|just kidding|\bkidding\b|yeah right|\bas if\b|\bsarcasm"
    r"|\bin\s+my\s+own\s+(?:mind|head)\b"
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
# Laughter typed in other languages too: "kkkk" (Portuguese), "jajaja", "rsrs", "wkwk", "555".
_LAUGH = re.compile(
    r"\b(?:lol|lmao|haha+|hehe+|rofl|k{4,}|(?:ja){2,}j?|rs(?:rs)+|wk(?:wk)+|5{3,}|xd)\b"
    r"|😂|🤣|😜|😉|ㅋㅋ",
    re.IGNORECASE,
)
_HYPERBOLE = re.compile(
    r"\b(?:totally|obviously|definitely|literally|clearly|of course|sure)\b|\b(?:millionaire"
    r"|billionaire|astronaut|president|king|queen|superhero|wizard|unicorn|genius|celebrity"
    r"|famous|rockstar|secret agent|spy|vampire|robot|alien|basically|practically"
    r"|at this point|professional)\b",
    re.IGNORECASE,
)
_YEAH_SURE = re.compile(r"^(?:yeah|yea|ya|oh|ok|okay)\s+sure\b[,!.]*\s*", re.IGNORECASE)
_UNDECIDED = re.compile(
    r"\b(?:torn|deciding|choosing|undecided|can't\s+decide|cannot\s+decide)\s+between\b", re.I
)
_REPORTED = re.compile(
    r"\b(?:said|says|saying|say|told me|tells me|tell me that|wrote|writes|texted|asked|asks"
    r"|replied"
    # "my boss thinks I'm Superman": someone else's view of the user.
    r"|thinks|reckons|believes"
    # "she claims that", not "insurance claims"; "to quote", not "a quote for the roof".
    r"|according to|claims?(?=\s+(?:that|to\s+(?:be|have)|he|she|they|i|it|we)\b)|claimed"
    # "posted to Kaduna": a soldier's posting, not a post.
    r"|posted(?!\s+(?:to|in|at|as|abroad|overseas|back)\b)|tweeted|(?<=to\s)quote|quote(?=:)"
    r"|quoted|the (?:email|message|letter"
    r"|text|sign|note|ad|article|book|song|movie|show|line) (?:said|says|reads|read))\b",
    re.IGNORECASE,
)
_CLINICIAN_SAYS = re.compile(
    r"^(?:(?:so|and|well|ok|okay|update|today|btw)\W+)*" + lx.CLINICIAN_SAYS + r"\s+(?=i\b|i'm\b)",
    re.IGNORECASE,
)
# "..., and last week the doctor told me I have celiac disease": a clinician's finding said
# mid-sentence is the user's own health news too.
_CLINICIAN_SAID = re.compile(r"\b" + lx.CLINICIAN_SAYS + r"\s+(?=i\b|i'm\b)", re.IGNORECASE)
QUOTED = re.compile(
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
    plain_adverb = sincere is not None and sincere.group(0).strip(" ,:.!?").casefold() in (
        "realistically",
        "but realistically",
    )
    if sincere is not None and (not plain_adverb or _JOKED.search(text[: sincere.start()])):
        # "lol jk I'm a billionaire astronaut. for real tho I work as a nurse": what came
        # before "for real" was the joke; only what follows it is said in earnest. The
        # sentences before the first one a joke marks ("I'm an engineer at Atlassian. What if
        # I moved to Mars lol ... seriously though") were earnest too.
        before = sentences(text[: sincere.start()])
        # With no marker the joke is the sentence just before "for real".
        last = max(len(before) - 1, 0)
        first_joke = next((i for i, s in enumerate(before) if _JOKED.search(s)), last)
        earnest = " ".join(before[:first_joke])
        return statement_sentences(f"{earnest} {text[sincere.end() :]}".strip())
    kept: list[str] = []
    whole = without_quoted_message(text.strip())
    said = [part for sentence in sentences(whole) for part in _speaker_then_who(sentence)]
    named_unkept: str | None = None  # who the sentence just before, not kept, named
    for i, sentence in enumerate(said):
        if i + 1 < len(said) and _IRONY_AFTER.match(said[i + 1]):
            named_unkept = None
            continue  # "i totally LOVE working saturdays. said no one ever": taken back at once
        kept += [s for s in relative_clauses(sentence) if _is_statement(s)]
        raw = sentence
        # "could you call me Greta from now on?" asks for a name to be used: a statement.
        sentence = (
            _ASKED_TO_CALL.sub("call me ", sentence).rstrip("?")
            if _ASKED_TO_CALL.match(sentence)
            else sentence
        )
        aged = AT_AN_AGE_ASKING.match(sentence.strip())
        if aged is not None:
            sentence = f"I'm {aged.group('age')}."  # "At 52, is it too late for me to ...?"
        # "I'm a librarian in Lyon, can you recommend ...?": the statement before the question.
        sentence = _WEIGHED_TAIL.sub("", _QUESTION_TAIL.sub("", _ASIDE_TAIL.sub("", sentence)))
        sentence = _statement_before_question(_statement_after_request(sentence))
        sentence = _before_report(_MENTION_THAT.sub("", sentence))
        sentence = with_antecedent(sentence, named_unkept)
        sentence = with_its_i(sentence)  # "am a plumber in glasgow", "can't stand cilantro"
        stated = _is_statement(sentence)
        if not stated:
            head = _earnest_head(sentence)
            stated = head is not None
            sentence = head or sentence
        if stated:
            kept.append(QUOTED.sub(_title_or_blank, sentence).strip())
            # "Hey, can you help me plan a dinner for my girlfriend Priya? She's a pharmacist.":
            # a bare greeting kept from the question names no one, so "she" is still Priya.
            bare = len(sentence.split()) <= 2 and person_named(sentence) is None
            named_unkept = person_named(raw) if bare else None
        else:
            named_unkept = person_named(raw)
    return [s for s in kept if s]


_SINCERE = re.compile(
    r"(?:^|[.!?,;]\s*|\s)(?:but\s+|ok\s+|okay\s+)?(?:for real(?:\s+(?:tho|though))?|seriously"
    r"\s+(?:tho|though)|but seriously|jok(?:es|ing) aside|in all seriousness|real talk"
    r"|no but really|but really|srsly tho|realistically(?:\s+(?:tho|though))?"
    # "im basically a professional napper 😂 jk i work night security": after the "jk".
    r"|(?:lol\s+|haha\s+)?(?:jk|j/k|just\s+kidding)(?=[,:.!\s]+\S+\s+\S+\s+\S+))\b[,:.!]*\s*"
    # "irl I'm a nurse" opens what is earnest; "i'm a welder irl" says the earnest thing itself.
    r"|(?:^|[.!?,;]\s*|\b(?:but|ok|okay)\s+)(?:in real life|irl|out of character|ooc)\b[,:.!]*\s*",
    re.IGNORECASE,
)
# What makes the words before a bare "realistically" a joke or a daydream; without it ("I live
# in Chennai. What can I realistically change?") it is an adverb and takes nothing back.
_JOKED = re.compile(
    r"\b(?:jk|j/k|lol|lmao|rofl|haha\w*|kidding|joking|jokes?|/s|if\s+i|i'?d|would|dream\w*"
    r"|imagine|pretend\w*|role\s*-?play)\b|[\U0001F602\U0001F923\U0001F61C\U0001F609]",
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
        HYPOTHETICAL.search(main)
        or _WEIGHING.search(main)
        or SARCASM.search(main)
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
# "i'm half Colombian if that matters": an aside, not a condition on what was said.
_ASIDE_TAIL = re.compile(
    r",?\s+if\s+(?:that|it|this)\s+(?:matters|helps|makes\s+(?:a|any)\s+difference|changes"
    r"\s+anything|is\s+relevant|'s\s+relevant)\b.*$|,?\s+if\s+(?:relevant|needed|useful)\b.*$"
    # "im in quezon city btw if u know any good vets": a request, asked as a condition.
    r"|,?\s+(?:btw\s+|so\s+)?if\s+(?:you|u|ya|anyone)\s+(?:know|have|can|could|got|need|want"
    r"|'ve|are|know\s+of)\b.*$",
    re.IGNORECASE,
)
_QUESTION_TAIL = re.compile(
    r",\s*(?:can|could|would|will|do|does|any|what|how|should|is|are)\b[^,]*\?\s*$"
    # "hi im julia, can you help me write a bio": the request, asked without a question mark
    r"|,\s*(?:(?:so\s+)?(?:can|could|would|will)\s+you|pls|please|need help|help me"
    r"|(?:so\s+)?any\s+(?:ideas|tips|suggestions|recommendations|advice))\b.*$",
    re.IGNORECASE,
)


_SO_I = re.compile(
    r"(?:,\s*|\s+)(?:so|and\s+so|and\s+now)\s+(?=(?:i|i'm|im|i've|we|we're|my)\b)", re.IGNORECASE
)


# Where the clause that ends in someone's words begins: after a comma or a conjunction.
_CLAUSE_CUT = re.compile(r",\s+|\s+(?:and|but|so)\s+")


# "my sister larissa says im crazy, she's a dentist in salvador": after someone's words, a
# clause on who the speaker is; the user's own, about the speaker.
_WHO_THE_SPEAKER_IS = re.compile(
    r",\s+(?=(?:she|he)(?:'s|\s+(?:is|was|be|works|lives|teaches|flies|drives))\s)", re.I
)


def _speaker_then_who(sentence: str) -> list[str]:
    """Someone's words and what the user says of the speaker after them, as two sentences (the
    second's pronoun then stands for the person the first named)."""
    reported = _REPORTED.search(sentence)
    after = _WHO_THE_SPEAKER_IS.search(sentence, reported.end()) if reported else None
    if reported is None or after is None:
        return [sentence]
    # The speaker is named in the clause the reporting verb ends ("..., my wife Agnieszka say").
    cuts = list(_CLAUSE_CUT.finditer(sentence[: reported.start()]))
    speaker = sentence[cuts[-1].end() if cuts else 0 : reported.end()]
    tail = with_antecedent(sentence[after.end() :], person_named(speaker))
    return [sentence[: after.start()], tail]


def _before_report(sentence: str) -> str:
    """ "my sister sophie is a vet and she says i eat too much meat": the user's own clause
    before someone else's words; a sentence that opens with them is left whole (and refused).
    Quoted words after a colon are someone else's too ("she wrote: 'I'm engaged!'")."""
    sentence = _QUOTED_TAIL.sub("", sentence)
    label = leading_label(sentence)
    labelled = label is not None and not labels_an_attribute(label)
    unasked = label is not None and re.search(
        r"\b(?:nobody|no one|no-one)\s+asked\b", label.group("label")
    )
    if label is not None and labelled and (unasked or not _REPORTED.search(label.group("label"))):
        sentence = sentence[label.end() :]  # "update nobody asked for: I'm eating meat again"
    if _CLINICIAN_SAYS.match(sentence) or _CLINICIAN_SAID.search(sentence):
        return sentence
    reported = _REPORTED.search(sentence)
    if reported is None:
        return sentence
    # "doc told me to add fish back in so i'm pescatarian now": what the user concluded is
    # their own statement, after the words they report.
    then = _SO_I.search(sentence, reported.end())
    if then is not None:
        return sentence[then.end() :]
    head = sentence[: reported.start()]
    cuts = list(_CLAUSE_CUT.finditer(head))
    if not cuts:
        return sentence
    own = head[: cuts[-1].start()].strip()
    # "im 16 so my mom says ...": a short clause is the user's own when it says "I'm".
    if len(own.split()) < 3 and not re.match(r"(?:i'?m|im|i\s+am)\s", own, re.IGNORECASE):
        return sentence
    return own


# "I'm a product manager at Shopify, and considering Wharton": what is weighed comes after.
_WEIGHED_TAIL = re.compile(
    r",?\s+(?:and|but)\s+(?:i'm\s+|im\s+|am\s+)?(?:thinking|considering|wondering|debating"
    r"|hoping|planning on|tempted|torn)\b.*$|,\s+(?:maybe|perhaps|probably)\b.*$"
    # "yeah I'm in toronto so maybe": what follows "so maybe" is weighed, not what led to it.
    r"|,?\s+so\s+(?:maybe|perhaps|probably)\b.*$",
    re.IGNORECASE,
)


# What a statement after a request opens with: the user speaking of themselves.
_OWN_OPENING = re.compile(
    r"^(?:(?:ok|so|and|but|btw|also)\s+)?(?:i|i'm|im|i've|ive|my|we|we're|we've|our|got|just"
    r"|been|finally|recently)\b",
    re.IGNORECASE,
)


def _statement_after_request(sentence: str) -> str:
    """ "can you help me write a linkedin post, got promoted to lead designer at Canva": the
    statement after the request (a question mark at the end leaves the sentence asked)."""
    s = sentence.strip()
    if s.endswith("?") or not (_QUESTION_START.match(s) or _REQUEST.match(s)) or ", " not in s:
        return sentence
    tail = s.split(", ", 1)[1]
    if len(tail.split()) < 3 or not _OWN_OPENING.match(tail):
        return sentence
    return tail


def _statement_before_question(sentence: str) -> str:
    """ "my best friend Chloe just got a job at NASA JPL, gift ideas?": the statement before a
    short question tacked on after a comma."""
    if not sentence.rstrip().endswith("?"):
        return sentence
    joined = _THEN_ASKED.match(sentence.strip())
    if joined is not None:
        return joined.group("head")
    if ", " not in sentence:
        return sentence
    head, _, tail = sentence.rpartition(", ")
    if len(tail.split()) > 8 or len(head.split()) < 3 or _QUESTION_START.match(head):
        return sentence
    return head


# "i work as a barista in valparaiso so maybe something coffee related is too on the nose?":
# the user's own statement, then a question joined to it by "so" or "but".
_THEN_ASKED = re.compile(
    r"^(?P<head>(?:i|i'm|im|i've|my|we|we're|our|(?-i:[A-Z])[\w'-]+\s+and\s+i"
    r"|me\s+and\s+(?-i:[A-Z])[\w'-]+)\s+[^?]{5,}?)\s+(?:so|but|and)\s+"
    r"(?:maybe|should|shall|what|how|any|is|are|would|do|does|can|could|will|which|where|when)"
    r"\b[^?]*\?$",
    re.IGNORECASE,
)


# "and mention I speak Polish": a request whose object is the user's own statement.
_MENTION_THAT = re.compile(
    # Not "say i moved to canada, how would my taxes work": a supposition.
    r"^(?:and\s+|also\s+)?(?:pls\s+|please\s+)?(?:mention|add|say(?![^.!?]*\bwould\b)|note"
    r"|include|remember"
    r"|don't\s+forget|keep\s+in\s+mind|bear\s+in\s+mind)\s*:?\s+(?:that\s+)?"
    r"(?=(?:i|i'm|im|my|we|we're)\b)",
    re.IGNORECASE,
)
_QUOTE_OPENS = {"'": "'", '"': '"', "\u201c": "\u201d", "\u2018": "\u2019"}


def without_quoted_message(text: str) -> str:
    """Drop a message quoted after a colon ("she wrote: 'Hi! I'm engaged to Karim!'"), which
    may hold sentences and apostrophes of its own: to its closing quote, else to the end."""
    opening = re.search(
        r"(?::|\b(?:texted|wrote|messaged|emailed|posted|replied|sent\s+me))\s*(['\"\u201c\u2018])",
        text,
        re.IGNORECASE,
    )
    if opening is None:
        return text
    close = _QUOTE_OPENS[opening.group(1)]
    tail = text[opening.end() :]
    ends = [m.end() for m in re.finditer(re.escape(close) + r"(?=[\s.!?,)]|$)", tail)]
    after = tail[ends[-1] :].strip() if ends else ""
    # What follows the quote is a sentence of its own, not the report's object.
    return text[: opening.start()] + (f". {after}" if after[:1].isalnum() else after)


_QUOTED_TAIL = re.compile(r":\s*['\"\u201c\u2018].*$")


# "I work as an oil and gas engineer so steak is basically a food group up here lol": the
# overstatement is the clause after "so"; the one before it is said in earnest.
_OWN_START = re.compile(r"^(?:i|i'm|i've|my|we|we're|our)\b", re.IGNORECASE)
_JOINED = re.compile(r"(?:,\s*|\s+)(?:so|and|but)\s+", re.IGNORECASE)


def _earnest_head(sentence: str) -> str | None:
    """Of a sentence refused as a statement, the longest clause said in earnest before an
    overstated one, when that clause is a statement; else None."""
    if not (_LAUGH.search(sentence) and _HYPERBOLE.search(sentence)):
        return None
    if not _OWN_START.match(sentence.strip()):
        return None
    for joint in reversed(list(_JOINED.finditer(sentence))):
        head = sentence[: joint.start()].strip()
        if len(head.split()) < 3 or _HYPERBOLE.search(head) or _LAUGH.search(head):
            continue
        return head if _is_statement(head) else None
    return None


def _is_statement(sentence: str) -> bool:
    s = sentence.strip()
    if not s or _QUESTION_START.match(s) or s.endswith("?"):
        return False
    if SARCASM.search(s) or HYPOTHETICAL.match(s):
        return False
    if _LAUGH.search(s) and _HYPERBOLE.search(s):
        return False
    mocked = _YEAH_SURE.match(s)
    if mocked is not None and _HYPERBOLE.search(s, mocked.end()):
        return False  # "yeah sure, i'm the queen of england"
    if _UNDECIDED.search(s):
        return False  # "We're torn between Japan and Iceland."
    if _CAPS_EMPHASIS.search(s) and re.search(r"\bjust\b", s, re.I):
        return False
    if _REPORTED.search(
        _CLINICIAN_SAID.sub("", _CLINICIAN_SAYS.sub("", s, count=1))
    ) or _REQUEST.match(s):
        return False
    return not re.match(r"^\s*(?:system|assistant|user)\s*:", s, re.I)
