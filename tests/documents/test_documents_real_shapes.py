"""Real document layouts end to end (loader, then chunker): no page chrome in any chunk, code verbatim.

The corpus in tests/fixtures/real_shapes/ is self-made in the shapes users index: a Sphinx-built site
(navigation bars, sidebar table of contents, "¶" permalinks, highlighted code), Markdown with YAML and
TOML front matter, a PDF with a running header and "Page N of M" footers, and text with console-markup
look-alikes ("[/x]", "[bold]").
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tests.documents.pdf_shapes import HEADER, REPORT_PAGES, pdf_bytes, report_pdf

from kgrag.config import DocumentsConfig
from kgrag.core.errors import DocumentError
from kgrag.documents import TokenCounter, chunk_text, discover, load_path
from kgrag.documents.html_text import MAX_DEPTH
from kgrag.documents.pdf_text import strip_running_lines

SHAPES = Path(__file__).resolve().parents[1] / "fixtures" / "real_shapes"
CFG = DocumentsConfig()
COUNTER = TokenCounter.for_encoding("cl100k_base")
CHROME = (
    "¶",
    "Navigation",
    "Show Source",
    "Table of Contents",
    "Previous topic",
    "Next topic",
    "This Page",
    "Report a Bug",
    "Quick search",
    "Theme",
    "modules",
    "Sphinx",
    "Copyright",
    "Last updated",
    "index",
)
STOCK_CODE = """\
def stock(parts):
    shelf = Shelf("north wall")
    for part in parts:
        if part.weight > 20:
            shelf.place(part, level=0)
        else:
            shelf.place(part)
    return shelf"""


def _chunks(path: Path, size: int = 120) -> list[str]:
    [doc] = load_path(path, CFG)
    return [chunk.text for chunk in chunk_text(doc.text, COUNTER, size, size // 8)]


def test_the_corpus_is_found_by_default_discovery() -> None:
    names = sorted(path.relative_to(SHAPES).as_posix() for path in discover([SHAPES], CFG.include, CFG.exclude))
    assert names == ["guide.md", "markup.txt", "notes.md", "report.pdf", "site/index.html", "site/shelfkit.html"]


@pytest.mark.parametrize("page", ["index.html", "shelfkit.html"])
def test_sphinx_pages_leave_no_chrome_in_any_chunk(page: str) -> None:
    chunks = _chunks(SHAPES / "site" / page)
    assert chunks
    for chunk in chunks:
        assert [marker for marker in CHROME if marker in chunk] == [], chunk


def test_sphinx_page_keeps_title_headings_prose_and_code_verbatim() -> None:
    [doc] = load_path(SHAPES / "site" / "shelfkit.html", CFG)
    assert doc.title == "shelfkit — Tidy storage for small workshops"  # <title> less its site suffix
    assert doc.text.startswith("# shelfkit — Tidy storage for small workshops\n\n")
    assert "\n\n## Quick start\n\n" in doc.text
    assert "a shelf never holds more than forty bins" in doc.text
    assert "class shelfkit.Shelf(name, levels=4)" in doc.text
    assert "Bin size | Holds\n\nsmall | screws, washers" in doc.text
    assert f"```\nfrom shelfkit import Shelf\n\n{STOCK_CODE}\n```" in doc.text
    # With room for it, the code block is whole in one chunk, however the prose around it falls.
    assert any(STOCK_CODE in chunk for chunk in _chunks(SHAPES / "site" / "shelfkit.html", 120))


def test_code_longer_than_a_chunk_is_cut_between_lines_keeping_indentation() -> None:
    chunks = _chunks(SHAPES / "site" / "shelfkit.html", 24)
    assert not any(STOCK_CODE in chunk for chunk in chunks)  # the block is longer than one chunk
    code_lines = STOCK_CODE.split("\n")
    chunk_lines = [line for chunk in chunks for line in chunk.split("\n") if line.strip()]
    assert set(code_lines) <= set(chunk_lines)
    fragments = [line for line in chunk_lines if any(line.strip() in code for code in code_lines)]
    assert [line for line in fragments if line not in code_lines] == []  # no cut inside a line


def test_markdown_yaml_front_matter_is_not_text_and_gives_the_title() -> None:
    [doc] = load_path(SHAPES / "guide.md", CFG)
    assert doc.title == "Labelling bins: a field guide"
    assert doc.text.startswith("# Labelling bins\n")
    assert "layout" not in doc.text and "2024-03-02" not in doc.text
    code = '```python\nfor bin in shelf.bins:\n    if bin.moved:\n        bin.print_label(stock="matte")\n```'
    assert code in doc.text
    assert any(code in chunk for chunk in _chunks(SHAPES / "guide.md", 60))


def test_markdown_toml_front_matter() -> None:
    [doc] = load_path(SHAPES / "notes.md", CFG)
    assert doc.title == "Winter maintenance notes"
    assert doc.text.startswith("Oil the vise screw")
    assert "draft" not in doc.text


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("---\nlayout: post\n---\n# Heading\nBody.\n", "Heading"),  # no title: the first heading
        ("---\ntitle: 42\n---\n# Heading\nBody.\n", "Heading"),  # a title that is not a string is not trusted
        ('+++\ntitle = "T"\n+++\nBody.\n', "T"),
        ("---\ntitle: Upgrade\ndate:   2017-02-29 11:00:00\n---\nBody.\n", "Upgrade"),  # an impossible date
        ("Title: Ferry Week 580\nNumber: 580\nDate: 2025-01-01\nCategory: Ferry Week\n\n## Jobs\nBody.\n",
         "Ferry Week 580"),  # Pelican's and MultiMarkdown's metadata lines
    ],
)  # fmt: skip
def test_front_matter_title_rules(tmp_path: Path, text: str, title: str) -> None:
    path = tmp_path / "page.md"
    path.write_text(text, encoding="utf-8")
    [doc] = load_path(path, CFG)
    assert doc.title == title
    assert not doc.text.startswith(("---", "+++", "Title:"))
    assert "Category" not in doc.text


@pytest.mark.parametrize(
    "text",
    [
        "---\n\nA page that opens with a rule.\n\n---\n\nMore text.\n",  # not a mapping: a thematic break
        "---\ntitle: never closed\n\nBody text.\n",  # no closing line
        "---\n[unbalanced: yaml\n---\nBody.\n",  # not YAML
        "Note: the ferry leaves at noon.\n\nMore text.\n",  # no Title line first: prose
        "Title: Ferries\nthe crossing is a sentence, not a key\n\nMore text.\n",  # a line that is no "Key: value"
    ],
)
def test_text_that_only_looks_like_front_matter_is_kept(tmp_path: Path, text: str) -> None:
    path = tmp_path / "page.md"
    path.write_text(text, encoding="utf-8")
    [doc] = load_path(path, CFG)
    words = [line.strip("-[ ") for line in text.split("\n") if line.strip("-[ ")]
    assert all(word in doc.text for word in words)  # the text stays; a rule is not text


def test_plain_text_keeps_a_leading_yaml_block(tmp_path: Path) -> None:
    path = tmp_path / "page.txt"
    path.write_text("---\ntitle: T\n---\nBody.\n", encoding="utf-8")
    [doc] = load_path(path, CFG)
    assert doc.text.startswith("---\ntitle: T")


def test_pdf_running_header_and_page_numbers_are_removed() -> None:
    assert (SHAPES / "report.pdf").read_bytes() == report_pdf()  # the committed file is the builder's output
    [doc] = load_path(SHAPES / "report.pdf", CFG)
    assert HEADER not in doc.text
    assert not re.search(r"Page \d of 3", doc.text)
    assert doc.text.split("\n\n") == ["\n".join(lines) for lines in REPORT_PAGES]
    starts = [int(start) for start in doc.metadata["page_starts"].split(",")]  # passages still cite their page
    assert [doc.text[start:].split("\n")[0] for start in starts] == [lines[0] for lines in REPORT_PAGES]


def test_markup_lookalikes_are_plain_text() -> None:
    [doc] = load_path(SHAPES / "markup.txt", CFG)
    assert "[/x]" in doc.text and "[bold]urgent[/bold]" in doc.text and "[/time]" in doc.text


def test_deeply_nested_html_is_skipped_with_one_clear_line(tmp_path: Path) -> None:
    """A 5 MB page of nested <div>s is refused at MAX_DEPTH, in one pass that stops there."""
    depth = 5_000_000 // len("<div>x</div>")
    path = tmp_path / "nested.html"
    path.write_text("<html><body>" + "<div>x" * depth + "</div>" * depth + "<p>tail</p></body></html>")
    with pytest.raises(DocumentError) as caught:
        load_path(path, CFG)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{path.resolve()}: elements are nested more than {MAX_DEPTH} deep, deeper than")
    assert message.endswith("flatten the markup or exclude the file")


def test_nesting_below_the_bound_is_read_whole(tmp_path: Path) -> None:
    """Nesting just under the bound is read whole, and so is the text after it."""
    depth = MAX_DEPTH - 10
    path = tmp_path / "deep.html"
    path.write_text("<html><body>" + "<div>q " * depth + "</div>" * depth + "<p>Text after.</p></body></html>")
    [doc] = load_path(path, CFG)
    assert doc.text.endswith("Text after.")
    assert doc.text.count("q") == depth


def test_page_without_a_main_element_drops_page_chrome(tmp_path: Path) -> None:
    path = tmp_path / "blog.html"
    path.write_text(
        "<html><head><title>Glue-ups</title></head><body>"
        "<header><a href='/'>Workshop blog</a> <a href='/about'>About</a></header>"
        "<nav><ul><li><a href='/'>Home</a></li></ul></nav>"
        "<aside><h3>Archive</h3><ul><li>March</li></ul></aside>"
        "<div class='breadcrumb'>Home › Posts</div>"
        "<h2 id='clamps'>Clamps <a href='#clamps'>#</a></h2><p>Clamp for 45 minutes.</p>"
        "<p hidden>draft note</p><div aria-hidden='true'>icon</div>"
        "<footer>© 2024 the bench</footer></body></html>",
        encoding="utf-8",
    )
    [doc] = load_path(path, CFG)
    assert doc.title == "Glue-ups"
    assert doc.text == "## Clamps\n\nClamp for 45 minutes."


def test_article_keeps_its_own_header_and_side_notes(tmp_path: Path) -> None:
    path = tmp_path / "post.html"
    path.write_text(
        "<body><nav>Home</nav><main><article><header><h1>Sharpening</h1></header>"
        "<aside class='sidebar'><p>Tip: strop often.</p></aside><pre>  hone\n    strop</pre>"
        "</article></main><footer>Footer</footer></body>",
        encoding="utf-8",
    )
    [doc] = load_path(path, CFG)
    assert doc.text == "# Sharpening\n\nTip: strop often.\n\n```\n  hone\n    strop\n```"


def test_running_lines_need_half_the_pages_and_body_text_is_kept() -> None:
    pages = [
        "Annual Report 2023\nIntro of page one.\nAnnual Report 2023 is mentioned in the body.\n- 1 -",
        "Annual Report 2023\nSecond page body.\nTable header\nrow a\nTable header\nrow b\n- 2 -",
        "Annual Report 2023\nThird page body.\n- 3 -",
        "Last page without a header.\nClosing words.\niv",
    ]
    assert strip_running_lines(pages) == [
        "Intro of page one.\nAnnual Report 2023 is mentioned in the body.",
        "Second page body.\nTable header\nrow a\nTable header\nrow b",
        "Third page body.",
        "Last page without a header.\nClosing words.",
    ]


def test_a_single_page_is_left_alone() -> None:
    assert strip_running_lines(["Title\nBody.\n7"]) == ["Title\nBody.\n7"]


def test_pdf_built_without_header_keeps_every_line(tmp_path: Path) -> None:
    path = tmp_path / "plain.pdf"
    path.write_bytes(pdf_bytes([["First page, only line."], ["Second page, only line."]], footer=False))
    [doc] = load_path(path, CFG)
    assert doc.text == "First page, only line.\n\nSecond page, only line."


def test_list_item_holding_only_code_gives_its_bullet_to_no_one(tmp_path: Path) -> None:
    path = tmp_path / "steps.html"
    path.write_text("<ul><li><pre>  x = 1</pre></li><li>two</li></ul><p>after</p>", encoding="utf-8")
    [doc] = load_path(path, CFG)
    assert doc.text == "```\n  x = 1\n```\n\n- two\n\nafter"


def test_a_comment_body_is_not_taken_for_the_main_content(tmp_path: Path) -> None:
    path = tmp_path / "post.html"
    path.write_text(
        "<body><h1>Flattening a bench top</h1><p>Winding sticks show the twist.</p>"
        "<div class='comment'><div class='body'>Great post!</div></div></body>",
        encoding="utf-8",
    )
    [doc] = load_path(path, CFG)
    assert doc.text == "# Flattening a bench top\n\nWinding sticks show the twist.\n\nGreat post!"


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "utf-32"])
def test_html_with_a_byte_order_mark(tmp_path: Path, encoding: str) -> None:
    path = tmp_path / "bom.html"
    path.write_bytes("<p>Café crème\r\n<pre>a\r\n  b</pre>".encode(encoding))
    [doc] = load_path(path, CFG)
    assert doc.text == "Café crème\n\n```\na\n  b\n```"


def test_html_in_another_encoding_is_read_as_declared_and_refused_when_undeclared(tmp_path: Path) -> None:
    path = tmp_path / "latin.html"
    path.write_bytes("<meta charset='iso-8859-1'><p>Café</p>".encode("latin-1"))
    [doc] = load_path(path, CFG)
    assert doc.text == "Café"
    path.write_bytes("<p>Café</p>".encode("latin-1"))  # no declaration: an encoding would be a guess
    with pytest.raises(DocumentError, match="not UTF-8 text"):
        load_path(path, CFG)


def test_unclosed_inline_tags_count_as_nesting(tmp_path: Path) -> None:
    """Tags never closed nest like <div>s do; past the bound the page is refused, not read quadratically."""
    path = tmp_path / "fonts.html"
    path.write_text("<body>" + "<font>x" * (MAX_DEPTH + 10) + "</body>", encoding="utf-8")
    with pytest.raises(DocumentError, match=f"nested more than {MAX_DEPTH} deep"):
        load_path(path, CFG)


def test_heading_text_is_joined_as_written(tmp_path: Path) -> None:
    path = tmp_path / "h.html"
    path.write_text("<h1><code>with</code>-statement <em>contexts</em><br>again</h1><p>Body.</p>", encoding="utf-8")
    [doc] = load_path(path, CFG)
    assert doc.title == "with-statement contexts again"
    assert doc.text == "# with-statement contexts again\n\nBody."
