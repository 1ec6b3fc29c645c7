"""What a user sees from the real `kgrag` process: exit codes, piped output, skipped files, status, cost,
progress and what each command imports (tests assert on imports and output shape, never on wall time)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import SAMPLE_DOCS

from kgrag import Workspace, __version__
from kgrag.core.llm_usage import CallRecord
from kgrag.core.progress import SilentProgress

FAKE_TOML = '[embedding]\nprovider = "fake"\n[graph]\nextractor = "none"\n'
HEAVY = ("torch", "sentence_transformers", "onnxruntime", "spacy", "igraph", "matplotlib", "tiktoken", "scipy")
# What a sub-API a command does not use brings in: denoising (rapidfuzz, scipy, igraph), evaluation,
# communities, indexing. ``Workspace`` builds its sub-APIs on first use, so none of these may load.
UNUSED = ("rapidfuzz", "kgrag.denoise", "kgrag.evaluation", "kgrag.workspace.denoise_api", "kgrag.workspace.eval_api")


def _kgrag(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """A real process with stdout/stderr piped (not a terminal), as in a script or CI log."""
    environment = {k: v for k, v in os.environ.items() if k != "COLUMNS"} | (env or {})
    command = [sys.executable, "-m", "kgrag.cli", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, env=environment)


@pytest.fixture
def ws_dir(tmp_path: Path) -> Path:
    ws = tmp_path / "a-workspace-directory-with-a-rather-long-name-to-force-wrapping" / "ws"
    with Workspace.init(ws):
        pass
    (ws / "kgrag.toml").write_text(FAKE_TOML)
    return ws


def test_version() -> None:
    result = _kgrag("--version")
    assert result.returncode == 0 and result.stdout.strip() == f"kgrag {__version__}"


@pytest.mark.parametrize("argv", [["query", "x", "--nope"], ["bogus"], ["query"], [], ["status", "--k", "x"]])
def test_usage_errors_exit_1_not_the_internal_code(argv: list[str]) -> None:
    result = _kgrag(*argv)
    assert result.returncode == 1, (argv, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr


def test_help_still_exits_0() -> None:
    assert _kgrag("--help").returncode == 0 and _kgrag("status", "--help").returncode == 0


def test_no_matching_file_and_all_failed_exit_1(ws_dir: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    result = _kgrag("index", str(empty), "-w", str(ws_dir))
    assert result.returncode == 1 and "no file to index" in result.stderr
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "a.json").write_text("{not json")
    (bad / "b.pdf").write_bytes(b"not a pdf at all")
    result = _kgrag("index", str(bad), "-w", str(ws_dir))
    assert result.returncode == 1 and "every file failed (2 of 2)" in result.stderr


def test_each_skipped_file_is_named_once_and_a_partial_run_succeeds(ws_dir: Path, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "good.md").write_text((SAMPLE_DOCS / "hiring-process.md").read_text())
    (docs / "broken.json").write_text("{not json")
    result = _kgrag("index", str(docs), "-w", str(ws_dir))
    assert result.returncode == 0, result.stderr
    output = result.stdout + result.stderr
    assert output.count("broken.json") == 1 and "new 1" in output


def test_piped_output_is_not_wrapped_at_80_columns(ws_dir: Path, tmp_path: Path) -> None:
    long_name = "a-document-with-a-file-name-long-enough-that-any-80-column-wrapping-would-cut-it.json"
    (tmp_path / long_name).write_text("{not json")
    result = _kgrag("index", str(tmp_path / long_name), "-w", str(ws_dir))
    line = next(line for line in (result.stdout + result.stderr).splitlines() if "skipped" in line)
    assert str(tmp_path / long_name) in line and len(line) > 80
    missing = tmp_path / ("x" * 90)
    error = _kgrag("status", "-w", str(missing))
    assert error.returncode == 1 and len(error.stderr.strip().splitlines()) == 1  # one line, whole path


def test_status_is_a_readable_table_and_json_stays(ws_dir: Path) -> None:
    assert _kgrag("index", str(SAMPLE_DOCS / "hiring-process.md"), "-w", str(ws_dir)).returncode == 0
    text = _kgrag("status", "-w", str(ws_dir)).stdout
    assert "{" not in text and "'" not in text  # no Python dicts or reprs
    rows = {line.split()[0] for line in text.splitlines() if line.strip()}
    assert {"workspace", "documents", "chunks", "vectors", "database", "embedding", "graph", "llm"} <= rows
    assert "1 (1 indexed)" in text and str(ws_dir.resolve()) in text
    info = json.loads(_kgrag("status", "-w", str(ws_dir), "--json").stdout)
    assert info["documents"] == {"indexed": 1} and info["embedding"]["configured"] == "fake:all-MiniLM-L6-v2"


def test_cost_prints_full_run_ids_that_run_accepts(ws_dir: Path) -> None:
    run_id = "20261122T213600Z-0123456789abcdef0123456789abcdef"
    with Workspace.open(ws_dir) as ws:
        record = CallRecord(run_id, "index.extract", "openai", "m", 100, 20, "api", 5.0, False, 1)
        ws.store.llm_ledger.record(record)
    table = _kgrag("cost", "-w", str(ws_dir), env={"COLUMNS": "60"})  # even on a narrow terminal
    assert table.returncode == 0 and run_id in table.stdout
    only = json.loads(_kgrag("cost", "--run", run_id, "--json", "-w", str(ws_dir)).stdout)
    assert only["total"]["calls"] == 1


@pytest.mark.parametrize(
    ("command", "allowed"),
    [
        (["status"], ()),
        (["pipelines"], ()),
        (["cost"], ()),
        (["query", "hiring", "-p", "bm25"], ("onnxruntime",)),  # the extractive answer ranks sentences
    ],
)
def test_light_commands_import_nothing_heavy(ws_dir: Path, command: list[str], allowed: tuple[str, ...]) -> None:
    (ws_dir / "kgrag.toml").write_text('[graph]\nextractor = "none"\n')  # the default (onnx) embedder
    with Workspace.open(ws_dir) as ws:
        ws.index([SAMPLE_DOCS / "hiring-process.md"])
    code = (
        "import sys, json\nfrom kgrag.cli.errors import run_app\nfrom kgrag.cli.app import app\n"
        f"try:\n    run_app(app, {[*command, '-w', str(ws_dir)]!r})\nexcept SystemExit as e:\n    code = e.code\n"
        f"print(json.dumps([code, [m for m in {HEAVY + UNUSED!r} if m in sys.modules]]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    code_seen, heavy = json.loads(out.stdout.strip().splitlines()[-1])
    assert code_seen == 0 and set(heavy) <= set(allowed), (heavy, out.stderr)


class _Recording(SilentProgress):
    def __init__(self) -> None:
        super().__init__()
        self.started: list[tuple[str, int | None]] = []

    def start(self, stage: str, total: int | None) -> None:
        self.started.append((stage, total))


def test_entity_embedding_has_a_progress_bar(tmp_path: Path) -> None:
    pytest.importorskip("spacy")
    progress = _Recording()
    with Workspace.init(tmp_path / "ws", embedding={"provider": "fake"}, graph={"extractor": "nlp"}) as ws:
        report = ws.index([SAMPLE_DOCS / "hiring-process.md"], progress)
    bars = dict(progress.started)
    assert bars.get("embed-graph") == report.graph_texts_embedded > 0
