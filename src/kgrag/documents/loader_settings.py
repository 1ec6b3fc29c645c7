"""Settings models of the built-in loaders that have knobs: ``[documents.loaders."<name>"]`` tables."""

from __future__ import annotations

from pydantic import Field

from kgrag.config.base import Section


class JsonRecordsSettings(Section):
    """`.json` / `.jsonl` records: which field holds each document's text, key and title."""

    text_field: str = Field(
        "text", description="Field holding the text in each record (e.g. `context` for GraphRAG-Bench)."
    )
    id_field: str | None = Field(
        None, description="Optional record field used as the document's stable key; default is the record index."
    )
    title_field: str | None = Field(None, description="Optional record field used as the document title.")
