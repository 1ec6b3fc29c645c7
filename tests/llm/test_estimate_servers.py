"""The estimate is right for a model it was not tuned on: on a Medical slice, ``--estimate --probe`` of the
standard pipeline is within ±25% of the real run for calls, prompt and completion tokens against both the
realistic scripted server and the terse one (different entities, relations, gleaning and reply sizes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgrag.testing.estimate_check import compare
from kgrag.testing.extraction_responder import ExtractionResponder
from kgrag.testing.terse_responder import TerseResponder

MEDICAL = Path(__file__).resolve().parents[2].parent / "shared" / "datasets" / "graphrag-bench-medical" / "corpus.json"
TOLERANCE = 0.25
SLICE_CHARACTERS = 16_000  # about 4k tokens: a dozen extraction units


def _slice(out: Path) -> Path:
    import json

    records = json.loads(MEDICAL.read_text(encoding="utf-8"))
    text = "\n\n".join(str(r.get("context", "")) for r in records)
    path = out / "medical.txt"
    path.write_text(text[: text.find("\n", SLICE_CHARACTERS)] + "\n", encoding="utf-8")
    return path


@pytest.mark.slow
@pytest.mark.skipif(not MEDICAL.exists(), reason="the shared Medical corpus is not present")
@pytest.mark.parametrize("server", ["realistic", "terse"])
def test_standard_estimate_within_25_percent_on_both_servers(tmp_path: Path, server: str) -> None:
    responder = ExtractionResponder().for_server if server == "realistic" else TerseResponder().for_server
    result = compare([_slice(tmp_path)], tmp_path / "work", responder=responder, probe=True)
    for figure in ("calls", "prompt_tokens", "completion_tokens"):
        assert result.ratio(figure) == pytest.approx(1.0, abs=TOLERANCE), f"{server} {figure}\n{result.table()}"
