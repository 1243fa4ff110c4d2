"""An episode without a model: an extractive summary of a conversation slice and a heuristic
importance in [0, 1], each with the inputs that decided it.

The summary keeps the slice's most informative sentences, said in order, up to a length:
a sentence scores the rarity of its words within the slice (``log(1 + sentences / sentences
holding the word)``, averaged over its words so a long sentence is not favoured by length
alone), times 1.5 when the user says it in the first person ("I", "my", "we") and times 0.7
for a question or the assistant's words, plus 0.5 per named person or place. Greetings,
acknowledgements, tool chatter and sentences of fewer than three words are left out.

The importance weighs what a memory should keep, from signals anyone can check in the text:
durable first-person statements (who the user is, has, does, likes), changes (moved, started,
quit, no longer...), named people and places, and how much the user said::

    raw = 0.3 min(durable, 3) + 0.4 min(changes, 2) + 0.1 min(named, 4) + 0.2 min(words / 150, 1)
    importance = 1 - exp(-raw)

so small talk scores near 0, and one slice saying a lasting change about a named person about
0.6 (the sum of a few such slices reaches the default ``importance_threshold`` of 3).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from daemon.consolidation.rules import STOPWORDS
from plugins.gates.noise import noise_kind
from projections.entities import extract_entities

_SENTENCE = re.compile(r"[^.!?\n]+[.!?]*")
_WORD = re.compile(r"[a-z0-9']+")
_FIRST_PERSON = re.compile(r"\b(i|i'm|i've|i'd|i'll|my|mine|we|we're|our|me)\b")
_DURABLE = re.compile(
    r"\b(i|we)\s+(am|'m|have|'ve|live|work|study|love|hate|like|prefer|own|always|never|"
    r"usually|play|speak|need|want)\b|\bi'm\b|\bi've\b|\bmy\s+\w+\s+(is|are|was)\b"
    r"|\bmy\s+(name|wife|husband|partner|son|daughter|mother|father|sister|brother|job|"
    r"boss|dog|cat|home|flat|house|birthday|doctor)\b"
)
_CHANGE = re.compile(
    r"\b(moved|moving|switched|started|starting|stopped|quit|changed|new|no longer|anymore|"
    r"got (married|engaged|divorced|promoted|fired|a new)|promoted|fired|hired|retired|"
    r"diagnosed|pregnant|born|died|passed away|broke up|graduated|bought|sold|adopted)\b"
)
MIN_WORDS = 3


@dataclass(frozen=True, slots=True)
class SliceLine:
    """One message of a slice, as the summary reads it."""

    role: str
    text: str


def _words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in STOPWORDS]


def _sentences(lines: Sequence[SliceLine]) -> list[tuple[str, str]]:
    """(role, sentence) for every sentence worth considering, in order."""
    out: list[tuple[str, str]] = []
    for line in lines:
        if line.role not in ("user", "assistant"):
            continue
        for match in _SENTENCE.finditer(line.text):
            sentence = " ".join(match.group(0).split())
            if len(sentence.split()) < MIN_WORDS or noise_kind(sentence, "default"):
                continue
            out.append((line.role, sentence))
    return out


def extractive_summary(lines: Sequence[SliceLine], max_chars: int) -> tuple[str, dict[str, Any]]:
    """Return the slice's most informative sentences, in order, within ``max_chars``, and
    what chose them (see the module docstring)."""
    sentences = _sentences(lines)
    if not sentences:
        said = " ".join(" ".join(line.text.split()) for line in lines if line.text.strip())
        return said[:max_chars].rstrip(), {"sentences": 0, "picked": []}
    bags = [set(_words(s)) for _, s in sentences]
    df = Counter(w for bag in bags for w in bag)
    total = len(sentences)
    scores: list[float] = []
    for (role, sentence), bag in zip(sentences, bags, strict=True):
        rarity = sum(math.log(1 + total / df[w]) for w in bag) / math.sqrt(max(len(bag), 1))
        factor = 1.0
        if role == "user" and _FIRST_PERSON.search(sentence.lower()):
            factor *= 1.5
        if sentence.endswith("?") or role != "user":
            factor *= 0.7
        scores.append(rarity * factor + 0.5 * len(extract_entities(sentence)))
    order = sorted(range(total), key=lambda i: (-scores[i], i))
    picked: list[int] = []
    used = 0
    for i in order:
        size = len(sentences[i][1]) + (1 if picked else 0)
        if used + size > max_chars:
            continue
        picked.append(i)
        used += size
    if not picked:  # even the best sentence is longer than the bound: cut it
        best = order[0]
        return sentences[best][1][:max_chars].rstrip(), {"sentences": total, "picked": [best]}
    picked.sort()
    summary = " ".join(sentences[i][1] for i in picked)
    return summary, {"sentences": total, "picked": picked}


def heuristic_importance(lines: Sequence[SliceLine]) -> tuple[float, dict[str, Any]]:
    """Return the slice's importance in [0, 1] and its signals (see the module docstring)."""
    said = "\n".join(line.text for line in lines if line.role == "user")
    lowered = said.lower()
    durable = len(_DURABLE.findall(lowered))
    changes = len(_CHANGE.findall(lowered))
    named = len(extract_entities(said))
    words = len(said.split())
    raw = (
        0.3 * min(durable, 3)
        + 0.4 * min(changes, 2)
        + 0.1 * min(named, 4)
        + 0.2 * min(words / 150, 1.0)
    )
    importance = round(1 - math.exp(-raw), 4)
    signals = {"durable": durable, "changes": changes, "named": named, "user_words": words}
    return importance, signals
