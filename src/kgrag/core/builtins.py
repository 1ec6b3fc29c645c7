"""The built-in entries of every registry kind, as ``"module:attr"`` strings.

This is the one table to read to see what kgrag can be configured with, and the one line to add when a built-
in joins (the query-time kinds, pipelines to rerankers, are in :mod:`kgrag.core.builtin_query`). The strings
are not imports, so this leaf module knows every layer's names without importing any of them
(:func:`new_registry` makes a registry of a kind). A :class:`Builtin` entry also names its settings model (the
pydantic class its ``[section.<name>]`` table is validated against, where its defaults are written once) and
whether it belongs to the kind's default selection (``default_set``, e.g. the metrics a run scores when none
are named).

Code reaches a kind through a typed :class:`~kgrag.core.registries.RegistryKind` declared beside the protocol
it produces, and a workspace's :class:`~kgrag.core.registries.Registries`.
"""

from __future__ import annotations

from typing import Any

from kgrag.core.builtin_query import NO_SETTINGS, QUERY_KINDS
from kgrag.core.registry import Builtin, Kind, Registry

_BUILDERS = "kgrag.communities.builder_settings"
_EMBED = "kgrag.models.embedder_settings"
_LLM = "kgrag.models.llm.provider_settings"
_DENOISE = "kgrag.denoise.settings"
_JSON_RECORDS = "kgrag.documents.loader_settings:JsonRecordsSettings"

