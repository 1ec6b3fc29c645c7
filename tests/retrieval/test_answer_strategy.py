"""Answer strategies: a pipeline may own its answer step; everything else gets the default one
(LLM with citations when configured, else extractive), exactly as before the seam."""

from __future__ import annotations

from dataclasses import dataclass

from kgrag import Workspace
from kgrag.config import KgragConfig
from kgrag.core.context import ContextItem, RetrievalResult
from kgrag.generation import DEFAULT_STRATEGY, FixedAnswer, extractive_answer
from kgrag.generation.types import Answer
from kgrag.models.embeddings import Embedder
from kgrag.models.llm import LLMClient
from kgrag.retrieval import Pipeline, WordOverlapReranker
from kgrag.retrieval.steps import BM25Search, Hydrate, QueryState, TakeTop, UseStream
from kgrag.retrieval.steps.rerank import Rerank


@dataclass(frozen=True)
class CountingAnswer:
    """Answers with how many items it was given and whether an LLM was on offer."""

    def answer(
        self, question: str, result: RetrievalResult, llm: LLMClient, embedder: Embedder, config: KgragConfig
    ) -> Answer:
        text = f"{len(result.items)} items, llm {'on' if llm.available else 'off'}, {config.retrieval.k} wanted"
        return Answer(text, [result.items[0].id], "extractive")


def _with_answer(strategy: object):  # type: ignore[no-untyped-def]
    def factory(name: str, config: KgragConfig) -> Pipeline:
        steps = (BM25Search(pool=10), UseStream("bm25"), TakeTop(), Hydrate())
        return Pipeline(name, "answers its own way", steps, answer=strategy)  # type: ignore[arg-type]

    return factory


def test_a_pipeline_with_its_own_strategy_answers_with_it(graph_ws: Workspace) -> None:
    graph_ws.pipelines.register("counting", _with_answer(CountingAnswer()), replace=True)
    response = graph_ws.query("Kestrel storage", "counting", 3)
    assert response.answer.text == "3 items, llm off, 5 wanted"
    assert response.answer.citations == [response.result.items[0].id]
    generate = response.result.trace[-1]
    assert generate.step == "generate" and generate.params == {"mode": "extractive"}
    assert set(response.timings_ms) == {"retrieval", "generation"}


def test_the_fake_strategy_cites_the_top_chunk(graph_ws: Workspace) -> None:
    graph_ws.pipelines.register("fixed", _with_answer(FixedAnswer("forty-two")), replace=True)
    response = graph_ws.query("Kestrel storage", "fixed", 2)
    assert response.answer.text == "forty-two" and response.answer.citations == [response.result.items[0].id]


def test_other_pipelines_keep_the_default_answer(graph_ws: Workspace) -> None:
    response = graph_ws.query("Who leads the Platform team?", "bm25", 3)
    expected = extractive_answer(
        "Who leads the Platform team?",
        response.result,
        graph_ws.components.embedder(),
        graph_ws.config.generation.extractive_sentences,
        "lexical",  # extractive_ranking = auto: bm25 searches no vectors
    )
    assert response.answer.cost_line == "no LLM call (extractive answer)"  # every answer states its cost
    expected.cost_line = response.answer.cost_line
    assert response.answer == expected
    assert response.result.trace[-1].note == "query.generate: llm.provider = none, used the LLM-free path"
    default = DEFAULT_STRATEGY.answer(
        "q", response.result, graph_ws.components.query_context.llm(), graph_ws.components.embedder(), graph_ws.config
    )
    assert default.mode == "extractive"


def test_the_rerank_step_uses_the_slot_when_filled() -> None:
    items = [
        ContextItem("chunk", "a", "budget and travel", 0.9, ["a"]),
        ContextItem("chunk", "b", "Kestrel stores telemetry in Shale", 0.5, ["b"]),
    ]

    class Slot:
        reranker = WordOverlapReranker()

        def get(self, resource: object) -> WordOverlapReranker | None:
            return self.reranker

    state = QueryState(query="Where does Kestrel store telemetry?", k=1, queries=["q"], items=list(items))
    Rerank().run(state, Slot())  # type: ignore[arg-type]
    assert [i.id for i in state.items] == ["b"] and state.items[0].scores["rerank"] > 0
    Slot.reranker = None  # type: ignore[assignment]
    empty = QueryState(query="q", k=1, queries=["q"], items=list(items))
    Rerank().run(empty, Slot())  # type: ignore[arg-type]
    assert [i.id for i in empty.items] == ["a", "b"] and "no reranker" in empty.trace[-1].note
