"""Question generation over a workspace (``ws.eval.qgen``) over this workspace, with or without an LLM.

``llm="none"`` (or ``"auto"`` without a configured LLM) generates known-item questions from the chunks
with spaCy (:mod:`kgrag.evaluation.qgen.known_item`); otherwise the configured LLM generates them from the
graph and the chunks, and a judge (``evaluation.qgen_judge_model`` or ``judge_model``, else the same
model) checks them against their cited passages (:mod:`kgrag.evaluation.qgen.generate`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

from kgrag.core.errors import KgragError
from kgrag.documents import TokenCounter
from kgrag.evaluation.datasets import LLM_FREE_KINDS
from kgrag.evaluation.qgen import QGenResult, generate_questions
from kgrag.evaluation.qgen.cloze import Passage
from kgrag.evaluation.qgen.known_item import known_item_questions
from kgrag.evaluation.qgen.sources import SourceSampler
from kgrag.evaluation.service.ports import EvalParts
from kgrag.graph.extract.nlp import SpacyExtractor
from kgrag.graph.extract.settings import nlp_settings
from kgrag.models.llm import LLMClient

GeneratorChoice = Literal["auto", "none", "config"]
LLM_KINDS_DEFAULT = ("node", "edge", "subgraph", "single-fact")


def uses_llm(parts: EvalParts, llm: GeneratorChoice) -> bool:
    """Whether this choice generates with the configured LLM (``auto``: when one is configured)."""
    configured = parts.config.llm.provider != "none"
    if llm == "config" and not configured:
        raise KgragError("question generation with an LLM needs llm.provider (see docs/llm.md), or use --llm none")
    return llm == "config" or (llm == "auto" and configured)


def default_kinds(parts: EvalParts, llm: GeneratorChoice) -> tuple[str, ...]:
    """The kinds generated when none are named."""
    return LLM_KINDS_DEFAULT if uses_llm(parts, llm) else LLM_FREE_KINDS


def generate(
    parts: EvalParts,
    kinds: Sequence[str],
    per_kind: int,
    *,
    seed: int,
    llm: GeneratorChoice,
    judge: Callable[[str], LLMClient],
    judge_model: str | None,
    on_question: Callable[[], None] | None,
    llm_check: bool = True,
) -> QGenResult:
    """Questions of ``kinds`` (see the module docstring); ``judge`` builds a client for a model name;
    ``llm_check=False`` keeps LLM-generated questions without the model's answerability check."""
    if parts.store.chunks.count() == 0:
        raise KgragError("the workspace has no indexed documents yet; run `kgrag index PATH` first")
    config = parts.config
    if not uses_llm(parts, llm):
        if not llm_check:
            raise KgragError("--no-check: only LLM-generated questions have a model's check to leave out")
        passages = [Passage(c.id, c.doc_id, c.text) for c in parts.store.chunks.iter_all()]
        nlp = SpacyExtractor(nlp_settings(config).spacy_model, allow_torch=nlp_settings(config).spacy_torch).nlp
        return known_item_questions(
            passages,
            nlp,
            kinds,
            per_kind,
            seed=seed,
            dedup_threshold=config.evaluation.qgen_dedup_threshold,
            on_question=on_question,
        )
    unknown_free = [k for k in kinds if k in LLM_FREE_KINDS]
    if unknown_free:
        raise KgragError(f"{', '.join(unknown_free)}: generated without an LLM only; add --llm none")
    sampler = SourceSampler(
        parts.store,
        seed,
        config.evaluation.qgen_min_subgraph_nodes,
        budget=config.evaluation.qgen_source_tokens,
        count_tokens=TokenCounter.for_encoding(config.chunking.encoding).count,
    )
    model = judge_model or config.evaluation.qgen_judge_model
    return generate_questions(
        sampler,
        parts.llm(),
        kinds,
        per_kind,
        config.evaluation.qgen_dedup_threshold,
        llm_check=llm_check,
        on_question=on_question,
        judge=judge(model) if model and llm_check else None,
    )
