"""Prompt files: load, render, list and export the TOML prompts kgrag ships.

Each ``<name>.toml`` holds ``name``, ``version``, ``description``, ``output_schema``, ``system`` and
``user``, and optionally an ``[example]`` table: a worked example (``variables`` for the user template and
the ``reply`` a good answer to it) that :meth:`Prompt.render` shows after the system instructions.
Small models copy the shape of a shown reply far more reliably than they follow a schema (shown a schema,
a sub-1B model tends to echo the schema back); the example's names are invented and the extractor drops
any name that its text does not contain, so an example copied by mistake is never stored.

Templates use :class:`string.Template` placeholders (``$question`` or ``${question}``; ``$$``
for a literal dollar sign) rather than ``str.format`` braces, because prompts that ask for JSON are full
of literal ``{`` and ``}``. ``output_schema`` is ``"text"`` (free text), the short name of a registered
schema (``extraction_reply``; kind ``prompt_schema`` in :mod:`kgrag.core.builtins`, plug-ins add more), the
dotted name of a pydantic model (``package.module.Model``, for users' own prompts), or an inline JSON
schema table. Short names keep exported prompt files valid when kgrag's modules move; the dotted paths
that shipped before short names existed are still accepted (:data:`LEGACY_SCHEMA_PATHS`).

Users customise prompts by exporting them (:func:`export_prompts`), editing the copies, and pointing
``llm.prompts_dir`` at that directory (a workspace's own ``prompts/`` folder is used when it is unset); a
file there replaces the shipped prompt of the same name. The ``version`` is part of the LLM cache key, so
bumping it forces fresh answers even for identical text. ``invented = false`` in ``[example]`` marks an
example drawn from the user's documents (``kgrag prompts tune``, :mod:`kgrag.prompts.overrides`); the model
is told so instead of "invented names".
"""

from __future__ import annotations

import importlib
import re
import string
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, JsonValue

from kgrag.core.errors import ConfigError, KgragError
from kgrag.core.llm_types import Message, PromptRef
from kgrag.core.registries import RegistryKind
from kgrag.core.registry import Registry

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_REQUIRED = ("name", "version", "description", "output_schema", "system", "user")
TEXT_OUTPUT = "text"
# Dotted paths written into prompt files exported by earlier versions → today's short schema names.
LEGACY_SCHEMA_PATHS = {
    "kgrag.graph.extract_parse.ExtractionReply": "extraction_reply",
    "kgrag.graph.extract.parse.ExtractionReply": "extraction_reply",
}


