"""What every embedder promises (:class:`plugins.protocols.Embedder`).

Vectors are cached by ``(content hash, embedder_id)`` and compared by dot product, so: the id
and the dimension are stable, the same text gives the same vector (alone or in a batch, from
this instance or a fresh one), every row is unit length (all zeros only for a text with
nothing to embed), and texts that share words are nearer than texts that share none.
"""

from __future__ import annotations

import abc

import numpy as np

from plugins.protocols import Embedder

TEXTS = (
    "walking the dog in the park",
    "walked the dogs in a park",
    "quantum chromodynamics lecture notes",
    "naïve café on the corner",
)


class EmbedderContract(abc.ABC):
    """Subclass and implement :meth:`make_embedder` (a fresh instance per call)."""

    tolerance = 1e-5
    """How far a batched vector may be from the same text embedded alone (padding, BLAS)."""

    @abc.abstractmethod
    def make_embedder(self) -> Embedder:
        """Return a new embedder, built the same way each time."""

    async def test_is_an_embedder_with_a_stable_id_and_dimension(self) -> None:
        embedder = self.make_embedder()
        assert isinstance(embedder, Embedder)
        assert isinstance(embedder.embedder_id, str)
        assert embedder.embedder_id.strip()
        assert isinstance(embedder.dim, int)
        assert embedder.dim > 0
        again = self.make_embedder()
        assert (again.embedder_id, again.dim) == (embedder.embedder_id, embedder.dim)

    async def test_rows_are_float32_of_the_dimension(self) -> None:
        embedder = self.make_embedder()
        vectors = await embedder.embed(list(TEXTS))
        assert vectors.shape == (len(TEXTS), embedder.dim)
        assert vectors.dtype == np.float32
        assert np.isfinite(vectors).all()

    async def test_rows_are_unit_length(self) -> None:
        vectors = await self.make_embedder().embed(list(TEXTS))
        assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)

    async def test_is_deterministic_across_calls_and_instances(self) -> None:
        first = await self.make_embedder().embed(list(TEXTS))
        embedder = self.make_embedder()
        again = await embedder.embed(list(TEXTS))
        assert np.allclose(first, again, atol=self.tolerance, rtol=0)
        assert np.array_equal(again, await embedder.embed(list(TEXTS)))

    async def test_a_batch_equals_each_text_alone(self) -> None:
        embedder = self.make_embedder()
        batch = await embedder.embed(list(TEXTS))
        for row, text in enumerate(TEXTS):
            alone = await embedder.embed([text])
            assert alone.shape == (1, embedder.dim)
            assert np.allclose(batch[row], alone[0], atol=self.tolerance, rtol=0), text

    async def test_empty_input_gives_no_rows(self) -> None:
        embedder = self.make_embedder()
        vectors = await embedder.embed([])
        assert vectors.shape == (0, embedder.dim)

    async def test_an_empty_text_is_zero_or_unit_length(self) -> None:
        vectors = await self.make_embedder().embed(["", TEXTS[0]])
        norm = float(np.linalg.norm(vectors[0]))
        assert norm == 0.0 or abs(norm - 1.0) < 1e-4
        assert abs(float(np.linalg.norm(vectors[1])) - 1.0) < 1e-4

    async def test_shared_words_are_nearer_than_none(self) -> None:
        a, b, c, _ = await self.make_embedder().embed(list(TEXTS))
        assert float(a @ b) > float(a @ c)
