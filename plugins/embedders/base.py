"""The embedder contract: texts in, L2-normalised float32 vectors out.

An embedder is a plugin (registered under the ``embedder`` kind). Its ``embedder_id`` names the
model *and* every setting that changes its vectors, because the daemon caches embeddings by
(content hash, embedder id): two embedders that would give different vectors must never share
an id, and an embedder whose vectors do not change must keep its id across releases.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]
"""A ``(n, dim)`` float32 array, each row of unit length (or all zeros for an empty text)."""


@runtime_checkable
class Embedder(Protocol):
    """Turn texts into vectors whose dot product is their cosine similarity."""

    @property
    def embedder_id(self) -> str:
        """Return a stable id naming the model and the settings that change its vectors."""
        ...

    @property
    def dim(self) -> int:
        """Return the vectors' dimension."""
        ...

    async def embed(self, texts: Sequence[str]) -> Vectors:
        """Return one unit vector per text, in order."""
        ...


def normalise_rows(matrix: Vectors) -> Vectors:
    """Scale each row to unit length in place (all-zero rows stay zero) and return it."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    np.divide(matrix, norms, out=matrix, where=norms > 0)
    return matrix
