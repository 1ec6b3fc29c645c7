"""Markdown marks taken off a line of text before questions are cut from it or headings named with it.

Emphasis goes, code stays as written: a pair of ``*``, ``**``, ``***`` or ``_`` around words is emphasis; a mark
inside a name (``SCHED_RR``), beside a slash or a dash (``/pods/*/*.log``, ``CHANGELOG-*``) or doubled
underscores (``__init__``) is part of the text. A code span keeps its text without its backticks, and text a
loader has already rendered (code spans without backticks) is read by the same rule.
"""

from __future__ import annotations

import re

_EMPHASIS = re.compile(r"(?<![\w*/\\-])(\*\*\*|\*\*|\*|_)(?=[^\s*_])(.{1,2000}?)(?<=[^\s*_/])\1(?![\w*/])")
"""A pair of emphasis marks around at most 2,000 characters, a long emphasised paragraph too (bounded, so a
line of unpaired marks costs time linear in its length)."""
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
"""A code span, matched only from the first backtick of a run (a long run of unpaired backticks is tried once,
not once per backtick)."""
_SENTINELS = str.maketrans("", "", "\ue000\ue001")
_HELD = re.compile("\ue000(\\d+)\ue001")
_NESTING = 3
"""Emphasis nests at most this deep in prose (``**bold *italic* bold**``)."""


def unmarked(text: str) -> str:
    """``text`` without emphasis marks and backticks, each code span's text as written; spaces as they were."""
    spans: list[str] = []

    def hold(span: re.Match[str]) -> str:
        spans.append(span.group(2).strip())
        return f"\ue000{len(spans) - 1}\ue001"  # no mark or word character beside it: emphasis around it pairs

    held = _CODE_SPAN.sub(hold, text.translate(_SENTINELS))  # private-use marks in the text carry nothing
    for _ in range(_NESTING):
        held, found = _EMPHASIS.subn(r"\2", held)
        if not found:
            break

    return _HELD.sub(lambda mark: spans[int(mark.group(1))], held.replace("`", ""))
