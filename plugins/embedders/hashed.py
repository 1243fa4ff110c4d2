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
            counts["w:" + word] += 1
            marked = f"<{word}>"
            for n in range(self._ngram_min, self._ngram_max + 1):
                for i in range(len(marked) - n + 1):
                    counts[marked[i : i + n]] += 1
        return counts

    def embed_sync(self, texts: Sequence[str]) -> Vectors:
        """Embed in the calling thread."""
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        dim = self._dim
        for row, text in enumerate(texts):
            vec = out[row]
            for feature, count in self.features(text).items():
                h = zlib.crc32(feature.encode("utf-8"))
                weight = 1.0 + math.log(count)
                vec[h % dim] += -weight if (h >> 31) & 1 else weight
        return normalise_rows(out)

    async def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed in a worker thread (large batches take a while)."""
        if len(texts) <= 64:
            return self.embed_sync(texts)
        return await asyncio.to_thread(self.embed_sync, texts)
