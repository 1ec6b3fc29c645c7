"""A small PDF built by hand, with the layout of a real report: a running header, body text and a
"Page N of M" footer on every page (the committed tests/fixtures/real_shapes/report.pdf is its output)."""

from __future__ import annotations

HEADER = "Shelfkit Field Report 2024 - Internal"
REPORT_PAGES = [
    [
        "Bins in the north workshop were counted in March.",
        "Forty bins hold small parts and twelve hold clamps.",
    ],
    [
        "The south workshop keeps its planes on level two.",
        "Moving them lower saved a step ladder on every visit.",
    ],
    [
        "Labels printed on matte stock stayed readable after a year.",
        "Gloss labels smeared when written on with a pencil.",
    ],
]


def pdf_bytes(pages: list[list[str]], header: str | None = None, footer: bool = True) -> bytes:
    """A valid PDF: each page shows ``header`` at the top, its lines, and "Page N of M" at the bottom."""
    count = len(pages)
    kids = " ".join(f"{5 + 2 * i} 0 R" for i in range(count))
    bodies = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {count} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Title (Field report) >>",
    ]
    for number, lines in enumerate(pages, start=1):
        shown = ([(header, 760)] if header else []) + [(line, 700 - 20 * i) for i, line in enumerate(lines)]
        if footer:
            shown.append((f"Page {number} of {count}", 40))
        stream = "\n".join(f"BT /F1 11 Tf 72 {y} Td ({text}) Tj ET" for text, y in shown).encode()
        bodies.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font "
            b"<< /F1 3 0 R >> >> /Contents %d 0 R >>" % (6 + 2 * (number - 1))
        )
        bodies.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
    return serialize_pdf(bodies)


def serialize_pdf(bodies: list[bytes]) -> bytes:
    """A PDF file of the numbered objects ``bodies`` (object 1 the catalog, object 4 the info
    dictionary), with the cross-reference table and trailer that point at them."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(bodies, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(bodies) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info 4 0 R >>\n" % (len(bodies) + 1)
    out += b"startxref\n%d\n%%%%EOF\n" % xref
    return bytes(out)


def report_pdf() -> bytes:
    return pdf_bytes(REPORT_PAGES, HEADER)
