"""What every config section shares: unknown keys are errors (a typo in kgrag.toml must not be silently
ignored) and assignments are validated like loading is."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Section(BaseModel):
    """Base of every ``[section]`` of kgrag.toml."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)
