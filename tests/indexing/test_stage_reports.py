"""Each built-in stage counts in its own typed report; the run report keeps only run-level facts and reads
the old counters back, so the CLI line and the JSON summary (server job results) keep every key."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from rich.console import Console
from tests.graph.graph_fakes import WordExtractor

from kgrag import Workspace
from kgrag.graph.build.summarize import ExtractiveSummarizer
from kgrag.indexing import IndexContext, IndexReport, run_pipeline
from kgrag.indexing.ingest import IngestReport
from kgrag.indexing.report import COUNTERS
from kgrag.indexing.stages.discover import DiscoverReport
from kgrag.indexing.stages.embed import EmbedReport
from kgrag.indexing.stages.embed_graph import EmbedGraphReport
from kgrag.indexing.stages.extract import ExtractReport

# The summary keys the CLI, the server's index jobs and the benchmarks have always read.
OLD_KEYS = {
    "files_seen", "documents_new", "documents_changed", "documents_unchanged", "documents_removed",
    "documents_moved", "documents_duplicate", "chunks_written", "texts_embedded", "chunks_extracted",
    "chunks_extraction_failed", "entities", "relations", "graph_texts_embedded", "llm_lines",
    "extraction_prompt_ratio", "fallbacks", "problems", "warnings", "seconds",
}  # fmt: skip
DOC_A = "Kestrel ingests telemetry from Osprey. Kestrel runs in Lisbon."
DOC_B = "Kestrel stores everything in Shale. Heron reads dashboards from Kestrel. Shale keeps raw data."


def _index(ws: Workspace, paths: list[Path]) -> IndexReport:
    context = IndexContext(
        ws.store,
        ws.config,
        ws.components.chunk_plan()[0],
        ws.components.embedder(),
        paths,
        extractor=WordExtractor(),
        summarizer=ExtractiveSummarizer(300),
    )
    return run_pipeline(context)


def _corpus(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text(DOC_A, encoding="utf-8")
    (docs / "b.md").write_text(DOC_B, encoding="utf-8")
    (docs / "copy-of-a.md").write_text(DOC_A, encoding="utf-8")
    return docs


def test_each_builtin_stage_writes_its_own_typed_report(fake_ws: Workspace, tmp_path: Path) -> None:
    docs = _corpus(tmp_path)
    report = _index(fake_ws, [docs])
    stages = report.stages
    assert stages["discover"] == DiscoverReport(files_seen=3)
    assert stages["ingest"] == IngestReport(documents_new=2, documents_duplicate=1, chunks_written=2)
    assert isinstance(stages["embed"], EmbedReport) and stages["embed"].texts_embedded == 2
    extract = stages["extract"]
    assert isinstance(extract, ExtractReport)
    assert (extract.chunks_extracted, extract.chunks_extraction_failed, extract.entities) == (2, 0, 5)
    assert extract.relations > 0 and extract.corpus_tokens > 0
    assert isinstance(stages["embed-graph"], EmbedGraphReport) and stages["embed-graph"].graph_texts_embedded > 0
    for stage, counters in COUNTERS.items():  # the run report's counters are read from the stage reports
        for name in counters:
            if name != "graph_texts_embedded":
                assert getattr(report, name) == getattr(stages[stage], name), name
    assert report.graph_texts_embedded == extract.graph_texts_embedded + stages["embed-graph"].graph_texts_embedded

    (docs / "b.md").write_text(DOC_B + " Heron moved to Porto.", encoding="utf-8")
    (docs / "copy-of-a.md").unlink()
    again = _index(fake_ws, [docs])
    assert again.stages["ingest"] == IngestReport(
        documents_changed=1, documents_unchanged=1, documents_removed=1, chunks_written=1
    )
    assert (again.documents_changed, again.documents_unchanged, again.documents_new) == (1, 1, 0)


def test_the_run_report_holds_no_stage_counters_of_its_own() -> None:
    own_fields = {f.name for f in dataclasses.fields(IndexReport)}
    assert not own_fields & {name for names in COUNTERS.values() for name in names}
    empty = IndexReport()
    assert empty.files_seen == empty.entities == empty.graph_texts_embedded == 0 and not empty.did_work


def test_the_json_summary_keeps_the_old_keys_and_lists_the_stages(fake_ws: Workspace, tmp_path: Path) -> None:
    report = _index(fake_ws, [_corpus(tmp_path)])
    data = json.loads(json.dumps(report.to_dict()))
    assert data.keys() >= OLD_KEYS and "stages" in data
    assert data["documents_new"] == 2 and data["files_seen"] == 3 and data["entities"] == 5
    assert data["stages"]["ingest"]["documents_duplicate"] == 1
    assert data["stages"]["extract"]["chunks_extracted"] == data["chunks_extracted"] == 2


def test_the_cli_summary_reads_the_stage_reports(fake_ws: Workspace, tmp_path: Path) -> None:
    from kgrag.cli.index_command import print_index_report

    report = _index(fake_ws, [_corpus(tmp_path)])
    console = Console(record=True, width=400)
    print_index_report(console, report)
    text = console.export_text()
    assert (
        "files 3 · new 2 · changed 0 · unchanged 0 · duplicates 1 (stored once) · removed 0 · chunks written 2" in text
    )
    assert "graph: 2 chunks extracted (0 failed, 0 gleaning calls failed) · 5 entities" in text


def test_the_cli_summary_counts_the_files_that_failed(fake_ws: Workspace, tmp_path: Path) -> None:
    """The counts add up to the files seen: a file that could not be read is counted, not only named."""
    from kgrag.cli.index_command import print_index_report

    corpus = tmp_path / "bad"
    corpus.mkdir()
    (corpus / "good.md").write_text("# Ferries\n\nBoats leave at nine every morning.\n")
    (corpus / "broken.pdf").write_bytes(b"%PDF-1.4 this is not a PDF")
    (corpus / "empty.md").write_text("")
    report = _index(fake_ws, [corpus])
    console = Console(record=True, width=400)
    print_index_report(console, report)
    assert "files 3 · new 1 · changed 0 · unchanged 0 · failed 2 · removed 0" in console.export_text()
