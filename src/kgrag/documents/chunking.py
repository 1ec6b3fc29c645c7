"""Token-aware chunking on sentence boundaries.

Chunks are packed from whole sentences so retrieval returns readable passages, and are measured in
tokens because the embedder truncates by tokens: a chunk larger than its window is embedded only in
part, and whatever is past the cut can never be found. Consecutive chunks repeat a few trailing
sentences so a fact that straddles a boundary is whole in at least one chunk.

Every chunk is an exact slice of the document text and has at most ``size_tokens`` tokens, counted
on the chunk's own text; a sentence too long for one chunk is cut at token boundaries. A chunk never ends
on a heading line when more text follows: the heading opens the next chunk, beside what it heads. A fenced code
block (:mod:`kgrag.documents.code_blocks`) is one unit like a sentence, so no chunk boundary falls
inside it; a block longer than a chunk is cut between lines, keeping each line's indentation.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass

from kgrag.config import ChunkingConfig
from kgrag.core.errors import ConfigError
from kgrag.documents.code_blocks import code_block_spans
from kgrag.documents.records import Chunk
from kgrag.documents.sentences import iter_sentences, strip_span
from kgrag.documents.tokens import TokenCounter

# Smallest size chunk_text accepts: one character can take up to 4 tokens, so a force-split piece
# of at least one character must always fit.
MIN_SIZE_TOKENS = 8
FALLBACK_SIZE_TOKENS = 1200
WINDOW_SHARE_PERCENT = 80
OVERLAP_SHARE_PERCENT = 12
_MIN_WINDOW_CHARS = 65_536
_HEADING = re.compile(r"#{1,6} \S")


@dataclass(frozen=True, slots=True)
class _Unit:
    """A sentence, a code block, or a piece of an overlong one: the smallest thing a chunk boundary may not cut."""

    start: int
    end: int
    n_tokens: int


class _Window:
    """The units of a text by index, produced on demand and forgotten once no chunk can reach back to
    them, so chunking holds a few chunks' worth of units however long the text is."""

    def __init__(self, source: Iterator[_Unit]) -> None:
        self._source = source
        self._held: list[_Unit] = []
        self._offset = 0  # index of self._held[0]

    def has(self, index: int) -> bool:
        """Whether unit ``index`` exists (reading ahead as far as needed)."""
        while index - self._offset >= len(self._held):
            unit = next(self._source, None)
            if unit is None:
                return False
            self._held.append(unit)
        return True

    def __getitem__(self, index: int) -> _Unit:
        if not self.has(index):
            raise IndexError(index)
        return self._held[index - self._offset]

    def forget_before(self, index: int) -> None:
        """Drop units before ``index``: later chunks start at or after it."""
        if index > self._offset:
            del self._held[: index - self._offset]
            self._offset = index


def chunk_text(text: str, counter: TokenCounter, size_tokens: int, overlap_tokens: int) -> list[Chunk]:
    """Split ``text`` into chunks of at most ``size_tokens`` tokens.

    Sentences are packed greedily; each chunk after the first starts with trailing whole sentences of
    the previous one, at most ``overlap_tokens`` tokens of them. Whitespace-only text gives ``[]``.
    """
    if size_tokens < MIN_SIZE_TOKENS:
        raise ValueError(f"size_tokens must be at least {MIN_SIZE_TOKENS}, got {size_tokens}")
    if not 0 <= overlap_tokens < size_tokens:
        raise ValueError(f"overlap_tokens must be in [0, {size_tokens}), got {overlap_tokens}")
    units = _Window(_units(text, counter, size_tokens))
    chunks: list[Chunk] = []
    first = new_from = 0
    while units.has(new_from):
        last = _pack_end(units, first, new_from, size_tokens)
        first, last, n_tokens = _fit(text, counter, units, (first, last, new_from), size_tokens)
        if last - 1 > new_from and units.has(last) and _is_heading(text, units[last - 1]):
            last -= 1  # a heading opens the next chunk, with the text it heads, instead of ending this one
            n_tokens = counter.count(text[units[first].start : units[last - 1].end])
        start, end = units[first].start, units[last - 1].end
        chunks.append(Chunk(ord=len(chunks), char_start=start, char_end=end, text=text[start:end], n_tokens=n_tokens))
        new_from = last
        first = _overlap_start(text, counter, units, (first, last), overlap_tokens, size_tokens)
        units.forget_before(first)
    return chunks


def _is_heading(text: str, unit: _Unit) -> bool:
    """Whether ``unit`` is a Markdown heading line, as the loaders write every format's headings."""
    return _HEADING.match(text, unit.start, unit.end) is not None


