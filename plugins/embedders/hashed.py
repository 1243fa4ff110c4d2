"""The default embedder: hashed character n-grams, no model, no download, deterministic.

Each word (lower-cased, diacritics kept as they are) contributes its whole form and its
character n-grams of the configured lengths, wrapped in boundary marks (``<walk>`` gives
``<wa``, ``wal``, ``alk``, ``lk>``...). Every feature is hashed (CRC-32, stable across runs and
machines) to one of ``dim`` buckets with a sign taken from another bit of the hash, so
collisions cancel out on average. Counts are damped (``1 + log(tf)``) and the vector is
normalised, so the dot product of two vectors is a cosine over shared spelling: robust to
inflection and typos, blind to synonyms.
"""

from __future__ import annotations

import asyncio
import math
import re
import zlib
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from plugins.embedders.base import Vectors, normalise_rows

_WORD = re.compile(r"\w+", re.UNICODE)
_CACHED = 200_000
"""Most words (and features) whose split (bucket) is kept; the cache restarts when full."""


class HashedNgramEmbedder:
    """Signed feature hashing of words and their character n-grams."""

    def __init__(self, dim: int = 384, ngram_min: int = 3, ngram_max: int = 5) -> None:
        if dim < 8:
            raise ValueError("dim must be at least 8")
        if not 1 <= ngram_min <= ngram_max:
            raise ValueError("need 1 <= ngram_min <= ngram_max")
        self._dim = dim
        self._ngram_min = ngram_min
        self._ngram_max = ngram_max
        self._words: dict[str, tuple[str, ...]] = {}
        self._buckets: dict[str, tuple[int, float]] = {}

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> HashedNgramEmbedder:
        """Build from a config section (``dim``, ``ngram_min``, ``ngram_max``)."""
        return cls(
            dim=int(config.get("dim", 384)),
            ngram_min=int(config.get("ngram_min", 3)),
            ngram_max=int(config.get("ngram_max", 5)),
        )

    @property
    def embedder_id(self) -> str:
        """Return ``hashed-ngram-v1/<dim>/<min>-<max>``."""
        return f"hashed-ngram-v1/{self._dim}/{self._ngram_min}-{self._ngram_max}"

    fusion_weight = 0.1
    """Default RRF weight of the vector leg with this embedder: spelling overlap mostly repeats
    the lexical leg's evidence, so it only breaks ties and rescues misspelt queries."""

    @property
    def dim(self) -> int:
        """Return the number of hash buckets."""
        return self._dim

    def features(self, text: str) -> Counter[str]:
        """Return the counted features of one text (words and their n-grams)."""
        counts: Counter[str] = Counter()
        for word in _WORD.findall(text.lower()):
            counts.update(self._word_features(word))
        return counts

    def _word_features(self, word: str) -> tuple[str, ...]:
        # Words repeat (Zipf): each distinct word is split into its features once.
        found = self._words.get(word)
        if found is None:
            marked = f"<{word}>"
            found = (
                "w:" + word,
                *(
                    marked[i : i + n]
                    for n in range(self._ngram_min, self._ngram_max + 1)
                    for i in range(len(marked) - n + 1)
                ),
            )
            if len(self._words) >= _CACHED:
                self._words.clear()
            self._words[word] = found
        return found

    def _bucket(self, feature: str) -> tuple[int, float]:
        found = self._buckets.get(feature)
        if found is None:
            h = zlib.crc32(feature.encode("utf-8"))
            found = (h % self._dim, -1.0 if (h >> 31) & 1 else 1.0)
            if len(self._buckets) >= _CACHED:
                self._buckets.clear()
            self._buckets[feature] = found
        return found

    def embed_sync(self, texts: Sequence[str]) -> Vectors:
        """Embed in the calling thread."""
        rows: list[int] = []
        indexes: list[int] = []
        weights: list[float] = []
        bucket = self._bucket
        for row, text in enumerate(texts):
            for feature, count in self.features(text).items():
                index, sign = bucket(feature)
                rows.append(row)
                indexes.append(index)
                weights.append(sign * (1.0 + math.log(count)))
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        # One unbuffered add in feature order: the same float32 sums as adding one by one.
        np.add.at(out, (rows, indexes), np.asarray(weights, dtype=np.float32))
        return normalise_rows(out)

    async def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed in a worker thread (large batches take a while)."""
        if len(texts) <= 64:
            return self.embed_sync(texts)
        return await asyncio.to_thread(self.embed_sync, texts)
