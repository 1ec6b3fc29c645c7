"""The settings model of an entry that takes none (the base model of most kinds)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class NoSettings(BaseModel):
    """No settings: any key in the entry's table is an error."""

    model_config = ConfigDict(extra="forbid")
