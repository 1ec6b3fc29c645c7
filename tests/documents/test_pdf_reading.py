"""A PDF as a manual made by TeX is read: titled by its first page when its metadata names none, passages
citing the page as printed ("i", "ii", then "1"), accents and copyright signs TeX sets apart put back
together, footnote marks taken out of the words they are set after."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.documents.pdf_shapes import serialize_pdf

from kgrag.config import DocumentsConfig
from kgrag.core.records import DocumentRecord, DocumentStatus
from kgrag.documents import TokenCounter, load_path
from kgrag.documents.loaders import LoadedDocument
from kgrag.documents.pdf_accents import copyright_signs, recompose_accents
from kgrag.documents.provenance import PAGE_LABELS, page_label, page_of, source_ref
from kgrag.indexing.prepare import ChunkPlan, build_chunk_records

CFG = DocumentsConfig()
ROMAN_THEN_ARABIC = "/PageLabels << /Nums [0 << /S /r >> 2 << /S /D >>] >>"  # i, ii, then 1, 2, ...


def _pdf(pages: list[list[str]], title: str | None = None, catalog: str = "") -> bytes:
    """A PDF built by hand: each page shows its lines in Helvetica with the Windows encoding (so "¨", "´"
    and "¸" are one byte each, as TeX's accents are one glyph); ``catalog`` adds entries to the catalog."""
    kids = " ".join(f"{5 + 2 * i} 0 R" for i in range(len(pages)))
    bodies = [
        f"<< /Type /Catalog /Pages 2 0 R {catalog}>>".encode(),
        f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        f"<< /Title ({title}) >>".encode() if title else b"<< >>",
    ]
    for number, lines in enumerate(pages):
        shown = [line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") for line in lines]
        stream = b"\n".join(
            b"BT /F1 11 Tf 72 %d Td (%s) Tj ET" % (720 - 20 * i, line.encode("cp1252")) for i, line in enumerate(shown)
        )
        bodies.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font "
            b"<< /F1 3 0 R >> >> /Contents %d 0 R >>" % (6 + 2 * number)
        )
        bodies.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
    return serialize_pdf(bodies)


def _load(tmp_path: Path, data: bytes, name: str = "manual.pdf") -> LoadedDocument:
    path = tmp_path / name
    path.write_bytes(data)
    [doc] = load_path(path, CFG)
    return doc


def _record(doc: LoadedDocument) -> DocumentRecord:
    return DocumentRecord("d1", doc.source, doc.title, doc.content_hash, DocumentStatus.INDEXED, metadata=doc.metadata)


BODY = ["The router starts when power is applied.", "It then waits for a link."]


@pytest.mark.parametrize("metadata_title", [None, " ", "manual", "untitled", "Microsoft Word - manual.docx"])
def test_a_pdf_without_a_real_metadata_title_is_titled_by_its_first_page(
    tmp_path: Path, metadata_title: str | None
) -> None:
    data = _pdf([["vii", "Osprey Field Manual", "Version 7.2 (2024-03-01)"], BODY], title=metadata_title)
    assert _load(tmp_path, data).title == "Osprey Field Manual"  # the page number above it passed over


def test_a_title_set_over_two_lines_is_joined(tmp_path: Path) -> None:
    assert _load(tmp_path, _pdf([["A Field Guide to", "Osprey Routers", "R Core Team"], BODY])).title == (
        "A Field Guide to Osprey Routers"
    )


@pytest.mark.parametrize(
    "first_page",
    [
        BODY,  # body text: a sentence, not a title
        ["The router starts when power is applied and", "then waits for a link"],  # a sentence running on
        ["1 Introduction", *BODY],  # a numbered section
        ["Contents", "Osprey Field Manual"],  # a part's name
        ["A Field Guide to", "12"],  # a title cut short
        ["2024-03-01 14:22 x=3 y=4 z=5", *BODY],  # mostly not letters
    ],
)
def test_a_first_page_without_a_title_line_leaves_the_file_name(tmp_path: Path, first_page: list[str]) -> None:
    assert _load(tmp_path, _pdf([first_page, ["Power comes first.", "Links come next."]])).title == "manual"


def test_a_running_header_titles_nothing_and_a_metadata_title_wins(tmp_path: Path) -> None:
    pages = [["Acme Networks", "Osprey Field Manual"], ["Acme Networks", *BODY], ["Acme Networks", *BODY]]
    assert _load(tmp_path, _pdf(pages)).title == "manual"  # the header names the company as much as the manual
    assert _load(tmp_path, _pdf([["Osprey Field Manual"], BODY], title="Osprey Handbook")).title == "Osprey Handbook"


def test_passages_cite_the_printed_page_label(tmp_path: Path) -> None:
    pages = [["Contents of this handbook"], [], ["Chapter one is about power."], ["Chapter two is about links."]]
    doc = _load(tmp_path, _pdf(pages, title="Osprey Handbook", catalog=ROMAN_THEN_ARABIC))
    assert json.loads(doc.metadata[PAGE_LABELS]) == ["i", "ii", "1", "2"]  # the empty page keeps its place
    record = _record(doc)
    for words, number, label in [("Contents", 1, "i"), ("Chapter one", 3, "1"), ("Chapter two", 4, "2")]:
        page = page_of(record, doc.text.index(words))
        assert (page, page_label(record, page)) == (number, label)
    chunks = build_chunk_records("d1", doc.text, ChunkPlan(8, 0, TokenCounter.for_encoding()))
    last = source_ref(chunks[-1], record, chunks)
    assert last.label().endswith("· p. 2") and "p. 4" not in last.label()
    assert (last.to_dict()["page"], last.to_dict()["page_label"]) == (4, "2")  # the number in the file stays


def test_a_pdf_numbered_plainly_records_no_labels_and_cites_the_number(tmp_path: Path) -> None:
    doc = _load(tmp_path, _pdf([["First page of text."], ["Second page of text."]], title="Plain"))
    assert PAGE_LABELS not in doc.metadata
    record = _record(doc)
    assert page_label(record, page_of(record, doc.text.index("Second"))) == "2"
    damaged = DocumentRecord("d2", "x.pdf", "x", "h", DocumentStatus.INDEXED, metadata={PAGE_LABELS: "[not json"})
    assert (page_label(damaged, 3), page_label(damaged, None)) == ("3", None)


def test_accents_tex_sets_apart_are_put_back_on_their_letters(tmp_path: Path) -> None:
    lines = ["The CRAN main site at WU (Wirtschaftsuniversit¨at Wien).", "Suggested by Fran¸cois Pinard and Andr´e."]
    code = ["lm(y ~ x^2) reads ~/.Rprofile; it´s 5¸ in `a`b`."]
    text = _load(tmp_path, _pdf([lines + code], title="R FAQ")).text
    assert "Wirtschaftsuniversität" in text and "François Pinard" in text and "André." in text
    assert code[0] in text  # code, an apostrophe and a degree sign stay as written


@pytest.mark.parametrize(
    ("extracted", "read"),
    [
        ("Wirtschaftsuniversit¨at", "Wirtschaftsuniversität"),
        ("Fran¸cois", "François"),
        ("Jos´e and na¨ıve Espa˜na Erd˝os", "José and naïve España Erdős"),
        ("¨Uber ´Ecole", "Über École"),
        ("x^2 ~/.R y ~ x a`b `code`", "x^2 ~/.R y ~ x a`b `code`"),
        ("it´s l´amore 20˚C x¯ /˜user ¨ ´E", "it´s l´amore 20˚C x¯ /˜user ¨ ´E"),
    ],
)
def test_only_a_diacritic_inside_a_word_composing_to_one_letter_is_recomposed(extracted: str, read: str) -> None:
    assert recompose_accents(extracted) == read


def test_the_copyright_sign_tex_draws_as_c_in_a_circle_is_one_sign(tmp_path: Path) -> None:
    lines = ["Copyright c\u00a9 2001\u20132022 R Core Team", "Acme Inc\u00a9 and abc\u00a9 keep their letters."]
    text = _load(tmp_path, _pdf([lines], title="R Installation")).text
    assert "Copyright \u00a9 2001\u20132022 R Core Team" in text and lines[1] in text


@pytest.mark.parametrize(
    ("extracted", "read"),
    [
        ("Copyright c\u00a9 1998\u20132020 Kurt Hornik", "Copyright \u00a9 1998\u20132020 Kurt Hornik"),
        ("(c\u00a9 2021)", "(\u00a9 2021)"),
        ("Inc\u00a9 Etc\u00a9 1c\u00a9 c \u00a9 (c) 2020", "Inc\u00a9 Etc\u00a9 1c\u00a9 c \u00a9 (c) 2020"),
    ],
)
def test_only_a_lone_c_before_the_copyright_sign_is_taken_into_it(extracted: str, read: str) -> None:
    assert copyright_signs(extracted) == read


def _typeset(runs: list[tuple[float, float, float, str]], *more: bytes) -> bytes:
    """A PDF whose first page shows each run (size, x, y, text) in Helvetica where TeX would put it (a
    superscript in a smaller size, raised above the line, right where the word before it ends), and whose
    further pages have the content streams ``more``."""
    first = b"\n".join(b"BT /F1 %g Tf %g %g Td (%s) Tj ET" % (size, x, y, text.encode()) for size, x, y, text in runs)
    streams = [first, *more]
    kids = " ".join(f"{5 + 2 * i} 0 R" for i in range(len(streams)))
    bodies = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {len(streams)} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        b"<< /Title (R Installation) >>",
    ]
    for number, stream in enumerate(streams):
        bodies.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
            b"/Contents %d 0 R >>" % (6 + 2 * number)
        )
        bodies.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
    return serialize_pdf(bodies)


