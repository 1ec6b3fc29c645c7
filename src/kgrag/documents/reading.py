"""Bytes and text from a file, with every failure turned into a `DocumentError` the user can act on.

Indexing reports a bad file and goes on with the others, so each check here names the file, says
what is wrong with it and what to do, instead of letting a ``UnicodeDecodeError`` or ``OSError``
escape as an internal error.
"""

from __future__ import annotations

import codecs
from pathlib import Path

from kgrag.core.errors import DocumentError
from kgrag.fileio import NotRegularFileError, open_regular

_MIB = 1024 * 1024

# Byte-order marks, longest first: the UTF-32-LE mark starts with the UTF-16-LE one.
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def read_limited(path: Path, max_file_mb: float) -> bytes:
    """The file's bytes, refusing files over the limit *before* reading them into memory.

    The size is checked with ``stat`` first, and the read itself is capped too, in case the file
    grows between the two. The file is opened as :func:`kgrag.fileio.open_regular` opens it, so a FIFO
    or device passed directly is refused instead of blocking or being read without end.
    """
    limit = int(max_file_mb * _MIB)
    try:
        if path.is_dir():
            raise DocumentError(
                f"{path}: is a directory, not a file; pass the files or let discovery walk the directory"
            )
        size = path.stat().st_size
        if size > limit:
            raise _too_large(path, size, max_file_mb)
        with open_regular(path) as handle:
            data = handle.read(limit + 1)
    except NotRegularFileError as exc:
        raise DocumentError(
            f"{path}: not a regular file (a device, FIFO or socket), so it cannot be read as a document"
        ) from exc
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise DocumentError(
            f"{path}: cannot read the file ({reason}); check that it exists and that you may read it"
        ) from exc
    if len(data) > limit:
        raise _too_large(path, len(data), max_file_mb)
    if not data:
        raise DocumentError(f"{path}: the file is empty; add text to it or exclude it")
    return data


def _too_large(path: Path, size: int, max_file_mb: float) -> DocumentError:
    return DocumentError(
        f"{path}: {size / _MIB:.3g} MiB is larger than documents.max_file_mb ({max_file_mb:g} MiB); "
        "raise the limit or split the file"
    )


def decode_text(path: Path, data: bytes) -> str:
    """Decode a text format: UTF-8, or UTF-8/16/32 announced by a byte-order mark.

    Other encodings are refused rather than guessed: a wrong guess silently indexes mojibake.
    Line endings are normalized to ``\\n`` so sentence splitting sees one convention.
    """
    text = _decode_with_bom(path, data)
    if text is None:
        if b"\x00" in data:
            raise _binary(path)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DocumentError(
                f"{path}: not UTF-8 text (invalid byte at offset {exc.start}); re-save as UTF-8"
            ) from exc
    if "\x00" in text:
        raise _binary(path)
    return normalize_newlines(text)


def utf8_bytes(path: Path, data: bytes) -> bytes:
    """The file's bytes as UTF-8 without a byte-order mark, checked as :func:`decode_text` checks them.

    For a parser that reads bytes itself: a file already in UTF-8 comes back as the same object, so a
    large page is not held twice while its tree is built.
    """
    if any(data.startswith(bom) for bom, _ in _BOMS):
        return decode_text(path, data).encode("utf-8")
    decode_text(path, data)  # only to refuse binary and non-UTF-8 data with the same messages
    return data


def _decode_with_bom(path: Path, data: bytes) -> str | None:
    """Text decoded per its byte-order mark, or None when there is none."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(codec)
            except UnicodeDecodeError as exc:
                raise DocumentError(
                    f"{path}: starts with a {codec} byte-order mark but is not valid "
                    f"{codec} (bad data at byte {exc.start}); re-save as UTF-8"
                ) from exc
    return None


def _binary(path: Path) -> DocumentError:
    return DocumentError(f"{path}: looks binary (contains NUL bytes), not text; check the file type or exclude it")


def normalize_newlines(text: str) -> str:
    """``\\r\\n`` and lone ``\\r`` become ``\\n``."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def require_text(path: Path, text: str, what: str = "the file") -> str:
    """``text`` unchanged, or a `DocumentError` when it has nothing but whitespace."""
    if not text.strip():
        raise DocumentError(f"{path}: {what} contains no text (only whitespace); add text or exclude it")
    return text
