"""Each loader extracts text and a title; every bad file becomes a DocumentError naming the file."""

from __future__ import annotations

import hashlib
from pathlib import Path

import docx
import pytest
from tests.documents.pdf_shapes import serialize_pdf

from kgrag.config import DocumentsConfig
from kgrag.core.errors import DocumentError
from kgrag.documents.loaders import load_path, load_plain, loader_registry, supported_suffixes

CFG = DocumentsConfig()


def _pdf(pages: list[str], title: str | None = None) -> bytes:
    """A minimal valid PDF with one Helvetica text line per page, written by hand."""
    n = len(pages)
    kids = " ".join(f"{5 + 2 * i} 0 R" for i in range(n))
    info = f"<< /Title ({title}) >>" if title else "<< >>"
    bodies = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {n} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        info.encode(),
    ]
    for i, text in enumerate(pages):
        stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
        bodies.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font "
            f"<< /F1 3 0 R >> >> /Contents {6 + 2 * i} 0 R >>".encode()
        )
        bodies.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
    return serialize_pdf(bodies)


def _write(tmp_path: Path, name: str, content: bytes | str) -> Path:
    path = tmp_path / name
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_bytes(content)
    return path


def test_registry_is_fresh_per_call(tmp_path: Path) -> None:
    registry = loader_registry()
    registry.register(".adoc", lambda path, data, cfg: load_plain(path, data, cfg))
    assert [doc.text for doc in load_path(_write(tmp_path, "a.adoc", b"Title\n=====\n"), CFG, registry)] == [
        "Title\n=====\n"
    ]
    assert ".adoc" not in loader_registry()
    with pytest.raises(DocumentError, match=r"unsupported file type '\.adoc'"):
        load_path(_write(tmp_path, "b.adoc", b"x"), CFG)
    assert supported_suffixes() == [
        ".docx",
        ".htm",
        ".html",
        ".json",
        ".jsonl",
        ".markdown",
        ".md",
        ".mdx",
        ".pdf",
        ".qmd",
        ".rst",
        ".txt",
    ]


def test_markdown_title_hash_and_metadata(tmp_path: Path) -> None:
    text = "Intro line.\n\n## Skin Basics ##\nThe skin has 3 layers.\n"
    path = _write(tmp_path, "notes.md", text)
    [doc] = load_path(path, CFG)
    assert doc.source == str(path.resolve())
    assert doc.title == "notes"  # a sub-heading names a part of the page, not the page: no H1, the file name
    assert doc.text == "Intro line.\n\n## Skin Basics\n\nThe skin has 3 layers."
    assert doc.content_hash == hashlib.sha256(doc.text.encode()).hexdigest()
    assert doc.metadata == {"format": "md", "path": str(path.resolve())}


def test_plain_text_title_falls_back_to_stem_and_newlines_are_normalized(tmp_path: Path) -> None:
    [doc] = load_path(_write(tmp_path, "report-1.TXT", b"line one\r\nline two\rend"), CFG)
    assert doc.title == "report-1"
    assert doc.text == "line one\nline two\nend"
    assert doc.metadata["format"] == "txt"


@pytest.mark.parametrize(
    "encoded",
    [
        "\ufeffcafé au lait".encode(),
        "café au lait".encode("utf-16"),
        "café au lait".encode("utf-16-be").join([b"\xfe\xff", b""]),
        "café au lait".encode("utf-32"),
    ],
)
def test_byte_order_marks_are_honoured(tmp_path: Path, encoded: bytes) -> None:
    [doc] = load_path(_write(tmp_path, "bom.txt", encoded), CFG)
    assert doc.text == "café au lait"


def test_html_visible_text_and_title(tmp_path: Path) -> None:
    html = (
        "<html><head><title> Skin  Cancer </title><style>p {color: red}</style></head><body>"
        "<script>var hidden = 1;</script><h1>Overview</h1><p>First <b>bold</b> paragraph.</p>"
        "<p>Second<br>line.</p><ul><li>one</li><li>two</li></ul></body></html>"
    )
    [doc] = load_path(_write(tmp_path, "page.htm", html), CFG)
    assert doc.title == "Skin Cancer"
    assert doc.text == "# Overview\n\nFirst bold paragraph.\n\nSecond\nline.\n\n- one\n\n- two"
    assert doc.metadata["format"] == "html"


def test_html_title_falls_back_to_h1_then_stem(tmp_path: Path) -> None:
    [doc] = load_path(_write(tmp_path, "a.html", "<h1>Heading One</h1><p>Body.</p>"), CFG)
    assert doc.title == "Heading One"
    [doc] = load_path(_write(tmp_path, "b.html", "<p>Body only.</p>"), CFG)
    assert doc.title == "b"


