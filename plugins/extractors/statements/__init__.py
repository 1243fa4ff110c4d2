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

from plugins.extractors.statements.provider import (
    EXTRACTOR_ID,
    EXTRACTOR_NAME,
    EXTRACTOR_TAG,
    NOTHING_NEW,
    StatementExtractor,
)
from plugins.extractors.statements.reading import Statement, extract_statements
from plugins.extractors.statements.render import render
from plugins.extractors.statements.sentences import is_statement_clause, statement_sentences

__all__ = [
    "EXTRACTOR_ID",
    "EXTRACTOR_NAME",
    "EXTRACTOR_TAG",
    "NOTHING_NEW",
    "Statement",
    "StatementExtractor",
    "extract_statements",
    "is_statement_clause",
    "render",
    "statement_sentences",
]
