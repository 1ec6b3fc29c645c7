"""Generated input for every door user data comes through (loaders, file names, chunker, JSON repair,
config, CLI arguments, queries): each answers with a result or a clear :class:`KgragError`, never an
internal error (#8). Seeded (``derandomize``) so a CI run is reproducible; the number of inputs tried is
counted and printed (at least 10,000 per run)."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from tests.conftest import SAMPLE_DOCS
from tests.reliability.totals import record
from typer.testing import CliRunner

from kgrag import Workspace
from kgrag.cli.app import app
from kgrag.config import ChunkingConfig, DocumentsConfig, load_config
from kgrag.core.errors import ConfigError, DocumentError, KgragError
from kgrag.documents import TokenCounter, chunk_text, resolve_chunk_sizes
from kgrag.documents.loaders import load_path
from kgrag.graph.extract.parse import ExtractionReply
from kgrag.indexing.ingest import ChunkPlan, Ingestor, display_path
from kgrag.indexing.report import IndexReport
from kgrag.models.llm.structured import ReplyInvalid, parse_reply
from kgrag.store.sqlite import SQLiteStore

TRIED: Counter[str] = Counter()
SCALE = 5 if os.environ.get("KGRAG_SOAK") else 1  # `make soak` sets KGRAG_SOAK
_BASE = settings(deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))


def fuzz(examples: int) -> settings:
    """Seeded settings with ``examples`` inputs (no example database is written to the tree)."""
    return settings(_BASE, max_examples=examples * SCALE)


COUNTER = TokenCounter.for_encoding("cl100k_base")
# text with what breaks parsers: lone surrogates, controls, FTS5 syntax, quotes, very long words
NASTY = st.text(
    alphabet=st.characters(blacklist_categories=()) | st.sampled_from(['"', "*", "(", ")", ":", "^", "-", "\x00"]),
    max_size=80,
) | st.sampled_from(['"', "NEAR(a b)", "a AND", "OR", "*", "^", "\ud800", "x" * 5000, " ", "\x00", "c:1"])


@pytest.fixture(scope="module", autouse=True)
def _report() -> Iterator[None]:
    yield
    print(f"\nfuzz inputs tried: {sum(TRIED.values())} {dict(TRIED)}")
    record("bad inputs", tried=sum(TRIED.values()), held=sum(TRIED.values()))  # any failure fails its test


def _json_text(value: object) -> str:
    return json.dumps(value)


JSON_RECORDS = st.lists(
    st.fixed_dictionaries({"text": NASTY, "id": st.one_of(st.integers(), NASTY, st.none())}), max_size=4
).map(_json_text) | NASTY.map(lambda t: '{"text": "' + t.replace("\\", "\\\\").replace('"', "") + '\\ud800"}')


@fuzz(2500)
@given(payload=st.binary(max_size=300) | JSON_RECORDS.map(lambda t: t.encode("utf-8", "surrogatepass")),
       suffix=st.sampled_from([".txt", ".md", ".html", ".json", ".jsonl", ".pdf", ".docx", ""]))  # fmt: skip
def test_loaders(payload: bytes, suffix: str) -> None:
    TRIED["loaders"] += 1
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"f{suffix}"
        path.write_bytes(payload)
        try:
            documents = load_path(path, DocumentsConfig())
        except DocumentError:
            return
        for document in documents:
            document.text.encode("utf-8")  # storable text, whatever the escapes decoded to
            document.source.encode("utf-8")


@fuzz(1000)
@given(
    name=st.binary(min_size=1, max_size=40).filter(
        lambda b: b"/" not in b and b"\x00" not in b and b not in (b".", b"..")
    )
)
def test_file_names(name: bytes) -> None:
    TRIED["file names"] += 1
    with tempfile.TemporaryDirectory() as folder:
        path = Path(os.fsdecode(os.path.join(os.fsencode(folder), name + b".txt")))
        path.write_text("Aspirin treats pain. It is sold everywhere.", encoding="utf-8")
        store = SQLiteStore(":memory:")
        report = IndexReport()
        Ingestor(store, DocumentsConfig(), ChunkPlan(50, 5, COUNTER)).process(path, report)
        assert report.chunks_written == 1 or [p.path for p in report.problems] == [display_path(path)]
        store.close()


@fuzz(2000)
@given(text=NASTY | st.text(max_size=600), size=st.none() | st.integers(-5, 80),
       overlap=st.none() | st.integers(-5, 90), window=st.none() | st.integers(1, 300))  # fmt: skip
def test_chunker(text: str, size: int | None, overlap: int | None, window: int | None) -> None:
    """Sizes come from the user's config, so they go through it: what it accepts, the chunker must too."""
    TRIED["chunker"] += 1
    try:
        size_tokens, overlap_tokens, _ = resolve_chunk_sizes(
            ChunkingConfig(size_tokens=size, overlap_tokens=overlap), window
        )
    except (ValidationError, ConfigError):
        return
    chunks = chunk_text(text, COUNTER, size_tokens, overlap_tokens)
    for chunk in chunks:
        assert text[chunk.char_start : chunk.char_end] == chunk.text