KINDS: dict[str, Kind] = {
    "store": Kind(
        "store backend",
        "kgrag.stores",
        {
            "sqlite": "kgrag.store.sqlite.store:open_sqlite_store",
            "postgresql": "kgrag.store.postgres.store:open_postgres_store",
        },
        {
            "sqlite": "One SQLite file (WAL) per workspace; FTS5 for BM25, exact NumPy vector search.",
            "postgresql": "PostgreSQL + pgvector (extra kgrag[postgres]); one schema per workspace, tsvector "
            "full-text search, HNSW vector search, versioned migrations.",
        },
        base_settings=NO_SETTINGS,
        section="store",
    ),
    "vector_index": Kind(
        "vector index",
        "kgrag.vector_indexes",
        {
            "exact": "kgrag.core.dense_index:exact_index",
            "hnsw": Builtin("kgrag.core.hnsw_index:hnsw_index", "kgrag.core.hnsw_settings:HnswSettings"),
        },
        {
            "exact": "NumPy matrix product: perfect recall, time linear in the number of vectors.",
            "hnsw": "faiss-cpu HNSW graph (extra `ann`): sub-millisecond approximate search; exact without faiss.",
        },
        base_settings=NO_SETTINGS,
        section="store.vector_indexes",
    ),
    "embedder": Kind(
        "embedding provider",
        "kgrag.embedders",
        {
            "onnx": Builtin("kgrag.models.onnx_embedder:onnx_embedder", f"{_EMBED}:OnnxSettings"),
            "sentence-transformers": Builtin(
                "kgrag.models.embeddings:local_embedder", f"{_EMBED}:SentenceTransformersSettings"
            ),
            "openai": Builtin("kgrag.models.embeddings:openai_embedder", f"{_EMBED}:OpenAIEmbeddingSettings"),
            "fake": "kgrag.models.embeddings:fake_embedder",
        },
        base_settings=NO_SETTINGS,
        section="embedding.providers",
    ),
    "llm_provider": Kind(
        "LLM provider",
        "kgrag.llm_providers",
        {
            "none": "kgrag.models.llm.providers:none_provider",
            "openai": Builtin("kgrag.models.llm.providers:openai_provider", f"{_LLM}:OpenAIProviderSettings"),
            "scripted": Builtin("kgrag.models.llm.providers:scripted_provider", f"{_LLM}:ScriptedProviderSettings"),
        },
        base_settings=NO_SETTINGS,
        section="llm.providers",
    ),
    "extractor": Kind(
        "graph extractor",
        "kgrag.extractors",
        {
            "nlp": Builtin(
                "kgrag.graph.extract.choose:nlp_extractor", "kgrag.graph.extract.settings:NlpExtractorSettings"
            ),
            "llm": Builtin(
                "kgrag.graph.extract.choose:llm_extractor", "kgrag.graph.extract.settings:LlmExtractorSettings"
            ),
        },
        base_settings=NO_SETTINGS,
        section="graph.extractors",
    ),
    "summarizer": Kind(
        "description summariser",
        "kgrag.summarizers",
        {
            "extractive": "kgrag.graph.build.summarize:extractive_summarizer",
            "llm": "kgrag.graph.build.summarize_llm:llm_summarizer",
        },
        base_settings=NO_SETTINGS,
        section="graph.summarizers",
    ),
    "prompt_schema": Kind(
        "prompt output schema",
        "kgrag.prompt_schemas",
        {
            "extraction_reply": "kgrag.graph.extract.parse:ExtractionReply",
            "community_report": "kgrag.communities.schemas:CommunityReportReply",
            "domain_proposal": "kgrag.graph.tune.propose:DomainProposal",
            "global_map": "kgrag.communities.schemas:MapReply",
            "drift_step": "kgrag.prompts.schemas:DriftReply",
            "merge_decision": "kgrag.denoise.confirm:MergeDecision",
            "triple_scores": "kgrag.denoise.reflect_llm:TripleScores",
            "query_rewrites": "kgrag.prompts.schemas:QueryRewrites",
            "hypothetical_passage": "kgrag.prompts.schemas:HypotheticalPassage",
            "expansion_and_passage": "kgrag.prompts.schemas:ExpansionAndPassage",
            "query_keywords": "kgrag.prompts.schemas:QueryKeywords",
            "standalone_question": "kgrag.prompts.schemas:StandaloneQuestion",
            "rerank_ranking": "kgrag.prompts.schemas:RerankRanking",
            "route_choice": "kgrag.prompts.schemas:RouteChoice",
            "statement_verdicts": "kgrag.evaluation.judges.schemas:StatementVerdicts",
            "accuracy_classification": "kgrag.evaluation.judges.schemas:AccuracyClassification",
            "context_relevance": "kgrag.evaluation.judges.schemas:ContextRelevance",
            "statement_list": "kgrag.evaluation.judges.schemas:StatementList",
            "context_score": "kgrag.evaluation.judges.schemas:ContextScore",
            "reference_score": "kgrag.evaluation.judges.schemas:ReferenceScore",
            "dimension_score": "kgrag.evaluation.judges.schemas:DimensionScore",
            "two_pass_verdict": "kgrag.evaluation.judges.schemas:TwoPassVerdict",
            "aspect_comparison": "kgrag.evaluation.judges.schemas:AspectComparison",
            "generated_questions": "kgrag.evaluation.judges.schemas:GeneratedQuestions",
            "answerability": "kgrag.evaluation.judges.schemas:Answerability",
        },
        base_settings=NO_SETTINGS,
        section="llm.prompt_schemas",
    ),
    "resolution_blocker": Kind(
        "entity-resolution blocker",
        "kgrag.resolution_blockers",
        {
            "kmeans": Builtin("kgrag.denoise.blocking:kmeans_blocker", f"{_DENOISE}:KmeansBlockerSettings"),
            "type": "kgrag.denoise.blocking:type_blocker",
            "structural": "kgrag.denoise.blocking:structural_blocker",
            "none": "kgrag.denoise.blocking:none_blocker",
        },
        base_settings=NO_SETTINGS,
        section="denoise.blockers",
    ),
    "resolution_matcher": Kind(
        "entity-resolution matcher",
        "kgrag.resolution_matchers",
        {
            "ego": "kgrag.denoise.matching:ego_matcher",
            "neighbour": "kgrag.denoise.matching:neighbour_matcher",
            "typed-neighbour": "kgrag.denoise.matching:typed_neighbour_matcher",
            "ego+neighbour": Builtin("kgrag.denoise.matching:ego_neighbour_matcher", f"{_DENOISE}:EgoMixSettings"),
            "ego+typed-neighbour": Builtin(
                "kgrag.denoise.matching:ego_typed_neighbour_matcher", f"{_DENOISE}:EgoMixSettings"
            ),
        },
        base_settings=NO_SETTINGS,
        section="denoise.matchers",
    ),
    "resolution_grouper": Kind(
        "entity-resolution grouper",
        "kgrag.resolution_groupers",
        {"greedy": Builtin("kgrag.denoise.grouping:greedy_grouper", f"{_DENOISE}:GreedyGrouperSettings")},
        base_settings=NO_SETTINGS,
        section="denoise.groupers",
    ),
    "resolution_merger": Kind(
        "entity-resolution merge mode",
        "kgrag.resolution_mergers",
        {
            "merge": "kgrag.denoise.grouping:direct_merger",
            "link": "kgrag.denoise.grouping:synonym_merger",
            "both": Builtin("kgrag.denoise.grouping:mixed_merger", f"{_DENOISE}:BothMergerSettings"),
        },
        base_settings=NO_SETTINGS,
        section="denoise.mergers",
    ),
    "triple_reflector": Kind(
        "triple reflector",
        "kgrag.triple_reflectors",
        {
            "provenance": "kgrag.denoise.reflect_provenance:provenance_reflector",
            "llm": Builtin("kgrag.denoise.reflect_llm:llm_reflector", f"{_DENOISE}:LlmReflectorSettings"),
            "none": "kgrag.denoise.reflect:no_reflector",
        },
        base_settings=NO_SETTINGS,
        section="denoise.reflectors",
    ),
    "loader": Kind(
        "document loader",
        "kgrag.loaders",
        {
            ".txt": "kgrag.documents.loaders:load_plain",
            ".md": "kgrag.documents.loaders:load_markdown",
            ".markdown": "kgrag.documents.loaders:load_markdown",
            ".mdx": "kgrag.documents.loaders:load_mdx",
            ".qmd": "kgrag.documents.loaders:load_quarto",
            ".rst": "kgrag.documents.loaders:load_rst",
            ".html": "kgrag.documents.loaders:load_html",
            ".htm": "kgrag.documents.loaders:load_html",
            ".pdf": "kgrag.documents.loaders:load_pdf",
            ".docx": "kgrag.documents.loaders:load_docx",
            ".json": Builtin("kgrag.documents.json_records:load_json", _JSON_RECORDS),
            ".jsonl": Builtin("kgrag.documents.json_records:load_jsonl", _JSON_RECORDS),
        },
        base_settings=NO_SETTINGS,
        section="documents.loaders",
    ),
    **QUERY_KINDS,
    "stage": Kind(
        "indexing stage",
        "kgrag.stages",
        {
            "discover": "kgrag.indexing.stages.discover:DiscoverStage",
            "ingest": "kgrag.indexing.stages.ingest:IngestStage",
            "embed": "kgrag.indexing.stages.embed:EmbedStage",
            "refresh": "kgrag.indexing.stages.refresh:RefreshStage",
            "extract": "kgrag.indexing.stages.extract:ExtractStage",
            "embed-graph": "kgrag.indexing.stages.embed_graph:EmbedGraphStage",
            "resolve": "kgrag.indexing.stages.resolve:ResolveStage",
            "reflect": "kgrag.indexing.stages.reflect:ReflectStage",
            "finalize": "kgrag.indexing.stages.finalize:FinalizeStage",
            "communities": "kgrag.indexing.stages.communities:CommunitiesStage",
            "community-reports": "kgrag.indexing.stages.community_reports:CommunityReportsStage",
        },
        {
            "discover": "Expand paths with documents.include/exclude.",
            "ingest": "Read, chunk and full-text index new or changed files (one transaction per document).",
            "embed": "Embed chunk texts that have no vector for the model yet.",
            "refresh": "Drop graph provenance of removed/re-chunked documents; re-summarise what lost some.",
            "extract": "Refresh, then extract and merge the chunks the graph is missing.",
            "embed-graph": "Embed new or changed entities.",
            "resolve": "Merge duplicate entities (denoise: blocking, matching, grouping; undoable).",
            "reflect": "Score relations not judged yet; drop those under denoise.drop_below (undoable).",
            "finalize": "Set document statuses from what is done (chunked / embedded / indexed).",
            "communities": "Hierarchical Leiden communities of the graph, when the graph changed.",
            "community-reports": "Reports (LLM or extractive) for communities without one, and their vectors.",
        },
        base_settings=NO_SETTINGS,
        section="indexing.stages",
    ),
    "index_pipeline": Kind(
        "indexing pipeline",
        "kgrag.index_pipelines",
        {
            "standard": "kgrag.indexing.pipelines:STANDARD",
            "no-graph": "kgrag.indexing.pipelines:NO_GRAPH",
            "fast": "kgrag.indexing.pipelines:FAST",
            "graphrag": "kgrag.indexing.pipelines:GRAPHRAG",
            "denoised": "kgrag.indexing.pipelines:DENOISED",
        },
        {
            "standard": "discover, ingest, embed, extract, embed-graph, finalize.",
            "no-graph": "discover, ingest, embed, refresh, embed-graph, finalize (no extraction).",
            "fast": "discover, ingest, finalize: BM25 at once; a later standard run adds the rest.",
            "denoised": "standard plus resolve and reflect after extraction (a cleaner graph).",
            "graphrag": "standard plus communities and community-reports (report calls when an LLM is set).",
        },
        base_settings=NO_SETTINGS,
        section="indexing.pipelines",
    ),
    "index_engine": Kind(
        "indexing engine",
        "kgrag.index_engines",
        {
            "local": "kgrag.indexing.engines.local:LocalEngine",
            "ray": Builtin(
                "kgrag.indexing.engines.ray_engine:RayEngine", "kgrag.indexing.engines.ray_settings:RayEngineSettings"
            ),
        },
        {
            "local": "Every stage in this process (the default).",
            "ray": "The same stages; loading, chunking, extraction and embedding run as Ray Data stages.",
        },
        base_settings=NO_SETTINGS,
        section="indexing.engines",
    ),
    "community_builder": Kind(
        "community builder",
        "kgrag.community_builders",
        {
            "leiden": Builtin("kgrag.communities.leiden:LeidenBuilder", f"{_BUILDERS}:LeidenSettings"),
            "leiden-multires": Builtin(
                "kgrag.communities.leiden:MultiResolutionBuilder", f"{_BUILDERS}:MultiResolutionSettings"
            ),
            "components": "kgrag.communities.leiden:ComponentsBuilder",
            "graspologic": Builtin("kgrag.communities.graspologic:GraspologicBuilder", f"{_BUILDERS}:LeidenSettings"),
        },
        {
            "leiden": "igraph Leiden applied recursively to communities above its max_cluster_size.",
            "leiden-multires": "One Leiden level per entry of its resolutions (triple-layer-graphrag).",
            "components": "Connected components, one level (baseline, no randomness).",
            "graspologic": "graspologic-native hierarchical Leiden (optional package), as Microsoft GraphRAG.",
        },
        base_settings=NO_SETTINGS,
        section="communities.builders",
    ),
    "metric": Kind(
        "evaluation metric",
        "kgrag.metrics",
        {
            "evidence-recall": Builtin("kgrag.evaluation.metrics.retrieval:EvidenceRecall", default_set=True),
            "context-relevance": Builtin(
                "kgrag.evaluation.metrics.retrieval:ContextRelevance",
                "kgrag.evaluation.metrics.settings:ContextRelevanceSettings",
                default_set=True,
            ),
            "rouge-l": Builtin("kgrag.evaluation.metrics.answer:RougeL", default_set=True),
            "answer-accuracy": Builtin(
                "kgrag.evaluation.metrics.answer:AnswerAccuracy",
                "kgrag.evaluation.metrics.settings:AnswerAccuracySettings",
                default_set=True,
            ),
            "coverage": Builtin("kgrag.evaluation.metrics.answer:Coverage", default_set=True),
            "faithfulness": Builtin("kgrag.evaluation.metrics.answer:Faithfulness", default_set=True),
            "rouge-l@graphrag-bench": "kgrag.evaluation.metrics.graphrag_bench:BenchRougeL",
            "answer-accuracy@graphrag-bench": "kgrag.evaluation.metrics.graphrag_bench:BenchAnswerAccuracy",
            "coverage@graphrag-bench": "kgrag.evaluation.metrics.graphrag_bench:BenchCoverage",
            "faithfulness@graphrag-bench": "kgrag.evaluation.metrics.graphrag_bench:BenchFaithfulness",
            "evidence-recall@graphrag-bench": "kgrag.evaluation.metrics.graphrag_bench:BenchEvidenceRecall",
            "context-relevance@graphrag-bench": "kgrag.evaluation.metrics.graphrag_bench:BenchContextRelevance",
        },
        base_settings=NO_SETTINGS,
        section="evaluation.metrics",
    ),
    "judge": Kind(
        "evaluation judge",
        "kgrag.judges",
        {
            "panel": "kgrag.evaluation.judges.panel:ReferencePanel",
            "dimensions": "kgrag.evaluation.judges.dimensions:DimensionJudge",
            "two-pass": "kgrag.evaluation.pairwise.two_pass:TwoPassJudge",
            "unbiased": Builtin(
                "kgrag.evaluation.pairwise.unbiased:UnbiasedJudge",
                "kgrag.evaluation.pairwise.judge_settings:UnbiasedJudgeSettings",
            ),
        },
        {
            "panel": "Reference-based 1-5 score averaged over several judge models (feldt-hellstrom-2026).",
            "dimensions": "Correctness, relevance, groundedness, retrieval relevance, 0-10 each (lundberg-2026).",
            "two-pass": "Pairwise winner per criterion in both orders, win rate (deg-rag).",
            "unbiased": "Length-aligned, both orders, N repeats, M trials, ties, CIs (zeng-unbiased-eval).",
        },
        base_settings=NO_SETTINGS,
        section="evaluation.judges",
    ),
}


def new_registry(kind: str) -> Registry[Any]:
    """A fresh, untyped registry of ``kind`` (config validation, listings); code that creates entries
    goes through a typed :class:`~kgrag.core.registries.RegistryKind` instead."""
    spec = KINDS[kind]
    return Registry(
        spec.noun,
        spec.builtins,
        group=spec.group,
        summaries=spec.summaries,
        base_settings=spec.base_settings,
    )