def test_a_footnote_mark_is_taken_out_of_the_word_it_follows_and_an_exponent_is_not(tmp_path: Path) -> None:
    runs = [
        (11, 72, 700, "Unpack it where a suitable"),
        (7, 201, 704, "1"),
        (11, 205, 700, " tar is installed, as utf8, base64 and R2 are."),
        (11, 72, 680, "A vector holds up to 2"),
        (7, 178.4, 684, "31"),
        (11, 186.2, 680, " elements."),
        (7, 74, 94, "1"),  # the footnote: its number raised above its own line, at the page's foot
        (9, 80, 90, " e.g. GNU tar 1.15 or later."),
    ]
    text = _load(tmp_path, _typeset(runs)).text
    assert "Unpack it where a suitable tar is installed, as utf8, base64 and R2 are." in text
    assert "A vector holds up to 231 elements." in text  # 2 to the 31st: no footnote is numbered 31
    assert "1 e.g. GNU tar 1.15 or later." in text  # the footnote keeps its number


def test_a_raised_number_without_its_footnote_or_not_set_smaller_stays(tmp_path: Path) -> None:
    runs = [
        (11, 72, 700, "The usual R"),
        (7, 131.3, 704, "3"),  # set as a mark, but no footnote 3 is on the page
        (11, 135.2, 700, " of a model and the spaces"),
        (11, 267.3, 704, "2"),  # raised above the line, but as large as the text: no superscript
        (11, 273.4, 700, " between."),
        (7, 74, 94, "2"),
        (9, 80, 90, " A footnote whose mark is on another page."),
    ]
    text = _load(tmp_path, _typeset(runs)).text
    assert "The usual R3 of a model and the spaces2 between." in text and "2 A footnote whose" in text


def test_a_page_whose_figure_content_is_damaged_still_reads(tmp_path: Path) -> None:
    figure = b"0 0 m 100 100 l S ) ( >> ]"  # shows no text, and is no valid content either
    assert _load(tmp_path, _typeset([(11, 72, 700, "The first page reads.")], figure)).text == "The first page reads."
