"""A chunk as LLM-free question generation places it in its document: the one shape that the headings
(:mod:`kgrag.evaluation.qgen.scope`) and the code blocks (:mod:`kgrag.evaluation.qgen.paragraphs`) are
found on, which :class:`kgrag.evaluation.qgen.cloze.Passage` has."""

from __future__ import annotations

from typing import Protocol


class Chunk(Protocol):
    """A chunk with its place: its id, its document, where it starts there, its text and its document's own
    title ("" when the title is only the file's name)."""

    @property
    def chunk_id(self) -> str: ...
    @property
    def doc_id(self) -> str: ...
    @property
    def start(self) -> int: ...
    @property
    def text(self) -> str: ...
    @property
    def title(self) -> str: ...
