"""The ``[llm]`` section of kgrag.toml."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from kgrag.config.base import Section
from kgrag.config.entry_settings import EntryTables, Tables, declare_moves, known_registry, move_keys, tables_field

FORMER_KEYS: dict[str, tuple[str, ...]] = {
    "base_url": ("providers.openai.base_url",),
    "api_key_env": ("providers.openai.api_key_env",),
    "api_key_header": ("providers.openai.api_key_header",),
    "scripted_file": ("providers.scripted.file",),
}
"""Flat ``[llm]`` keys of one provider, and the provider tables they are read as."""

declare_moves("llm", FORMER_KEYS)


class LLMConfig(Section):
    """The chat LLM behind extraction, summaries, query rewriting, answers and judges."""

    provider: str = Field(
        "none",
        description="LLM provider, by registry name. Built in: `none` runs every stage on its LLM-free "
        "path; `openai` calls any OpenAI-compatible /chat/completions endpoint (OpenAI, Azure, vLLM, "
        "Ollama, llama.cpp server, LM Studio); `scripted` answers from `llm.providers.scripted.file` (tests, "
        "replays), never touching the network. A provider's own settings are in `[llm.providers.<name>]`. Plug-ins "
        "register under the `kgrag.llm_providers` entry-point group.",
    )
    model: str | None = Field(None, description="Model name sent with each request; required for `openai`.")
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
        description="Model context window in tokens. Empty: asked of the server (llama.cpp `/props`, vLLM "
        "`/v1/models`, Ollama `/api/show`, llama-cpp-python's window error) and kept in the workspace. Known "
        "either way, extraction units, the answer context and `max_tokens` are shrunk to fit it, and a request "
        "that still cannot fit fails before it is sent. Ollama serves 2048 unless `num_ctx`/"
        "`OLLAMA_CONTEXT_LENGTH` is raised.",
    )
    max_output_tokens: int = Field(1024, ge=1, description="`max_tokens` sent with each request.")
    max_thinking_tokens: int = Field(
        4096,
        ge=0,
        description="Most tokens added to a request's `max_tokens` for a reasoning model's thinking, which "
        "servers count against `max_tokens` whether the reply shows it (a `<think>` block) or not. The room is "
        "learned per run from the model's replies: the thinking blocks it shows, and replies cut at "
        "`max_tokens` before any answer, which are sent again once at once with more room (both sends "
        "billed). A model that shows no thinking and never comes back with nothing at the limit gets none; "
        "the room is left out where the context window or the token budget cannot hold it. 0: never add "
        "room or send again.",
    )
    temperature: float = Field(0.0, ge=0, le=2, description="Sampling temperature (0 keeps the cache useful).")
    json_mode: Literal["auto", "off", "json_object", "json_object_schema", "json_schema"] = Field(
        "auto",
        description="How structured calls ask the server for JSON. `auto` sends the schema as `json_schema` "
        "and steps down, once per server, to what it takes: llama.cpp's `json_object` with a `schema`, then "
        "`json_object`, then the prompt alone (the verdict is kept in the workspace, so a rejected mode is "
        "never sent again). `off` relies on the prompt (works everywhere), `json_object` sends response_format "
        "json_object, `json_object_schema` sends `{type: json_object, schema}` (llama-cpp-python), "
        "`json_schema` sends the schema (OpenAI, vLLM, LM Studio, recent Ollama). A fixed mode the server "
        "rejects stops the run with a message naming this setting.",
    )
    prompt_examples: Literal["auto", "always", "never"] = Field(
        "always",
        description="Whether prompts show their worked example (the `[example]` table). `always` (the "
        "default) keeps them, which small local models need; `auto` decides once "
        "per server and model with one probe call on a fixed text, sent by the first indexing run (a query "
        "never probes; it keeps the examples until a verdict is stored): a model that answers the schema-only "
        "prompt with a valid, grounded reply gets compact prompts (no examples: fewer prompt tokens on every "
        "call); one that does not (small models) keeps the examples. The verdict is kept in the workspace. "
        "Examples drawn from your documents (`kgrag prompts tune`) are always shown.",
    )
    price_prompt_per_1m: float = Field(0.0, ge=0, description="Price in USD per 1M prompt tokens, for cost lines.")
    price_completion_per_1m: float = Field(
        0.0, ge=0, description="Price in USD per 1M completion tokens, for cost lines."
    )
    batch: bool = Field(
        False,
        description="Index through the OpenAI Batch API (`/v1/files` + `/v1/batches`, about half the price per "
        "token, results within `batch_completion_window`); `kgrag index --batch` sets it for one run. Requests a "
        'batch rejects, fails or lets expire are sent as live calls. See docs/llm.md, "Batch API".',
    )
    batch_price_share: float = Field(
        0.5,
        gt=0,
        le=1,
        description="Batch prices as a share of `price_prompt_per_1m`/`price_completion_per_1m` (OpenAI "
        "documents 50%); the ledger prices calls answered by a batch with it.",
    )
    batch_poll_s: float = Field(
        30.0,
        gt=0,
        description="Seconds between the first polls of a pending batch; the wait grows 1.5x per poll up to "
        "`batch_poll_max_s`.",
    )
    batch_poll_max_s: float = Field(300.0, gt=0, description="Longest wait between two polls of a pending batch.")
    batch_max_rounds: int = Field(
        8,
        ge=1,
        description="Most batches one indexing run submits (one per round: extraction, then gleaning, "
        "summaries, reports...); what is still missing after them is sent live.",
    )
    batch_completion_window: str = Field(
        "24h", description="The `completion_window` sent with each batch (OpenAI accepts `24h`)."
    )
    max_tokens_budget: int | None = Field(
        None,
        ge=1,
        description="Cap on prompt + completion tokens sent per run (empty = none). Checked before each "
        "call with `max_tokens` as the completion size; work stops cleanly before the cap.",
    )
    estimate_completion_tokens: int = Field(
        256,
        ge=0,
        description="`--estimate`: completion size assumed per call other than graph extraction (answers, reports).",
    )
    estimate_completion_per_name: float = Field(
        75.0,
        ge=0,
        description="`--estimate`: completion tokens of an extraction reply per distinct capitalised name in the "
        "unit (one entity and its share of relations as JSON; fitted with bench/bench_estimate.py, "
        "docs/results/design-measurements.md). Replies grow with the names a text holds, not with its length.",
    )
    estimate_glean_rate: float = Field(
        0.04,
        ge=0,
        le=1,
        description="`--estimate`: share of first-pass extractions expected to be gleaned (one more call, "
        "priced at the gleaning request the run would build: the gleaning prompt and the chunks it re-sends); "
        "the default is the upper end of what bench/bench_estimate.py sees with the default "
        "`graph.extractors.llm.gleaning` policy (docs/results/design-measurements.md). Set 1.0 for a model "
        "whose first passes always look incomplete.",
    )
    estimate_glean_completion_share: float = Field(
        0.1,
        ge=0,
        description="`--estimate`: a gleaning reply's size as a share of an average first-pass reply.",
    )
    estimate_description_tokens: float = Field(
        20.0,
        gt=0,
        description="`--estimate`: description tokens an entity gets per unit naming it; a name met in more "
        "than `graph.max_description_tokens` / this many units is predicted to cost one summary call. Used "
        "only until `--probe` or a stored graph has measured the model's own descriptions.",
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
    record_file: Path | None = Field(
        None,
        description="Append every exchange with the endpoint (request messages, reply text, finish reason) to "
        'this JSONL file, replayable with `provider = "scripted"` and `llm.providers.scripted.file`: record a real '
        "model once, then test and demo offline (`make llm-check` records its run this way).",
    )

    providers: Annotated[Tables, EntryTables("llm_provider", "llm.providers")] = tables_field(
        "llm_provider",
        "One `[llm.providers.<name>]` table per LLM provider with settings of its own (see *Entry settings*): "
        "`[llm.providers.openai]` holds the endpoint (`base_url`, `api_key_env`, `api_key_header`), "
        "`[llm.providers.scripted]` its replay `file`.",
    )
    prompt_schemas: Annotated[Tables, EntryTables("prompt_schema", "llm.prompt_schemas")] = tables_field(
        "prompt_schema",
        "One `[llm.prompt_schemas.<name>]` table per prompt output schema with settings of its own (plug-ins).",
    )

    @model_validator(mode="before")
    @classmethod
    def _former_keys(cls, data: Any) -> Any:
        return move_keys(data, "llm", FORMER_KEYS)

    @field_validator("provider")
    @classmethod
    def _known_provider(cls, value: str) -> str:
        """Unknown names fail when the config loads, listing the registered providers."""
        return known_registry("llm_provider").check(value, "llm.provider")
