"""A PDF's title: its metadata's, unless that is missing or no title, else the title its first page shows.

Many PDFs carry no title in their metadata (TeX's, unless the author sets one), or one a program filled in
("Microsoft Word - report.docx", "untitled", the file's own name or path). Titled by the file name, a
manual is "R-intro" although its first page says "An Introduction to R". So a missing or such a metadata
title gives way to the first page's first line when that line looks like a title: no page number or date,
3 to 120 characters, mostly letters, no sentence (it ends in no full stop, comma or semicolon, and the next
line does not carry on in lower case), no numbered section ("1 Introduction") and no part's name
("Contents", "Abstract"). Lines are read from the top passing over page numbers and dates only; the first
other line decides, so a page that opens with body text keeps the file name, since a wrong title misleads
more than a file name. Two lines are joined when the first plainly goes on in the second ("A Guide to" /
"Kubernetes", "Osprey:" / "Field Manual"). A line that recurs as a running header
(:func:`kgrag.documents.pdf_text.strip_running_lines`) names a series or a company as often as the
document, so it titles nothing.

The outline (bookmarks) is not read for the title: its first entry is the first chapter or section
("1 Introduction", "Preface"), which is on the first page only in documents without a title page.
"""

from __future__ import annotations

import re
from pathlib import PurePath

from kgrag.documents.pdf_text import PAGE_NUMBER

MAX_TITLE = 120
"""Characters a title may have; a longer first line is a sentence."""

_PRODUCER_TITLE = re.compile(
    r"^(?:microsoft\s+(?:word|powerpoint|excel)\s*-.*|untitled\b.*|document\s*\d*|presentation\s*\d*"
    r"|powerpoint\s+presentation|slide\s*\d+|title|no\s+title|none|null|\(?anonymous\)?)$",
    re.IGNORECASE,
)
_PATH = re.compile(r"^(?:[a-z]:[\\/]|[\\/~]|\.{1,2}[\\/])|\\", re.IGNORECASE)
_FILE_NAME = re.compile(r"\.(?:docx?|odt|rtf|pdf|tex|dvi|ps|indd|pptx?|xlsx?|txt|md|html?|qxd|pages)$", re.IGNORECASE)
_SEPARATORS = re.compile(r"[\s_-]+")
_DATE = re.compile(
    r"^(?:\d{1,4}[-./]\d{1,2}[-./]\d{1,4}"  # 2024-03-01, 1.3.2024
    r"|(?:\d{1,2}\.?\s+)?(?:jan|feb|m[aä]r|apr|ma[iy]|jun|jul|aug|sep|o[ck]t|nov|de[cz])[a-z]{0,6}\.?(?:\s+\d{1,2},?)?"
    r"\s+\d{4})$",  # March 2024, 1 March 2024, Mar. 1, 2024
    re.IGNORECASE,
)
_SECTION = re.compile(r"^\d{1,2}(?:\.\d{1,2})*\.?\s")
_NOT_TITLES = re.compile(
    r"^(?:(?:table\s+of\s+)?contents|abstract|preface|foreword|introduction|index|summary|copyright|confidential"
    r"|draft|acknowledge?ments|chapter|appendix)\W*$|^(?:proceedings\s+of|arxiv:)|://|@",
    re.IGNORECASE,
)
_GOES_ON = re.compile(r"(?::|(?<!\S)(?:a|an|and|for|in|of|on|or|the|to|with|&))$")


def usable_metadata_title(title: object, path: PurePath) -> str:
    """The metadata ``title`` tidied, or "" when it is missing, blank or no title: the file's name or
    stem, a path, a file name, or what a program fills in ("Microsoft Word - x.docx", "untitled")."""
    text = " ".join(title.split()) if isinstance(title, str) else ""
    plain = _SEPARATORS.sub(" ", text).lower()
    if not text or plain in (_SEPARATORS.sub(" ", path.stem).lower(), _SEPARATORS.sub(" ", path.name).lower()):
        return ""
    if _PATH.search(text) or _FILE_NAME.search(text) or _PRODUCER_TITLE.match(text):
        return ""
    return text


def first_page_title(page: str, kept: str) -> str:
    """The title the first page shows (see the module's description), "" when its first line is none;
    ``page`` is the page's text as extracted, ``kept`` the same page without its running lines."""
    lines = [" ".join(line.split()) for line in page.split("\n")]
    lines = [line for line in lines if line and not _dated_or_numbered(line)]
    if not lines or not _titleish(lines[0]):
        return ""
    title, after = lines[0], lines[1] if len(lines) > 1 else ""
    if after[:1].islower():  # a sentence running on: the page opens with body text
        return ""
    if _GOES_ON.search(title):  # "A Guide to": only the next line completes it
        if not _titleish(after) or len(title) + len(after) >= MAX_TITLE:
            return ""
        title = f"{title} {after}"
    kept_lines = {" ".join(line.split()) for line in kept.split("\n")}
    return title if lines[0] in kept_lines else ""


def _dated_or_numbered(line: str) -> bool:
    """Whether ``line`` is a page number ("7", "vii", "Page 1 of 9") or a date alone ("2024-03-01",
    "March 2024", "1 March 2024")."""
    return bool(PAGE_NUMBER.fullmatch(line) or _DATE.match(line))


def _titleish(line: str) -> bool:
    """Whether ``line`` may be a title: its length, mostly letters, no sentence, section or part's name."""
    if not 3 <= len(line) <= MAX_TITLE or line[-1] in ".,;-" or _SECTION.match(line) or _NOT_TITLES.search(line):
        return False
    visible = [ch for ch in line if not ch.isspace()]
    letters = sum(ch.isalpha() for ch in visible)
    return letters >= 2 and letters >= 0.6 * len(visible)
