"""Keeping the workspace in line with the folders it indexes: deleted files go, identical content is kept once.

* **Prune.** Indexing a folder removes the documents of files that no longer exist under it (only under the
  folders named in this run: a file indexed from elsewhere stays), in one transaction, under the
  workspace's indexing lock. ``kgrag index --no-prune`` keeps them.
* **Duplicates.** A file whose text equals a stored document's is recorded as a *duplicate* of it
  (metadata ``duplicate_of``, no chunks of its own), so a copy never adds a second set of passages.
* **Moves.** When that document's own file is gone, the new path takes the document over instead: the
  record is re-pointed (same id, same chunks, vectors and graph), so a moved file is a rename that
  re-embeds and re-extracts nothing.
* Removing a document that has a duplicate hands the document to the duplicate's path in the same way,
  so the copy stays searchable.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path

from kgrag.core.records import DocumentRecord, DocumentStatus
from kgrag.documents.discovery import file_identity
from kgrag.store.base import Store

DUPLICATE_OF = "duplicate_of"
"""Document metadata key: the id of the document holding this file's identical content."""


def file_of(source: str) -> Path:
    """The file behind a document source (``path`` or ``path#record``)."""
    return Path(source.partition("#")[0])


def file_gone(source: str) -> bool:
    """Whether the file behind ``source`` no longer exists. Only "no such file" counts: a file that cannot
    be looked at (permissions, a disk error) is kept, never pruned on a guess."""
    try:
        os.stat(file_of(source))
    except (FileNotFoundError, NotADirectoryError):
        return True
    except (OSError, ValueError):
        return False
    return False


def is_duplicate(doc: DocumentRecord) -> bool:
    return bool(doc.metadata.get(DUPLICATE_OF))


def duplicates_of(store: Store, doc: DocumentRecord) -> list[DocumentRecord]:
    """The duplicate records pointing at ``doc`` (they share its content hash)."""
    return [d for d in store.documents.with_content_hash(doc.content_hash) if d.metadata.get(DUPLICATE_OF) == doc.id]


def take_over(store: Store, doc: DocumentRecord, heir: DocumentRecord) -> None:
    """Re-point ``doc`` (its id, chunks, vectors and graph stay) to ``heir``'s source, title and file
    metadata, and drop ``heir``'s own record; in the caller's transaction."""
    metadata = {k: v for k, v in heir.metadata.items() if k != DUPLICATE_OF}
    store.documents.delete(heir.id)  # first: sources are unique
    store.documents.upsert(
        replace(doc, source=heir.source, title=heir.title, metadata=metadata, error=None, updated_at=time.time())
    )


def drop_document(store: Store, doc: DocumentRecord) -> bool:
    """Remove ``doc``; when a duplicate's file still exists, that file takes the document over instead (its
    content stays searchable). Returns whether content left the index. In the caller's transaction."""
    for heir in duplicates_of(store, doc):
        if not file_gone(heir.source):
            take_over(store, doc, heir)  # any other copies keep pointing at ``doc``
            return False
    for orphan in duplicates_of(store, doc):  # copies whose files are gone too
        store.documents.delete(orphan.id)
    store.documents.delete(doc.id)
    return True


def folder_prefixes(paths: Sequence[Path]) -> list[str]:
    """Source prefixes of the folders among ``paths`` (files named one by one are never pruned)."""
    prefixes = []
    for path in paths:
        if path.is_dir():
            root = str(file_identity(path))
            prefixes.append(root if root.endswith(os.sep) else root + os.sep)
    return prefixes


def gone_documents(store: Store, prefixes: Iterable[str]) -> list[DocumentRecord]:
    """Documents under the folders ``prefixes`` whose files no longer exist (each file checked once)."""
    found: dict[str, DocumentRecord] = {}
    checked: dict[str, bool] = {}
    for prefix in prefixes:
        for doc in store.documents.with_source_prefix(prefix):
            name = str(file_of(doc.source))
            if name not in checked:
                checked[name] = file_gone(doc.source)
            if checked[name]:
                found[doc.id] = doc
    return list(found.values())


def prune(store: Store, paths: Sequence[Path]) -> int:
    """Remove the documents of files deleted from the folders among ``paths``, in one transaction; returns
    how many documents (failed entries aside) left the index, copies and taken-over ones included."""
    removed = 0
    with store.transaction():
        for doc in gone_documents(store, folder_prefixes(paths)):
            current = store.documents.get(doc.id)  # an earlier take-over in this loop may have moved it
            if current is None or (current.source != doc.source and not file_gone(current.source)):
                continue  # gone_documents checked the file at ``doc.source``; a moved one is checked again
            drop_document(store, current)
            removed += current.status != DocumentStatus.FAILED
    return removed
