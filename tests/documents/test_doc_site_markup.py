"""Pages as documentation sites write them (MkDocs Material, reStructuredText, Sphinx HTML) are indexed as
the reader sees them: no markup in any chunk, every code block whole in one chunk, the right title."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kgrag.config import DocumentsConfig
from kgrag.documents.chunking import chunk_text
from kgrag.documents.code_blocks import code_block_spans
from kgrag.documents.headings import heading_lines
from kgrag.documents.loaders import load_path
from kgrag.documents.markdown_text import markdown_to_text
from kgrag.documents.mkdocs_blocks import unwrap_mkdocs
from kgrag.documents.rst_text import role_text, rst_to_text
from kgrag.documents.tokens import TokenCounter

SITES = Path(__file__).resolve().parents[1] / "fixtures" / "doc_sites"
COUNTER = TokenCounter.for_encoding("cl100k_base")
TITLES = {
    "mkdocs/models.md": "Models",  # front matter
    "mkdocs/settings.md": "Settings",  # setext H1
    "mkdocs/why.md": "why",  # no H1: the file name, not the "## Speed" sub-heading
    "rst/quickstart.rst": "Quickstart",
    "rst/untitled.rst": "untitled",
    "sphinx/api.html": "Developer Interface",
    "mkdocs_site/docs/install.md": "Installing Quillkit",  # snippet includes: tests/documents/test_mkdocs_snippets.py
}
PAGES = sorted(SITES / name for name in TITLES)  # the site's snippet files and mkdocs.yml are not pages
# (page, code blocks the reader sees, text every one of them holds)
CODE_BLOCKS = {
    "mkdocs/models.md": 3,
    "mkdocs/settings.md": 1,
    "mkdocs/why.md": 0,
    "rst/quickstart.rst": 2,
    "rst/untitled.rst": 0,
    "sphinx/api.html": 1,
    "mkdocs_site/docs/install.md": 3,  # a whole included file, a section, a line range
}
MARKUP = re.compile(
    r"!!!|\?\?\?|^=== |\]\[|\{ ?[.#:]|--8<--|\*\[|^\.\. |:(?:class|func|meth|param|returns):|`|¶|\[source\]"
    r"|\(\d\)!|\]\(|hl_lines|\{\{|\[\^|^///",
    re.MULTILINE,
)
FACTS = {  # sentences that must survive the markup around them
    "mkdocs/models.md": ["Quillkit validates data on construction.", "A list default is copied", "model_dump()"],
    "mkdocs/why.md": [
        "Quillkit 2.4 added strict mode for every field type.",
        "Added in v2.3: Frozen models reject assignment to their fields.",
        "Changed in v2.5: Strict mode also applies to dataclasses.",
        "Why Rust?\n\nSpeed and safety.",
    ],
    "mkdocs/settings.md": ["Variable names are case-insensitive by default.", "Finally the defaults."],
    "rst/quickstart.rst": [
        "an introduction to Session and get.",
        "New in version 2.4: The timeout argument accepts a tuple",
        "Parcel follows redirects by default",
        "returns: the response.",
        "timeout | None",
    ],
    "rst/untitled.rst": ["Deprecated since version 3.0: Use Session.send instead."],
    "sphinx/api.html": ["New in version 2.4: The timeout argument.", "The default timeout is None"],
    "mkdocs_site/docs/install.md": [
        "Quillkit is released under the Mulberry licence.",
        "pip install quillkit\nquillkit --version\n```",
        "Optional extras\n\nInstall quillkit[toml] to read settings from TOML files.",
        "quillkit[watch] reloads settings when a file changes.",
        'def defaults() -> dict[str, str]:\n    """Quillkit\'s defaults',
        "Quillkit 4 is supported until March 2031.",
        "Quillkit 4.2 added the watch extra. Quillkit 4.1 added TOML settings.",
    ],
}


def _name(path: Path) -> str:
    return path.relative_to(SITES).as_posix()


@pytest.mark.parametrize("path", PAGES, ids=_name)
def test_pages_are_titled_and_keep_their_facts(path: Path) -> None:
    [doc] = load_path(path, DocumentsConfig())
    assert doc.title == TITLES[_name(path)]
    for fact in FACTS[_name(path)]:
        assert fact in doc.text


