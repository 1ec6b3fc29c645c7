"""Rerankers behind the ``reranker`` registry: HTTP against a local server (both request shapes), the
offline sentence reranker, the listwise LLM reranker (scripted), the fake, and the ``rerank`` pipeline."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

from kgrag import Workspace
from kgrag.config import LLMConfig, RerankConfig
from kgrag.core.context import ContextItem
from kgrag.core.errors import ModelError
from kgrag.models.embeddings import FakeEmbedder
from kgrag.models.llm import create_llm_client
from kgrag.models.llm.scripted import ScriptedProvider, ScriptRule
from kgrag.models.rerankers import RerankResources
from kgrag.models.rerankers.http import HTTPReranker
from kgrag.models.rerankers.listwise import ListwiseLLMReranker
from kgrag.models.rerankers.sentence import SentenceReranker
from kgrag.retrieval.rerank import WordOverlapReranker, create_reranker

TEXTS = ["Paris is the capital of France.", "Bananas are yellow.", "France borders Spain. Its capital is Paris."]


def _items() -> list[ContextItem]:
    return [ContextItem(kind="chunk", id=f"c{n}", text=t, score=0.0) for n, t in enumerate(TEXTS)]


class _RerankHandler(BaseHTTPRequestHandler):
    """Scores = number of query words in each document; answers in the shape the request used."""

    requests: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.requests.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
        if self.path != "/rerank":
            self.send_response(404)
            self.end_headers()
            return
        docs = body.get("documents") or body.get("texts")
        words = set(body["query"].lower().split())
        scores = [len(words & set(d.lower().replace(".", "").split())) for d in docs]
        if "texts" in body:
            payload: Any = [{"index": i, "score": s} for i, s in enumerate(scores)]
        else:
            payload = {"results": [{"index": i, "relevance_score": s} for i, s in enumerate(scores)][: body["top_n"]]}
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def rerank_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _RerankHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _RerankHandler.requests = []
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("shape", ["cohere", "tei"])
def test_http_reranker_both_shapes(rerank_server: str, shape: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RERANK_API_KEY", "sekret")
    config = RerankConfig(provider="http", url=rerank_server, api_shape=shape, model="m1")
    reranker = create_reranker(config, RerankResources(FakeEmbedder, lambda: None))  # type: ignore[arg-type,return-value]
    ranked = reranker.rerank("capital of france paris", _items(), 2)
    assert [i.id for i in ranked] == ["c0", "c2"] or [i.id for i in ranked] == ["c2", "c0"]
    assert "c1" not in [i.id for i in ranked] and all("rerank" in i.scores for i in ranked)
    sent = _RerankHandler.requests[-1]
    assert sent["path"] == "/rerank" and sent["auth"] == "Bearer sekret"
    assert ("texts" in sent["body"]) == (shape == "tei")


def test_http_reranker_errors_are_model_errors(rerank_server: str) -> None:
    with pytest.raises(ModelError, match="404"):
        HTTPReranker(rerank_server + "/nope/").rerank("q", _items(), 2)
    with pytest.raises(ModelError, match="unreachable"):
        HTTPReranker("http://127.0.0.1:9", timeout_s=1).rerank("q", _items(), 2)


def test_sentence_reranker_scores_by_best_sentence() -> None:
    embedder = FakeEmbedder(64)
    ranked = SentenceReranker(lambda: embedder, sentences=1, incoming_weight=0.0).rerank(
        "Bananas are yellow.", _items(), 3
    )
    assert ranked[0].id == "c1" and ranked[0].scores["best_sentences"] == pytest.approx(1.0, abs=1e-5)


def test_word_overlap_fake_and_registry() -> None:
    assert WordOverlapReranker().rerank("bananas yellow", _items(), 1)[0].id == "c1"
    none = create_reranker(RerankConfig(provider="none"), RerankResources(FakeEmbedder, lambda: None))  # type: ignore[arg-type,return-value]
    assert [i.id for i in none.rerank("x", _items(), 2)] == ["c0", "c1"]


def test_listwise_llm_reranker_keeps_unranked_items_in_order() -> None:
    provider = ScriptedProvider([ScriptRule("You rank search results", '{"ranking": [2]}')])
    client = create_llm_client(LLMConfig(provider="scripted"), provider=provider)
    ranked = ListwiseLLMReranker(client).rerank("capital?", _items(), 3)
    assert [i.id for i in ranked] == ["c2", "c0", "c1"]
    assert client.summary().total.calls == 1


def test_rerank_pipeline_uses_the_configured_reranker(graph_ws: Workspace) -> None:
    result = graph_ws.retrieve("Which rule did the Osprey firmware incident lead to?", "rerank", 5)
    step = next(s for s in result.trace if s.step == "rerank")
    assert step.params["reranker"] == "FusedReranker" and len(result.items) <= 5  # `fused`, the default
    assert all("rerank" in i.scores for i in result.items)


def test_sentence_reranker_is_still_selectable() -> None:
    assert RerankConfig(provider="sentence").provider == "sentence"
    default = create_reranker(RerankConfig(), RerankResources(FakeEmbedder, lambda: None))  # type: ignore[arg-type,return-value]
    assert [i.id for i in default.rerank("bananas yellow", _items(), 1)] == ["c1"]
