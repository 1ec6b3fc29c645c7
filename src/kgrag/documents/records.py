"""The two value types the documents package hands to the rest of kgrag.

They are frozen so that nothing downstream can edit a text after its hash and chunk offsets were
computed. A document is identified by ``source`` and its content by ``content_hash``, which lets
re-indexing skip documents whose text did not change.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field


def content_hash(text: str) -> str:
    """Hex sha256 of the UTF-8 text; the one definition every caller must share to compare hashes."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class LoadedDocument:
    """One document's text after format-specific extraction.

    ``source`` is the resolved absolute path, or ``"<path>#<record key>"`` for a record of a
    .json/.jsonl file, so that several documents from one file still have distinct, stable keys.
    """

    source: str
    title: str
    text: str
    content_hash: str
    metadata: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_text(cls, source: str, title: str, text: str, metadata: dict[str, str]) -> LoadedDocument:
        """Build a document, computing the hash here so it can never disagree with ``text``.

        Lone surrogates (what a JSON escape such as ``"\\ud800"`` or an undecodable file name decodes
        to) are not text: no database, tokenizer or terminal accepts them. They become U+FFFD here, the
        one door every loader goes through, so one odd record can never abort a run.
        """
        text = unicode_text(text)
        return cls(
            source=unicode_text(source),
            title=unicode_text(title),
            text=text,
            content_hash=content_hash(text),
            metadata={unicode_text(k): unicode_text(v) for k, v in metadata.items()},
        )


_SURROGATE = re.compile("[\ud800-\udfff]")


def unicode_text(value: str) -> str:
    """``value`` with every lone surrogate replaced by U+FFFD (the text is otherwise unchanged)."""
    return _SURROGATE.sub("\ufffd", value) if _SURROGATE.search(value) else value


@dataclass(frozen=True)
class Chunk:
    """A contiguous slice of a document's text.

    Invariant: ``text == document_text[char_start:char_end]``, so citations and highlights can point
    back into the original document exactly. ``n_tokens`` is the token count of ``text`` itself.
    """

    ord: int
    char_start: int
    char_end: int
    text: str
    n_tokens: int
