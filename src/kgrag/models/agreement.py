"""When may vectors made by one embedding backend be searched with queries embedded by another?

The same model can run on several backends (all-MiniLM-L6-v2 on torch in fp32, or as an int8 ONNX export on
onnxruntime). Their vectors are close but not identical, and "same model name" is a claim, not a measurement.
So a workspace keeps a **probe**: the vectors its recording backend produced for a fixed set of texts
(:data:`PROBE_TEXTS`, chosen to span short names, sentences, numbers and a long passage). Another backend of
the same model is accepted only when it reproduces every probe vector to a cosine of at least
``embedding.agreement_min_cosine`` (default 0.995, below what an int8 ONNX export of the same model reaches
against torch: docs/results/design-measurements.md), which keeps rankings practically unchanged; anything
further apart is a different vector space and needs ``kgrag reindex --embeddings``. This module only measures;
the workspace decides and records."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass

import numpy as np

from kgrag.models.embeddings import Embedder

PROBE_VERSION = 1
PROBE_TEXTS: tuple[str, ...] = (
    "Platform team",
    "Lisbon engineering hub",
    "myocardial infarction",
    "Who leads the security team?",
    "What are the symptoms of type 2 diabetes?",
    "The invoice of 14 March 2024 was paid 30 days late.",
    "Water utilities report pipe bursts to the regional regulator within 24 hours.",
    "Metformin lowers blood glucose by reducing hepatic glucose production.",
    "The change approval board meets every Tuesday and reviews high-risk deployments.",
    "A knowledge graph links entities such as people, places and organisations by typed relations.",
    "Fever, cough and shortness of breath are common signs of pneumonia in older adults.",
    "The service level agreement grants a 10% credit when monthly availability drops below 99.9%.",
    " ".join(
        [
            "Hypertension is a long-term condition in which the blood pressure in the arteries is persistently",
            "elevated. It usually causes no symptoms, but it is a major risk factor for stroke, coronary artery",
            "disease, heart failure, atrial fibrillation, peripheral arterial disease, vision loss and chronic",
            "kidney disease. Lifestyle changes such as less salt, more exercise and weight loss lower it, and",
            "several classes of medication are used when they are not enough.",
        ]
    ),
    "kgrag",
    "1200 tokens with 100 tokens of overlap",
    "Erik Nilsen, Toronto",
)


@dataclass(frozen=True)
class Agreement:
    """Cosines between a candidate backend's probe vectors and the recorded ones."""

    mean: float
    minimum: float
    threshold: float

    @property
    def ok(self) -> bool:
        return self.minimum >= self.threshold

    def line(self) -> str:
        return f"probe cosine mean {self.mean:.4f}, min {self.minimum:.4f} (needed ≥ {self.threshold})"


def probe_vectors(embedder: Embedder) -> np.ndarray:
    """The embedder's vectors for the probe texts (L2-normalised rows)."""
    return np.asarray(embedder.embed(list(PROBE_TEXTS)), dtype=np.float32)


def encode_probe(vectors: np.ndarray, recorded_by: str) -> str:
    """A compact, backend-neutral text form of a probe (stored in the workspace's meta table)."""
    matrix = np.ascontiguousarray(vectors, dtype="<f4")
    payload = {
        "version": PROBE_VERSION,
        "recorded_by": recorded_by,
        "shape": list(matrix.shape),
        "vectors": base64.b64encode(matrix.tobytes()).decode("ascii"),
    }
    return json.dumps(payload)


def decode_probe(text: str | None, recorded_by: str) -> np.ndarray | None:
    """The probe vectors, or None when absent, of another version, or recorded by another model key."""
    if not text:
        return None
    try:
        payload = json.loads(text)
        if payload.get("version") != PROBE_VERSION or payload.get("recorded_by") != recorded_by:
            return None
        matrix = np.frombuffer(base64.b64decode(payload["vectors"]), dtype="<f4")
        return matrix.reshape(tuple(payload["shape"])).astype(np.float32)
    except (ValueError, KeyError, TypeError):
        return None  # a damaged probe is treated as missing: the caller measures against stored vectors


def measure(reference: np.ndarray, candidate: np.ndarray, threshold: float) -> Agreement:
    """Row-wise cosine of two sets of unit vectors for the same texts; shape mismatch is no agreement."""
    if reference.shape != candidate.shape or reference.size == 0:
        return Agreement(0.0, -1.0, threshold)
    usable = np.linalg.norm(reference, axis=1) > 0.5  # a zero row (an empty text) has no direction to compare
    if not usable.any():
        return Agreement(0.0, -1.0, threshold)
    cosines = (reference[usable] * candidate[usable]).sum(axis=1)
    return Agreement(float(cosines.mean()), float(cosines.min()), threshold)
