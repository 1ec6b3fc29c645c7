"""Values as JSON spells them, for response models that take JSON values."""

from __future__ import annotations

from typing import Any

from pydantic import JsonValue


def plain_json(value: Any) -> JsonValue:
    """``value`` with its tuples and sets as lists, recursively: what a plug-in step may leave in its trace
    parameters or an item's metadata, spelled as JSON has it (the response model takes JSON values)."""
    if isinstance(value, dict):
        return {str(k): plain_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [plain_json(v) for v in value]
    return value
