"""Passages of one document that share text, handed over without repeating it.

Consecutive chunks of a document repeat a few whole trailing sentences of the previous one (the chunking
overlap, :mod:`kgrag.documents.chunking`), so when a context holds both neighbours it pays for those
sentences twice. The budget step keeps each passage it chooses first whole and hands over a later one of
the same document without the part of its span that the passages already chosen hold; the tokens that
frees go to the next passages and excerpts.

Where the text is shared is read from the chunk offsets the store keeps (an item's ``span``, set when it
is hydrated), never guessed by matching strings. A cut passage stays one item of its own chunk: its id,
provenance and citation label are unchanged, its ``span`` is the part it still holds, and its text is a
slice of the chunk's, so an item never holds more than its chunk did and evidence recall, which counts a
sentence per item, measures the same thing as before. As the overlap is whole sentences, a cut falls on
a sentence boundary.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace

from kgrag.core.context import ContextItem

Span = tuple[int, int]


def uncovered(span: Span, held: Iterable[Span]) -> Span | None:
    """The part of ``span`` (start, end) that no ``held`` span covers; None when all of it is covered.

    Held spans can cut its head or its tail; one lying strictly inside it would leave two pieces, and
    then ``span`` is kept whole (a chunk that contains another one is not how chunks are cut)."""
    start, end = span
    for low, high in sorted(held):
        if high <= start or low >= end:
            continue
        if low <= start:
            start = high
        elif high >= end:
            end = low
        else:
            return span
        if start >= end:
            return None
    return start, end


def held_spans(items: Iterable[ContextItem]) -> dict[str, list[Span]]:
    """The spans of the passages in ``items`` by document (items without a span hold nothing known)."""
    held: dict[str, list[Span]] = {}
    for item in items:
        if item.kind == "chunk" and item.span is not None and item.doc_id is not None:
            held.setdefault(item.doc_id, []).append(item.span)
    return held


def without_held(
    item: ContextItem, held: Mapping[str, Sequence[Span]], count_tokens: Callable[[str], int]
) -> ContextItem | None:
    """``item`` without the text that ``held`` spans of its document already hold: ``item`` itself when
    it shares none (or is not a hydrated passage whose text is its span), a copy holding the rest
    otherwise (its ``n_tokens`` recounted), None when nothing of it is left."""
    if item.kind != "chunk" or item.span is None or item.doc_id is None or not held.get(item.doc_id):
        return item
    first, last = item.span
    if last - first != len(item.text):
        return item
    left = uncovered(item.span, held[item.doc_id])
    if left is None:
        return None
    if left == item.span:
        return item
    raw = item.text[left[0] - first : left[1] - first]
    text = raw.strip()
    if not text:
        return None
    start = left[0] + len(raw) - len(raw.lstrip())
    metadata = dict(item.metadata)
    metadata["n_tokens"] = count_tokens(text)
    metadata["chunk_span"] = [first, last]
    return replace(item, text=text, span=(start, start + len(text)), scores=dict(item.scores), metadata=metadata)