@dataclass(frozen=True)
class Prompt:
    """One prompt file, parsed and checked; :meth:`render` fills its placeholders."""

    name: str
    version: str
    description: str
    output_schema: str | dict[str, JsonValue]
    system: str
    user: str
    source: str
    example_variables: Mapping[str, str] = field(default_factory=dict)
    example_reply: str = ""
    example_invented: bool = True  # False: the example is a real passage of the user's corpus (tuned prompts)
    # where a short ``output_schema`` name is looked up: a workspace's registry (None: built-ins and plug-ins)
    schemas: Registry[type[BaseModel]] | None = field(default=None, compare=False, repr=False)

    @property
    def has_example(self) -> bool:
        return bool(self.example_reply)

    @property
    def ref(self) -> PromptRef:
        return PromptRef(self.name, self.version)

    @property
    def variables(self) -> set[str]:
        """Placeholders used by the system and user templates."""
        return set(string.Template(self.system).get_identifiers()) | set(string.Template(self.user).get_identifiers())

    def render_part(self, part: Literal["system", "user"], variables: Mapping[str, object]) -> str:
        """One template filled; a placeholder the caller does not provide is a :class:`ConfigError`."""
        template = string.Template(self.system if part == "system" else self.user)
        missing = set(template.get_identifiers()) - set(variables)
        if missing:
            raise ConfigError(
                f"prompt {self.name!r} ({self.source}) uses ${', $'.join(sorted(missing))} in {part} but the "
                f"caller only provides {', '.join(sorted(variables)) or 'nothing'}; fix the prompt file"
            )
        return template.substitute({key: str(value) for key, value in variables.items()})

    def render(self, variables: Mapping[str, object]) -> list[Message]:
        """The chat messages (system, if not empty, then user) with placeholders filled; a worked example
        is shown at the end of the system message, so a request is always one system and one user turn
        (re-asks, replays and token estimates read the user turn as the request)."""
        messages: list[Message] = []
        system = self.render_part("system", variables)
        if self.has_example:
            system = f"{system}\n\n{self._example_text(variables)}".strip()
        if system.strip():
            messages.append({"role": "system", "content": system})
        messages.append({"role": "user", "content": self.render_part("user", variables)})
        return messages

    def _example_text(self, variables: Mapping[str, object]) -> str:
        example = self.render_part("user", {**variables, **self.example_variables})
        origin = "invented names" if self.example_invented else "from the documents"
        return f"Example ({origin}). For this input:\n{example}\nthe reply is:\n{self.example_reply}"

    def example_block(self) -> str:
        """The example as shown to the model, for token arithmetic; empty without one."""
        if not self.has_example:
            return ""
        return f"{self.example_reply}\n" + "\n".join(self.example_variables.values())

    def schema_model(self) -> type[BaseModel] | None:
        """The pydantic model named by ``output_schema``, or None for text and inline schemas."""
        if not isinstance(self.output_schema, str) or self.output_schema == TEXT_OUTPUT:
            return None
        model = _resolve_schema(self.output_schema, f"prompt {self.name!r}: output_schema", self.schemas)
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            raise ConfigError(f"prompt {self.name!r}: output_schema {self.output_schema!r} is not a pydantic model")
        return model

    def json_schema(self) -> dict[str, JsonValue] | None:
        """The JSON schema the reply must follow, or None when the prompt asks for free text."""
        if isinstance(self.output_schema, dict):
            return self.output_schema
        model = self.schema_model()
        return model.model_json_schema() if model is not None else None


PROMPT_SCHEMAS: RegistryKind[type[BaseModel]] = RegistryKind("prompt_schema")


def _resolve_schema(name: str, what: str, registry: Registry[type[BaseModel]] | None = None) -> Any:
    """A registered short name (in ``registry``, a workspace's; default: built-ins and plug-ins), a legacy
    dotted path, or a user's ``package.module.Model``."""
    schemas = registry if registry is not None else PROMPT_SCHEMAS.new()
    short = LEGACY_SCHEMA_PATHS.get(name, name)
    if short in schemas:
        return schemas.load(short)
    module_name, _, attr = name.rpartition(".")
    try:
        return getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError, ValueError) as exc:
        known = ", ".join(schemas.names())
        raise ConfigError(
            f"{what} {name!r} not found: use a registered schema ({known}), 'text', or a dotted pydantic model path"
        ) from exc


def parse_prompt(
    text: str, source: str, expected_name: str, schemas: Registry[type[BaseModel]] | None = None
) -> Prompt:
    """A prompt file's text parsed and checked; ``source`` names it in errors; ``schemas`` is where its
    ``output_schema`` name is looked up (default: built-ins and plug-ins)."""
    return _parse(text, source, expected_name, schemas)


def _parse(text: str, source: str, expected_name: str, schemas: Registry[type[BaseModel]] | None = None) -> Prompt:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"prompt file {source}: not valid TOML ({exc})") from exc
    missing = [key for key in _REQUIRED if key not in data]
    if missing:
        raise ConfigError(f"prompt file {source}: missing {', '.join(missing)}")
    if data["name"] != expected_name:
        raise ConfigError(f"prompt file {source}: name is {data['name']!r} but the file is {expected_name}.toml")
    for key in ("system", "user"):
        if not isinstance(data[key], str) or not string.Template(data[key]).is_valid():
            raise ConfigError(f"prompt file {source}: {key} is not a valid $placeholder template")
    schema = data["output_schema"]
    if not isinstance(schema, str | dict):
        raise ConfigError(f"prompt file {source}: output_schema must be a string or a table")
    example_variables, example_reply = _example(data.get("example"), source)
    invented = data.get("example", {}).get("invented", True) if isinstance(data.get("example"), dict) else True
    if not isinstance(invented, bool):
        raise ConfigError(f"prompt file {source}: [example] invented must be true or false")
    return Prompt(
        name=str(data["name"]),
        version=str(data["version"]),
        description=str(data["description"]),
        output_schema=schema,
        system=data["system"],
        user=data["user"],
        source=source,
        example_variables=example_variables,
        example_reply=example_reply,
        example_invented=invented,
        schemas=schemas,
    )


