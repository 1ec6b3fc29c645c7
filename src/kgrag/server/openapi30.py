"""The OpenAPI schema as version 3.0, for the Swagger UI that ``/docs`` serves.

FastAPI publishes OpenAPI 3.1 (``/openapi.json``, for clients and generators). The Swagger UI of the
``swagger-ui-bundle`` package (4.x) refuses anything but 3.0 ("does not specify a valid version
field"), so ``/docs`` reads this translation instead: the few 3.1 spellings pydantic emits become their
3.0 equivalents — a ``null`` alternative becomes ``nullable``, numeric ``exclusiveMinimum``/``Maximum``
become the boolean form, ``const`` a one-value ``enum``, ``examples`` one ``example``. The schema's
meaning is unchanged; only the dialect differs.
"""

from __future__ import annotations

from typing import Any

from pydantic import JsonValue

OPENAPI_30 = "3.0.3"
_NULL = {"type": "null"}


def _without_null(node: dict[str, JsonValue], key: str) -> dict[str, JsonValue]:
    options = node[key]
    if not isinstance(options, list):
        return node
    kept = [o for o in options if o != _NULL]
    if len(kept) == len(options):
        return node
    rest = {k: v for k, v in node.items() if k != key}
    only = kept[0] if len(kept) == 1 else None
    merged: dict[str, JsonValue] = {**only, **rest} if isinstance(only, dict) else {**rest, key: kept}
    return {**merged, "nullable": True}


def _bounds(node: dict[str, JsonValue]) -> dict[str, JsonValue]:
    for exclusive, inclusive in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        value = node.get(exclusive)
        if isinstance(value, int | float) and not isinstance(value, bool):
            node = {**node, inclusive: value, exclusive: True}
    return node


def _node(node: dict[str, JsonValue]) -> dict[str, JsonValue]:
    for key in ("anyOf", "oneOf"):
        if isinstance(node.get(key), list):
            node = _without_null(node, key)
    if node.get("type") == "null":
        node = {k: v for k, v in node.items() if k != "type"} | {"nullable": True}
    node = _bounds(node)
    if "const" in node:
        node = {k: v for k, v in node.items() if k != "const"} | {"enum": [node["const"]]}
    examples = node.get("examples")
    if isinstance(examples, list) and "schema" not in node:
        node = {k: v for k, v in node.items() if k != "examples"} | ({"example": examples[0]} if examples else {})
    return node


def downgrade(value: Any) -> Any:
    """``value`` (an OpenAPI 3.1 document or part of one) in OpenAPI 3.0 spelling."""
    if isinstance(value, list):
        return [downgrade(v) for v in value]
    if not isinstance(value, dict):
        return value
    # the document gets the new version; any other node is rewritten before its children, so it still
    # sees its own null alternative
    node = {**value, "openapi": OPENAPI_30} if isinstance(value.get("openapi"), str) else _node(value)
    return {k: downgrade(v) for k, v in node.items()}