def test_html_without_visible_text_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match=r"empty\.html: the page's visible text contains no text"):
        load_path(_write(tmp_path, "empty.html", "<html><script>x()</script></html>"), CFG)


def test_pdf_pages_joined_with_blank_line(tmp_path: Path) -> None:
    [doc] = load_path(
        _write(tmp_path, "paper.pdf", _pdf(["Hello PDF world.", "Second page here."], title="A Paper")), CFG
    )
    assert doc.text == "Hello PDF world.\n\nSecond page here."
    assert doc.title == "A Paper"
    assert doc.metadata["format"] == "pdf"


def test_pdf_without_title_uses_stem(tmp_path: Path) -> None:
    [doc] = load_path(_write(tmp_path, "scan.pdf", _pdf(["Only page."])), CFG)
    assert doc.title == "scan"


def test_pdf_without_text_needs_ocr(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match="OCR"):
        load_path(_write(tmp_path, "blank.pdf", _pdf([""])), CFG)


def test_damaged_pdf_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match=r"bad\.pdf: not a readable PDF"):
        load_path(_write(tmp_path, "bad.pdf", b"%PDF-1.4\nthis is not really a pdf"), CFG)


def test_docx_paragraphs_tables_and_title(tmp_path: Path) -> None:
    document = docx.Document()
    document.add_heading("Care Plan", level=1)
    document.add_paragraph("First paragraph.")
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "Drug", "Dose"
    table.cell(1, 0).text, table.cell(1, 1).text = "A", "4.2 mg"
    document.add_paragraph("Last paragraph.")
    path = tmp_path / "plan.docx"
    document.save(str(path))
    [doc] = load_path(path, CFG)
    assert doc.title == "Care Plan"
    assert doc.text == "Care Plan\n\nFirst paragraph.\n\nDrug | Dose\nA | 4.2 mg\n\nLast paragraph."
    assert doc.metadata["format"] == "docx"


def test_docx_core_title_wins(tmp_path: Path) -> None:
    document = docx.Document()
    document.core_properties.title = "Core Title"
    document.add_paragraph("Body.")
    path = tmp_path / "t.docx"
    document.save(str(path))
    assert load_path(path, CFG)[0].title == "Core Title"


def test_damaged_docx_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match=r"bad\.docx: not a readable \.docx"):
        load_path(_write(tmp_path, "bad.docx", b"PK\x03\x04 not a zip"), CFG)


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("a.txt", b"", r"a\.txt: the file is empty"),
        ("a.txt", b" \n\t \n", r"a\.txt: the file contains no text \(only whitespace\)"),
        ("a.md", b"text\x00with nul", r"a\.md: looks binary \(contains NUL bytes\)"),
        ("a.txt", b"caf\xe9 latin-1", r"a\.txt: not UTF-8 text \(invalid byte at offset 3\); re-save as UTF-8"),
        ("a.txt", b"\xff\xfe\x00\xd8", r"a\.txt: starts with a utf-16 byte-order mark but is not valid"),
        ("a.xyz", b"text", r"a\.xyz: unsupported file type '\.xyz' \(supported: \.docx, .*documents\.exclude"),
        ("README", b"text", r"README: unsupported file without an extension"),
    ],
)
def test_bad_files(tmp_path: Path, name: str, content: bytes, message: str) -> None:
    with pytest.raises(DocumentError, match=message):
        load_path(_write(tmp_path, name, content), CFG)


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match=r"gone\.txt: cannot read the file \(No such file"):
        load_path(tmp_path / "gone.txt", CFG)
    (tmp_path / "dir.txt").mkdir()
    with pytest.raises(DocumentError, match=r"dir\.txt: is a directory"):
        load_path(tmp_path / "dir.txt", CFG)


def test_unreadable_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(tmp_path, "secret.txt", "text")

    def denied(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    # chmod does not stop root, so simulate the failure where the loader opens the file
    monkeypatch.setattr("kgrag.documents.reading.open_regular", denied)
    with pytest.raises(DocumentError, match=r"secret\.txt: cannot read the file \(Permission denied\)"):
        load_path(path, CFG)


def test_oversized_file_is_refused_before_reading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(tmp_path, "big.txt", "x" * 3000)

    def no_open(*args: object, **kwargs: object) -> None:
        raise AssertionError("an oversized file was opened")

    monkeypatch.setattr(Path, "open", no_open)
    monkeypatch.setattr(Path, "read_bytes", no_open)
    cfg = DocumentsConfig(max_file_mb=2000 / 1024 / 1024)
    with pytest.raises(DocumentError, match=r"big\.txt: 0\.00286 MiB is larger than documents\.max_file_mb"):
        load_path(path, cfg)
