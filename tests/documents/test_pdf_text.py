"""A PDF's text as a typeset manual gives it: chapter headers with page numbers, tables of contents and
indexes with dot leaders, words hyphenated at line ends, ``#`` comments in code examples and an outline
(bookmarks). Headers and leader lines go, broken words are joined, comments are no headings, and the
outline's entries are the sections passages cite."""

from __future__ import annotations

import io
from pathlib import Path

from pypdf import PdfReader, PdfWriter
from tests.documents.pdf_shapes import pdf_bytes

from kgrag.config import KgragConfig
from kgrag.documents.headings import heading_lines
from kgrag.documents.loaders import load_pdf
from kgrag.documents.pdf_text import (
    code_comments_indented,
    dehyphenate,
    mark_headings,
    strip_running_lines,
    without_leaders,
)


def test_a_chapter_header_with_its_page_number_is_running_even_when_the_chapter_changes() -> None:
    pages = [
        "Chapter 1: Ferries 3\nBoats leave at nine.",
        "Chapter 1: Ferries 4\nTickets are sold on board.",
        "Chapter 2: Harbours 5\nThe harbour opens at six.",
        "Chapter 2: Harbours 6\nThe fee is 12\nDogs travel free.",
        "Chapter 3: Tides 7\nHigh tide is at noon.",
    ]
    assert strip_running_lines(pages) == [
        "Boats leave at nine.",
        "Tickets are sold on board.",
        "The harbour opens at six.",
        "The fee is 12\nDogs travel free.",  # a line ending with a number, on one page only: body text
        "Chapter 3: Tides 7\nHigh tide is at noon.",  # one page of its chapter: nothing repeats it
    ]


def test_table_of_contents_and_index_lines_are_left_out() -> None:
    page = (
        "Table of Contents\n1 Ferries . . . . . . . . . . 2\n1.1 Timetables ............ 3\n"
        "abline . . . . . . . . . . 66, 70\nvii Preface . . . . . . . . iv\n"
        "Wait... and then it sailed.\nf(a, b, ...... , n)"
    )
    assert without_leaders(page) == "Table of Contents\nWait... and then it sailed.\nf(a, b, ...... , n)"


def test_words_broken_at_a_line_end_are_joined() -> None:
    text = "The compo-\nnents of a boat. Unix-alikes run it.\nOn Unix-\nalikes and pack-\nages it is."
    assert dehyphenate(text) == "The components\nof a boat. Unix-alikes run it.\nOn Unix-alikes\nand packages\nit is."
    assert dehyphenate("a well-\nKnown name and 12-\n3") == "a well-\nKnown name and 12-\n3"  # not a word break


def test_a_code_comment_is_no_heading_but_an_outline_entry_is() -> None:
    page = code_comments_indented("2.1 Variations on read.table\nRead it:\n# Then read this by\nx <- read.table(f)")
    assert heading_lines(page) == []
    marked = mark_headings(page, [(2, "Variations on read.table")])
    assert marked.startswith("## 2.1 Variations on read.table\n") and "    # Then read this by" in marked
    assert [h.text for h in heading_lines(marked)] == ["2.1 Variations on read.table"]


def test_a_pdfs_outline_gives_its_passages_sections(tmp_path: Path) -> None:
    source = pdf_bytes(
        [
            ["1 Ferries", "Boats leave at nine.", "# the compo-", "nents list"],
            ["1.1 Timetables", "Winter times differ from summer times."],
        ],
        header=None,
    )
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(source)))
    top = writer.add_outline_item(title="1 Ferries", page_number=0)
    writer.add_outline_item(title="Timetables", page_number=1, parent=top)
    out = io.BytesIO()
    writer.write(out)
    path = tmp_path / "ferries.pdf"
    path.write_bytes(out.getvalue())
    (document,) = load_pdf(path, path.read_bytes(), KgragConfig().documents)
    assert [(h.level, h.text) for h in heading_lines(document.text)] == [(1, "1 Ferries"), (2, "1.1 Timetables")]
    assert "    # the components\nlist" in document.text
