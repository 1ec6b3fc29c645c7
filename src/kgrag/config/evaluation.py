"""The ``[evaluation]`` section of kgrag.toml."""

from __future__ import annotations

from pydantic import Field

from kgrag.config.base import Section


class EvaluationConfig(Section):
    """Deterministic evaluation settings."""

    evidence_overlap: float = Field(
        0.7,
        gt=0,
        le=1,
        description="An evidence sentence counts as recalled when this share of its content tokens "
        "(lower-cased, stop words removed) occurs in one retrieved item.",
    )
