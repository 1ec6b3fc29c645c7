"""The ``[rerank]`` section of kgrag.toml: which reranker the ``Rerank`` step of a pipeline uses, and one
``[rerank.<name>]`` table per reranker, validated against the settings model its registry entry declares."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, Field, SerializeAsAny, field_validator, model_serializer, model_validator

from kgrag.config.base import Section
from kgrag.config.entry_settings import check_tables, deprecated, dump_tables, known_registry, migration
from kgrag.core.registry import settings_of

S = TypeVar("S", bound=BaseModel)

FORMER_KEYS: dict[str, tuple[str, ...]] = {
    "model": ("cross-encoder.model", "http.model"),
    "url": ("http.url",),
    "api_shape": ("http.api_shape",),
    "api_key_env": ("http.api_key_env",),
    "timeout_s": ("http.timeout_s",),
    "sentences": ("sentence.sentences",),
    "incoming_weight": ("sentence.incoming_weight",),
    "max_chars": ("llm.max_chars",),
    "fused_similarity": ("fused.similarity",),
    "fused_first_stage": ("fused.first_stage",),
    "fused_bm25_rank": ("fused.bm25_rank",),
    "fused_dense_rank": ("fused.dense_rank",),
    "fused_sentence": ("fused.sentence",),
}
"""The flat ``[rerank]`` keys of one reranker each, and the reranker table and key they are read as."""

for _old, _new in FORMER_KEYS.items():
    migration(f"rerank.{_old}", " and ".join(f"rerank.{n}" for n in _new))


def _migrate(data: dict[str, Any]) -> dict[str, Any]:
    """Table-valued keys → ``rerankers``; flat former keys → their reranker's table (a value the table
    sets itself wins)."""
    data = dict(data)
    tables: dict[str, Any] = dict(data.pop("rerankers", None) or {})
    for key in [k for k in data if k not in RerankConfig.model_fields and isinstance(data[k], dict | BaseModel)]:
        tables[key] = data.pop(key)
    for key in [k for k in data if k in FORMER_KEYS]:
        value = data.pop(key)
        for new in FORMER_KEYS[key]:
            name, _, field = new.partition(".")
            own = tables.get(name)
            table = own.model_dump(exclude_unset=True) if isinstance(own, BaseModel) else dict(own or {})
            tables[name] = {field: value, **table}
        deprecated(f"rerank.{key}", " and ".join(f"rerank.{n}" for n in FORMER_KEYS[key]))
    data["rerankers"] = tables
    return data


class RerankConfig(Section):
    """The reranker reorders a pool of candidates (50 in lundberg-2026) against the original question."""

    provider: str = Field(
        "fused",
        description="Reranker, by registry name. Built in: `fused` (offline default, no model: the share of "
        "the question's content words each candidate holds, plus small weights on its dense cosine and its "
        "first-stage, BM25 and dense ranks; best of the no-download rerankers in evidence "
        "recall, docs/results/medical-retrieval-quality.md), `lexical` (the content-word share alone), `sentence` "
        "(each candidate scored by its best-matching sentences with the local embedder, fused with the "
        "incoming rank), `cross-encoder` (a sentence-transformers CrossEncoder), `http` (a `/rerank` "
        "endpoint: Cohere, Jina, TEI), `llm` (listwise, through the LLM layer), `none` (keep the order), "
        "`word-overlap` (alias of `lexical`). Plug-ins register under `kgrag.rerankers`.",
    )
    rerankers: dict[str, SerializeAsAny[BaseModel]] = Field(
        default_factory=dict,
        description="One `[rerank.<name>]` table per reranker whose settings differ from its defaults, e.g. "
        "`[rerank.fused]` `similarity = 0.3`; validated against the settings model the reranker declares "
        "(listed under *Entry settings*).",
        json_schema_extra={"entry_kind": "reranker", "flat": True},
    )

    @model_validator(mode="before")
    @classmethod
    def _tables(cls, data: Any) -> Any:
        return _migrate(data) if isinstance(data, dict) else data

    @field_validator("rerankers", mode="before")
    @classmethod
    def _check_tables(cls, value: Any) -> dict[str, BaseModel]:
        return check_tables("reranker", value, "rerank")

    @field_validator("provider")
    @classmethod
    def _known(cls, value: str) -> str:
        known_registry("reranker").check(value, "rerank.provider")
        return value

    def settings(self, name: str, model: type[S]) -> S:
        """Reranker ``name``'s settings as ``model`` (its table, else ``model``'s defaults)."""
        return settings_of(self.rerankers, name, model)

    @model_serializer(mode="wrap")
    def _flat(self, handler: Any) -> dict[str, Any]:
        """``[rerank.<name>]`` tables sit in the section itself, as they are written in kgrag.toml."""
        out: dict[str, Any] = handler(self)
        out.pop("rerankers", None)
        return {**out, **dump_tables(self.rerankers)}
