"""HTML pages as documentation generators write them: an AsciiDoc manual page keeps the NAME line its
header holds, and a page that is not UTF-8 is read by the encoding it declares."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgrag.config import DocumentsConfig
from kgrag.core.errors import DocumentError
from kgrag.documents.html_charset import declared_charset
from kgrag.documents.html_text import html_to_text
from kgrag.documents.loaders import load_path

MANUAL_PAGE = """<?xml version="1.0" encoding="UTF-8"?>
<html><head><title>tide-plan(1)</title></head>
<body class="article">
<div id="header">
<h1>tide-plan(1) Manual Page</h1>
<h2>NAME</h2>
<div class="sectionbody"><p>tide-plan - Plan the ferry crossings of one week</p></div>
</div>
<div id="content">
<div class="sect1"><h2 id="_synopsis">SYNOPSIS</h2>
<div class="sectionbody"><pre>tide-plan [--week N] &lt;harbour&gt;</pre></div></div>
<div class="sect1"><h2 id="_description">DESCRIPTION</h2>
<div class="sectionbody"><p>Reads the tide tables and writes one crossing per line.</p></div></div>
</div>
<div id="footer"><div id="footer-text">Last updated 2031-03-01</div></div>
</body></html>"""

ARTICLE = """<html><head><title>Harbour guide</title></head><body>
<div id="header"><h1>Harbour guide</h1><span id="author">Aisha Okafor</span></div>
<div id="content"><p>Every crossing starts at the east pier.</p></div>
</body></html>"""


def test_a_manual_pages_name_line_is_kept_before_its_content() -> None:
    page = html_to_text(MANUAL_PAGE.encode())
    assert page.title == "tide-plan(1)"
    assert page.text.startswith("# tide-plan(1) Manual Page\n\n## NAME\n\ntide-plan - Plan the ferry crossings")
    assert "## SYNOPSIS" in page.text and "writes one crossing per line." in page.text
    assert "Last updated" not in page.text


def test_a_header_without_a_section_is_still_left_out() -> None:
    page = html_to_text(ARTICLE.encode())
    assert page.text == "Every crossing starts at the east pier."


LATIN1 = (
    '<?xml version="1.0" encoding="ISO-8859-1"?>\n<html><head>'
    '<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1" />'
    "<title>Caf\u00e9 des marins</title></head>"
    "<body><p>The caf\u00e9 serves cr\u00e8me br\u00fbl\u00e9e.</p></body></html>"
)
WINDOWS_1252 = (
    '<html><head><meta charset="windows-1252"><title>Fares</title></head>'
    "<body><p>\u201cNight fares\u201d cost \u20ac5 \u2014 \u00bd on Sundays.</p></body></html>"
)


def test_a_page_that_is_not_utf8_is_read_by_the_encoding_it_declares(tmp_path: Path) -> None:
    latin1, cp1252 = tmp_path / "latin1.html", tmp_path / "cp1252.html"
    latin1.write_bytes(LATIN1.encode("latin-1"))
    cp1252.write_bytes(WINDOWS_1252.encode("cp1252"))
    [doc] = load_path(latin1, DocumentsConfig())
    assert doc.title == "Caf\u00e9 des marins" and doc.text == "The caf\u00e9 serves cr\u00e8me br\u00fbl\u00e9e."
    [doc] = load_path(cp1252, DocumentsConfig())
    assert doc.text == "\u201cNight fares\u201d cost \u20ac5 \u2014 \u00bd on Sundays."


def test_a_utf8_page_under_a_latin1_declaration_is_read_as_utf8(tmp_path: Path) -> None:
    path = tmp_path / "page.html"
    path.write_bytes(LATIN1.encode("utf-8"))
    [doc] = load_path(path, DocumentsConfig())
    assert doc.text == "The caf\u00e9 serves cr\u00e8me br\u00fbl\u00e9e."


def test_a_page_that_is_neither_utf8_nor_what_it_declares_is_refused_with_the_reason(tmp_path: Path) -> None:
    unknown, wrong = tmp_path / "unknown.html", tmp_path / "wrong.html"
    unknown.write_bytes(b'<meta charset="klingon-8"><p>caf\xe9</p>')
    wrong.write_bytes(b'<meta charset="shift_jis"><p>\x81</p>')
    with pytest.raises(DocumentError, match=r"declares an encoding Python does not know \('klingon-8'\)"):
        load_path(unknown, DocumentsConfig())
    with pytest.raises(DocumentError, match=r"not valid shift_jis text, as the page declares"):
        load_path(wrong, DocumentsConfig())
    undeclared = tmp_path / "undeclared.html"
    undeclared.write_bytes(b"<p>caf\xe9</p>")
    with pytest.raises(DocumentError, match="not UTF-8 text"):
        load_path(undeclared, DocumentsConfig())


@pytest.mark.parametrize(
    ("head", "label"),
    [
        (b'<meta charset="UTF-8">', "utf-8"),
        (b"<meta charset=latin1>", "latin1"),
        (b'<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=Windows-1252">', "windows-1252"),
        (b"<?xml version='1.0' encoding='ISO-8859-15'?>", "iso-8859-15"),
        (b"<p>no declaration</p>", None),
    ],
)
def test_declared_charsets_are_found_in_the_pages_first_bytes(head: bytes, label: str | None) -> None:
    assert declared_charset(head + b"<p>text</p>") == label
    assert declared_charset(b" " * 2000 + head) is None


def test_an_admonitions_label_cell_reads_as_a_label_not_a_table_row() -> None:
    page = html_to_text(
        b'<div id="content"><div class="admonitionblock"><table><tr><td class="icon"><div class="title">Note</div>'
        b'</td><td class="content">The planner keeps old timetables.</td></tr></table></div>'
        b"<table><tr><td>Oban</td><td>09:10</td></tr></table></div>"
    )
    assert page.text == "Note: The planner keeps old timetables.\n\nOban | 09:10"


def test_a_definition_lists_term_stays_with_its_definition() -> None:
    page = html_to_text(
        b'<div id="content"><div class="dlist"><dl>'
        b'<dt class="hdlist1">--week &lt;n&gt;</dt>'
        b"<dd><p>Plan the crossings of week n.</p><p>Weeks start on Monday.</p></dd>"
        b'<dt class="hdlist1">-q</dt><dt class="hdlist1">--quiet</dt><dd><p>Print nothing.</p></dd>'
        b"<dt>--example</dt><dd><pre>tide-plan --week 3</pre></dd>"
        b"</dl></div><p>After the options.</p></div>"
    )
    assert page.text == (
        "--week <n>\nPlan the crossings of week n.\n\nWeeks start on Monday.\n\n-q\n--quiet\nPrint nothing.\n\n"
        "--example\n\n```\ntide-plan --week 3\n```\n\nAfter the options."
    )


def test_an_api_signature_stays_a_block_of_its_own() -> None:
    page = html_to_text(
        b'<div role="main"><dl class="py function"><dt class="sig sig-object py" id="tide.plan">'
        b'<span class="sig-name">tide.plan</span>(<em>week</em>)</dt><dd><p>Plan one week.</p></dd></dl></div>'
    )
    assert page.text == "tide.plan(week)\n\nPlan one week."


def test_docbook_navigation_tables_are_chrome() -> None:
    """DocBook XSL's Prev | Up | Home | Next tables above and below every page, and Publican's list."""
    page = html_to_text(
        b'<html><body><div class="navheader"><table><tr><th>TIDE PLAN</th></tr><tr><td><a href="a.html">Prev</a>'
        b'</td><td><a href="i.html">Home</a></td></tr></table></div><div class="refentry"><h2>TIDE PLAN</h2>'
        b'<p>TIDE PLAN lists the crossings of a week.</p></div><ul class="docnav"><li class="previous">'
        b'<a href="p.html">Prev</a></li><li class="home">Ferries Handbook</li></ul><div class="navfooter">'
        b'<table><tr><td><a href="a.html">Prev</a></td><td>FERRY LOG | Home | SAILINGS</td></tr></table></div>'
        b"</body></html>"
    )
    assert page.text == "## TIDE PLAN\n\nTIDE PLAN lists the crossings of a week."


def test_an_admonitions_heading_labels_its_text_and_is_no_section() -> None:
    """A heading inside a boxed note (DocBook's ``div.note > h3.title``) is the note's label: the text after
    the note stays in the section the note is in."""
    page = html_to_text(
        b'<div id="content"><h2>Crossings</h2><p>Boats leave at nine.</p><div class="note"><h3 class="title">'
        b"Note</h3><p>Winter times differ.</p><p>See the winter table.</p></div><p>Tickets are sold on board.</p>"
        b'<div class="warning"><h3 class="title">Warning</h3></div><p>Dogs travel free.</p></div>'
    )
    assert page.text == (
        "## Crossings\n\nBoats leave at nine.\n\nNote: Winter times differ.\n\nSee the winter table.\n\n"
        "Tickets are sold on board.\n\nWarning\n\nDogs travel free."
    )
