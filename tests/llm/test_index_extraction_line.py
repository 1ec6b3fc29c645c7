"""`kgrag index` reports what the LLM extractor did with its units: gleaned, retried and failed units
appear in one line of the summary and in the JSON report's ``extract`` stage."""

from __future__ import annotations

import functools
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from tests.conftest import SAMPLE_DOCS
from typer.testing import CliRunner

from kgrag import Workspace
from kgrag.cli.app import app
from kgrag.cli.index_command import print_index_report
from kgrag.graph.build import builder
from kgrag.indexing.stages import extract as extract_stage
from kgrag.testing import FakeOpenAIServer
from kgrag.testing.extraction_responder import ExtractionResponder

MARKER = "Quillfeather"  # a unit whose text holds it always gets an unusable reply
BROKEN_DOC = f"{MARKER} Ledger\n\nThe {MARKER} ledger records every archive transfer made by the Records Office.\n"


def _workspace(tmp_path: Path, server: FakeOpenAIServer) -> tuple[Path, Path]:
    ws = tmp_path / "ws"
    Workspace.init(ws).close()
    (ws / "kgrag.toml").write_text(
        '[embedding]\nprovider = "fake"\n[graph]\nextractor = "llm"\n'
        f'[llm]\nprovider = "openai"\nproviders.openai.base_url = "{server.base_url}"\nmodel = "m"\n'
        "backoff_base_s = 0.001\n"
    )
    docs = tmp_path / "docs"
    docs.mkdir()
    shutil.copy(SAMPLE_DOCS / "incident-inc-2024-031.md", docs / "incident.md")
    (docs / "ledger.md").write_text(BROKEN_DOC, encoding="utf-8")
    return ws, docs


def test_the_index_summary_counts_gleaned_retried_and_failed_units(tmp_path: Path) -> None:
    # a first pass that returns a tenth of the entities looks sparse, so its units are gleaned
    responder = ExtractionResponder(first_pass_share=0.1, fail_markers=(MARKER,))
    with FakeOpenAIServer(responder.for_server) as server:
        ws, docs = _workspace(tmp_path, server)
        result = CliRunner().invoke(app, ["index", str(docs), "-w", str(ws)])
    assert result.exit_code == 3, result.output  # the failed unit is left for the next run
    line = re.search(r"^LLM extraction: (\d+) units, (.*)$", result.output, re.MULTILINE)
    assert line is not None, result.output
    units, counts = int(line.group(1)), line.group(2)
    gleaned = int(re.search(r"(\d+) gleaned", counts).group(1))  # type: ignore[union-attr]
    assert units >= 2 and 1 <= gleaned == responder.calls["glean"] < units  # the failed unit is not gleaned
    assert "1 retried" in counts and "1 failed" in counts
    assert "split" not in counts and "repetition loop" not in counts  # zero counts are left out


def test_a_clean_run_reports_the_units_alone(tmp_path: Path) -> None:
    with FakeOpenAIServer(ExtractionResponder().for_server) as server:
        ws, docs = _workspace(tmp_path, server)
        (docs / "ledger.md").unlink()
        with Workspace.open(ws) as opened:
            report = opened.index([docs])
    extract = report.to_dict()["stages"]["extract"]  # type: ignore[index,call-overload]
    assert extract["llm_units"] >= 1 and extract["llm_units_gleaned"] == extract["llm_units_failed"] == 0
    console = Console(record=True, width=400)
    print_index_report(console, report)
    assert f"LLM extraction: {extract['llm_units']} units\n" in console.export_text()


def test_the_counters_sum_every_window_of_a_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the graph builder calls the extractor once per window of documents: with one document per window
    # the run's counters must still be the sum over both documents, as in a run of one window
    responder = ExtractionResponder(first_pass_share=0.1, fail_markers=(MARKER,))
    counts: list[dict[str, Any]] = []
    for windows in (False, True):
        if windows:
            monkeypatch.setattr(builder, "WINDOW_BATCHES", 1)
            monkeypatch.setattr(extract_stage, "build_graph", functools.partial(builder.build_graph, batch_chunks=1))
        with FakeOpenAIServer(responder.for_server) as server:
            ws, docs = _workspace(tmp_path / str(windows), server)
            with Workspace.open(ws) as opened:
                extract: dict[str, Any] = opened.index([docs]).to_dict()["stages"]["extract"]  # type: ignore[index,call-overload,assignment]
        counts.append({key: value for key, value in extract.items() if key.startswith("llm_") or key == "glean_failed"})
    assert counts[0]["llm_units"] >= 2 and counts[0]["llm_units_failed"] == 1
    assert counts[1] == counts[0]


def test_every_counter_the_report_takes_names_a_field_of_both_sides() -> None:
    from dataclasses import fields

    from kgrag.graph.extract.llm_stats import ExtractionStats

    report = {f.name for f in fields(extract_stage.ExtractReport)}
    stats = {f.name for f in fields(ExtractionStats)}
    assert all(mine in report and theirs in stats for mine, theirs in extract_stage.LLM_COUNTERS)
    assert len({mine for mine, _ in extract_stage.LLM_COUNTERS}) == len(extract_stage.LLM_COUNTERS)
