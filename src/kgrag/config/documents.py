"""The ``[documents]`` section of kgrag.toml."""

from __future__ import annotations

from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, Field, model_validator

from kgrag.config.base import Section
from kgrag.config.entry_settings import EntryTables, Tables, declare_moves, move_keys, tables_field

S = TypeVar("S", bound=BaseModel)

FORMER_KEYS: dict[str, tuple[str, ...]] = {
    f"json_{key}": (f"loaders..json.{key}", f"loaders..jsonl.{key}")
    for key in ("text_field", "id_field", "title_field")
}
"""Flat ``[documents]`` keys of the `.json`/`.jsonl` loaders, and the loader tables they are read as."""

declare_moves("documents", FORMER_KEYS)


class DocumentsConfig(Section):
    """How files are discovered and read."""

    include: list[str] = Field(
        default_factory=lambda: [
            "*.txt",
            "*.md",
            "*.markdown",
            "*.mdx",
            "*.qmd",
            "*.rst",
            "*.html",
            "*.htm",
            "*.pdf",
            "*.docx",
            "*.json",
            "*.jsonl",
        ],
        description="Glob patterns (matched against file names) of files to index when a directory is given.",
    )
    exclude: list[str] = Field(
        default_factory=lambda: [".*", "*~", "__pycache__"],
        description="Glob patterns of files or directories to skip; matched against every path component.",
    )
    ignore_files: list[str] = Field(
        default_factory=lambda: [".kgragignore", ".gitignore"],
        description="Files in gitignore syntax, read in every folder walked, whose patterns (relative to that "
        "folder) keep files and folders out of the index.",
    )
    skip_generated: bool = Field(
        True,
        description="Skip templates (Jinja, Liquid, Handlebars HTML), generated output and vendored code "
        "(`_build/`, `node_modules/`, `vendor/`, `theme/`, `*.min.js`, …) when walking a folder; counted "
        "in the run's report. A file named on the command line is always read.",
    )
    retry_failed: bool = Field(
        False,
        description="Read files that failed before again even when they did not change (`kgrag index "
        "--retry-failed` sets it for one run); by default such a file is retried only once it changes.",
    )
    max_file_mb: float = Field(50.0, gt=0, description="Files larger than this (MiB) are reported and skipped.")
    loaders: Annotated[Tables, EntryTables("loader", "documents.loaders")] = tables_field(
        "loader",
        'One `[documents.loaders.<name>]` table per loader with settings, e.g. `[documents.loaders.".json"]`.',
    )

    @model_validator(mode="before")
    @classmethod
    def _former_keys(cls, data: Any) -> Any:
        return move_keys(data, "documents", FORMER_KEYS)

    def loader_settings(self, loader: str, model: type[S]) -> S:
        """Loader ``loader``'s settings as ``model`` (its ``[documents.loaders."<name>"]`` table, else defaults)."""
        return self.entry_settings("loaders", loader, model)