def _example(table: object, source: str) -> tuple[dict[str, str], str]:
    """The ``[example]`` table: ``variables`` (strings) and ``reply`` (a string); absent means none."""
    if table is None:
        return {}, ""
    if not isinstance(table, dict):
        raise ConfigError(f"prompt file {source}: [example] must be a table with variables and reply")
    variables, reply = table.get("variables", {}), table.get("reply")
    if not isinstance(reply, str) or not reply.strip():
        raise ConfigError(f"prompt file {source}: [example] needs reply, the text of a good answer")
    if not isinstance(variables, dict) or not all(isinstance(v, str) for v in variables.values()):
        raise ConfigError(f"prompt file {source}: [example] variables must be a table of strings")
    return {str(k): v for k, v in variables.items()}, reply.strip()


def _shipped() -> dict[str, Traversable]:
    return {
        entry.name.removesuffix(".toml"): entry
        for entry in resources.files("kgrag.prompts").iterdir()
        if entry.name.endswith(".toml")
    }


def load_prompt(
    name: str, override_dir: Path | None = None, schemas: Registry[type[BaseModel]] | None = None
) -> Prompt:
    """The prompt ``name``: ``override_dir/<name>.toml`` when present, else the shipped file. ``schemas``
    is the ``prompt_schema`` registry its ``output_schema`` is resolved in (a workspace's, so a schema
    registered there validates its prompt files; default: built-ins and plug-ins)."""
    if not _NAME.match(name):
        raise ConfigError(f"prompt name {name!r} must be lower-case letters, digits and underscores")
    if override_dir is not None:
        candidate = Path(override_dir) / f"{name}.toml"
        if candidate.is_file():
            return _parse(candidate.read_text(encoding="utf-8"), str(candidate), name, schemas)
    shipped = _shipped().get(name)
    if shipped is None:
        known = ", ".join(sorted(_shipped()))
        raise ConfigError(f"no prompt named {name!r} (shipped prompts: {known})")
    return _parse(shipped.read_text(encoding="utf-8"), f"kgrag/prompts/{name}.toml", name, schemas)


def list_prompts(override_dir: Path | None = None, schemas: Registry[type[BaseModel]] | None = None) -> list[Prompt]:
    """Every prompt: shipped ones plus extra files in ``override_dir``, resolved as :func:`load_prompt`."""
    names = set(_shipped())
    if override_dir is not None and Path(override_dir).is_dir():
        names |= {p.stem for p in Path(override_dir).glob("*.toml") if _NAME.match(p.stem)}
    return [load_prompt(name, override_dir, schemas) for name in sorted(names)]


def export_prompts(directory: Path, overwrite: bool = False) -> list[Path]:
    """Copy the shipped prompt files into ``directory`` for editing; returns the files written.

    Existing files are kept unless ``overwrite``, so re-exporting never clobbers a user's edits.
    """
    directory = Path(directory)
    written: list[Path] = []
    try:
        directory.mkdir(parents=True, exist_ok=True)
        for name, entry in sorted(_shipped().items()):
            target = directory / f"{name}.toml"
            if target.exists() and not overwrite:
                continue
            target.write_text(entry.read_text(encoding="utf-8"), encoding="utf-8")
            written.append(target)
    except OSError as exc:
        raise KgragError(f"{exc.filename or directory}: cannot export prompts ({exc.strerror})") from exc
    return written
