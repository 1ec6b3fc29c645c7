"""``ws.tune``: fit this workspace's tunable parts on its corpus and labelled questions (the work is done by
:class:`kgrag.tuning.TuningService`, which :class:`Components` builds)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from kgrag.evaluation.service import Questions
from kgrag.graph.tune.run import TuneOptions, TuneResult
from kgrag.graph.tune.sample import SourceText
from kgrag.tuning import TuningService
from kgrag.tuning.lambda_fit import TuneReport
from kgrag.tuning.reranker_fit import RerankerTuneReport
from kgrag.tuning.router_fit import RouterTuneReport


class TuneAPI:
    """λ (:meth:`fusion_lambda`), reranker weights (:meth:`reranker`), the routing policy (:meth:`router`)
    and prompts (:meth:`prompts`); ``ws.eval.tune*`` and ``ws.prompt_tune`` call the same service."""

    def __init__(self, service: TuningService) -> None:
        self._service = service

    def fusion_lambda(
        self,
        items: Questions,
        pipeline: str = "paths",
        k: int = 5,
        *,
        save: bool = True,
        holdout: float = 0.0,
        seed: int = 0,
    ) -> TuneReport:
        """Fit λ of a λ-fused pipeline on labelled ``items`` and (``save``) store it in the workspace, where
        the pipeline reads it unless its config table sets ``fusion_lambda``; ``holdout`` > 0 scores a
        stratified, ``seed``-ed share at the fitted λ, the current one and dense alone."""
        return self._service.fusion_lambda(items, pipeline, k, save=save, holdout=holdout, seed=seed)

    def reranker(self, items: Questions, *, holdout: float = 0.0, seed: int = 0) -> RerankerTuneReport:
        """Fit the ``fused`` reranker's weights on labelled ``items``; nothing is stored (the report carries
        the ``[rerank]`` lines to put in kgrag.toml)."""
        return self._service.reranker(items, holdout=holdout, seed=seed)

    def router(
        self,
        items: Questions,
        pipelines: Sequence[str] | None = None,
        *,
        folds: int = 5,
        seed: int = 0,
        save: bool = True,
        cache: Path | None = None,
        on_step: Callable[[str], None] | None = None,
    ) -> RouterTuneReport:
        """Learn ``auto``'s routing policy on labelled ``items``: ``folds``-fold cross-validated report, and
        (``save``) the policy fitted on all questions stored in the workspace, where ``auto`` then uses it.
        ``cache`` keeps per-question outcomes to resume from."""
        return self._service.router(items, pipelines, folds=folds, seed=seed, save=save, cache=cache, on_step=on_step)

    def forget_router(self) -> bool:
        """Remove a stored routing policy, so ``auto`` decides by LLM or heuristics again; False if none was
        stored."""
        return self._service.forget_router()

    def prompts(self, options: TuneOptions, paths: Sequence[Path] = ()) -> TuneResult:
        """Tune the extraction and report prompts on the corpus (given files, else the stored documents)
        and, if they are not worse, write the overrides and kgrag.toml and apply both here."""
        return self._service.prompts.tune(options, paths)

    def prompt_sources(self, paths: Sequence[Path] = ()) -> tuple[list[SourceText], list[str]]:
        """The texts prompt tuning samples and the files that could not be read (one line each)."""
        return self._service.prompts.sources(paths)
