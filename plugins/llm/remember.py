"""The tool a retrospective offers the model: ``remember``, one call per durable fact.

Shared by the daemon (which sends it and judges the calls, :mod:`daemon.retrospective.review`)
and the providers and extractors that answer it (the extractor contract checks their calls
against :data:`REMEMBER_TOOL`'s schema). An answer with no call must be exactly
:data:`NOTHING_NEW`.
"""

from __future__ import annotations

from plugins.llm.types import ToolSpec

NOTHING_NEW = "Nothing new to save."
"""The exact reply that says a slice holds nothing worth remembering."""

CHANGED = "new"
"""``change`` of a fact said as new: it may replace the fact it changes."""
ALSO = "also"
"""``change`` of a fact said as one more: it is kept beside the others of its kind."""

REMEMBER_TOOL = ToolSpec(
    name="remember",
    description=(
        "Save one durable fact for future conversations, about the user or someone in their "
        "life, citing the ids of the messages that said it."
    ),
    parameters={
        "type": "object",
        "properties": {
            "text": {"type": "string", "description": "One self-contained sentence."},
            "tags": {"type": "array", "items": {"type": "string"}},
            "importance": {"type": "number", "minimum": 0, "maximum": 1},
            "subject": {
                "type": "string",
                "description": 'Who it is about: "user", or the person\'s name.',
            },
            "predicate": {"type": "string", "description": "What about them (lives in, ...)."},
            "object": {"type": "string", "description": "The value (Lisbon, ...)."},
            "when": {
                "type": "string",
                "description": 'When it happened, as said ("last month", "3 weeks ago").',
            },
            "replaces": {
                "type": "string",
                "description": 'The value it replaces, when the user said so ("switched from '
                'sertraline": sertraline).',
            },
            "change": {
                "type": "string",
                "enum": [CHANGED, ALSO],
                "description": f'"{CHANGED}": it is new, so it may replace what it changed ("now '
                f'I\'m on gliclazide", "got promoted"); "{ALSO}": one more beside what is known '
                '("I also teach cello").',
            },
            "source_message_ids": {
                "type": "array",
                "items": {"type": "string"},
                "description": "The ids (in brackets in the transcript) of the messages that "
                "say it.",
            },
        },
        "required": ["text"],
        "additionalProperties": False,
    },
)
