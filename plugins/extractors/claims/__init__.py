"""What a sentence claims about a person: subject, attribute, value, and how it changes.

One grammar serves two readers. The offline extractor reads a user's chat turns with it
(``strict=True``: only the durable kinds of statement it knows), and reconciliation reads fact
texts with it ("Lives in Boston.", "The user works at Stripe.", "Bob is 35 years old.", "I just
moved to Seattle"), so a fact written through the API and a fact distilled from a chat are
compared in the same terms.

A :class:`Claim` is one (subject, attribute, value) with its polarity and change markers:

- ``subject``: ``"user"`` for the speaker or the user ("I", "we", "The user", a subject-less
  note), a person's name ("Maya"), or a relation of the user ("user's sister").
- ``attribute``: a word from :data:`SINGLE_VALUED` or :data:`MULTI_VALUED`, or ``verb:<stem>``
  for a verb the grammar has no kind for (``strict=False`` only).
- ``value``: the thing said, as said ("Lisbon", "a nurse", "peanuts"); ``""`` stands for "any
  value" in a negation ("I quit my job": no employer is current any more).
- ``negated`` ("no longer", "not ... anymore", "quit", "sold"), ``past`` ("used to"),
  ``change`` (a marker that something changed: "now", "just", "moved", "switched", "again"),
  ``previous`` ("from X to Y"), ``alternative`` ("prefers X over Y"), ``also`` ("too").

The grammar is shallow on purpose: clauses are split at conjunctions that start a new
statement, a subject is read off the front, auxiliaries and adverbs become markers, and the
verb's stem picks a rule. It reads English as people type it in chat (lower case, missing
punctuation, contractions); what it cannot place it leaves out rather than guess.
"""

from plugins.extractors.claims.mentioned import mentions
from plugins.extractors.claims.model import (
    CHANGED_MIND,
    ENGAGED_TO,
    EXCLUSIVE_VERBS,
    INJURY,
    MULTI_VALUED,
    NOTE,
    SINGLE_VALUED,
    Claim,
)
from plugins.extractors.claims.parsing import iter_values, name_brackets, parse
from plugins.extractors.claims.phrases import is_school_stage, third_person
from plugins.extractors.claims.splitting import clauses, sentences
from plugins.extractors.claims.subjects import (
    ATTRIBUTE_NOUNS,
    EVENT_NOUNS,
    HANDLE_NOUNS,
    labels_an_attribute,
    leading_label,
    with_known_names,
)
from plugins.extractors.claims.things import phone_name
from plugins.extractors.claims.values import clean_value, vague, when_of, when_offset
from plugins.extractors.claims.words import stem

__all__ = [
    "ATTRIBUTE_NOUNS",
    "CHANGED_MIND",
    "ENGAGED_TO",
    "EVENT_NOUNS",
    "EXCLUSIVE_VERBS",
    "HANDLE_NOUNS",
    "INJURY",
    "MULTI_VALUED",
    "NOTE",
    "SINGLE_VALUED",
    "Claim",
    "clauses",
    "clean_value",
    "is_school_stage",
    "iter_values",
    "labels_an_attribute",
    "leading_label",
    "mentions",
    "name_brackets",
    "parse",
    "phone_name",
    "sentences",
    "stem",
    "third_person",
    "vague",
    "when_of",
    "when_offset",
    "with_known_names",
]
