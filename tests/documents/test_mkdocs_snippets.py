"""PyMdown snippet includes (``--8<--``) are replaced by what they include, as MkDocs renders the page: every
notation, base paths, nesting; nothing is read from outside the folder being indexed, nothing downloaded;
what cannot be included is named; the site's snippet files are not pages of their own."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from kgrag.config import DocumentsConfig
from kgrag.core.errors import DocumentError
from kgrag.documents.discovery import discover
from kgrag.documents.ignore import Ignored
from kgrag.documents.loaders import load_path
from kgrag.documents.mkdocs_site import find_site
from kgrag.documents.snippets import (
    LEFT_OUT,
    MAX_DEPTH,
    expand_snippets,
    file_state,
    includes_changed,
    left_out_of,
    reading_within,
)

SITE = Path(__file__).resolve().parents[1] / "fixtures" / "doc_sites" / "mkdocs_site"
MIB = 1024 * 1024


def _page(folder: Path, text: str, name: str = "page.md") -> Path:
    page = folder / name
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(text, encoding="utf-8")
    return page.resolve()


def _expand(page: Path) -> tuple[str, list[str]]:
    out = expand_snippets(page.read_text(encoding="utf-8"), page, MIB)
    return out.text, out.left_out


def test_the_sample_site_page_has_every_include_and_no_notation() -> None:
    [doc] = load_path(SITE / "docs" / "install.md", DocumentsConfig())
    assert "8<" not in doc.text and "[start:" not in doc.text and "[end:" not in doc.text
    for absent in ("escaped", "skipped", "commented-out", "Quillkit 4.0 dropped", "# Changes", "print(defaults"):
        assert absent not in doc.text
    assert doc.text.count("Cycles are cut after one round.") == 1
    assert left_out_of(doc.metadata) == [
        "snippets/cycle.md (already being included (a cycle))",
        "snippets/not-written-yet.md (not found)",
        "https://example.com/remote-snippet.md (a URL: snippets are never downloaded)",
    ]
    watched = json.loads(doc.metadata["includes"])
    assert str(SITE / "includes" / "licence-notice.md") in watched  # a base_path outside docs_dir
    assert not includes_changed(doc.metadata)


@pytest.mark.parametrize(
    ("spec", "lines"),
    [
        ("f.txt", ["one", "two", "three", "four"]),
        ("f.txt:3", ["three", "four"]),
        ("f.txt::2", ["one", "two"]),
        ("f.txt:2:3", ["two", "three"]),
        ("f.txt:1:1,4:4", ["one", "four"]),
        ("f.txt:-2", ["three", "four"]),
        ("f.txt:0:1", ["one"]),
        ("f.txt:9", ["four"]),
    ],
)
def test_line_ranges(tmp_path: Path, spec: str, lines: list[str]) -> None:
    (tmp_path / "f.txt").write_text("one\ntwo\nthree\nfour\n", encoding="utf-8")
    text, left_out = _expand(_page(tmp_path, f'Before.\n--8<-- "{spec}"\nAfter.\n'))
    assert text.split("\n") == ["Before.", *lines, "After.", ""] and left_out == []


def test_sections_lose_their_markers_and_a_missing_section_is_named(tmp_path: Path) -> None:
    (tmp_path / "code.py").write_text(
        "a = 1\n# --8<-- [start:two]\nb = 2\n# --8<-- [start:inner]\nc = 3\n# --8<-- [end:inner]\n"
        "# --8<-- [end:two]\nd = 4\n",
        encoding="utf-8",
    )
    page = _page(tmp_path, '--8<-- "code.py:two"\n\n--8<-- "code.py"\n\n--8<-- "code.py:three"\n')
    text, left_out = _expand(page)
    assert text == "b = 2\nc = 3\n\na = 1\nb = 2\nc = 3\nd = 4\n\n"
    assert left_out == ["code.py:three (no section 'three' in the file)"]


def test_block_form_keeps_blank_lines_skips_commented_names_and_indents(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("Alpha.\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("Beta.\n", encoding="utf-8")
    page = _page(tmp_path, "- item\n\n    --8<--\n    a.md\n\n    ; c.md\n    b.md\n    --8<--\nEnd.\n")
    text, left_out = _expand(page)
    assert text == "- item\n\n    Alpha.\n\n    Beta.\nEnd.\n" and left_out == []


def test_escaped_and_commented_notations_are_left_out_and_nothing_else_is_read(tmp_path: Path) -> None:
    (tmp_path / "x.md").write_text("SHOULD NOT APPEAR\n", encoding="utf-8")
    page = _page(tmp_path, ';--8<-- "x.md"\n;;-8<- "x.md"\n--8<-- "; x.md"\n;--8<--\nx.md\n;--8<--\nText.\n')
    text, left_out = _expand(page)
    assert text == "x.md\nText.\n" and left_out == []  # an escaped block is not a block: its name stays text


def test_a_prose_mention_of_a_marker_stays_on_the_page_but_not_in_an_include(tmp_path: Path) -> None:
    (tmp_path / "inc.md").write_text("Use `--8<-- [start:name]` to open a section.\nKept.\n", encoding="utf-8")
    page = _page(tmp_path, "Use `--8<-- [start:name]` to open a section.\n<!-- --8<-- [start:x] -->\n--8<-- 'inc.md'\n")
    text, _ = _expand(page)
    assert text == "Use `--8<-- [start:name]` to open a section.\nKept.\n"


def test_nesting_cycles_and_depth_are_bounded(tmp_path: Path) -> None:
    for n in range(MAX_DEPTH + 3):
        (tmp_path / f"n{n}.md").write_text(f'Level {n}.\n--8<-- "n{n + 1}.md"\n', encoding="utf-8")
    text, left_out = _expand(_page(tmp_path, '--8<-- "n0.md"\n'))
    assert f"Level {MAX_DEPTH - 1}." in text and f"Level {MAX_DEPTH}." not in text
    assert left_out == [f"n{MAX_DEPTH}.md (nested deeper than {MAX_DEPTH} includes)"]
    (tmp_path / "self.md").write_text('Self.\n--8<-- "self.md"\n', encoding="utf-8")
    text, left_out = _expand(_page(tmp_path, '--8<-- "self.md"\n', "p2.md"))
    assert text == "Self.\n" and left_out == ["self.md (already being included (a cycle))"]


def test_nothing_outside_the_folder_being_indexed_is_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET\n", encoding="utf-8")
    docs = tmp_path / "site" / "docs"
    docs.mkdir(parents=True)
    (tmp_path / "site" / "mkdocs.yml").write_text("site_name: s\n", encoding="utf-8")
    (tmp_path / "site" / "root-note.md").write_text("ROOT NOTE\n", encoding="utf-8")
    os.symlink(secret, docs / "link.txt")
    page = _page(docs, f'--8<-- "../../secret.txt"\n--8<-- "{secret}"\n--8<-- "link.txt"\n--8<-- "root-note.md"\n')
    with reading_within([docs]):
        text, left_out = _expand(page)
    assert "SECRET" not in text and "ROOT NOTE" not in text
    outside = "outside the folder being indexed: not read"
    assert left_out == [
        f"../../secret.txt ({outside})",
        f"{secret} (an absolute path, outside the folder being indexed: not read)",
        f"link.txt ({outside})",
        f"root-note.md ({outside})",
    ]
    with reading_within([tmp_path / "site"]):  # the site root is being indexed: its files may be included
        text, left_out = _expand(page)
    assert "ROOT NOTE" in text and "SECRET" not in text


def test_without_a_site_config_the_folder_above_the_indexed_one_is_a_base(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "examples").mkdir(parents=True)
    (docs / "examples" / "app.py").write_text("print('app')\n", encoding="utf-8")
    page = _page(docs / "guide", '```py\n--8<-- "docs/examples/app.py"\n```\n')
    with reading_within([docs]):
        text, left_out = _expand(page)
    assert text == "```py\nprint('app')\n```\n" and left_out == []


def test_a_file_that_is_not_text_or_too_large_is_left_out(tmp_path: Path) -> None:
    (tmp_path / "bin.dat").write_bytes(b"\x00\x01")
    (tmp_path / "big.md").write_text("x" * 2000, encoding="utf-8")
    (tmp_path / "empty.md").write_text("", encoding="utf-8")
    page = _page(tmp_path, '--8<-- "bin.dat"\n--8<-- "big.md"\n--8<-- "empty.md"\nText.\n')
    out = expand_snippets(page.read_text(encoding="utf-8"), page, 1000)
    assert out.text == "Text.\n"
    assert [item.split(" (")[0] for item in out.left_out] == ["bin.dat", "big.md"]


def test_a_change_to_an_included_file_or_a_new_file_where_one_was_missing_is_seen(tmp_path: Path) -> None:
    (tmp_path / "inc.md").write_text("Old.\n", encoding="utf-8")
    page = _page(tmp_path, '--8<-- "inc.md"\n--8<-- "later.md"\n')
    metadata = expand_snippets(page.read_text(encoding="utf-8"), page, MIB).metadata()
    assert not includes_changed(metadata) and LEFT_OUT in metadata
    (tmp_path / "later.md").write_text("Now here.\n", encoding="utf-8")
    assert includes_changed(metadata)
    metadata = expand_snippets(page.read_text(encoding="utf-8"), page, MIB).metadata()
    assert not includes_changed(metadata) and LEFT_OUT not in metadata
    (tmp_path / "inc.md").write_text("New text.\n", encoding="utf-8")
    assert includes_changed(metadata)
    assert file_state(tmp_path / "gone.md") == "absent"


def test_mkdocs_yml_with_python_tags_inherit_and_a_string_base_path(tmp_path: Path) -> None:
    (tmp_path / "base.yml").write_text(
        "docs_dir: pages\nmarkdown_extensions:\n  - pymdownx.snippets:\n      base_path: snips\n"
        "      dedent_subsections: true\n",
        encoding="utf-8",
    )
    (tmp_path / "mkdocs.yml").write_text(
        "INHERIT: base.yml\nsite_name: x\ntheme:\n  icon: !!python/name:material.icons\n"
        "  extra: !!python/object/apply:os.system [echo never run]\nenv: !ENV [HOME, x]\n",
        encoding="utf-8",
    )
    site = find_site(tmp_path / "pages" / "deep")
    assert site is not None and site.root == tmp_path and site.docs_dir == tmp_path / "pages"
    assert site.base_paths == (tmp_path / "snips",) and site.dedent_subsections
    (tmp_path / "snips").mkdir()
    (tmp_path / "snips" / "c.py").write_text("class A:\n    def f(self):\n        return 1\n", encoding="utf-8")
    text, _ = _expand(_page(tmp_path / "pages", '--8<-- "c.py:2:3"\n'))
    assert text == "def f(self):\n    return 1\n"  # dedent_subsections


def test_an_impossible_date_in_mkdocs_yml_does_not_stop_reading_it(tmp_path: Path) -> None:
    (tmp_path / "mkdocs.yml").write_text("docs_dir: pages\nextra:\n  released: 2017-02-29\n", encoding="utf-8")
    site = find_site(tmp_path / "pages")
    assert site is not None and site.docs_dir == tmp_path / "pages"


def test_a_broken_mkdocs_yml_still_marks_the_site_root(tmp_path: Path) -> None:
    (tmp_path / "mkdocs.yml").write_text("markdown_extensions: [unclosed\n", encoding="utf-8")
    site = find_site(tmp_path / "docs")
    assert site is not None and site.root == tmp_path and site.base_paths == ()


def test_snippet_files_are_not_indexed_as_pages_of_their_own(tmp_path: Path) -> None:
    passed = Ignored()
    found = discover([SITE], ["*.md"], [".*"], [], None, passed)
    assert [p.relative_to(SITE).as_posix() for p in found] == ["docs/install.md"]
    assert passed.not_pages == 6  # docs/snippets/* (exclude_docs), includes/* (a snippet base_path)
    (tmp_path / "README.md").write_text("# Readme\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text("site_name: x\n", encoding="utf-8")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n", encoding="utf-8")
    found = discover([tmp_path], ["*.md"], [".*"])
    assert sorted(p.name for p in found) == ["README.md", "index.md"]  # a README outside docs_dir is kept
    named = discover([SITE / "docs" / "snippets" / "support.md"], ["*.md"], [".*"])
    assert len(named) == 1  # a file named on the command line is always read


def test_indexing_a_wider_folder_reads_a_page_again(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (tmp_path / "note.md").write_text("Note.\n", encoding="utf-8")
    page = _page(docs, '--8<-- "../note.md"\nText.\n')
    with reading_within([docs]):
        [doc] = load_path(page, DocumentsConfig())
        metadata = doc.metadata
        assert not includes_changed(metadata)
    with reading_within([tmp_path]):  # the include refused before may be read now
        assert includes_changed(metadata)


def test_a_page_of_nothing_but_refused_includes_says_why(tmp_path: Path) -> None:
    (tmp_path / "LICENSE.md").write_text("Licence text.\n", encoding="utf-8")
    page = _page(tmp_path / "docs", '--8<-- "../LICENSE.md"\n')
    with reading_within([tmp_path / "docs"]), pytest.raises(DocumentError, match="nothing but includes that were"):
        load_path(page, DocumentsConfig())


def test_an_unclosed_block_is_named_and_its_lines_stay_text(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("Alpha.\n", encoding="utf-8")
    text, left_out = _expand(_page(tmp_path, "Intro.\n--8<--\na.md\n"))
    assert text == "Intro.\na.md\n"
    assert left_out == ["page.md: a --8<-- block that is never closed (its opening line left out)"]
