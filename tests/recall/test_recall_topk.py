"""The legs' top-k selection is exact: the same rows, in the same order, as sorting every
score (best first, the higher doc id first among equal scores), with ``-inf`` rows never
returned, whether or not the sampled floor is used."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import daemon.recall.topk as topk
from daemon.recall.topk import best_rows


def sorted_rows(scores: np.ndarray, keys: np.ndarray, limit: int) -> list[int]:
    """Return the reference answer: sort everything."""
    rows = [i for i in range(len(scores)) if scores[i] > -np.inf]
    rows.sort(key=lambda i: (-float(scores[i]), -int(keys[i])))
    return rows[:limit]


@st.composite
def score_arrays(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, int]:
    """Scores from a few distinct values (many ties) or floats, some rows masked out."""
    n = draw(st.integers(0, 3000))
    levels = draw(st.sampled_from([2, 5, 50, 0]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if levels:
        scores = rng.integers(0, levels, n).astype(np.float32) / levels
    else:
        scores = rng.standard_normal(n).astype(np.float32)
    masked = draw(st.sampled_from([0.0, 0.5, 0.99, 1.0]))
    scores[rng.random(n) < masked] = -np.inf
    keys = rng.permutation(n * 3)[:n].astype(np.int64)
    return scores, keys, draw(st.integers(0, 80))


@settings(max_examples=300, deadline=None)
@given(score_arrays(), st.sampled_from([np.float32, np.float64]))
def test_best_rows_equals_a_full_sort(
    case: tuple[np.ndarray, np.ndarray, int], dtype: type[np.floating]
) -> None:
    scores, keys, limit = case
    scores = scores.astype(dtype)
    assert best_rows(scores, keys, limit).tolist() == sorted_rows(scores, keys, limit)


@pytest.mark.parametrize("stride", [2, 16, 64])
def test_the_sampled_floor_keeps_every_row_of_the_top(
    monkeypatch: pytest.MonkeyPatch, stride: int
) -> None:
    # Adversarial for a sample: the best rows all sit between sampled positions.
    monkeypatch.setattr(topk, "SAMPLE_STRIDE", stride)
    n, limit = 50_000, 60
    scores = np.zeros(n, dtype=np.float32)
    best = [i for i in range(1, n, stride) if i % stride][:limit]
    scores[best] = np.linspace(2.0, 1.0, len(best), dtype=np.float32)
    keys = np.arange(n, dtype=np.int64)
    assert best_rows(scores, keys, limit).tolist() == best
    assert best_rows(scores, keys, limit + 40).tolist() == sorted_rows(scores, keys, limit + 40)
