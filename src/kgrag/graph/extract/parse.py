"""The JSON an extraction call must return, and item-by-item validation of what came back.

Validation is two-level. The *envelope* (:class:`ExtractionReply`) checks that the reply is an object
with an ``entities`` and/or ``relations`` list whose items each have their required fields of the right
kind: one entity with a missing name or a relation with ``"strength": "high"`` is a reply that lost
data (typically a garbled or cut reply), so the LLM layer asks again naming the bad items and never
caches it; a unit still failing after its attempts is marked failed, reported, and retried on the next
run. Each *item* is then cleaned on its own (:func:`parse_items`): a name over the length limit or a
relation from an entity to itself is dropped and counted (a content decision of the model, not a loss).

Required per item: ``name`` (entity), ``source`` and ``target`` (relation), all non-empty strings.
Optional fields get neutral defaults when missing, but a field of the wrong kind (a list where a
string belongs, a word where a number belongs) rejects its item, because such an item is more likely
garbled than merely terse. ``null`` counts as missing. A relation's ``strength`` (1-10, clamped) becomes
``weight = strength / 10``, the (0, 1] scale on which :class:`ExtractedRelation` defaults to 1.0.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    StrictStr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from kgrag.graph.types import ExtractedEntity, ExtractedRelation

FALLBACK_TYPE = "concept"
MAX_NAME_CHARS = 120
DEFAULT_STRENGTH = 5.0
MIN_STRENGTH = 1.0
MAX_STRENGTH = 10.0
_SPACES = re.compile(r"\s+")
_NAME_STRIP = " \t\r\n\"'`*_.,;:"
# Markdown a model copies with a line: a heading's #s (before a capital or a digit: "# of users" is a name), a
# quote's >, a list item's bullet (not a number: "1. FC Köln")
_MARKUP_LEAD = re.compile(r"^(?:#{1,6}\s+(?=[A-Z0-9])|>\s+|[-+*]\s+)")

Strength = Annotated[float, Field(allow_inf_nan=False)]


def _null_to_default(cls: type[BaseModel], value: Any, info: ValidationInfo) -> Any:
    """``null`` in an optional field means "not given": use the default instead of rejecting the item."""
    if value is None and info.field_name is not None:
        field = cls.model_fields[info.field_name]
        return field.get_default(call_default_factory=True)
    return value


class EntityItem(BaseModel):
    """One entity as the model should write it."""

    model_config = ConfigDict(extra="ignore")

    name: StrictStr
    type: StrictStr = FALLBACK_TYPE
    description: StrictStr = ""

    _nulls = field_validator("type", "description", mode="before")(classmethod(_null_to_default))


class RelationItem(BaseModel):
    """One relation as the model should write it; ``strength`` is 1 (weak) to 10 (explicit, central)."""

    model_config = ConfigDict(extra="ignore")

    source: StrictStr
    target: StrictStr
    label: StrictStr = ""
    description: StrictStr = ""
    keywords: list[StrictStr] = Field(default_factory=list)
    strength: Strength = DEFAULT_STRENGTH

    _nulls = field_validator("label", "description", "keywords", "strength", mode="before")(
        classmethod(_null_to_default)
    )

    @field_validator("keywords", mode="before")
    @classmethod
    def _split_keyword_string(cls, value: Any) -> Any:
        """``"a, b"`` is a common and lossless way to misspell ``["a", "b"]``."""
        if isinstance(value, str):
            return [part for part in (p.strip() for p in value.split(",")) if part]
        return value


def _string() -> dict[str, JsonValue]:
    return {"type": "string"}


def reply_schema(types: Sequence[str] | None = None) -> dict[str, JsonValue]:
    """The schema the model sees (the LLM layer puts it in the system message, and sends it as
    ``response_format`` in ``json_schema`` mode); ``types`` limits an entity's ``type`` to an enum. Written
    by hand: pydantic's generated schema carries titles and $defs that add tokens on every call and tell
    the model nothing more."""
    entity_type: dict[str, JsonValue] = {"type": "string", "enum": [*types]} if types is not None else _string()
    return {
        "type": "object",
        "properties": {
            "entities": {"type": "array", "items": {
                "type": "object",
                "properties": {"name": _string(), "type": entity_type, "description": _string()},
                "required": ["name", "type", "description"]}},
            "relations": {"type": "array", "items": {
                "type": "object",
                "properties": {"source": _string(), "target": _string(), "label": _string(),
                               "description": _string(), "keywords": {"type": "array", "items": _string()},
                               "strength": {"type": "integer", "minimum": 1, "maximum": 10}},
                "required": ["source", "target", "label", "description", "keywords", "strength"]}},
        },
        "required": ["entities", "relations"],
    }  # fmt: skip


REPLY_JSON_SCHEMA = reply_schema()


def _show_item_schema(schema: dict[str, JsonValue]) -> None:
    schema.clear()
    schema.update(reply_schema())  # a new copy: callers may edit what they get


def _objects(value: Any) -> bool:
    """Whether ``value`` is a non-empty list of JSON objects (what relation items are)."""
    return isinstance(value, list) and bool(value) and all(isinstance(item, dict) for item in value)


RELATIONS_SYNONYM = "relationships"  # read as "relations"
KNOWN_KEYS = frozenset({"entities", "relations", RELATIONS_SYNONYM})


class ExtractionReply(BaseModel):
    """The envelope the LLM layer validates: two lists of anything, items checked later one by one.

    Its JSON schema is :data:`REPLY_JSON_SCHEMA` (the strict item shape the model should follow), not
    the lenient envelope, so the model is told exactly what a good item looks like.
    """

    model_config = ConfigDict(extra="ignore", json_schema_extra=_show_item_schema)

    entities: list[Any] = Field(default_factory=list)
    relations: list[Any] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _needs_a_known_key(cls, data: Any) -> Any:
        """``{"nodes": [...]}`` must fail (and be re-asked), not pass as an empty extraction; so must a
        list of objects under a key of its own beside the entities (``"links": [{...}]``), whose items
        would be lost (a list of words, such as keywords, is not).
        ``relationships``, the word many extraction prompts use, is read as ``relations``."""
        if not isinstance(data, dict):
            raise ValueError("expected a JSON object with 'entities' and 'relations' lists")
        if "relations" not in data and RELATIONS_SYNONYM in data:
            data = {**data, "relations": data[RELATIONS_SYNONYM]}
        if "entities" not in data and "relations" not in data:
            raise ValueError("expected keys 'entities' and 'relations'; found " + ", ".join(map(str, data)))
        unknown = [str(k) for k, v in data.items() if k not in KNOWN_KEYS and _objects(v)]
        if "relations" not in data and unknown:
            raise ValueError(f"expected the relations under the key 'relations'; found {', '.join(unknown)}")
        return {key: ([] if data.get(key) is None else data.get(key)) for key in ("entities", "relations")}

    @model_validator(mode="after")
    def _items_have_their_fields(self) -> ExtractionReply:
        """An item without a required field or with a field of the wrong kind makes the reply invalid, so
        the LLM layer re-asks (naming the items) and never caches it: keeping the other items and
        dropping this one would lose data silently, and the loss would be cached for every later run."""
        lists: tuple[tuple[str, type[BaseModel], list[Any]], ...] = (
            ("entities", EntityItem, self.entities),
            ("relations", RelationItem, self.relations),
        )
        problems = [
            f"{kind}[{index}]: {error}"
            for kind, model, items in lists
            for index, raw in enumerate(items)
            if (error := _first_error(model, raw))
        ]
        if problems:
            shown = "; ".join(problems[:5]) + (f"; and {len(problems) - 5} more" if len(problems) > 5 else "")
            raise ValueError(f"{len(problems)} item(s) do not follow the item schema: {shown}")
        return self


@functools.lru_cache(maxsize=32)
def typed_reply(types: tuple[str, ...]) -> type[ExtractionReply]:
    """:class:`ExtractionReply` whose schema limits an entity's ``type`` to ``types`` (and ``concept``): a
    server that turns the schema into a grammar (llama.cpp takes it with ``json_object``; ``json_schema``
    servers) cannot write anything else. Replies are still validated leniently (:func:`normalise_type`)."""
    allowed = list(dict.fromkeys([*types, FALLBACK_TYPE]))

    def with_enum(schema: dict[str, JsonValue]) -> None:
        schema.clear()
        schema.update(reply_schema(allowed))

    config = ConfigDict(extra="ignore", json_schema_extra=with_enum)
    return type("TypedExtractionReply", (ExtractionReply,), {"model_config": config, "__module__": __name__})


def _first_error(model: type[BaseModel], raw: Any) -> str:
    """The first validation problem of one item, or ``""`` when it is valid."""
    try:
        model.model_validate(raw)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"]) or "item"
        return f"{where}: {error['msg']}"
    return ""


@dataclass
class ParsedItems:
    """Items that passed validation, and how many were dropped (reported, never silent)."""

    entities: list[ExtractedEntity]
    relations: list[ExtractedRelation]
    dropped: int = 0


def clean_name(raw: str) -> str:
    """Collapse whitespace and strip decoration models add (quotes, bold markers, a final period) and the
    Markdown a name copied with its line keeps (``## Emergencies`` is the entity ``Emergencies``)."""
    name = _SPACES.sub(" ", raw).strip(_NAME_STRIP)
    while (bare := _MARKUP_LEAD.sub("", name, count=1)) != name:
        name = bare.strip(_NAME_STRIP)
    return name


def name_key(name: str) -> str:
    """Case- and spacing-insensitive identity of a name within one unit (the merger has its own)."""
    return clean_name(name).casefold()


# words a model writes for a type it was not offered, and the type they mean when the list holds it
TYPE_SYNONYMS = {
    "people": "person", "human": "person", "individual": "person", "author": "person",
    "company": "organization", "organisation": "organization", "agency": "organization",
    "institution": "organization", "university": "organization", "hospital": "organization",
    "place": "location", "city": "location", "country": "location", "region": "location", "site": "location",
    "disease": "condition", "illness": "condition", "drug": "medication", "medicine": "medication",
    "tool": "technology", "software": "technology", "standard": "document", "file": "document",
}  # fmt: skip


_TYPE_WORD = re.compile(r"\w+")


def _singular(word: str, known: Mapping[str, str]) -> str:
    return word if word in known else word.removesuffix("s")


def render_types(types: Sequence[str]) -> str:
    """The type list as the prompts show it: one type a line, so the list itself is not a value to copy
    (a one-line "one of a, b, c" is what small models wrote into every ``type``)."""
    return "\n".join(f"- {name}" for name in types)


def normalise_type(raw: str, allowed: Sequence[str]) -> str:
    """The configured type ``raw`` means, else ``concept``: the same word (case-insensitive, ``_``/``-`` as
    spaces, list bullets and quotes stripped), a common synonym of one (:data:`TYPE_SYNONYMS`), or the one
    allowed type a longer value names; a value naming several (a copied list) says nothing."""
    wanted = _SPACES.sub(" ", raw.replace("_", " ").replace("-", " ")).strip(" .:*'\"`").casefold()
    by_word = {candidate.casefold(): candidate for candidate in allowed}
    if wanted in by_word:
        return by_word[wanted]
    synonym = TYPE_SYNONYMS.get(wanted, TYPE_SYNONYMS.get(wanted.removesuffix("s"), ""))
    if synonym in by_word:
        return by_word[synonym]
    named = {by_word[_singular(w, by_word)] for w in _TYPE_WORD.findall(wanted) if _singular(w, by_word) in by_word}
    return named.pop() if len(named) == 1 else FALLBACK_TYPE


def _valid_name(name: str) -> bool:
    return 0 < len(name) <= MAX_NAME_CHARS


def _entity(raw: Any, allowed: Sequence[str]) -> ExtractedEntity | None:
    try:
        item = EntityItem.model_validate(raw)
    except ValidationError:
        return None
    name = clean_name(item.name)
    if not _valid_name(name):
        return None
    return ExtractedEntity(
        name=name, type=normalise_type(item.type, allowed), description=_SPACES.sub(" ", item.description).strip()
    )


def _relation(raw: Any) -> ExtractedRelation | None:
    try:
        item = RelationItem.model_validate(raw)
    except ValidationError:
        return None
    source, target = clean_name(item.source), clean_name(item.target)
    if not (_valid_name(source) and _valid_name(target)) or name_key(source) == name_key(target):
        return None
    keywords = tuple(dict.fromkeys(k.strip() for k in item.keywords if k.strip()))
    label = _SPACES.sub(" ", item.label).strip() or (keywords[0] if keywords else "related to")
    strength = min(MAX_STRENGTH, max(MIN_STRENGTH, item.strength))
    return ExtractedRelation(
        source=source,
        target=target,
        label=label,
        description=_SPACES.sub(" ", item.description).strip(),
        keywords=keywords,
        weight=round(strength / MAX_STRENGTH, 3),
    )


def parse_items(reply: ExtractionReply, allowed_types: Sequence[str]) -> ParsedItems:
    """Validate each item; invalid ones are dropped and counted. Duplicates (same name, same relation
    endpoints and label) keep their first occurrence."""
    entities = [e for e in (_entity(raw, allowed_types) for raw in reply.entities) if e is not None]
    relations = [r for r in (_relation(raw) for raw in reply.relations) if r is not None]
    dropped = len(reply.entities) + len(reply.relations) - len(entities) - len(relations)
    return ParsedItems(dedupe_entities(entities), dedupe_relations(relations), dropped)


def dedupe_entities(entities: Iterable[ExtractedEntity]) -> list[ExtractedEntity]:
    """First occurrence per name key; a later description fills an empty one."""
    seen: dict[str, ExtractedEntity] = {}
    for entity in entities:
        key = name_key(entity.name)
        kept = seen.get(key)
        if kept is None:
            seen[key] = entity
        elif not kept.description and entity.description:
            seen[key] = ExtractedEntity(kept.name, kept.type, entity.description)
    return list(seen.values())


def relation_key(relation: ExtractedRelation) -> tuple[str, str, str]:
    """Identity of a relation in one unit: unordered endpoints (relations are undirected) and label."""
    a, b = sorted((name_key(relation.source), name_key(relation.target)))
    return a, b, relation.label.casefold()


def dedupe_relations(relations: Iterable[ExtractedRelation]) -> list[ExtractedRelation]:
    """First occurrence per :func:`relation_key`."""
    seen: dict[tuple[str, str, str], ExtractedRelation] = {}
    for relation in relations:
        seen.setdefault(relation_key(relation), relation)
    return list(seen.values())
