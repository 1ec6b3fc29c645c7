"""The second pass of the HTML loader: parser events of the main content written as Markdown-like text.

An lxml parser *target*: libxml2 calls :meth:`Writer.start`, :meth:`Writer.data` and :meth:`Writer.end`
as it reads, and no tree is ever built, so memory holds the page's bytes and the text written so far,
and each event costs constant time whatever the nesting depth. The element to write is named by its
start-tag ordinal, which the first pass (:mod:`kgrag.documents.html_text`) found.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from kgrag.documents.html_rules import ADMONITIONS, BLOCKS, CELLS, HEADINGS, PERMALINK_TEXTS, collapse, is_chrome

_FENCE_RUN = re.compile(r"`{3,}")
_LINE_BREAK = "\x00"  # stands for <br> until a block is written; decoded text never holds NUL


class Writer:
    """Writes the subtrees of the ``tops``-th elements (by start-tag order; none inside another), in page
    order: headings as ``#`` lines, ``<pre>`` verbatim in fences, list items as ``- `` lines, table rows as
    `` | ``-joined cells, a definition list's term with its definition's first paragraph on the next line
    (one block, so a chunk boundary cannot part an option from what it does), an admonition's heading as
    the label of its first paragraph ("Note: …", so the text after the note keeps its section), other
    blocks as paragraphs; chrome subtrees and permalink anchors are left out."""

    def __init__(self, tops: int | frozenset[int], dropped: frozenset[str]) -> None:
        self.tops = frozenset({tops}) if isinstance(tops, int) else tops
        self.dropped = dropped
        self.blocks: list[str] = []
        self.first_h1 = ""
        self._count = 0  # start tags seen
        self._depth = 0  # open elements inside the written subtree, itself included; 0 outside it
        self._skip = 0  # open elements inside a chrome subtree
        self._pre = 0  # open elements inside a <pre>
        self._code: list[str] = []
        self._heading = ""  # tag of the open heading
        self._anchors: list[int] = []  # where each open <a>'s text starts in self._line
        self._line: list[str] = []
        self._prefix = ""
        self._cells = 0
        self._after_icon = False  # the row's last cell opened was an admonition's label
        self._term = False  # a <dt> was just written: the next paragraph (its definition) joins it
        self._signature = False  # the last <dt> opened is an API signature
        self._boxes: list[int] = []  # depth of each open admonition (a boxed note)
        self._label = ""  # an admonition's heading, waiting for the note's first paragraph

    # lxml parser-target interface -------------------------------------------------------------

    def start(self, tag: str, attrib: Mapping[str, str]) -> None:
        self._count += 1
        if self._depth == 0:
            if self._count in self.tops:
                self._depth = 1
                self._open(tag)
            return
        self._depth += 1
        if self._skip or self._pre:
            self._inside_skipped_or_code(tag)
        elif is_chrome(tag, attrib, self.dropped):
            self._skip = 1
        elif tag == "pre" or (tag in HEADINGS and not self._heading):
            self._flush()
            self._prefix = ""  # a list item holding only code: the bullet must not land on the next paragraph
            self._pre, self._heading = (1, "") if tag == "pre" else (0, tag)
        elif tag == "a":
            self._anchors.append(len(self._line))
        elif not self._heading:
            self._open_block(tag, attrib.get("class", "").split())
        elif tag == "br":
            self._line.append(" ")

    def _open_block(self, tag: str, classes: list[str]) -> None:
        if tag == "dt":  # Sphinx's API signatures are <dt class="sig …">: code, kept a block of its own
            self._signature = "sig" in classes
        if ADMONITIONS.intersection(classes):
            self._boxes.append(self._depth)
        self._open(tag, "icon" in classes)

    def _inside_skipped_or_code(self, tag: str) -> None:
        """An element inside chrome (left out) or inside a <pre> (only its text counts, <br> as a newline)."""
        if self._skip:
            self._skip += 1
            return
        self._pre += 1
        if tag == "br":
            self._code.append("\n")

    def data(self, text: str) -> None:
        if self._depth and not self._skip:
            (self._code if self._pre else self._line).append(text)

    def end(self, tag: str) -> None:
        if self._depth == 0:
            return
        self._depth -= 1
        if self._skip:
            self._skip -= 1
        elif self._pre:
            self._pre -= 1
            if not self._pre:
                self._write_code()
        elif tag == self._heading:
            self._write_heading()
        elif tag == "a" and self._anchors:
            mark = self._anchors.pop()
            if collapse("".join(self._line[mark:])) in PERMALINK_TEXTS:
                del self._line[mark:]
        elif not self._heading:
            self._close(tag)
        if self._boxes and self._boxes[-1] > self._depth:
            self._close_box()

    def _close_box(self) -> None:
        """An admonition ended: its text is written, and so is its label if no paragraph took it."""
        self._boxes.pop()
        self._flush()
        if self._label:
            self.blocks.append(self._label)
            self._label = ""

    def close(self) -> str:
        self._flush()
        return "\n\n".join(self.blocks)

    # writing ----------------------------------------------------------------------------------

    def _open(self, tag: str, icon: bool = False) -> None:
        """``icon``: a cell holding an admonition's label (AsciiDoc's ``<td class="icon">Note</td>`` before
        the note's text), which reads "Note: …" rather than as a table row."""
        if self._breaks(tag):
            self._flush()
        if tag == "li":
            self._prefix = "- "
        elif tag in CELLS:
            if any(piece.strip() for piece in self._line):
                if self._after_icon:
                    self._line[:] = ["".join(self._line).rstrip(), ": "]
                else:
                    self._line.append(" | ")
            self._after_icon = icon
            self._cells += 1
        elif tag == "br":
            self._line.append(_LINE_BREAK)

    def _close(self, tag: str) -> None:
        if tag in CELLS:
            self._cells = max(0, self._cells - 1)
        elif self._breaks(tag):
            self._flush()
            self._term = tag == "dt" and self._cells == 0 and not self._signature
        elif tag in BLOCKS:
            self._line.append(" ")  # a paragraph inside a table cell: keep the cell on one line

    def _breaks(self, tag: str) -> bool:
        """Whether ``tag`` starts a block of its own (blocks inside a table cell stay on the row's line)."""
        return (tag in BLOCKS or tag == "li") and (self._cells == 0 or tag in ("tr", "table"))

    def _write_code(self) -> None:
        code = "".join(self._code).strip("\n")
        self._code.clear()
        if code.strip():
            longest = max((len(run) for run in _FENCE_RUN.findall(code)), default=2)
            fence = "`" * max(3, longest + 1)
            self.blocks.append(f"{fence}\n{code}\n{fence}")
            self._term = False

    def _write_heading(self) -> None:
        level = HEADINGS[self._heading]
        words = collapse("".join(self._line).replace(_LINE_BREAK, " "))
        self._line.clear()
        self._anchors.clear()
        self._heading = ""
        self._term = False
        if words and self._boxes:  # an admonition's title: "Note: " before its first paragraph
            self._label = words
        elif words:
            self.blocks.append(f"{'#' * level} {words}")
            if level == 1 and not self.first_h1:
                self.first_h1 = words

    def _flush(self) -> None:
        lines = (collapse(part) for part in "".join(self._line).split(_LINE_BREAK))
        words = "\n".join(line for line in lines if line)
        self._line.clear()
        self._anchors.clear()
        if words and self._label:
            words, self._label = f"{self._label}: {words}", ""
        if words and self._term and self.blocks:  # a definition's first paragraph, on the line after its term
            self.blocks[-1] += "\n" + self._prefix + words
            self._prefix, self._term = "", False
        elif words:
            self.blocks.append(self._prefix + words)
            self._prefix = ""
