"""The strict action-line language consolidation agents answer in.

One action per line::

    LINK a b [strength]            CATEGORIZE key category
    COMPRESS key "summary"         EXTRACT key topic section
    CONFLICT a b "why"             DIFFERENTIATE a b "how"
    MERGE a b "merged text"        DIGEST "title" "content"
    NOTE "observation"

Keys are the short names the agent was shown (``F1``, ``F2``...); bare words are
``[A-Za-z0-9_.:/-]+``; strings are double-quoted with ``\\"`` and ``\\\\`` escapes. Blank lines
are skipped; every other line is either an action or an error naming the line, what is wrong
and the line's text. Nothing is silently dropped: an unknown verb, a missing or extra
argument, an unterminated string, a bad number, an unknown key, a key linked to itself, a
control character or an over-long line is reported.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

MAX_LINE = 4000
MAX_ACTIONS = 500
LOW_RISK_VERBS: frozenset[str] = frozenset({"LINK", "CATEGORIZE", "NOTE"})

# kinds: k = key, w = bare word or string, s = string, n = optional number in [0, 1]
SIGNATURES: dict[str, str] = {
    "LINK": "kkn",
    "CATEGORIZE": "kw",
    "COMPRESS": "ks",
    "EXTRACT": "kww",
    "CONFLICT": "kks",
    "DIFFERENTIATE": "kks",
    "MERGE": "kks",
    "DIGEST": "ss",
    "NOTE": "s",
}
VERBS: tuple[str, ...] = tuple(SIGNATURES)

_BARE = re.compile(r"[A-Za-z0-9_.:/-]+")
_NUMBER = re.compile(r"[0-9]*\.?[0-9]+")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


@dataclass(frozen=True, slots=True)
class Action:
    """One parsed action: ``keys`` in order, ``texts`` (strings and words), ``strength``."""

    verb: str
    keys: tuple[str, ...] = ()
    texts: tuple[str, ...] = ()
    strength: float | None = None
    line: int = 0

    @property
    def low_risk(self) -> bool:
        return self.verb in LOW_RISK_VERBS

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "verb": self.verb,
            "keys": list(self.keys),
            "texts": list(self.texts),
        }
        if self.strength is not None:
            out["strength"] = self.strength
        return out


@dataclass(frozen=True, slots=True)
class ParseError:
    """A line that is not a valid action."""

    line: int
    text: str
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "text": self.text[:200], "message": self.message}


@dataclass(slots=True)
class Parsed:
    actions: list[Action] = field(default_factory=list)
    errors: list[ParseError] = field(default_factory=list)


class _Bad(Exception):
    pass


def _tokens(line: str) -> list[tuple[str, bool]]:
    """Split a line into (token, quoted) pairs."""
    out: list[tuple[str, bool]] = []
    i, n = 0, len(line)
    while i < n:
        ch = line[i]
        if ch in " \t":
            i += 1
            continue
        if ch == '"':
            i += 1
            buf: list[str] = []
            while True:
                if i >= n:
                    raise _Bad("unterminated string")
                c = line[i]
                if c == "\\":
                    if i + 1 >= n or line[i + 1] not in '"\\':
                        raise _Bad('bad escape in string (only \\" and \\\\)')
                    buf.append(line[i + 1])
                    i += 2
                elif c == '"':
                    i += 1
                    break
                else:
                    buf.append(c)
                    i += 1
            if i < n and line[i] not in " \t":
                raise _Bad("a string must be followed by a space or the end of the line")
            out.append(("".join(buf), True))
            continue
        m = _BARE.match(line, i)
        if m is None:
            raise _Bad(f"unexpected character {ch!r} at column {i + 1}")
        end = m.end()
        if end < n and line[end] not in " \t":
            raise _Bad(f"unexpected character {line[end]!r} at column {end + 1}")
        out.append((m.group(), False))
        i = end
    return out


def parse_line(line: str, number: int, keys: Collection[str] | None = None) -> Action:
    """Parse one non-blank line; raise ValueError naming what is wrong."""
    if len(line) > MAX_LINE:
        raise ValueError(f"line longer than {MAX_LINE} characters")
    if _CONTROL.search(line):
        raise ValueError("control character in line")
    try:
        tokens = _tokens(line.strip())
    except _Bad as exc:
        raise ValueError(str(exc)) from None
    verb, quoted = tokens[0]
    if quoted or verb not in SIGNATURES:
        raise ValueError(f"unknown verb {verb!r} (known: {', '.join(VERBS)})")
    signature = SIGNATURES[verb]
    args = tokens[1:]
    required = signature.rstrip("n")
    if not len(required) <= len(args) <= len(signature):
        want = f"{len(required)}" if required == signature else f"{len(required)}-{len(signature)}"
        raise ValueError(f"{verb} takes {want} arguments, got {len(args)}")
    found_keys: list[str] = []
    texts: list[str] = []
    strength: float | None = None
    for kind, (value, was_quoted) in zip(signature, args, strict=False):
        if kind == "k":
            if was_quoted:
                raise ValueError(f"{verb}: a key must not be quoted ({value!r})")
            if keys is not None and value not in keys:
                raise ValueError(f"{verb}: unknown key {value!r}")
            found_keys.append(value)
        elif kind == "s":
            if not was_quoted:
                raise ValueError(f"{verb}: expected a quoted string, got {value!r}")
            if not value.strip():
                raise ValueError(f"{verb}: empty string")
            texts.append(value)
        elif kind == "w":
            if not value.strip():
                raise ValueError(f"{verb}: empty word")
            texts.append(value)
        else:
            if was_quoted or not _NUMBER.fullmatch(value):
                raise ValueError(f"{verb}: strength must be a number in [0, 1], got {value!r}")
            strength = float(value)
            if not 0.0 <= strength <= 1.0:
                raise ValueError(f"{verb}: strength must be in [0, 1], got {value}")
    if len(found_keys) == 2 and found_keys[0] == found_keys[1]:
        raise ValueError(f"{verb}: the two keys are the same ({found_keys[0]!r})")
    return Action(verb, tuple(found_keys), tuple(texts), strength, number)


def parse_actions(
    text: str, keys: Collection[str] | None = None, verbs: Collection[str] | None = None
) -> Parsed:
    """Parse an agent's whole answer; ``verbs`` limits what this agent may say."""
    out = Parsed()
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if len(out.actions) >= MAX_ACTIONS:
            out.errors.append(ParseError(number, line, f"more than {MAX_ACTIONS} actions"))
            continue
        try:
            action = parse_line(line, number, keys)
        except ValueError as exc:
            out.errors.append(ParseError(number, line, str(exc)))
            continue
        if verbs is not None and action.verb not in verbs:
            out.errors.append(
                ParseError(number, line, f"{action.verb} is not allowed for this agent")
            )
            continue
        out.actions.append(action)
    return out
