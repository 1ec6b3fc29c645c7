"""Documents: finding files, reading them into text, and cutting the text into chunks.

The pipeline is ``discover`` → ``load_path`` → ``chunk_text``; each step reports unusable input as a
`kgrag.core.errors.DocumentError` so indexing can skip one file and go on.
"""

from kgrag.documents.chunking import chunk_text, resolve_chunk_sizes
from kgrag.documents.discovery import discover
from kgrag.documents.loaders import Loader, load_path, loader_registry, supported_suffixes
from kgrag.documents.records import Chunk, LoadedDocument, content_hash
from kgrag.documents.sentences import split_sentences
from kgrag.documents.tokens import TokenCounter

__all__ = [
    "Chunk",
    "LoadedDocument",
    "Loader",
    "TokenCounter",
    "chunk_text",
    "content_hash",
    "discover",
    "load_path",
    "loader_registry",
    "resolve_chunk_sizes",
    "split_sentences",
    "supported_suffixes",
]