@fuzz(2500)
@given(text=NASTY | st.text(alphabet='{}[]",:\'` \n\\enamtyps01-', max_size=120),
       finish=st.sampled_from([None, "stop", "length"]))  # fmt: skip
def test_json_repair(text: str, finish: str | None) -> None:
    TRIED["json repair"] += 1
    for model in (ExtractionReply, None):
        with contextlib.suppress(ReplyInvalid):
            parse_reply(text, finish, model)


CONFIG_LINES = st.lists(
    st.sampled_from(["[retrieval]", "[llm]", "[graph]", "[embedding]", "[store]", "[x]", "k = ", "pool = ",
                     "provider = ", "max_concurrency = ", "extractor = ", "backend = ", "= 1", "[[a]]"])
    | st.tuples(st.sampled_from(["k", "pool", "provider", "timeout_s", "entity_types"]),
                st.sampled_from(["-1", "0", "1e309", '"x"', "[]", "{}", "true", '"\\ud800"', "nan", "9" * 20]))
      .map(lambda kv: f"{kv[0]} = {kv[1]}"),
    max_size=6,
)  # fmt: skip


@fuzz(1000)
@given(lines=CONFIG_LINES, raw=st.binary(max_size=30))
def test_config(lines: list[str], raw: bytes) -> None:
    TRIED["config"] += 1
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "kgrag.toml").write_bytes("\n".join(lines).encode() + (raw if len(lines) % 2 else b""))
        with contextlib.suppress(ConfigError):
            load_config(Path(folder))


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    ws = Workspace.init(
        tmp_path_factory.mktemp("fuzz") / "ws", embedding={"provider": "fake"}, graph={"extractor": "none"}
    )
    ws.index(sorted(SAMPLE_DOCS.glob("*.md"))[:3])
    yield ws
    ws.close()


@fuzz(1500)
@given(question=NASTY, pipeline=st.sampled_from(["bm25", "dense", "hybrid", None, "nope"]),
       k=st.one_of(st.none(), st.integers(-3, 200)))  # fmt: skip
def test_queries(indexed: Workspace, question: str, pipeline: str | None, k: int | None) -> None:
    TRIED["queries"] += 1
    try:
        indexed.querying.query(question, pipeline, k)
    except KgragError:
        assert not question.strip() or pipeline == "nope" or (k is not None and k < 1)


ARGUMENTS = st.lists(
    st.sampled_from(["query", "status", "pipelines", "cost", "--k", "-k", "0", "-1", "5", "--pipeline", "bm25",
                     "nope", "--json", "--run", "-w", "--debug", "", "\ud800", "--", "x" * 300])
    | NASTY,
    min_size=1, max_size=5,
)  # fmt: skip


@fuzz(400)
@given(arguments=ARGUMENTS)
def test_cli_arguments(indexed: Workspace, arguments: list[str]) -> None:
    TRIED["cli arguments"] += 1
    arguments = [a for a in arguments if a != "--debug"] or ["--help"]
    if "-w" not in arguments and arguments[0] in {"query", "status", "cost"}:
        arguments += ["-w", str(indexed.path)]
    result = CliRunner().invoke(app, arguments)
    assert "internal error" not in result.output, (arguments, result.output)
    assert result.exception is None or isinstance(result.exception, SystemExit), (arguments, result.exception)
