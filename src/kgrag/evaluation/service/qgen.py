"""Question generation over a workspace (``ws.eval.qgen``), with or without an LLM.

``llm="none"`` (or ``"auto"`` without a configured LLM) generates known-item questions from the chunks
with spaCy (:mod:`kgrag.evaluation.qgen.known_item`); otherwise the configured LLM generates them from the
graph and the chunks, and a judge (``evaluation.qgen_judge_model`` or ``judge_model``, else the same
model) checks them against their cited passages (:mod:`kgrag.evaluation.qgen.generate`). With an LLM the
LLM-free kinds may be named too: both generators write into one set (:mod:`kgrag.evaluation.qgen.combine`),
whose two kinds of question lean different ways (the LLM-free ones keep the corpus's words, a model's
rephrase them), so that neither lean alone decides how the set ranks pipelines (``docs/evaluation.md``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Literal

from kgrag.core.errors import KgragError
from kgrag.core.progress import Progress, SilentProgress
from kgrag.documents import TokenCounter
from kgrag.evaluation.datasets import LLM_FREE_KINDS, LLM_KINDS
from kgrag.evaluation.qgen import QGenResult, generate_questions
from kgrag.evaluation.qgen.combine import combine
from kgrag.evaluation.qgen.generate import PerKind
from kgrag.evaluation.qgen.known_item import known_item_questions, store_passages
from kgrag.evaluation.qgen.lookups import Lookups, shipped_lookups
from kgrag.evaluation.qgen.sources import SourceSampler
from kgrag.evaluation.service.ports import EvalParts
from kgrag.graph.extract.nlp import SpacyExtractor
from kgrag.graph.extract.settings import nlp_settings
from kgrag.models.llm import LLMClient

GeneratorChoice = Literal["auto", "none", "config"]
LLM_KINDS_DEFAULT = ("node", "edge", "subgraph", "single-fact")
LLM_PER_KIND = 10
"""Attempts per model-written kind when none is given (each attempt may write several questions)."""
FREE_PER_KIND = 60
"""Questions per LLM-free kind when none is given."""
ATTEMPTS = "model tries"
"""The progress stage of the model's attempts (each one sampled source, one generation call)."""


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
    per_kind: PerKind | None,
    *,
    seed: int,
    llm: GeneratorChoice,
    judge: Callable[[str], LLMClient],
    judge_model: str | None,
    on_question: Callable[[], None] | None,
    llm_check: bool = True,
    progress: Progress | None = None,
) -> QGenResult:
    """Questions of ``kinds`` (see the module docstring); ``per_kind``: one count for every kind or a count
    per kind name, a kind without one getting ``LLM_PER_KIND`` attempts (a kind the model writes) or
    ``FREE_PER_KIND`` questions (an LLM-free kind); ``judge`` builds a client for a model name;
    ``llm_check=False`` keeps LLM-generated questions without the model's answerability check;
    ``progress`` is told how the work goes: the model's attempts (:data:`ATTEMPTS`), the parsing and the
    search of the LLM-free generator (:func:`kgrag.evaluation.qgen.known_item.parse_candidates`)."""
    if parts.store.chunks.count() == 0:
        raise KgragError("the workspace has no indexed documents yet; run `kgrag index PATH` first")
    model_kinds = [k for k in kinds if k not in LLM_FREE_KINDS]
    with_llm = uses_llm(parts, llm)
    if not llm_check and not (model_kinds and with_llm):
        raise KgragError("--no-check: only LLM-generated questions have a model's check to leave out")
    if not with_llm:
        return _without_llm(parts, kinds, _counts(kinds, per_kind, FREE_PER_KIND), seed, on_question, progress)
    unknown = [k for k in model_kinds if k not in LLM_KINDS]
    if unknown:
        choices = ", ".join((*LLM_KINDS, *LLM_FREE_KINDS))
        raise KgragError(f"unknown question kind(s) {', '.join(unknown)}; choose from {choices}")
    results = []
    if model_kinds:
        model = judge_model or parts.config.evaluation.qgen_judge_model
        checker = judge(model) if model and llm_check else None
        counts = _counts(model_kinds, per_kind, LLM_PER_KIND)
        with _attempts(progress, sum(counts.values()), on_question) as tick:
            results.append(_with_llm(parts, counts, seed, tick, llm_check, checker))
    free_kinds = [k for k in kinds if k in LLM_FREE_KINDS]
    if free_kinds:
        free_counts = _counts(free_kinds, per_kind, FREE_PER_KIND)
        results.append(_without_llm(parts, free_kinds, free_counts, seed, on_question, progress))
    return combine(results, parts.config.evaluation.qgen_dedup_threshold)


def _counts(kinds: Sequence[str], per_kind: PerKind | None, default: int) -> dict[str, int]:
    """Each kind's count: its own in a mapping, else the one count given, else ``default``."""
    given = per_kind if isinstance(per_kind, Mapping) else {}
    every = per_kind if isinstance(per_kind, int) else None
    return {kind: given.get(kind) or every or default for kind in kinds}


@contextmanager
def _attempts(
    progress: Progress | None, total: int, on_question: Callable[[], None] | None
) -> Iterator[Callable[[], None]]:
    """What the model generator calls before each attempt: it advances ``progress``'s :data:`ATTEMPTS`
    stage (of ``total``) and tells ``on_question``."""
    shown = progress or SilentProgress()
    shown.start(ATTEMPTS, total)

    def tick() -> None:
        shown.advance(ATTEMPTS)
        if on_question is not None:
            on_question()

    try:
        yield tick
    finally:
        shown.finish(ATTEMPTS)


def _without_llm(
    parts: EvalParts,
    kinds: Sequence[str],
    per_kind: PerKind,
    seed: int,
    on_question: Callable[[], None] | None,
    progress: Progress | None,
) -> QGenResult:
    """Known-item and two-chunk questions cut from the chunks with spaCy."""
    config = parts.config
    own = nlp_settings(config)
    lookups = shipped_lookups() if config.evaluation.qgen_gazetteers else Lookups()
    result = known_item_questions(
        store_passages(parts.store),
        SpacyExtractor(own.spacy_model, allow_torch=own.spacy_torch).nlp,
        kinds,
        per_kind,
        seed=seed,
        dedup_threshold=config.evaluation.qgen_dedup_threshold,
        on_question=on_question,
        scope=config.evaluation.qgen_headings,
        trimmed=config.evaluation.qgen_trimmed,
        changelogs=config.evaluation.qgen_changelogs,
        learned=config.evaluation.qgen_usability,
        lookups=lookups,
        progress=progress,
    )
    if config.evaluation.qgen_gazetteers and (missing := lookups.missing()):
        result.notes.append(
            f"places and first names are asked 'what' where a list is missing: pip install {' '.join(missing)} "
            "(or set evaluation.qgen_gazetteers = false)"
        )
    return result


def _with_llm(
    parts: EvalParts,
    counts: Mapping[str, int],
    seed: int,
    on_question: Callable[[], None] | None,
    llm_check: bool,
    judge: LLMClient | None,
) -> QGenResult:
    """Questions the configured LLM writes from sampled graph pieces and passages."""
    config = parts.config
    sampler = SourceSampler(
        parts.store,
        seed,
        config.evaluation.qgen_min_subgraph_nodes,
        budget=config.evaluation.qgen_source_tokens,
        count_tokens=TokenCounter.for_encoding(config.chunking.encoding).count,
    )
    return generate_questions(
        sampler,
        parts.llm(),
        list(counts),
        counts,
        config.evaluation.qgen_dedup_threshold,
        llm_check=llm_check,
        on_question=on_question,
        judge=judge,
    )
