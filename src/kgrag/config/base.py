"""What every config section shares: unknown keys are errors (a typo in kgrag.toml must not be silently
ignored), assignments are validated like loading is, and an empty string is the default of a field whose
default is "automatic" (``None``), so the ``size_tokens = ""`` placeholder of the generated kgrag.toml
(:func:`kgrag.config.loading.default_toml`) can be uncommented as it stands."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, model_validator

from kgrag.core.registry import settings_of

S = TypeVar("S", bound=BaseModel)


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

    def entry_settings(self, field: str, name: str, model: type[S]) -> S:
        """Entry ``name``'s settings in the ``{name: settings}`` field ``field`` (e.g. ``extractors``) as
        ``model``: its table, else ``model``'s defaults."""
        return settings_of(getattr(self, field), name, model)
