"""Heading lines are found outside fenced code, with their level and the document's offsets
(:mod:`kgrag.documents.headings`), on text rebuilt from overlapping chunks."""

from __future__ import annotations

from kgrag.documents.headings import HeadingLine, covered_text, heading_lines

_TEXT = """# Harbour Services

Intro.

```bash
# install the ferry tool: a comment, not a heading
pip install ferry
```

    # indented code, not a heading either

## Tickets for C# ##

###No space, no heading
"""


def test_headings_outside_code_with_levels_and_offsets() -> None:
    found = heading_lines(_TEXT, start=100)
    assert [(h.level, h.text) for h in found] == [(1, "Harbour Services"), (2, "Tickets for C#")]
    assert found[1] == HeadingLine(100 + _TEXT.index("## Tickets"), 2, "Tickets for C#")


def test_text_rebuilt_from_overlapping_chunks_keeps_the_document_s_offsets() -> None:
    text = "# Guide\n\nFirst part.\n\n```\n# code\n```\n\n## Later\n\nSecond part."
    cut = text.index("```")  # the second chunk starts at the fence, after a gap of blank lines
    parts = [(10, text[:18]), (10 + 5, text[5 : cut - 2]), (10 + cut, text[cut:])]
    start, rebuilt = covered_text(parts)
    assert start == 10 and rebuilt.replace("\n", "") == text.replace("\n", "")
    assert [(h.offset - 10, h.text) for h in heading_lines(rebuilt, start)] == [
        (0, "Guide"),
        (text.index("## Later"), "Later"),
    ]
    assert covered_text([]) == (0, "")
