"""The state a rule reads a clause with, and the claim it makes from an attribute and a value."""

from __future__ import annotations

import re

from plugins.extractors.claims.model import Claim
from plugins.extractors.claims.predicates import Predicate
from plugins.extractors.claims.subjects import Subject
from plugins.extractors.claims.values import clean_value, vague, when_of


class Reading:
    """One clause's subject and predicate, and the claim they make with an attribute and a value."""

    def __init__(
        self, subject: Subject, pred: Predicate, strict: bool, antecedent: str | None
    ) -> None:
        self.s = subject
        self.p = pred
        self.strict = strict
        self.antecedent = antecedent
        """The value of the sentence's previous claim, which "it" and "them" point to."""
        self.greeted = False
        """Whether the clause opened with a greeting ("hi I'm julia" introduces julia)."""
        self.when = when_of(pred.rest)

    def claim(self, attribute: str, value: str, **kw: object) -> Claim:
        p = self.p
        if attribute == "condition":
            value = re.sub(r"\s+diagnosis$", "", value)  # "a coeliac diagnosis" is coeliac
        fields: dict[str, object] = {
            "negated": p.negated,
            "past": p.past,
            "change": p.change,
            "also": p.also,
            "when": self.when,
        }
        fields.update(kw)
        return Claim(self.s.key, attribute, value, **fields)  # type: ignore[arg-type]

    def _generic(self, rest: str, low: str) -> list[Claim]:
        prep = re.match(r"^(in|at|for|with|on|to|from|as|about|into|of)\s+", low)
        qualifier = prep.group(1) if prep else ""
        value = clean_value(rest[prep.end() :] if prep else rest)
        attribute = f"verb:{self.p.head}" + (f"_{qualifier}" if qualifier else "")
        if not value and self.p.negated:
            return [self.claim(attribute, "")]
        if not value or vague(value):
            return []
        return [self.claim(attribute, value)]

    def _generic_or_none(self, rest: str, low: str) -> list[Claim] | None:
        return [] if self.strict else None
