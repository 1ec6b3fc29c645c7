"""Which vectors a workspace's configured embedder may use, and the check that earns it.

Vectors are stored under the ``provider:model`` key of the backend that made them. The part after the
colon is the backend-agnostic model identity. Opening a workspace with another backend of the *same*
model (``onnx:all-MiniLM-L6-v2`` over vectors of ``sentence-transformers:all-MiniLM-L6-v2``) keeps the
recorded key — so the stored vectors stay searchable without re-embedding — but only on probation: the
first time the model loads, its vectors for the probe texts are compared with the recorded backend's
(:mod:`kgrag.models.agreement`). Below ``embedding.agreement_min_cosine`` it is a user error pointing at
``kgrag reindex --embeddings``. The verdict is stored, so later runs do not pay for the check, and a
BM25 query, which never loads the model, never triggers it. Another model name fails at open.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from kgrag.core.errors import WorkspaceError
from kgrag.store import Store

if TYPE_CHECKING:  # NumPy and the probes load only when a model does (`kgrag status` opens without them)
    from kgrag.models.agreement import Agreement
    from kgrag.models.embeddings import Embedder

META_MODEL = "embedding.model"
META_DIMENSION = "embedding.dimension"
META_WINDOW = "embedding.window"
META_PROBE = "embedding.probe"
META_AGREEMENT = "embedding.agreement."  # + the configured key: the stored verdict for that backend
FALLBACK_SAMPLE = 16  # stored chunk vectors compared when a workspace predates probes


def model_identity(key: str) -> str:
    """``provider:model`` -> ``model``: what two backends must share before agreement is even measured."""
    return key.split(":", 1)[1] if ":" in key else key


def vector_key(store: Store, configured: str, allow_change: bool) -> str:
    """The key vectors are read and written under: the recorded one when the configured backend serves the
    same model (verified on load by :func:`bind_model`), else the configured one."""
    recorded = store.meta.get(META_MODEL)
    if allow_change or recorded is None or recorded == configured:
        return configured
    return recorded if model_identity(recorded) == model_identity(configured) else configured


def mismatch_error(recorded: str, configured: str, detail: str = "") -> WorkspaceError:
    return WorkspaceError(
        f"this workspace was embedded with {recorded!r} but the config asks for {configured!r}{detail}; run "
        "`kgrag reindex --embeddings` to re-embed with the new model, or set embedding.model/provider back"
    )


def bind_model(store: Store, embedder: Embedder, configured: str, key: str, threshold: float) -> None:
    """Called when the configured model loads: record it (and its probe) when it owns ``key``; otherwise
    accept it over ``key``'s vectors only if it reproduces them."""
    if key == configured:
        record_model(store, embedder, key)
        return
    agreement = _cached(store, configured, key, threshold) or _measure_and_store(
        store, embedder, configured, key, threshold
    )
    if not agreement.ok:
        raise mismatch_error(key, configured, f", whose vectors do not agree with the stored ones ({agreement.line()})")


def record_model(store: Store, embedder: Embedder, key: str) -> None:
    """Make ``embedder`` the recorded model of the workspace, with a probe for other backends to match.
    Writes only what differs: a model loading in a query must not commit, since any commit makes every
    hot index of the workspace (the graph index, the vector matrix) reload."""
    from kgrag.models.agreement import decode_probe, encode_probe, probe_vectors

    wanted = {META_MODEL: key, META_DIMENSION: str(embedder.dimension)}
    if embedder.window_tokens:
        wanted[META_WINDOW] = str(embedder.window_tokens)
    changed = {name: value for name, value in wanted.items() if store.meta.get(name) != value}
    if decode_probe(store.meta.get(META_PROBE), key) is None:
        changed[META_PROBE] = encode_probe(probe_vectors(embedder), key)
    if not changed:
        return
    with store.transaction():
        for name, value in changed.items():
            store.meta.set(name, value)


def stored_verdict(store: Store, configured: str) -> dict[str, object] | None:
    """The recorded agreement of ``configured`` with the workspace's vectors (for ``kgrag status``)."""
    text = store.meta.get(META_AGREEMENT + configured)
    return json.loads(text) if text else None


def _cached(store: Store, configured: str, key: str, threshold: float) -> Agreement | None:
    from kgrag.models.agreement import Agreement

    verdict = stored_verdict(store, configured)
    if not verdict or verdict.get("against") != key or verdict.get("threshold") != threshold:
        return None
    return Agreement(float(str(verdict["mean"])), float(str(verdict["min"])), threshold)


def _measure_and_store(store: Store, embedder: Embedder, configured: str, key: str, threshold: float) -> Agreement:
    from kgrag.models.agreement import decode_probe, measure, probe_vectors

    reference = decode_probe(store.meta.get(META_PROBE), key)
    if reference is not None:
        agreement = measure(reference, probe_vectors(embedder), threshold)
        basis = "probe"
    else:
        agreement, basis = _measure_on_stored_chunks(store, embedder, key, threshold)
    verdict = {"against": key, "basis": basis, "mean": agreement.mean, "min": agreement.minimum, "threshold": threshold}
    with store.transaction():
        store.meta.set(META_AGREEMENT + configured, json.dumps(verdict))
    return agreement


def _measure_on_stored_chunks(store: Store, embedder: Embedder, key: str, threshold: float) -> tuple[Agreement, str]:
    """A workspace recorded before probes existed: compare on a sample of its own chunk vectors. With no
    vector of the recorded model at all there is nothing to disagree with."""
    import numpy as np

    from kgrag.models.agreement import Agreement, measure

    texts: dict[str, str] = {}
    for chunk in store.chunks.iter_all():
        texts.setdefault(chunk.text_hash, chunk.text)
        if len(texts) >= FALLBACK_SAMPLE * 4:
            break
    stored = store.vectors.get(key, list(texts))
    hashes = list(stored)[:FALLBACK_SAMPLE]
    if not hashes:
        return Agreement(1.0, 1.0, threshold), "nothing stored"
    reference = np.stack([stored[h] for h in hashes]).astype(np.float32)
    return measure(reference, embedder.embed([texts[h] for h in hashes]), threshold), "stored chunks"
