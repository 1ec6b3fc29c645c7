"""Import spaCy without letting thinc pull in PyTorch behind it.

thinc (spaCy's machine-learning layer) imports ``torch`` at import time whenever it is installed, only to
offer its PyTorch wrappers. kgrag's ``local`` extra installs torch for the optional torch embedder and
cross-encoders, so a plain ``import spacy`` costs RSS (docs/results/design-measurements.md)
that the CNN pipelines (``en_core_web_sm/md/lg``) never touch — most of the gap between the indexing peak
and its 500 MB target (docs/results/performance.md). Transformer pipelines (``*_trf``, spacy-transformers)
do run on torch, so for them, or when ``graph.extractors.nlp.spacy_torch`` asks for it, nothing is blocked.

The block is a meta-path finder that refuses ``torch`` only while the importing code is
``thinc.compat`` (found by walking the importing thread's frames), and it is removed as soon as spaCy is
imported. Another thread importing torch at the same moment is not affected, and torch stays importable
in this process afterwards (the torch embedder and rerankers load it as usual); thinc merely records
that it has no torch, which only its PyTorch layers read.
"""

from __future__ import annotations

import sys
import threading
from importlib.abc import MetaPathFinder
from types import FrameType, ModuleType
from typing import Any

_IMPORT_LOCK = threading.Lock()
_GUARDED_IMPORTER = "thinc.compat"


def pipeline_needs_torch(model: str) -> bool:
    """Whether a spaCy pipeline name looks like a transformer one (they run on torch through thinc)."""
    return "trf" in model.rsplit("/", 1)[-1].lower()


def import_spacy(allow_torch: bool = False) -> ModuleType:
    """``import spacy``; unless ``allow_torch``, thinc is kept from importing torch if neither is loaded
    yet (once thinc is imported its choice is fixed for the process, so later calls change nothing)."""
    with _IMPORT_LOCK:
        if allow_torch or "torch" in sys.modules or "thinc.compat" in sys.modules:
            import spacy

            return spacy
        blocker = _TorchForThinc()
        sys.meta_path.insert(0, blocker)
        try:
            import spacy
        finally:
            sys.meta_path.remove(blocker)
        return spacy


class _TorchForThinc(MetaPathFinder):
    """Refuses ``torch`` and its submodules to ``thinc.compat``; every other import passes through."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> None:
        if (fullname == "torch" or fullname.startswith("torch.")) and _imported_by(sys._getframe(1)):
            raise ModuleNotFoundError(f"kgrag keeps thinc from importing {fullname}", name=fullname)
        return None


def _imported_by(frame: FrameType | None) -> bool:
    """Whether ``thinc.compat``'s module code is on this thread's stack (the import machinery sits between)."""
    while frame is not None:
        if frame.f_globals.get("__name__") == _GUARDED_IMPORTER:
            return True
        frame = frame.f_back
    return False
