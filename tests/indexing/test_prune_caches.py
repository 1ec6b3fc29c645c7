"""`kgrag prune`: the vectors of removed texts and of unused models go, every vector the index can still ask
for stays (no stage finds anything to embed afterwards), the LLM reply cache is emptied only when asked,
and the database is compacted so the deleted rows' bytes leave its file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tests.conftest import SAMPLE_DOCS
from tests.helpers import index_with_word_extractor
from typer.testing import CliRunner

from kgrag import Workspace
from kgrag.cli.app import app
from kgrag.core.llm_types import ChatRequest
from kgrag.core.llm_usage import CachedResponse
from kgrag.core.progress import SilentProgress
from kgrag.denoise.resolve import EGO_TEXTS, ego_text, ego_vectors
from kgrag.documents.records import content_hash
from kgrag.graph.build.vectors import embed_graph
from kgrag.indexing.report import IndexReport
from kgrag.indexing.stages.embed import embed_and_store, missing_sentences

FILES = ("team-platform.md", "product-kestrel.md", "incident-inc-2024-031.md")
SECRET = "Project Nightjar's budget is 4.2 million euros, approved by the board in March."


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name in FILES:
        (corpus / name).write_text((SAMPLE_DOCS / name).read_text())
    (corpus / "secret.md").write_text(f"# Nightjar\n\n{SECRET}\n")
    opened = Workspace.init(tmp_path / "ws", embedding={"provider": "fake"}, graph={"extractor": "none"})
    index_with_word_extractor(opened, [corpus])
    opened.communities.build()
    embedder = opened.components.embedder()
    sentences = missing_sentences(opened.store, embedder.name)
    embed_and_store(opened.store, embedder, sentences, 64, SilentProgress(), IndexReport(), None, "sentences")
    for mode in EGO_TEXTS:  # what entity resolution stores, in each of its modes
        ego_vectors(opened.store, embedder, [ego_text(e, mode) for e in opened.store.graph.entities()])
    return opened


def _stored(ws: Workspace) -> set[str]:
    return set(ws.store.vectors.hashes(ws.components.embedder().name))


def _nothing_to_embed(ws: Workspace) -> None:
    """Every part of the index finds its vectors: no chunk, sentence, graph text, report or ego text is missing."""
    store, embedder = ws.store, ws.components.embedder()
    assert store.vectors.missing_chunk_hashes(embedder.name) == []
    assert missing_sentences(store, embedder.name) == []
    assert embed_graph(store, embedder) == 0
    reports = [content_hash(r.text) for r in store.communities.reports()]
    assert reports and set(reports) <= _stored(ws)
    ego = {content_hash(ego_text(e, mode)) for e in store.graph.entities() for mode in EGO_TEXTS}
    assert ego <= _stored(ws)


def test_prune_keeps_every_live_vector_and_deletes_the_rest(ws: Workspace) -> None:
    model = ws.components.embedder().name
    live = _stored(ws)
    dead = content_hash("a text no document holds any more")
    ws.store.vectors.put(model, [(dead, np.ones(8, dtype=np.float32))])
    ws.store.vectors.put("old-provider:old-model", [(h, np.ones(4, dtype=np.float32)) for h in sorted(live)[:5]])

    dry = ws.indexing.prune(dry_run=True)
    assert dry.vectors_deleted == {model: 1, "old-provider:old-model": 5} and dry.vectors_kept == len(live)
    assert dead in _stored(ws) and "old-provider:old-model" in ws.store.vectors.models()

    report = ws.indexing.prune()
    assert report.vectors_deleted == {model: 1, "old-provider:old-model": 5} and report.compacted
    assert _stored(ws) == live and ws.store.vectors.models() == {model: len(live)}
    _nothing_to_embed(ws)


def test_prune_after_removal_leaves_no_vector_of_the_removed_text(ws: Workspace) -> None:
    secret_chunks = {
        c.text_hash for d in ws.documents.list() if "secret" in d.source for c in ws.store.chunks.for_document(d.id)
    }
    ws.remove([d.source for d in ws.documents.list() if "secret" in d.source])
    assert secret_chunks <= _stored(ws)  # removal keeps the cache ...

    report = ws.indexing.prune()
    assert report.vectors_deleted and not secret_chunks & _stored(ws)  # ... prune empties it of them
    _nothing_to_embed(ws)
    files = [p for p in ws.components.path.glob("kgrag.sqlite3*") if p.is_file()]
    assert files and not any(SECRET.encode() in p.read_bytes() for p in files)  # compacted: its text left the files


def test_llm_cache_is_emptied_only_when_asked(ws: Workspace) -> None:
    request = ChatRequest(messages=({"role": "user", "content": SECRET},), model="m")
    ws.store.llm_cache.put("k1", request, CachedResponse("reply", "stop", 3, 1))
    assert ws.indexing.prune().llm_replies_deleted == 0 and ws.store.llm_cache.count() == 1
    assert ws.indexing.prune(llm_cache=True).llm_replies_deleted == 1 and ws.store.llm_cache.count() == 0


def test_cli_prints_what_went(ws: Workspace) -> None:
    path = str(ws.components.path)
    ws.remove([d.source for d in ws.documents.list() if "secret" in d.source])
    ws.close()
    runner = CliRunner(env={"COLUMNS": "200"})
    dry = runner.invoke(app, ["prune", "--dry-run", "-w", path])
    assert dry.exit_code == 0 and "would delete" in dry.output and "texts no longer indexed" in dry.output
    done = runner.invoke(app, ["prune", "-w", path])
    assert done.exit_code == 0 and "compacted" in done.output
    again = runner.invoke(app, ["prune", "-w", path])
    assert again.exit_code == 0 and "no vector to delete" in again.output
