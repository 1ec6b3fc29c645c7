"""A PDF page's text without the footnote marks of its body text.

TeX and word processors set a footnote's mark as a small number raised above the line, right after the
word it annotates. A PDF's text layer knows no raising, so the mark runs into the word ("a suitable1 tar",
"spaces.2 Choose"): the word then matches neither a query nor the same word elsewhere, and a sentence
quoted in an answer carries a number it does not have.

pypdf reports each run of text it extracts with its font size and text matrix (``visitor_text``), so a
run's size on the page and its baseline are known. A run of one to three digits is a footnote mark when
it is smaller than the text before it on its line and raised above that text's baseline by less than a
line (:func:`footnote_marks`), and the same page opens a line, lower down, with the same number set as
small and raised the same way above the text after it: the footnote itself. Without that footnote the
raised number is an exponent (2³¹, R², x²) and stays as it is; a mark is never guessed from digits after
letters, which "utf8", "base64" or "R2" have too.

The mark is dropped rather than kept apart with a space: the footnote at the page's foot keeps its
number, while a number set apart inside the sentence would read as one of its words.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

SMALLER = 0.9
"""A mark's size is below this share of the size of the text it is set against."""
RISE = (0.15, 0.6)
"""A mark's baseline is above that of the text it is set against by more than the first and less than the
second share of that text's size: a superscript, not the next line."""

_MARK = re.compile(r"\s*(\d{1,3})\s*")
_DIGITS = re.compile(r"\d+")


@dataclass(frozen=True)
class Run:
    """A run of text as pypdf extracts it: the text, its font size on the page and the height of its
    baseline; ``size`` is 0 for text not set upright, which is never taken for a mark."""

    text: str
    size: float
    baseline: float


def page_text(page: Any) -> str:
    """A pypdf page's text as ``extract_text`` gives it, less the footnote marks of its body text; as
    extracted when it has none, or when the runs pypdf reports do not add up to its text. With a visitor
    pypdf also parses content that shows no text (a figure), so where that content is damaged the page is
    read again without one, as a page that reads without marks taken out still reads."""
    runs: list[Run] = []

    def visit(text: Any, cm: Any, tm: Any, font: Any, size: Any) -> None:
        runs.append(_run(text, cm, tm, size))

    try:
        text: str = page.extract_text(visitor_text=visit) or ""
    except Exception:  # damaged content that only a visitor makes pypdf parse: pypdf raises many types
        return page.extract_text() or ""
    marks = footnote_marks(runs)
    if not marks or "".join(run.text for run in runs) != text:
        return text
    return "".join(_DIGITS.sub("", run.text, count=1) if index in marks else run.text for index, run in enumerate(runs))


def _run(text: Any, cm: Any, tm: Any, size: Any) -> Run:
    """The :class:`Run` pypdf's visitor reports: ``tm`` the text matrix, ``cm`` the transformation matrix."""
    text = str(text)
    try:
        a, b, c, d, f = _placed(list(map(float, tm)), list(map(float, cm)))
        upright = a > 0 and d > 0 and abs(b) < 1e-6 and abs(c) < 1e-6
        return Run(text, float(size) * d if upright else 0.0, f)
    except (TypeError, ValueError, IndexError):  # a matrix pypdf could not read: the run is plain text
        return Run(text, 0.0, 0.0)


def _placed(tm: list[float], cm: list[float]) -> tuple[float, float, float, float, float]:
    """The scale and shear entries and the vertical offset of ``tm`` times ``cm``: where text lands on the page."""
    return (
        tm[0] * cm[0] + tm[1] * cm[2],
        tm[0] * cm[1] + tm[1] * cm[3],
        tm[2] * cm[0] + tm[3] * cm[2],
        tm[2] * cm[1] + tm[3] * cm[3],
        tm[4] * cm[1] + tm[5] * cm[3] + cm[5],
    )


def footnote_marks(runs: list[Run]) -> set[int]:
    """Indices of the runs that are footnote marks inside a line of text, each matched by a footnote that
    opens a line lower on the page with the same number (see the module's description)."""
    in_lines: dict[str, list[int]] = defaultdict(list)  # number → raised runs inside a line
    notes: dict[str, list[Run]] = defaultdict(list)  # number → raised runs opening a line
    shown = [index for index, run in enumerate(runs) if run.text.strip()]
    starts = _line_starts(runs)
    for position, index in enumerate(shown):
        match = _MARK.fullmatch(runs[index].text)
        if not match:
            continue
        if index in starts:
            if position + 1 < len(shown) and _raised(runs[index], runs[shown[position + 1]]):
                notes[match.group(1)].append(runs[index])
        elif position and _raised(runs[index], runs[shown[position - 1]]):
            in_lines[match.group(1)].append(index)
    return {
        index
        for number, indices in in_lines.items()
        if len(indices) <= len(notes[number])
        for index in indices
        if any(_footnote_of(note, runs[index]) for note in notes[number])
    }


def _line_starts(runs: list[Run]) -> set[int]:
    """Indices of the runs that open a line of the extracted text."""
    starts: set[int] = set()
    ended = True
    for index, run in enumerate(runs):
        if ended:
            starts.add(index)
        if run.text:
            ended = run.text.endswith("\n")
    return starts


def _raised(mark: Run, text: Run) -> bool:
    """Whether ``mark`` is set as a superscript against ``text``: smaller, and raised less than a line."""
    rise = mark.baseline - text.baseline
    return 0 < mark.size < SMALLER * text.size and RISE[0] * text.size < rise < RISE[1] * text.size


def _footnote_of(note: Run, mark: Run) -> bool:
    """Whether ``note``, a number opening a line, can be the footnote of ``mark``: as large, and lower down."""
    return abs(note.size - mark.size) <= (1 - SMALLER) * mark.size and note.baseline < mark.baseline
