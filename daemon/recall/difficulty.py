"""The difficulty gate of iterative recall: is a question hard enough for more
than one pass? Local rules, no model.

Five signals, each in [0, 1]:

- ``multi_hop``: the answer has to be put together (two or more named things, a possessive
  chain such as "Caroline's friend's dog", "both", "likely", "would ... if", "what kind of",
  an answer that is a list or a count: "what activities", "how many", "what are");
- ``temporal``: the question is about when ("when", "what year", "how long", "before",
  "after", "since", "ago", a year or a month named);
- ``comparison``: two things weighed ("compare", "more than", "better", "versus", "which
  of", "difference", "same as");
- ``multi_clause``: more than one clause ("and", "or", "but", "while", commas, several
  question marks);
- ``long``: words beyond 10, reaching 1 at 25.

The score is ``1 - prod(1 - w_s * signal_s)`` (each signal adds, none alone exceeds its
weight, the total stays in [0, 1]); a question is hard when ``score >= threshold``. The weights
are chosen so that one strong multi-hop or temporal signal alone crosses the default
threshold of 0.5 and a merely long question does not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

WEIGHTS: dict[str, float] = {
    "multi_hop": 0.6,
    "temporal": 0.5,
    "comparison": 0.5,
    "multi_clause": 0.35,
    "long": 0.3,
}
DEFAULT_THRESHOLD = 0.5

_WORD = re.compile(r"[\w'\u2019]+", re.UNICODE)
_NAME = re.compile(r"\b[A-Z][a-z\u00c0-\u024f]+(?:['\u2019]s)?\b")
_POSSESSIVE = re.compile(r"\w['\u2019]s\b")
_YEAR = re.compile(r"\b(1[89]|20)\d\d\b")
_QUESTION_WORDS = frozenset(
    """
    what which who whom whose when where why how do does did is are was were can could would
    should will have has had i the a an in on at
    """.split()  # noqa: SIM905
)
_TEMPORAL = (
    "when",
    "what year",
    "which year",
    "what month",
    "what date",
    "what day",
    "what time",
    "how long",
    "how many years",
    "how many months",
    "how many weeks",
    "how many days",
    "before",
    "after",
    "since",
    "until",
    " ago",
    "first time",
    "last time",
    "recently",
    "yesterday",
    "last week",
    "last month",
    "last year",
    "this year",
    "next",
)
_MONTHS = """
    january february march april may june july august september october november december
""".split()  # noqa: SIM905
_MULTI_HOP = (
    "both",
    "likely",
    "would ",
    "might",
    "what kind of",
    "what type of",
    "what sort of",
    "what are some",
    "what things",
    "what activities",
    "what events",
    "in common",
    "together",
    "related to",
    "because of",
    "considering",
)
_COMPARISON = (
    "compare",
    "compared",
    "more than",
    "less than",
    "fewer than",
    "better",
    "worse",
    "versus",
    " vs",
    "which of",
    "difference",
    "different",
    "same as",
    "rather than",
    "prefer",
    "most",
    "least",
)
_AGGREGATE = re.compile(
    r"\b(?:what|which)\s+(?:\w+\s+)?(?!was\b|is\b|has\b|does\b|this\b|yes\b)\w{3,}s\b"
    r"|\bhow many\b|\bwhat are\b|\bwhat were\b|\bin what ways\b",
    re.IGNORECASE,
)
"""Questions whose answer is a list or a count: the parts are said in different places."""
_CLAUSES = re.compile(r"\b(and|or|but|while|whereas|although|because|then)\b|,|;", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Difficulty:
    """The gate's verdict on one question."""

    score: float
    signals: dict[str, float]
    hard: bool
    forced: bool = False

    def to_json(self) -> dict[str, object]:
        """Return the ``explain`` form."""
        return {
            "score": round(self.score, 4),
            "signals": {k: round(v, 4) for k, v in self.signals.items()},
            "hard": self.hard,
            "forced": self.forced,
        }


def _any(text: str, phrases: tuple[str, ...]) -> int:
    return sum(1 for p in phrases if p in text)


def signals(question: str) -> dict[str, float]:
    """Return each signal of ``question`` in [0, 1]."""
    lower = " " + " ".join(question.lower().split()) + " "
    words = _WORD.findall(question)
    names = {
        m.group(0).removesuffix("'s").removesuffix("\u2019s")
        for m in _NAME.finditer(question)
        if m.start() > 0 or m.group(0).lower() not in _QUESTION_WORDS
    }
    names = {n for n in names if n.lower() not in _QUESTION_WORDS}
    possessives = len(_POSSESSIVE.findall(question))
    hop = 0.0
    if len(names) >= 2:
        hop += 0.6
    if possessives >= 2:
        hop += 0.6
    elif possessives == 1 and len(names) <= 1:
        hop += 0.2
    hop += 0.5 * min(2, _any(lower, _MULTI_HOP))
    if _AGGREGATE.search(question):
        hop += 0.85
    temporal = 0.0
    hits = _any(lower, _TEMPORAL)
    if lower.lstrip().startswith("when ") or " when " in lower:
        temporal = 1.0
    elif hits:
        temporal = min(1.0, 0.6 + 0.2 * (hits - 1))
    if _YEAR.search(question) or any(f" {m} " in lower for m in _MONTHS if m != "may"):
        temporal = min(1.0, temporal + 0.4)
    comparison = min(1.0, 0.7 * _any(lower, _COMPARISON))
    clauses = len(_CLAUSES.findall(question)) + max(0, question.count("?") - 1)
    multi_clause = min(1.0, 0.5 * clauses)
    long = min(1.0, max(0, len(words) - 10) / 15)
    return {
        "multi_hop": min(1.0, hop),
        "temporal": temporal,
        "comparison": comparison,
        "multi_clause": multi_clause,
        "long": long,
    }


def assess(question: str, threshold: float = DEFAULT_THRESHOLD, force: bool = False) -> Difficulty:
    """Score ``question`` and say whether it is hard (``force``: hard whatever the score)."""
    found = signals(question)
    remaining = 1.0
    for name, value in found.items():
        remaining *= 1.0 - WEIGHTS[name] * value
    score = min(1.0, max(0.0, 1.0 - remaining))
    return Difficulty(score, found, force or score >= threshold, forced=force)