@pytest.mark.parametrize("size", [40, 80, 400])
@pytest.mark.parametrize("path", PAGES, ids=_name)
def test_no_chunk_holds_markup_and_every_code_block_is_whole(path: Path, size: int) -> None:
    [doc] = load_path(path, DocumentsConfig())
    spans = code_block_spans(doc.text)
    assert len(spans) == CODE_BLOCKS[_name(path)]
    chunks = chunk_text(doc.text, COUNTER, size, size // 8)
    code = [False] * len(doc.text)
    for start, end in spans:
        code[start:end] = [True] * (end - start)
    for chunk in chunks:  # the prose of each chunk: its characters outside the page's code blocks
        prose = "".join(ch for i, ch in enumerate(chunk.text, chunk.char_start) if not code[i])
        assert not MARKUP.search(prose), (prose, MARKUP.search(prose))
    for start, end in spans:
        block = doc.text[start:end]
        assert "(1)!" not in block and "{hl_lines" not in block
        if COUNTER.count(block) <= size:  # a block longer than a chunk is cut between lines, by design
            assert any(c.char_start <= start and end <= c.char_end for c in chunks), block


def test_code_inside_tabs_and_admonitions_keeps_its_blank_lines_and_indentation() -> None:
    page = markdown_to_text(
        '=== "A"\n\n    !!! note\n        ```py\n        def f():\n\n\n            return 1\n        ```\n\nAfter.\n'
    )
    assert page.text == "A\n\nNote\n\n```py\ndef f():\n\n\n    return 1\n```\n\nAfter."


def test_a_heading_underline_and_code_lookalikes_are_not_blocks() -> None:
    assert (
        unwrap_mkdocs("Title\n=====\n\n```\n!!! note in code\n```\n") == "Title\n=====\n\n```\n!!! note in code\n```\n"
    )
    assert markdown_to_text("See `a[0][1]` and [`Model`][pkg.Model].").text == "See a[0][1] and Model."


@pytest.mark.parametrize(
    ("source", "text"),
    [
        (":class:`Response <requests.Response>`", "Response"),
        (":func:`~requests.api.get`", "get"),
        (":py:meth:`Session.send`", "Session.send"),
        ("plain", "plain"),
    ],
)
def test_sphinx_roles_read_as_their_text(source: str, text: str) -> None:
    assert role_text(source) == text


def test_rst_never_reads_other_files(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET", encoding="utf-8")
    page = tmp_path / "page.rst"
    page.write_text(f"Page\n====\n\n.. include:: {secret}\n\n.. raw:: html\n\n   <b>raw</b>\n\nText.\n")
    [doc] = load_path(page, DocumentsConfig())
    assert "TOP SECRET" not in doc.text and "raw" not in doc.text and "Text." in doc.text


def test_a_substitution_nested_in_a_definition_and_defined_only_by_the_site_still_parses() -> None:
    # Sphinx sites define some substitutions (|br| for a line break) in their configuration; docutils alone
    # cannot resolve one nested in another's definition
    source = (
        "Modes\n=====\n\n"
        ".. |enable_mode| replace:: Enable Mode |br| (Privilege Escalation)\n\n"
        "Use |enable_mode| on the switch; |undefined| stays as written.\n"
    )
    page = rst_to_text(source)
    assert " ".join(page.text.split()).endswith(
        "Use Enable Mode (Privilege Escalation) on the switch; |undefined| stays as written."
    )


def test_footnote_and_citation_references_do_not_run_into_the_sentence() -> None:
    source = (
        "Title\n=====\n\nThe PEP was written by Brett Cannon [#bc]_ and reviewed [2]_ later [CIT2002]_.\n\n"
        ".. [#bc] A core developer.\n.. [2] Second note.\n.. [CIT2002] A citation.\n"
    )
    text = rst_to_text(source).text
    assert "written by Brett Cannon and reviewed later." in text
    assert "A core developer." in text and "A citation." in text  # the notes themselves are kept


def test_an_html_block_in_markdown_reads_as_headings_and_paragraphs_not_one_line() -> None:
    """A landing page written as HTML cards inside Markdown: each heading is a heading and each card its own
    paragraph, so no sentence runs a heading, a tagline and a list of names together."""
    source = (
        "# Tolvey\n\nThe harbour planner.\n\n"
        '<section class="why">\n  <h2>Why Tolvey?</h2>\n  <div class="pillar">\n    <h3>Lightweight</h3>\n'
        "    <p>Minimal dependencies, simple configuration.</p>\n  </div>\n"
        '  <div class="list"><span>Oslo</span> <span>Bergen</span></div>\n'
        '  <nav><a href="/">Home</a></nav>\n</section>\n\n'
        "<!-- a comment -->\n\nAfter the cards, *prose* again.\n"
    )
    text = markdown_to_text(source).text
    blocks = text.split("\n\n")
    assert "## Why Tolvey?" in blocks and "### Lightweight" in blocks
    assert "Minimal dependencies, simple configuration." in blocks
    assert "Oslo Bergen" in blocks
    assert "Home" not in text and "comment" not in text  # chrome and comments left out
    assert blocks[-1] == "After the cards, prose again."
    inline = markdown_to_text('<img src="logo.svg" alt="logo"> Tolvey plans ferries.\n').text
    assert inline == "Tolvey plans ferries."  # a line that only starts with a tag keeps its text


def test_a_code_directive_docutils_cannot_parse_is_still_fenced_code() -> None:
    """``:caption:`` is a Sphinx option plain docutils refuses; the block inside a Sphinx-only directive stays
    code, and its comment lines never read as headings."""
    source = (
        "Page\n====\n\n.. dropdown:: Useful commands\n\n    .. code-block:: shell\n        :caption: Commands\n\n"
        "        # Build the ferry image\n        docker build -t ferry .\n\n"
        ".. code-block:: yaml\n    :emphasize-lines: 2\n\n"
        "    services:\n      ferry:\n        build: .\n\nAfter the code.\n"
    )
    text = rst_to_text(source).text
    assert "```shell\n# Build the ferry image\ndocker build -t ferry .\n```" in text
    assert "```yaml\nservices:\n  ferry:\n    build: .\n```" in text
    assert [line.text for line in heading_lines(text, 0)] == ["Page"]  # no comment line is a heading
    assert text.rstrip().endswith("After the code.")


def test_a_table_of_contents_adds_no_heading() -> None:
    """``.. contents:: List of hooks`` is generated navigation: its caption is no section of the page."""
    source = "Page\n====\n\nIntro.\n\n.. contents:: List of ferry hooks\n   :local:\n\nDeparture\n---------\n\nBody.\n"
    text = rst_to_text(source).text
    assert [line.text for line in heading_lines(text, 0)] == ["Page", "Departure"]


def test_a_superscript_is_never_glued_to_the_word_beside_it() -> None:
    page = markdown_to_text(
        "Firefox<sup>3</sup> plays the ferry films; a crossing takes 10<sup>3</sup> seconds.\n\n"
        "<sup>3</sup>MKV containers are labelled as WebM in Firefox.\n"
    )
    assert page.text == (
        "Firefox^3 plays the ferry films; a crossing takes 10^3 seconds.\n\n"
        "MKV containers are labelled as WebM in Firefox."  # a footnote's own number is left out
    )


def test_a_superscript_linking_within_the_page_is_a_footnote_reference_and_left_out() -> None:
    page = markdown_to_text(
        'The ferry planner is written in Go using the tide library<sup id="a7">[7](#f7)</sup> base.\n\n'
        "A crossing takes 10<sup>3</sup> seconds; see the [tide table<sup>2</sup>](https://example.org/t).\n"
    )
    assert page.text == (
        "The ferry planner is written in Go using the tide library base.\n\n"
        "A crossing takes 10^3 seconds; see the tide table^2."  # an exponent, and a link out, stay marked
    )


def test_a_callout_marker_is_dropped_and_its_title_is_a_line_of_its_own() -> None:
    page = markdown_to_text(
        "> [!warning] Encoding\n> Ensure that ferry names are escaped before they are sent.\n\n"
        "> [!NOTE]\n> Night crossings need a second pilot.\n\n"
        "> [!tip]- Folded tip\n\n"
        "> A plain quote keeps its words.\n\n"
        "[!x] outside a quote is text.\n"
    )
    assert page.text.split("\n\n") == [
        "Encoding",
        "Ensure that ferry names are escaped before they are sent.",
        "Night crossings need a second pilot.",
        "Folded tip",
        "A plain quote keeps its words.",
        "[!x] outside a quote is text.",
    ]


def test_a_markdown_definition_stays_with_its_term() -> None:
    source = "--week N\n:   Plan the crossings of week N.\n\n    Weeks start on Monday.\n\n"
    source += "-q\n:   - a list first\n\nAfter.\n"
    assert markdown_to_text(source).text == (
        "--week N\nPlan the crossings of week N.\n\nWeeks start on Monday.\n\n-q\n\n- a list first\n\nAfter."
    )