def resolve_chunk_sizes(cfg: ChunkingConfig, embedder_window: int | None) -> tuple[int, int, list[str]]:
    """Chunk size and overlap to use, plus warnings for the user.

    The default size is 80% of the embedder's window (in word pieces, close enough to cl100k tokens
    for prose) so that the whole chunk is embedded; without a known window it is 1200, the papers'
    setting. The default overlap is 12% of the size, rounded up.
    """
    warnings: list[str] = []
    if cfg.size_tokens is not None:
        size = cfg.size_tokens
    elif embedder_window is not None:
        size = max(MIN_SIZE_TOKENS, embedder_window * WINDOW_SHARE_PERCENT // 100)
    else:
        size = FALLBACK_SIZE_TOKENS
    ceil_share = -(-size * OVERLAP_SHARE_PERCENT // 100)  # ceil, in exact integer arithmetic
    overlap = cfg.overlap_tokens if cfg.overlap_tokens is not None else ceil_share
    if overlap >= size:
        raise ConfigError(
            f"chunking.overlap_tokens ({overlap}) must be smaller than the chunk size ({size} tokens, "
            f"derived from the embedder's window); lower it or set chunking.size_tokens"
        )
    if embedder_window is not None and size > embedder_window:
        warnings.append(
            f"chunks of {size} tokens exceed the embedder's window of {embedder_window} word pieces; "
            "each chunk's own vector covers only its first part (embedding.sentence_vectors = auto, the "
            "default, also embeds every sentence so the reranker reads the rest)"
        )
    return size, overlap, warnings


LARGE_CHUNK_SHARE = 0.9  # sentence vectors pay once a tenth of the stored chunks outgrow the window


def wants_sentence_vectors(setting: bool | str, chunk_size: int, embedder_window: int | None) -> bool:
    """Whether the index holds sentence vectors: ``embedding.sentence_vectors`` when it is true or false;
    for ``auto``, when chunks of ``chunk_size`` tokens are larger than the embedder reads (an unknown
    window counts as large enough). ``chunk_size`` is what is stored — the stored chunks' size at
    quantile :data:`LARGE_CHUNK_SHARE`, so chunks imported from another tool count, whatever the
    chunking config says — and the configured size only while nothing is stored. Indexing (at its
    ``embed`` stage, after the new chunks are stored) and querying both decide with this, so the
    reranker uses sentence vectors where they exist."""
    if isinstance(setting, bool):
        return setting
    return embedder_window is not None and chunk_size > embedder_window


def _units(text: str, counter: TokenCounter, size: int) -> Iterator[_Unit]:
    """Sentences and code blocks with their token counts, in order; longer ones are cut into pieces."""
    position = 0
    for start, end in code_block_spans(text):
        yield from _sentence_units(text, (position, start), counter, size)
        yield from _code_units(text, (start, end), counter, size)
        position = end
    yield from _sentence_units(text, (position, len(text)), counter, size)


def _sentence_units(text: str, bounds: tuple[int, int], counter: TokenCounter, size: int) -> Iterator[_Unit]:
    """The sentences of ``text[lo:hi]``; sentences longer than ``size`` are cut at token boundaries."""
    lo, hi = bounds
    segment = text if (lo, hi) == (0, len(text)) else text[lo:hi]  # no copy of a text without code
    longest = _window_chars(size)  # a span this long cannot fit: cut it without counting it whole first
    for start, end in iter_sentences(segment):
        start, end = start + lo, end + lo
        n_tokens = counter.count(text[start:end]) if end - start <= longest else size + 1
        if n_tokens <= size:
            yield _Unit(start, end, n_tokens)
        else:
            yield from _force_split(text, start, end, counter, size)


def _code_units(text: str, bounds: tuple[int, int], counter: TokenCounter, size: int) -> list[_Unit]:
    """A fenced code block as one unit; one longer than ``size`` is cut between lines, indentation kept
    (only a single line longer than ``size`` is cut inside, at token boundaries)."""
    start, end = bounds
    n_tokens = counter.count(text[start:end])
    if n_tokens <= size:
        return [_Unit(start, end, n_tokens)]
    lines = _line_spans(text, start, end)
    counts = [counter.count(text[a:b]) + 1 for a, b in lines]  # +1: the newline between lines
    units: list[_Unit] = []
    first = 0
    while first < len(lines):
        if not text[lines[first][0] : lines[first][1]].strip():
            first += 1  # a piece never starts with a blank line
        elif counts[first] - 1 > size:
            units.extend(_force_split(text, *lines[first], counter, size))
            first += 1
        else:
            last, n_tokens = _code_piece(text, counter, lines, counts, first, size)
            units.append(_Unit(lines[first][0], lines[last - 1][1], n_tokens))
            first = last
    return units


def _code_piece(
    text: str, counter: TokenCounter, lines: list[tuple[int, int]], counts: list[int], first: int, size: int
) -> tuple[int, int]:
    """End (exclusive line index) and token count of the longest run of lines from ``first`` that fits."""
    last, total = first, 0
    while last < len(lines) and total + counts[last] <= size + 1:
        total += counts[last]
        last += 1
    while True:
        while last - 1 > first and not text[lines[last - 1][0] : lines[last - 1][1]].strip():
            last -= 1  # nor ends with one
        n_tokens = counter.count(text[lines[first][0] : lines[last - 1][1]])
        if n_tokens <= size or last - 1 == first:
            return last, n_tokens
        last -= 1


def _line_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """``(start, end)`` of each line of ``text[start:end]``, newlines excluded."""
    spans: list[tuple[int, int]] = []
    while start < end:
        newline = text.find("\n", start, end)
        line_end = end if newline < 0 else newline
        spans.append((start, line_end))
        start = line_end + 1
    return spans


def _force_split(text: str, start: int, end: int, counter: TokenCounter, size: int) -> Iterator[_Unit]:
    """Cut ``text[start:end]`` at token boundaries into whitespace-trimmed pieces of ≤ ``size`` tokens.

    Token offsets are computed a window at a time, so a "sentence" of many megabytes (a file without
    punctuation or blank lines) costs memory for one window, not for all its tokens.
    """
    window = _window_chars(size)
    cut = start
    while cut < end:
        window_end = min(end, cut + window)
        offsets = [cut + offset for offset in counter.token_char_offsets(text[cut:window_end])]
        # Pieces starting near the window's end are cut in the next window, where their tokens are whole.
        limit = window_end if window_end == end else cut + window * 3 // 4
        while cut < limit:
            piece_end = _fitting_end(text, (cut, window_end), offsets, counter, size)
            span = strip_span(text, cut, piece_end)
            if span is not None:
                yield _Unit(span[0], span[1], counter.count(text[span[0] : span[1]]))
            cut = piece_end


def _window_chars(size: int) -> int:
    """Characters tokenized at once when cutting a long span: far more than ``size`` tokens can span."""
    return max(size * 64, _MIN_WINDOW_CHARS)


def _fitting_end(text: str, bounds: tuple[int, int], offsets: list[int], counter: TokenCounter, size: int) -> int:
    """Furthest token-boundary end of a piece starting at ``bounds[0]`` whose trimmed text fits.

    Tokens of a substring can differ from the tokens of the whole at its edges, so the candidate cut
    ``size`` tokens ahead is re-counted and moved back one token at a time until it fits.
    """
    cut, end = bounds
    stop = bisect_left(offsets, cut) + size
    while True:
        piece_end = offsets[stop] if stop < len(offsets) else end
        if piece_end <= cut:
            return cut + 1  # one character always fits (size ≥ MIN_SIZE_TOKENS)
        if counter.count(text[cut:piece_end].strip()) <= size:
            return piece_end
        stop -= 1


def _pack_end(units: _Window, first: int, new_from: int, size: int) -> int:
    """End index of the longest run from ``first`` whose summed counts fit, with ≥ 1 new unit."""
    total = 0
    last = first
    while units.has(last) and total + units[last].n_tokens <= size:
        total += units[last].n_tokens
        last += 1
    return max(last, new_from + 1)


def _fit(
    text: str, counter: TokenCounter, units: _Window, run: tuple[int, int, int], size: int
) -> tuple[int, int, int]:
    """Shrink the run ``units[first:last]`` until its real token count fits; return it with the count.

    Summed sentence counts can undercount the joined text (separators such as blank lines cost
    tokens), so the real count decides. Trailing units go first; the last new unit (index ≥
    ``new_from``) is kept so every chunk makes progress, dropping overlap from the front instead.
    """
    first, last, new_from = run
    while True:
        n_tokens = counter.count(text[units[first].start : units[last - 1].end])
        if n_tokens <= size:
            return first, last, n_tokens
        if last - 1 > new_from:
            last -= 1
        else:
            first += 1


def _overlap_start(
    text: str, counter: TokenCounter, units: _Window, run: tuple[int, int], overlap: int, size: int
) -> int:
    """First unit of the next chunk: trailing units of ``units[first:last]`` worth ≤ ``overlap`` tokens.

    The overlap also leaves room for the next new unit, and never repeats the whole previous chunk.
    """
    first, last = run
    if overlap == 0 or not units.has(last):
        return last
    room = size - units[last].n_tokens
    start = last
    total = 0
    while start - 1 > first and total + units[start - 1].n_tokens <= min(overlap, room):
        total += units[start - 1].n_tokens
        start -= 1
    while start < last and counter.count(text[units[start].start : units[last - 1].end]) > overlap:
        start += 1
    return start
