"""What is never kept as a fact: greetings, acknowledgements and tool chatter.

:func:`noise_kind` says whether a fact's whole text is noise under ``noise_filters``:
``minimal`` knows greetings and acknowledgements, ``default`` adds tool chatter (a model
narrating its tool calls), ``none`` nothing. Only the whole text counts ("thanks" is noise,
"thanks to Ana I found the flat" is not), so a statement that merely opens with a greeting
is kept.

Three readers: the retrospective's write path (a remembered text that is noise is not
written), consolidation's light phase (noise written otherwise is archived) and the ``noise``
ingest gate (a message that is noise never reaches the extractor). It lives with the gates
because a plugin may not import the daemon.
"""

from __future__ import annotations

import re

_GREETINGS = (
    r"(hi|hello|hey|hiya|howdy|yo|greetings)( there| all| everyone)?"
    r"|good (morning|afternoon|evening|night)|(bye|goodbye|good ?bye|see you|see ya|cya)"
    r"( later| soon| tomorrow)?|how are you( doing)?|what'?s up"
)
_ACKNOWLEDGEMENTS = (
    r"(ok|okay|k|kk|sure|yes|yeah|yep|no|nope|right|alright|all right|fine|cool|great|nice"
    r"|perfect|awesome|got it|understood|noted|sounds good|makes sense|will do|no problem|np"
    r"|thanks|thank you|thx|ty|cheers)( (so|very) much| a lot| again)?"
)
_TOOL_CHATTER = (
    r"(calling|running|executing|invoking) (the )?(tool|function|command|search)\b.*"
    r"|(tool|function) (call|result|output|returned)\b.*"
    r"|let me (check|look|search|see|try|run)\b.*"
    r"|[\[{].*[\]}]"
)
_FILTERS: dict[str, tuple[tuple[str, re.Pattern[str]], ...]] = {
    "none": (),
    "minimal": (
        ("greeting", re.compile(_GREETINGS)),
        ("acknowledgement", re.compile(_ACKNOWLEDGEMENTS)),
    ),
}
_FILTERS["default"] = (*_FILTERS["minimal"], ("tool chatter", re.compile(_TOOL_CHATTER)))
NOISE_FILTERS = tuple(_FILTERS)


def noise_kind(text: str, filters: str) -> str | None:
    """Return what kind of noise ``text`` is under ``filters`` (None: it is not noise)."""
    said = " ".join(text.lower().split()).strip(" .!?,;:~-")
    for kind, pattern in _FILTERS[filters]:
        if pattern.fullmatch(said):
            return kind
    return None
