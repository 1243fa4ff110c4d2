"""The exact vector scan: cosine scores of a query against the dimension-major matrix of the
held vectors (``by_dim[dimension, row]``), and the best rows among those a mask admits.

A sparse query (the hashed embedder's) reads only its non-zero dimensions, a fraction of the
matrix, a block of documents at a time; a large scan deals its blocks out to a few threads.
"""

from __future__ import annotations

import concurrent.futures
import os
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from daemon.recall.temporal import BoolArray
from daemon.recall.topk import best_hits
from plugins.embedders.base import Vectors

SCAN_BLOCK_FLOATS = 1 << 18
"""Floats gathered per block by the sparse scan (1 MB: about what a core's L2 holds)."""
SCAN_PART_DOCS = 40_000
"""Documents from which the sparse scan runs its blocks on more than one core."""
SCAN_THREADS = max(1, min(4, os.cpu_count() or 1))
"""Cores one sparse scan may use."""


class VectorScan:
    """Ranks held vectors against a query; owns the helper threads of a large scan."""

    def __init__(self) -> None:
        self._scanners: concurrent.futures.ThreadPoolExecutor | None = None
        self._last: tuple[tuple[bytes, int, tuple[int, int]], npt.NDArray[np.float32]] | None = None

    def best(
        self,
        by_dim: npt.NDArray[np.float32],
        doc_id: npt.NDArray[np.int64],
        m: BoolArray,
        query_vector: Vectors,
        limit: int,
        version: Callable[[], tuple[int, int]] | None = None,
    ) -> list[tuple[int, float]]:
        """Return ``(doc_id, cosine)`` of the best ``limit`` of the rows ``m`` admits (``m``
        covers the first rows of ``by_dim`` and ``doc_id``). ``version`` says what the
        matrix holds; with it, a whole scan is kept for the next search of the same query."""
        n = m.shape[0]
        passing = int(np.count_nonzero(m))
        if passing == 0:
            return []
        q = np.asarray(query_vector, dtype=np.float32).reshape(-1)
        used = np.flatnonzero(q)
        if passing * 64 < n:
            # Few rows pass: gather just their columns (of the query's dimensions).
            rows = np.flatnonzero(m)
            scores = q[used] @ by_dim[np.ix_(used, rows)]
            keys = doc_id[rows]
        else:
            scores = self._kept_scores(by_dim, q, used, n, version)
            keys = doc_id[:n]
            if passing < n:
                scores = np.where(m, scores, np.float32(-np.inf))
        return best_hits(scores, keys, limit)

    def _kept_scores(
        self,
        by_dim: npt.NDArray[np.float32],
        q: npt.NDArray[np.float32],
        used: npt.NDArray[np.int64],
        n: int,
        version: Callable[[], tuple[int, int]] | None,
    ) -> npt.NDArray[np.float32]:
        """:meth:`scores`, kept for the next search of the same query while no row or vector
        changes: the searches of one request that differ only in their filters (``POST
        /v1/context`` asks for facts, then for messages) share one scan of the matrix, the
        largest part of a search. The result is shared: read it, never write it."""
        if version is None:
            return self.scores(by_dim, q, used, n)
        key = (q.tobytes(), n, version())
        kept = self._last
        if kept is not None and kept[0] == key:
            return kept[1]
        scores = self.scores(by_dim, q, used, n)
        if version() == key[2]:  # nothing was written while it was computed
            self._last = (key, scores)
        return scores

    def scores(
        self,
        by_dim: npt.NDArray[np.float32],
        q: npt.NDArray[np.float32],
        used: npt.NDArray[np.int64],
        n: int,
    ) -> npt.NDArray[np.float32]:
        """Return the dot product of ``q`` with each of the first ``n`` rows.

        A hashed n-gram query has few non-zero dimensions (a handful of words touch ~60 of
        384 buckets): then only those dimensions' rows of the dimension-major matrix are read,
        a block of documents at a time so the gathered block stays in cache. A dense query
        (a model embedder) reads the whole matrix once.
        """
        if used.size * 2 > q.size:
            return q @ by_dim[:, :n]
        weights = q[used]
        out = np.empty(n, dtype=np.float32)
        block = max(1024, SCAN_BLOCK_FLOATS // max(1, used.size))
        starts = range(0, n, block)
        parts = min(SCAN_THREADS, n // SCAN_PART_DOCS, len(starts))
        if parts <= 1:
            _scan(by_dim, weights, used, out, starts, block)
            return out
        # The memory reads bound the scan, and each core has its own path to memory: the
        # blocks are dealt out to ``parts`` threads (the same blocks, so the same floats).
        # The helpers only compute, they never wait on other work, so they cannot deadlock.
        pool = self._scan_pool()
        helpers = [
            pool.submit(_scan, by_dim, weights, used, out, starts[i::parts], block)
            for i in range(1, parts)
        ]
        _scan(by_dim, weights, used, out, starts[::parts], block)
        for helper in helpers:
            helper.result()
        return out

    def _scan_pool(self) -> concurrent.futures.ThreadPoolExecutor:
        if self._scanners is None:
            self._scanners = concurrent.futures.ThreadPoolExecutor(
                max_workers=SCAN_THREADS, thread_name_prefix="memoryd-scan"
            )
        return self._scanners

    def close(self) -> None:
        """Stop the scan helper threads."""
        if self._scanners is not None:
            self._scanners.shutdown(wait=True)
            self._scanners = None


def _scan(
    by_dim: npt.NDArray[np.float32],
    weights: npt.NDArray[np.float32],
    used: npt.NDArray[np.int64],
    out: npt.NDArray[np.float32],
    starts: range,
    block: int,
) -> None:
    """Fill ``out`` for the blocks of documents beginning at ``starts``."""
    n = out.shape[0]
    for start in starts:
        stop = min(n, start + block)
        out[start:stop] = weights @ by_dim[used, start:stop]
