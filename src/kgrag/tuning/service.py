"""The tuning service of one workspace: λ of a λ-fused pipeline, the ``fused`` reranker's weights, the
learned routing policy of ``auto`` and the extraction/report prompts, over the workspace's parts and
registries (``ws.tune`` delegates here; ``ws.eval.tune*`` and ``ws.prompt_tune`` are older spellings)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property
from pathlib import Path

from kgrag.core.registries import Registries
from kgrag.evaluation.service import Questions, questions_of
from kgrag.tuning.lambda_fit import TuneReport
from kgrag.tuning.ports import Querying, TuneParts
from kgrag.tuning.prompts import PromptTuner
from kgrag.tuning.reranker_fit import RerankerTuneReport
from kgrag.tuning.router_fit import RouterTuneReport


class TuningService:
    """Tuning over ``parts`` and ``querying`` with the workspace's ``registries`` (passed in, never rebuilt
    from the built-ins); tuned prompts go to ``llm.prompts_dir``, else ``own_prompts``."""

    def __init__(self, parts: TuneParts, querying: Querying, registries: Registries, own_prompts: Path) -> None:
        self._parts = parts
        self._querying = querying
        self._registries = registries
        self._own_prompts = own_prompts

    def fusion_lambda(
        self, items: Questions, pipeline: str, k: int, *, save: bool, holdout: float, seed: int
    ) -> TuneReport:
        """λ of a λ-fused pipeline (:func:`kgrag.tuning.fusion.tune_lambda_of`)."""
        from kgrag.tuning.fusion import tune_lambda_of

        questions = questions_of(items)
        return tune_lambda_of(
            self._parts, self._querying, questions, pipeline, k, save=save, holdout=holdout, seed=seed
        )

    def reranker(self, items: Questions, *, holdout: float, seed: int) -> RerankerTuneReport:
        """The ``fused`` reranker's weights (:func:`kgrag.tuning.fusion.tune_fused_reranker`); nothing stored."""
        from kgrag.tuning.fusion import tune_fused_reranker

        return tune_fused_reranker(self._parts, self._querying, questions_of(items), holdout=holdout, seed=seed)

    def router(
        self,
        items: Questions,
        pipelines: Sequence[str] | None,
        *,
        folds: int,
        seed: int,
        save: bool,
        cache: Path | None,
        on_step: Callable[[str], None] | None,
    ) -> RouterTuneReport:
        """``auto``'s routing policy (:func:`kgrag.tuning.router.tune_router`)."""
        from kgrag.tuning.router import tune_router

        questions = questions_of(items)
        return tune_router(self._parts, self._querying, questions, pipelines, folds, seed, save, cache, on_step)

    def forget_router(self) -> bool:
        """Remove a stored routing policy (:func:`kgrag.tuning.router.forget_policy`)."""
        from kgrag.tuning.router import forget_policy

        return forget_policy(self._parts)

    @cached_property
    def prompts(self) -> PromptTuner:
        """Prompt tuning for this workspace's corpus (:class:`kgrag.tuning.prompts.PromptTuner`)."""
        return PromptTuner(self._parts, self._registries, self._own_prompts)
