"""The one normaliser of fact text: what "the same text" means everywhere.

Write-time dedupe, the retrospective's "already remembered" check, reconciliation and the
consolidation projection's exact-duplicate key all compare texts through :func:`normalise`,
so 'User likes tea!', 'user likes tea' and the same in full-width letters are one text, and
"User's dog" and "Users dog" are too.
"""

from __future__ import annotations

import re
import unicodedata

_APOSTROPHE = re.compile(r"(?<=\w)['\u2019\u02bc](?=\w)")
_PUNCT = re.compile(r"[^\w\s]", re.UNICODE)
_SPACE = re.compile(r"\s+")


def normalise(text: str) -> str:
    """Return ``text`` with width, case, apostrophes, punctuation and whitespace folded away."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    folded = _APOSTROPHE.sub("", folded)
    return _SPACE.sub(" ", _PUNCT.sub(" ", folded)).strip()
