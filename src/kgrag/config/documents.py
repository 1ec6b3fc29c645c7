"""The ``[documents]`` section of kgrag.toml."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from kgrag.config.base import Section
from kgrag.config.entry_settings import EntryTables, Tables, tables_field


class DocumentsConfig(Section):
    """How files are discovered and read."""

    include: list[str] = Field(
        default_factory=lambda: [
            "*.txt",
            "*.md",
            "*.markdown",
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
    json_text_field: str = Field(
        "text", description="Field holding the text in .json/.jsonl records (e.g. `context` for GraphRAG-Bench)."
    )
    json_id_field: str | None = Field(
        None, description="Optional record field used as the document's stable key; default is the record index."
    )
    json_title_field: str | None = Field(None, description="Optional record field used as the document title.")
    loaders: Annotated[Tables, EntryTables("loader", "documents.loaders")] = tables_field(
        "loader",
        'One `[documents.loaders.<name>]` table per loader with settings, e.g. `[documents.loaders.".json"]`.',
    )
