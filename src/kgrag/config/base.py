"""What every config section shares: unknown keys are errors (a typo in kgrag.toml must not be silently
ignored), assignments are validated like loading is, and an empty string is the default of a field whose
default is "automatic" (``None``), so the ``size_tokens = ""`` placeholder of the generated kgrag.toml
(:func:`kgrag.config.loading.default_toml`) can be uncommented as it stands."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator


class Section(BaseModel):
    """Base of every ``[section]`` of kgrag.toml."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    @model_validator(mode="before")
    @classmethod
    def _empty_is_automatic(cls, data: Any) -> Any:
        """``""`` means "automatic" for fields whose default is ``None`` (the same in TOML and KGRAG_* env)."""
        if not isinstance(data, dict):
            return data
        automatic = {name for name, field in cls.model_fields.items() if field.default is None}
        return {key: None if value == "" and key in automatic else value for key, value in data.items()}
