"""Whether a stopped ``kgrag index`` left documents behind the others: one line for answers and status.

Documents move through ``pending → chunked → embedded → indexed`` (:class:`kgrag.core.records.DocumentStatus`).
A document short of ``indexed`` is left behind only when its peers got further: chunked while the workspace
has vectors, embedded while the graph has entities. A workspace indexed on purpose without vectors
(``--pipeline fast``) or without a graph keeps its documents at ``chunked`` or ``embedded``, and nothing is
missing there. Counting alone decides, so ``kgrag status`` can say it without loading the query layer.
"""

from __future__ import annotations

from collections.abc import Mapping


def unfinished_line(by_status: Mapping[str, int], vectors: int, entities: int, failed_chunks: int = 0) -> str | None:
    """The line to show, or None: ``by_status`` counts documents per status, ``vectors`` the workspace
    model's vectors, ``entities`` the graph's and ``failed_chunks`` the chunks whose graph extraction
    failed (an LLM that was down or unusable; they keep their documents short of ``indexed`` even when the
    graph has no entity at all)."""
    waiting = by_status.get("pending", 0)
    if vectors > 0:
        waiting += by_status.get("chunked", 0)
    if entities > 0 or failed_chunks > 0:
        waiting += by_status.get("embedded", 0)
    if not waiting:
        return None
    total = sum(by_status.values())
    why = (
        f"graph extraction failed for {failed_chunks} of their chunks"
        if failed_chunks
        else "an interrupted `kgrag index`?"
    )
    return (
        f"{waiting} of {total} documents are not fully indexed ({why}), so answers may miss them; re-run "
        "`kgrag index` on the same folder to finish"
    )
