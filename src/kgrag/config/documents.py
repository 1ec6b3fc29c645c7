"""The ``[documents]`` section of kgrag.toml."""

from __future__ import annotations

from pydantic import Field

from kgrag.config.base import Section


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
    max_file_mb: float = Field(50.0, gt=0, description="Files larger than this (MiB) are reported and skipped.")
    json_text_field: str = Field(
        "text", description="Field holding the text in .json/.jsonl records (e.g. `context` for GraphRAG-Bench)."
    )
    json_id_field: str | None = Field(
        None, description="Optional record field used as the document's stable key; default is the record index."
    )
    json_title_field: str | None = Field(None, description="Optional record field used as the document title.")
