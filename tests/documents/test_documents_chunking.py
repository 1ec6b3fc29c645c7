"""chunk_text invariants (exact slices, coverage, size and overlap bounds) and size resolution."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgrag.config import ChunkingConfig
from kgrag.core.errors import ConfigError
from kgrag.documents.chunking import chunk_text, resolve_chunk_sizes
from kgrag.documents.code_blocks import code_block_spans
from kgrag.documents.records import Chunk
from kgrag.documents.sentences import split_sentences
from kgrag.documents.tokens import TokenCounter

COUNTER = TokenCounter.for_encoding("cl100k_base")

_WORDS = st.sampled_from(
    [
        "the",
        "cell",
        "Dr.",
        "e.g.",
        "4.2",
        "tumour",
        "skin",
        "😀",
        "世界",
        "naïve",
        "BCC",
        "of",
        "and",
        "treatment",
        "a",
        "—",
        "x" * 30,
    ]
)
_ENDINGS = st.sampled_from([".", "!", "?", ".\n\n", ""])
_SENTENCE = st.builds(lambda words, end: " ".join(words) + end, st.lists(_WORDS, min_size=1, max_size=40), _ENDINGS)
_PROSE = st.builds(" ".join, st.lists(_SENTENCE, max_size=25))
_TEXT = _PROSE | st.text(max_size=600)


def _check_invariants(text: str, chunks: list[Chunk], size: int, overlap: int) -> None:
    covered: set[int] = set()
    for position, chunk in enumerate(chunks):
        assert chunk.ord == position
        assert chunk.text == text[chunk.char_start : chunk.char_end]
        # Trimmed, except the indentation of a code line that starts a piece of a long code block.
        assert chunk.text.rstrip() == chunk.text != "" and not chunk.text.lstrip(" \t").startswith(("\n", "\r"))
        assert chunk.text.strip() == chunk.text or chunk.text.lstrip() != chunk.text.lstrip(" \t") or "\n" in text
        assert chunk.n_tokens == COUNTER.count(chunk.text)
        assert chunk.n_tokens <= size
        covered.update(range(chunk.char_start, chunk.char_end))
    assert all(i in covered for i, char in enumerate(text) if not char.isspace())
    for previous, current in itertools.pairwise(chunks):
        assert previous.char_start < current.char_start
        assert previous.char_end < current.char_end
        if current.char_start < previous.char_end:
            assert COUNTER.count(text[current.char_start : previous.char_end]) <= overlap


@settings(max_examples=150, deadline=None)
@given(text=_TEXT, size=st.integers(8, 80), data=st.data())
def test_chunk_invariants(text: str, size: int, data: st.DataObject) -> None:
    overlap = data.draw(st.integers(0, size - 1), label="overlap")
    _check_invariants(text, chunk_text(text, COUNTER, size, overlap), size, overlap)


@settings(max_examples=60, deadline=None)
@given(text=_PROSE, size=st.integers(8, 80))
def test_no_overlap_means_disjoint_chunks(text: str, size: int) -> None:
    chunks = chunk_text(text, COUNTER, size, 0)
    assert all(a.char_end <= b.char_start for a, b in itertools.pairwise(chunks))


def test_chunks_start_and_end_on_sentence_boundaries() -> None:
    text = " ".join(f"Sentence number {i} talks about basal cell skin cancer and its treatment." for i in range(40))
    starts = {start for start, _ in split_sentences(text)}
    ends = {end for _, end in split_sentences(text)}
    chunks = chunk_text(text, COUNTER, 60, 20)
    assert len(chunks) > 5
    _check_invariants(text, chunks, 60, 20)
    assert all(chunk.char_start in starts and chunk.char_end in ends for chunk in chunks)
    # Consecutive chunks share at least one trailing sentence: each sentence is ~15 tokens < 20.
    assert all(b.char_start < a.char_end for a, b in itertools.pairwise(chunks))


def test_overlong_sentence_is_cut_at_token_boundaries() -> None:
    text = "Intro sentence. " + " ".join(["word"] * 500) + " end. Outro sentence."
    chunks = chunk_text(text, COUNTER, 50, 5)
    _check_invariants(text, chunks, 50, 5)
    assert max(chunk.n_tokens for chunk in chunks) == 50
    assert chunks[-1].text.endswith("Outro sentence.")


def test_unbroken_non_ascii_run_is_cut_between_characters() -> None:
    text = "😀世界" * 300
    chunks = chunk_text(text, COUNTER, 16, 4)
    _check_invariants(text, chunks, 16, 4)
    assert "".join(chunk.text for chunk in chunks) == text


def test_empty_and_whitespace_text() -> None:
    assert chunk_text("", COUNTER, 100, 10) == []
    assert chunk_text(" \n\n\t ", COUNTER, 100, 10) == []


def test_bad_sizes_are_rejected() -> None:
    with pytest.raises(ValueError, match="size_tokens"):
        chunk_text("text", COUNTER, 4, 0)
    with pytest.raises(ValueError, match="overlap_tokens"):
        chunk_text("text", COUNTER, 100, 100)


def test_resolve_defaults_follow_the_window() -> None:
    assert resolve_chunk_sizes(ChunkingConfig(), 256) == (204, 25, [])
    assert resolve_chunk_sizes(ChunkingConfig(), 250) == (200, 24, [])
    assert resolve_chunk_sizes(ChunkingConfig(), None) == (1200, 144, [])


def test_resolve_keeps_configured_values_and_warns_past_the_window() -> None:
    size, overlap, warnings = resolve_chunk_sizes(ChunkingConfig(size_tokens=1200, overlap_tokens=100), 256)
    assert (size, overlap) == (1200, 100)
    assert warnings == [
        "chunks of 1200 tokens exceed the embedder's window of 256 word pieces; "
        "each chunk's own vector covers only its first part (embedding.sentence_vectors = auto, the "
        "default, also embeds every sentence so the reranker reads the rest)"
    ]
    assert resolve_chunk_sizes(ChunkingConfig(size_tokens=300), None) == (300, 36, [])


def test_resolve_rejects_overlap_not_below_derived_size() -> None:
    with pytest.raises(ConfigError, match="overlap_tokens"):
        resolve_chunk_sizes(ChunkingConfig(overlap_tokens=300), 256)


_CODE_LINE = st.builds(
    lambda indent, words: " " * indent + " ".join(words), st.integers(0, 8), st.lists(_WORDS, min_size=1, max_size=8)
)
_CODE = st.builds(lambda lines: "```\n" + "\n".join(lines) + "\n```", st.lists(_CODE_LINE, min_size=1, max_size=30))
_MIXED = st.builds("\n\n".join, st.lists(_PROSE | _CODE, max_size=8))


@settings(max_examples=120, deadline=None)
@given(text=_MIXED, size=st.integers(8, 120), data=st.data())
def test_code_blocks_are_never_cut_unless_longer_than_a_chunk(text: str, size: int, data: st.DataObject) -> None:
    overlap = data.draw(st.integers(0, size - 1), label="overlap")
    chunks = chunk_text(text, COUNTER, size, overlap)
    _check_invariants(text, chunks, size, overlap)
    for start, end in code_block_spans(text):
        block = text[start:end]
        if COUNTER.count(block) <= size:
            assert any(chunk.text.find(block) >= 0 for chunk in chunks)
        else:  # cut between lines: a chunk boundary inside the block cuts a line only if the line cannot fit
            for cut in (bound for chunk in chunks for bound in (chunk.char_start, chunk.char_end)):
                if start < cut < end:
                    line_start, line_end = text.rfind("\n", 0, cut) + 1, text.find("\n", cut)
                    line = text[line_start : line_end if line_end >= 0 else end]
                    at_edge = not text[line_start:cut].strip() or not text[cut : line_start + len(line)].strip()
                    assert at_edge or COUNTER.count(line) > size, (cut, block)


def test_code_block_keeps_sentences_and_blank_lines_inside_it_together() -> None:
    code = "```\nx = 1. Y = 2! Z = 3?\n\n    return x\n```"
    text = "First sentence here. Second one. " * 3 + "\n\n" + code + "\n\nAfter it. And more."
    for size in (30, 40, 60):
        chunks = chunk_text(text, COUNTER, size, 0)
        _check_invariants(text, chunks, size, 0)
        [holder] = [chunk.text for chunk in chunks if "x = 1" in chunk.text]
        assert code in holder


@pytest.mark.parametrize(
    ("text", "blocks"),
    [
        ("Title\n~~~~~\n\nText.\n\nNext\n~~~~\n", 0),  # reStructuredText underlines, not fences
        ("Prose ``` inline.\n```\nnever closed\n", 0),  # an unclosed fence is not a block
        ("````\n```\ninner\n```\n````\n", 1),  # a longer fence holds a shorter one
        ("~~~python\na\n~~~\n\n```\nb\n```", 2),
        ("Example:\n```\ncode\n```", 1),  # a fence right after a longer text line still opens
    ],
)
def test_code_block_spans(text: str, blocks: int) -> None:
    spans = code_block_spans(text)
    assert len(spans) == blocks
    assert all(text[a:b].lstrip()[:3] in ("```", "~~~") for a, b in spans)


def test_a_sentence_of_many_windows_is_cut_within_the_size() -> None:
    """Megabytes without a sentence boundary (a log without punctuation) are tokenized a window at a time."""
    text = "\n".join(f"gauge {i} reads {i * 7 % 13} bar at bench {i % 5}" for i in range(12_000))
    assert len(text) > 4 * 65_536
    chunks = chunk_text(text, COUNTER, 50, 5)
    _check_invariants(text, chunks, 50, 5)
    assert chunks[-1].text.endswith(f"gauge 11999 reads {11999 * 7 % 13} bar at bench 4")


def test_a_chunk_never_ends_on_a_heading_when_text_follows() -> None:
    sections = [
        f"## Crossing {i}\n\nThe ferry leaves Oban at nine and reaches the island of Mull an hour later. "
        f"Tickets for crossing {i} are sold at the pier office until the boat departs."
        for i in range(12)
    ]
    text = "\n\n".join(sections)
    for size in (40, 45, 60, 90):
        chunks = chunk_text(text, COUNTER, size, size // 8)
        assert all(not c.text.rstrip().rsplit("\n", 1)[-1].startswith("## ") for c in chunks[:-1]), size
        assert all(c.n_tokens <= size for c in chunks)
        assert {f"## Crossing {i}" for i in range(12)} <= {line for c in chunks for line in c.text.split("\n")}
    [only] = chunk_text("# Timetable", COUNTER, 40, 5)
    assert only.text == "# Timetable"
