"""The settings models of the built-in metrics that have knobs of their own: the one place their
``[evaluation.metrics.<name>]`` keys and defaults are written. ``KINDS["metric"]`` names each model beside
its class; a metric reads its table with ``tools.settings_for(self.name, Model)``. Only pydantic is
imported, so validating a kgrag.toml loads no metric."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class MetricSettings(BaseModel):
    """Base of a metric's settings: unknown keys are errors, assignments are validated."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class AnswerAccuracySettings(MetricSettings):
    """``answer-accuracy``: Acc = α·statement F1 + (1 − α)·semantic similarity."""

    weight: float = Field(0.5, ge=0, le=1, description="α, the statement-F1 share (0.5, feldt-hellstrom-2026 eq. 3.2).")


class ContextRelevanceSettings(MetricSettings):
    """``context-relevance``: the judged version grades the items several times and averages."""

    repeats: int = Field(2, ge=1, description="Grading rounds per question (2, feldt-hellstrom-2026).")
