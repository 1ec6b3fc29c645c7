"""``ws.prompt_tune``: the older spelling of ``ws.tune.prompts`` (:class:`kgrag.tuning.prompts.PromptTuner`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from kgrag.graph.tune.run import TuneOptions, TuneResult
from kgrag.graph.tune.sample import SourceText
from kgrag.tuning.prompts import PromptTuner


class PromptTuneAPI:
    """Samples the corpus (given files, else the stored documents) and writes the tuned prompts."""

    def __init__(self, tuner: PromptTuner) -> None:
        self._tuner = tuner

    @property
    def prompts_dir(self) -> Path:
        """Where overrides go: ``llm.prompts_dir`` when set, else ``<workspace>/prompts``."""
        return self._tuner.prompts_dir

    def sources(self, paths: Sequence[Path] = ()) -> tuple[list[SourceText], list[str]]:
        """The texts to sample and the files that could not be read (one line each)."""
        return self._tuner.sources(paths)

    def tune(self, options: TuneOptions, paths: Sequence[Path] = ()) -> TuneResult:
        """Tune, check against the shipped prompts, and write and apply the overrides when not worse."""
        return self._tuner.tune(options, paths)
