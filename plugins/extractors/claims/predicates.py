"""Reading a clause's predicate: its head verb, with auxiliaries and adverbs turned into markers."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from plugins.extractors.claims.words import (
    ALSO_WORDS,
    CHANGE_ADVERBS,
    COPULAS,
    IRREGULAR,
    MODALS,
    PARTICIPLES,
    QUOTES,
    SKIP_ADVERBS,
    VERBS,
    stem,
)

_PAST_ADVERBS = frozenset({"previously", "formerly", "once", "earlier"})


@dataclass(slots=True)
class Predicate:
    """A predicate with its auxiliaries and adverbs read off as markers."""

    words: list[str]
    """The rest after the head verb (original case)."""
    head: str
    """The head verb's stem, or ``be`` for a copula."""
    said: str = ""
    """The head verb as it was written ("hate", "split")."""
    negated: bool = False
    past: bool = False
    change: bool = False
    also: bool = False
    future: bool = False
    modal: bool = False
    progressive: bool = False
    start: bool = False
    stop: bool = False
    passive: bool = False

    @property
    def rest(self) -> str:
        return " ".join(self.words)

    @property
    def lower(self) -> str:
        return " ".join(self.words).casefold()


def _expand(rest: str) -> list[str]:
    text = rest.translate(QUOTES)
    text = re.sub(r"(?i)\bcan't\b|\bcannot\b", "can not", text)
    text = re.sub(r"(?i)\bwon't\b", "will not", text)
    text = re.sub(r"(?i)\bain't\b", "is not", text)
    text = re.sub(r"(?i)n't\b", " not", text)
    text = re.sub(r"(?i)\bgonna\b", "going to", text)
    text = re.sub(r"(?i)^\s*im\b", "'m", text)
    text = re.sub(r"(?i)\bwanna\b", "want to", text)
    text = re.sub(r"(?i)\bno longer\b", "NOLONGER", text)
    text = re.sub(r"(?i)\bany\s?more\b|\bany longer\b", "ANYMORE", text)
    # "getting used to the rain", "I'm used to it": accustomed, not a past habit.
    text = re.sub(
        r"(?i)(?:(\b(?:get|gets|getting|got|gotten|am|is|are|was|were|be|been|being)|'m|'re)\s+)?"
        r"\bused to\b",
        lambda m: m.group(0) if m.group(1) else "USEDTO",
        text,
    )
    text = re.sub(
        r"(?i)\bthese days\b|\bat the moment\b|\bright now\b|\bas of now\b|\batm\b", "now", text
    )
    text = re.sub(r"(?i)\bas well\b", "too", text)
    text = re.sub(r"^'", " '", text)
    return text.split()


_PARTICIPLE = re.compile(r"^[a-z]+(?:ed|en)$")


