"""An HTML page's bytes as UTF-8, honouring the character encoding the page declares.

Text formats are read as UTF-8 or by their byte-order mark and anything else is refused rather than
guessed (:func:`kgrag.documents.reading.decode_text`). An HTML page is different: it says which
encoding it is in, in a ``<meta charset>``, a ``<meta http-equiv="Content-Type">`` or an XML declaration
within its first bytes, and browsers read it so. A page that is valid UTF-8 is read as UTF-8 whatever it
declares (a page saved as UTF-8 under an old Latin-1 declaration is common, and reading it as Latin-1
would turn every accent into two characters); a page that is not is decoded by its declaration. As in
the WHATWG Encoding Standard, the labels "iso-8859-1", "latin1" and "us-ascii" mean windows-1252.
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path

from kgrag.core.errors import DocumentError
from kgrag.documents.reading import utf8_bytes

PRESCAN_BYTES = 1024
"""How far into the page a declaration is looked for (the HTML standard's prescan reads 1,024 bytes)."""
_DECLARATION = re.compile(
    rb"""<meta[^>]*?charset\s*=\s*["']?\s*(?P<meta>[\w.:-]+)|<\?xml[^>]*?encoding\s*=\s*["'](?P<xml>[\w.:-]+)""",
    re.IGNORECASE,
)
_UTF8_LABELS = ("utf-8", "utf8")
_ESCAPED = re.compile("[\udc80-\udcff]")
_WINDOWS_1252_LABELS = frozenset({"iso-8859-1", "iso8859-1", "latin1", "latin-1", "l1", "us-ascii", "ascii"})


def declared_charset(data: bytes) -> str | None:
    """The encoding label the page declares in its first :data:`PRESCAN_BYTES` bytes, lower-cased."""
    match = _DECLARATION.search(data[:PRESCAN_BYTES])
    if match is None:
        return None
    return (match.group("meta") or match.group("xml")).decode("ascii").lower()


def html_utf8_bytes(path: Path, data: bytes) -> bytes:
    """``data`` as UTF-8 bytes: as :func:`utf8_bytes` reads them, or, for a page that is not UTF-8, decoded
    by the encoding it declares; a page that is neither is refused with a message that says which."""
    label = declared_charset(data)
    if label in (None, *_UTF8_LABELS) or b"\x00" in data or _is_utf8(data):  # most pages: checked once
        return utf8_bytes(path, data)  # also a page with a byte-order mark, which names its encoding itself
    codec = "cp1252" if label in _WINDOWS_1252_LABELS else label
    try:
        codecs.lookup(codec)
    except LookupError:
        raise DocumentError(
            f"{path}: not UTF-8, and the page declares an encoding Python does not know ({label!r}); "
            "re-save it as UTF-8"
        ) from None
    try:
        text = data.decode(codec, errors="surrogateescape" if codec == "cp1252" else "strict")
    except UnicodeDecodeError as exc:
        raise DocumentError(
            f"{path}: not valid {label} text, as the page declares (invalid byte at offset {exc.start}); "
            "re-save it as UTF-8"
        ) from exc
    # the five bytes windows-1252 leaves undefined read as the C1 controls of the same number, as browsers read them
    return _ESCAPED.sub(lambda m: chr(ord(m.group()) - 0xDC00), text).encode("utf-8")


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
