"""chunk_text invariants (exact slices, coverage, size and overlap bounds) and size resolution."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgrag.config import ChunkingConfig
from kgrag.core.errors import ConfigError
from kgrag.documents.chunking import chunk_text, resolve_chunk_sizes
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
        assert chunk.text.strip() == chunk.text != ""
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