def predicate(rest: str) -> Predicate | None:
    """Read auxiliaries, negation and adverbs off the front; return the head and the rest."""
    words = _expand(rest)
    p = Predicate(words=[], head="")
    perfect = False  # "have lived": the state may run up to now
    i = 0
    while i < len(words):
        raw = words[i]
        w = raw.casefold().strip(",")
        if raw == "NOLONGER" or raw == "ANYMORE":
            p.negated = p.change = True
        elif raw == "USEDTO":
            p.past = p.change = True
        elif w in ("not", "never", "no"):
            p.negated = True
        elif w in CHANGE_ADVERBS:
            p.change = True
        elif w in _PAST_ADVERBS:
            p.past = p.change = True
        elif w in ALSO_WORDS:
            p.also = True
        elif w in SKIP_ADVERBS or (w in ("kind", "sort") and _peek(words, i + 1) == "of"):
            if w in ("kind", "sort"):
                i += 1
        elif w in ("do", "does", "did"):
            nxt = _peek(words, i + 1)
            if (
                nxt
                and nxt not in ("not", "never")
                and stem(nxt) not in VERBS
                and not (nxt in SKIP_ADVERBS or nxt in CHANGE_ADVERBS or nxt in ALSO_WORDS)
            ):
                # "does CrossFit", "did a marathon": do as the verb itself.
                p.head = "do"
                p.words = _trailing(words[i + 1 :], p)
                return p
        elif w in ("will", "'ll", "shall"):
            p.future = True
        elif w in MODALS:
            p.modal = True
        elif w == "can":
            pass
        elif w == "going" and _peek(words, i + 1) == "to" and stem(_peek(words, i + 2)) in VERBS:
            p.future = True
            i += 1
        elif w in ("have", "has", "'ve", "had") and _peek(words, i + 1) == "been":
            i += 1
            nxt = _peek(words, i + 1)
            if nxt.endswith("ing") and len(nxt) > 4:
                p.progressive = True
            else:
                p.head = "be"
                p.words = _trailing(words[i + 1 :], p)
                return p
        elif (
            w in ("have", "has", "had", "'ve")
            and _peek(words, i + 1) == "to"
            and stem(_peek(words, i + 2)) in VERBS
        ):
            i += 1
        elif w in ("have", "has", "'ve", "had") and _perfect(words, i + 1):
            if w == "had":
                p.past = True
            else:
                perfect = True
        elif w in ("got", "get", "gets", "getting") and _peek(words, i + 1) in PARTICIPLES:
            p.change = True
            p.progressive = p.progressive or w == "getting"
            p.head = "be"
            p.words = _trailing(words[i + 1 :], p)
            return p
        elif w in COPULAS or w in ("'s",):
            nxt = _peek(words, i + 1)
            if w in ("was", "were") and not (
                nxt in PARTICIPLES or _PARTICIPLE.match(nxt) or nxt.endswith("ing")
            ):
                p.past = True
            if nxt.endswith("ing") and len(nxt) > 4 and nxt not in ("during", "something"):
                p.progressive = True
            elif nxt in ("not", "no", "never", "NOLONGER") or nxt.casefold() in CHANGE_ADVERBS:
                # "am not", "is no longer", "am now": keep reading markers before the rest.
                p.head = "be"
            elif nxt in ALSO_WORDS or nxt in SKIP_ADVERBS:
                # "we're also flying to Rarotonga": the adverb between "be" and the verb (not
                # "I'm totally running the marathon too, sure why not": said for effect).
                j = i + 1
                for_effect = False
                while _peek(words, j) in ALSO_WORDS or _peek(words, j) in SKIP_ADVERBS:
                    for_effect = for_effect or _peek(words, j) in _FOR_EFFECT
                    j += 1
                verb = _peek(words, j)
                ing = verb.endswith("ing") and len(verb) > 4
                if ing and not for_effect and verb not in ("during", "something"):
                    p.progressive = True
                else:
                    p.head = "be"
            else:
                p.head = "be"
                p.words = _trailing(words[i + 1 :], p)
                if nxt in PARTICIPLES or _PARTICIPLE.match(nxt):
                    p.passive = True
                return p
        elif w in ("start", "started", "starting", "starts", "began", "begin", "begun") and (
            _peek(words, i + 1).endswith("ing") or _peek(words, i + 1) == "to"
        ):
            p.start = p.change = True
            if _peek(words, i + 1) == "to":
                i += 1
        elif w in ("stopped", "stop", "stops", "quit", "quitting") and _peek(words, i + 1).endswith(
            "ing"
        ):
            if p.negated:
                p.negated = False  # "can't stop eating chocolate": still does
            else:
                p.stop = p.negated = p.change = True
        elif w == "gave" and _peek(words, i + 1) == "up" and _peek(words, i + 2).endswith("ing"):
            p.stop = p.negated = p.change = True
            i += 1
        elif p.head == "be":
            p.words = _trailing(words[i:], p)
            return p
        elif w in ("a", "an", "the") or (
            p.negated and stem(w) not in VERBS and not w.endswith(("s", "ed", "ing"))
        ):
            # "not a morning person": a copula left out after the negation.
            p.head = "be"
            p.words = _trailing(words[i:], p)
            return p
        else:
            p.head = stem(w)
            p.said = w
            # "I lived in Paris", "I worked at Google": a state told in the simple past is over.
            # "I've lived in Lisbon for 10 years" still does; "I've lived in Paris" did once.
            lasting = perfect and _UNTIL_NOW.search(" ".join(words[i + 1 :])) is not None
            p.past = p.past or (w in _STATES_OVER and not lasting)
            if w.endswith("ing") and len(w) > 4:
                p.progressive = True
            after = words[i + 1 :]
            while after and after[0].casefold() in SKIP_ADVERBS | CHANGE_ADVERBS | ALSO_WORDS:
                marker = after.pop(0).casefold()
                p.change = p.change or marker in CHANGE_ADVERBS
                p.also = p.also or marker in ALSO_WORDS
            p.words = _trailing(after, p)
            return p
        i += 1
    if p.head == "be":
        return p
    return None


_FOR_EFFECT = frozenset(["totally", "definitely", "literally", "obviously", "basically"])
_STATES_OVER = frozenset({"lived", "worked", "studied", "taught", "owned"})
# A time that runs up to now: with a perfect ("have lived ... since 2019") the state holds.
_UNTIL_NOW = re.compile(
    r"\b(?:for\s+(?:the\s+(?:past|last)\s+)?(?:\w+\s+)?(?:years?|months?|weeks?|decades?|ages"
    r"|a\s+while|a\s+long\s+time)|since|(?:all\s+)?my\s+(?:whole\s+|entire\s+)?life"
    r"|\w+\s+years\s+now)\b",
    re.IGNORECASE,
)


def _trailing(words: list[str], p: Predicate) -> list[str]:
    """Take markers off the end of the rest ("... anymore", "... now", "... too")."""
    out = list(words)
    while out:
        last = out[-1].casefold().strip(",.!")
        if out[-1] == "ANYMORE" or last == "anymore":
            p.negated = p.change = True
        elif last in ("now", "again", "nowadays", "lately", "instead"):
            p.change = True
        elif last in ("too", "also"):
            p.also = True
        elif last in ("either", "btw", "lol", "haha", "tbh", "fyi", "though", "lmao", "xd", "ha"):
            pass
        else:
            break
        out.pop()
    cleaned = []
    for word in out:
        low = word.casefold().strip(",.!")
        if word in ("NOLONGER", "ANYMORE"):
            p.negated = p.change = True
            continue
        if word == "USEDTO":
            p.past = p.change = True
            continue
        if low in ("now", "instead", "nowadays"):
            p.change = True
        cleaned.append(word)
    return cleaned


def _peek(words: Sequence[str], i: int) -> str:
    return words[i].casefold().strip(",.!?") if i < len(words) else ""


def _perfect(words: Sequence[str], i: int) -> bool:
    """Return True if a participle follows (over adverbs and a negation): "have not played"."""
    while i < len(words) and (
        words[i] in ("NOLONGER",)
        or _peek(words, i) in ("not", "never", "just", "finally", "recently", "already", "ever")
        or _peek(words, i) in SKIP_ADVERBS
    ):
        i += 1
    return _is_participle(_peek(words, i))


def _is_participle(word: str) -> bool:
    return word in PARTICIPLES or bool(_PARTICIPLE.match(word)) or word in IRREGULAR
