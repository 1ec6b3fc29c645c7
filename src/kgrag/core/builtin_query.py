"""The built-in entries of the query-time kinds (pipelines, query resources, answer strategies, rerankers),
part of :data:`kgrag.core.builtins.KINDS`, kept in a module of their own so each table stays readable."""

from __future__ import annotations

from kgrag.core.registry import Builtin, Kind

NO_SETTINGS = "kgrag.core.no_settings:NoSettings"
"""The settings model of an entry that takes none."""

QUERY_KINDS: dict[str, Kind] = {
    "pipeline": Kind(
        "retrieval pipeline",
        "kgrag.pipelines",
        {
            "dense": "kgrag.retrieval.recipes.dense:dense_pipeline",
            "bm25": "kgrag.retrieval.recipes.bm25:bm25_pipeline",
            "hybrid": "kgrag.retrieval.recipes.hybrid:hybrid_pipeline",
            "graph-local": Builtin(
                "kgrag.retrieval.recipes.graph_local:graph_local_pipeline",
                "kgrag.retrieval.pipeline_settings:GraphLocalSettings",
            ),
            "community": "kgrag.retrieval.recipes.community:community_pipeline",
            "global": Builtin(
                "kgrag.retrieval.recipes.global_reports:global_pipeline",
                "kgrag.retrieval.pipeline_settings:GlobalSettings",
            ),
            "rerank": "kgrag.retrieval.recipes.rerank:rerank_pipeline",
            "qe": "kgrag.retrieval.recipes.qe:qe_pipeline",
            "hyde": "kgrag.retrieval.recipes.hyde:hyde_pipeline",
            "combined": "kgrag.retrieval.recipes.combined:combined_pipeline",
            "graph-global": Builtin(
                "kgrag.retrieval.recipes.graph_global:graph_global_pipeline",
                "kgrag.retrieval.pipeline_settings:GraphGlobalSettings",
            ),
            "graph-hybrid": Builtin(
                "kgrag.retrieval.recipes.graph_hybrid:graph_hybrid_pipeline",
                "kgrag.retrieval.pipeline_settings:GraphLocalSettings",
            ),
            "graph-mix": Builtin(
                "kgrag.retrieval.recipes.graph_mix:graph_mix_pipeline",
                "kgrag.retrieval.pipeline_settings:GraphLocalSettings",
            ),
            "graph-mix-rerank": "kgrag.retrieval.recipes.graph_mix_rerank:graph_mix_rerank_pipeline",
            "ppr": Builtin("kgrag.retrieval.recipes.ppr:ppr_pipeline", "kgrag.retrieval.pipeline_settings:PprSettings"),
            "ppr-passages": Builtin(
                "kgrag.retrieval.recipes.ppr_passages:ppr_passages_pipeline",
                "kgrag.retrieval.pipeline_settings:PprPassagesSettings",
            ),
            "paths": Builtin(
                "kgrag.retrieval.recipes.paths:paths_pipeline", "kgrag.retrieval.pipeline_settings:PathsSettings"
            ),
            "auto": Builtin(
                "kgrag.retrieval.recipes.auto:auto_pipeline", "kgrag.retrieval.pipeline_settings:AutoSettings"
            ),
            "drift": Builtin(
                "kgrag.retrieval.recipes.drift:drift_pipeline", "kgrag.retrieval.pipeline_settings:DriftSettings"
            ),
        },
        base_settings="kgrag.config.retrieval:PipelineBaseSettings",
        section="retrieval.pipelines",
    ),
    "query_resource": Kind(
        "query resource",
        "kgrag.query_resources",
        {
            "embedder": "kgrag.retrieval.resources.models:EMBEDDER",
            "llm": "kgrag.retrieval.resources.models:LLM",
            "query_vectors": "kgrag.retrieval.resources.models:QUERY_VECTORS",
            "tokenizer": "kgrag.retrieval.resources.text:TOKENIZER",
            "token_counts": "kgrag.retrieval.resources.text:TOKEN_COUNTS",
            "passage_sentences": "kgrag.retrieval.resources.text:PASSAGE_SENTENCES",
            "graph": "kgrag.retrieval.resources.graph:GRAPH",
            "graph_counts": "kgrag.retrieval.resources.graph:GRAPH_COUNTS",
            "graph_entities": "kgrag.retrieval.resources.graph:GRAPH_ENTITIES",
            "vector_count": "kgrag.retrieval.resources.stored:VECTOR_COUNT",
            "communities": "kgrag.retrieval.resources.stored:COMMUNITIES",
            "router_policy": "kgrag.retrieval.resources.stored:ROUTER_POLICY",
            "sentence_vectors_on": "kgrag.retrieval.resources.sentences:SENTENCE_VECTORS_ON",
            "sentence_matrix": "kgrag.retrieval.resources.sentences:SENTENCE_MATRIX",
            "sentence_means": "kgrag.retrieval.resources.sentences:SENTENCE_MEANS",
            "passage_sentence_vectors": "kgrag.retrieval.resources.sentences:PASSAGE_SENTENCE_VECTORS",
            "reranker": "kgrag.retrieval.resources.reranker:RERANKER",
        },
        base_settings=NO_SETTINGS,
        section="retrieval.resources",
    ),
    "answer_strategy": Kind(
        "answer strategy",
        "kgrag.answer_strategies",
        {
            "default": "kgrag.generation.strategy:DEFAULT_STRATEGY",
            "global": "kgrag.generation.global_answer:GLOBAL_MAP_REDUCE",
            "drift": "kgrag.generation.drift_answer:DRIFT_ANSWER",
        },
        base_settings=NO_SETTINGS,
        section="retrieval.answer",
    ),
    "reranker": Kind(
        "reranker",
        "kgrag.rerankers",
        {
            "fused": Builtin(
                "kgrag.models.rerankers.fused:fused_reranker", "kgrag.models.rerankers.settings:FusedSettings"
            ),
            "sentence": Builtin(
                "kgrag.models.rerankers.sentence:sentence_reranker", "kgrag.models.rerankers.settings:SentenceSettings"
            ),
            "cross-encoder": Builtin(
                "kgrag.models.rerankers.cross_encoder:cross_encoder_reranker",
                "kgrag.models.rerankers.settings:CrossEncoderSettings",
            ),
            "http": Builtin(
                "kgrag.models.rerankers.http:http_reranker", "kgrag.models.rerankers.settings:HttpSettings"
            ),
            "llm": Builtin(
                "kgrag.models.rerankers.listwise:llm_reranker", "kgrag.models.rerankers.settings:ListwiseSettings"
            ),
            "none": "kgrag.models.rerankers.basic:keep_order_reranker",
            "word-overlap": "kgrag.models.rerankers.basic:word_overlap_reranker",
            "lexical": "kgrag.models.rerankers.basic:word_overlap_reranker",
        },
        {
            "sentence": "Best-matching sentences by the local embedder, fused with the incoming rank.",
            "cross-encoder": "A sentence-transformers CrossEncoder (model name or local path).",
            "http": "A /rerank endpoint (Cohere, Jina or TEI request shape).",
            "llm": "Listwise reranking by the configured LLM (one call per query).",
            "none": "Keep the incoming order (the baseline a reranker is measured against).",
            "word-overlap": "Share of the query's content words in each candidate (same as `lexical`).",
            "lexical": "Share of the query's content words in each candidate, ties in incoming order.",
            "fused": "Offline default: content-word share plus the dense cosine and first-stage ranks (no model).",
        },
        base_settings=NO_SETTINGS,
        section="rerank",
    ),
}
