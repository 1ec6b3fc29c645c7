"""Stable identifiers: the same source gives the same document id; the same text in the same document
gives the same chunk id, so unchanged chunks keep their id (and everything derived from them) when a
document is edited and re-indexed."""

from __future__ import annotations

import hashlib


def document_id(source: str) -> str:
    return "d" + hashlib.sha1(source.encode("utf-8")).hexdigest()[:16]


def chunk_id(doc_id: str, text_hash: str, occurrence: int) -> str:
    """``occurrence`` distinguishes identical texts repeated inside one document."""
    return "c" + hashlib.sha1(f"{doc_id}|{text_hash}|{occurrence}".encode()).hexdigest()[:16]
