"""The headings a known-item question's sentence sits under, named in the question.

A sentence lifted from a documentation page leans on the page for what it is about: "The session interface
provides a simple way to replace the session implementation" is clear under the heading "Session Interface" of
the page "API", and asked on its own it can have several answers in a corpus of many pages. The headings above
the sentence say what the page is about in its author's words, so the question names them: "In the section
“Session Interface” of “API”, what provides a simple way to replace the session implementation?".

A heading is named only when it helps and gives nothing away: it is plain words (1 to
:data:`MAX_HEADING_WORDS`, no code, not trailing off in "…"), shares no word with the answer (nor a form of
one: "cultures" for "culture") and does not hold it or its acronym ("CORS" for "Cross-Origin Resource
Sharing"), says something the question does not already say, and is not a generic label ("Overview",
"Examples", "Warning"). Of the headings left, the innermost is named, with the outermost (the page's title)
when there are two or more (a title too long to name by its numbered lead, "F# RFC FS-1021": :func:`shortened`);
a section heading that many places share ("Arguments" on every component's page) is named with a heading that
tells its place apart (:mod:`kgrag.evaluation.qgen.sections`). A top-level heading that more than
:data:`TEMPLATE_PLACES` documents hold besides their title ("# Motivation" in every RFC) is a template's
section of each document, not a title that closes the one before it. A sentence under
no such heading (a book without headings, a page whose every heading holds the answer) keeps its question as
it is.

Headings are the document's title (front matter, a first heading, an HTML ``<title>``; not a title that is
only the file's name: :func:`kgrag.documents.provenance.authored_title`; when the page's first heading gave it,
a later heading of that level closes it) and its heading lines outside fenced
code (:mod:`kgrag.documents.headings`, found on the document's text rebuilt from its chunks, so a chunk that
starts below its heading still gets it).
"""

from __future__ import annotations

import bisect
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from kgrag.documents.headings import covered_text, heading_lines
from kgrag.documents.words import content_words
from kgrag.evaluation.qgen.giveaway import acronym_given, joined_given
from kgrag.evaluation.qgen.located import Chunk
from kgrag.evaluation.qgen.markup import unmarked

MAX_HEADING_WORDS = 10
STEM_CHARS, STEM_SHARE = 5, 0.8
LOCATE_TOKENS = 6
TEMPLATE_PLACES = 5
"""More documents than a site keeps versions of one page: a top-level heading this many more documents share is
a template's section ("# Motivation" in every RFC of a proposals repository), not a page's title."""
_NUMBERED_LEAD = re.compile(r"^(.*?\d[^\s]*)\s+[-–—]\s+\S|^(.*?\d[^\s:]*):\s+\S")
"""A title's lead up to its first dash or colon, ending in a number: "F# RFC FS-1021" of "F# RFC FS-1021 - Support
Interop with ValueTask in Async Type", "KEP-2104" of "KEP-2104: Reworking kube-proxy's architecture"."""
GENERIC = frozenset(
    "introduction overview summary note notes example examples usage details background conclusion contents "
    "index faq reference references tutorial guide more information further reading see also appendix misc "
    "miscellaneous general basics description others other changes changelog table of glossary terminology "
    "definitions new bug bugs fix fixes fixed feature features improvement improvements improved deprecation "
    "deprecations deprecated removal removals removed breaking release releases highlights news trivial "
    "internal documentation warning warnings caution important attention danger tip tips hint hints".split()
)
"""Heading words that name no subject: a heading made only of them is not named (a changelog's "Bug
Fixes" and "Improved Documentation" repeat under every release; a "Warning" box's heading)."""
_CODE = re.compile(r"\w\.\w|_|[(){}\[\]<>=/\\|]|::|\$|@|`")
_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class Heading:
    """One heading line: its level (1 for ``#``) and its text without markup."""

    level: int
    text: str


class DocumentHeadings:
    """The headings of every document, by position, found on the text its chunks cover."""

    def __init__(self, chunks: Iterable[Chunk]) -> None:
        pieces: dict[str, list[tuple[int, str]]] = defaultdict(list)
        self._titles: dict[str, str] = {}
        for chunk in chunks:
            pieces[chunk.doc_id].append((chunk.start, chunk.text))
            self._titles[chunk.doc_id] = " ".join(chunk.title.split())
        self._offsets: dict[str, list[int]] = {}
        self._headings: dict[str, list[Heading]] = {}
        self._opening: dict[str, tuple[Heading, ...]] = {}
        self._paths: dict[str, list[tuple[Heading, ...]]] = {}
        found_by_doc = {}
        for doc_id, parts in pieces.items():
            start, text = covered_text(parts)
            found_by_doc[doc_id] = [
                (line.offset, Heading(line.level, _plain(line.text))) for line in heading_lines(text, start)
            ]
        templates = _template_sections(found_by_doc, self._titles)
        for doc_id, found in found_by_doc.items():
            found = [(o, Heading(2, h.text) if heading_key(h.text) in templates else h) for o, h in found]
            self._offsets[doc_id] = [offset for offset, heading in found if heading.text]
            self._headings[doc_id] = [heading for _, heading in found if heading.text]
            self._opening[doc_id], self._paths[doc_id] = _walk(self._titles[doc_id], self._headings[doc_id])

    def above(self, doc_id: str, offset: int) -> tuple[Heading, ...]:
        """The headings in force at ``offset`` of the document, outermost first (:func:`_walk`)."""
        found = bisect.bisect_right(self._offsets.get(doc_id, []), offset)
        return self._paths[doc_id][found - 1] if found else self._opening.get(doc_id, ())

    def paths(self) -> Iterator[tuple[Heading, ...]]:
        """Every heading's path, as :meth:`above` gives it at the heading itself (so the heading comes last);
        a heading repeating the title gives none."""
        for doc_id, headings in self._headings.items():
            title = self._titles[doc_id]
            yield from (
                path for heading, path in zip(headings, self._paths[doc_id], strict=True) if heading.text != title
            )


def heading_key(text: str) -> str:
    """A heading's text as headings are compared across documents: case folded, spaces collapsed."""
    return " ".join(text.casefold().split())


def _template_sections(found: dict[str, list[tuple[int, Heading]]], titles: dict[str, str]) -> set[str]:
    """The top-level headings more than :data:`TEMPLATE_PLACES` documents hold besides their title: a template's
    sections, read as sections of the document's title (level 2) rather than as titles that close it."""
    documents: Counter[str] = Counter()
    for doc_id, headings in found.items():
        title = heading_key(titles.get(doc_id, ""))
        documents.update({heading_key(h.text) for _, h in headings if h.level <= 1 and h.text} - {title})
    return {text for text, count in documents.items() if count > TEMPLATE_PLACES}


def shortened(heading: Heading) -> Heading:
    """A title too long to name (over :data:`MAX_HEADING_WORDS` words) by its numbered lead, when it has one
    ("F# RFC FS-1021" of "F# RFC FS-1021 - Support Interop with ValueTask in Async Type"); else as it is."""
    if heading.level > 1 or len(heading.text.split()) <= MAX_HEADING_WORDS:
        return heading
    match = _NUMBERED_LEAD.match(heading.text)
    lead = next((g for g in match.groups() if g), "") if match else ""
    return Heading(heading.level, lead) if 1 <= len(lead.split()) <= MAX_HEADING_WORDS // 2 else heading


def _walk(title: str, headings: Sequence[Heading]) -> tuple[tuple[Heading, ...], list[tuple[Heading, ...]]]:
    """The path a document opens with and the path in force after each of its ``headings``, outermost first:
    the title, then one heading per level, a heading closing every deeper one before it; a heading repeating
    the title (the page's first heading) is left out. The title is at level 0, or at the level of the page's
    first heading when that heading is the title, so that a later heading of that level closes it (a page of
    several ``#`` sections titled by its first: "Application" is not a section of "Installation")."""
    first = headings[0] if headings else None
    opening: tuple[Heading, ...] = ()
    if title:
        opening = (Heading(first.level if first is not None and first.text == title else 0, title),)
    path, after = opening, []
    for heading in headings:
        if heading.text != title:
            path = (*(h for h in path if h.level < heading.level), heading)
        after.append(path)
    return opening, after


def _plain(text: str) -> str:
    """A heading's words without emphasis marks and backticks, its code as written (:func:`unmarked`)."""
    return " ".join(unmarked(text).split())


def sentence_offset(text: str, sentence: str) -> int | None:
    """Where ``sentence`` (as question generation cleaned it: markup gone, spaces collapsed) starts in a
    chunk's ``text``: its first :data:`LOCATE_TOKENS` runs of letters and digits, with anything else
    between them; None when they are not found."""
    tokens = _WORD.findall(sentence)[:LOCATE_TOKENS]
    match = re.search(r"[\W_]*".join(re.escape(t) for t in tokens), text) if tokens else None
    return match.start() if match else None


def _singular(word: str) -> str:
    """An English plural's singular by its spelling ("ferries" → "ferry", "boxes" → "box"); other words as
    they are."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ses", "xes", "zes", "ches", "shes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) >= 3:
        return word[:-1]  # three letters too: an acronym's plural ("IPs", "VMs")
    return word


def _gerund_base(word: str) -> str:
    """A word in "-ing" without it, a doubled last consonant undone ("pairing" → "pair", "logging" → "log");
    other words, and "-ing" words of five letters or fewer ("thing", "using"), as they are."""
    if not word.endswith("ing") or len(word) <= 5:
        return word
    base = word[:-3]
    return base[:-1] if len(base) >= 4 and base[-1] == base[-2] and base[-1] not in "aeiouls" else base


def _same_stem(a: str, b: str) -> bool:
    """Whether two words are forms of one ("ferry", "ferries"; "binary", "binaries"; "virtualenv",
    "virtualenvs"; "pair", "pairing"): the same singular or "-ing" base, or a shared prefix of
    :data:`STEM_CHARS` characters or more that is most of the shorter word."""
    if _singular(a) == _singular(b) or _singular(_gerund_base(a)) == _singular(_gerund_base(b)):
        return True
    common = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return common >= STEM_CHARS and common >= STEM_SHARE * min(len(a), len(b))


def gives_answer(heading: Heading, answer: str) -> bool:
    """Whether a heading holds the answer, a form of one of its words ("cultures" for "culture"), its
    acronym ("CORS" for "Cross-Origin Resource Sharing") or its one word written as two ("Data Trail")."""
    words, answer_words = content_words(heading.text), content_words(answer)
    return (
        any(_same_stem(w, a) for w in words for a in answer_words)
        or answer.lower() in heading.text.lower()
        or acronym_given(answer, heading.text)
        or joined_given(answer, heading.text)
    )


def names_place(heading: Heading, answer: str, question: str, code: bool = False) -> bool:
    """Whether a heading is named in the question (module docstring); ``code=True`` lets a heading written
    as code be named (:mod:`kgrag.evaluation.qgen.sections`)."""
    words = content_words(heading.text)
    return (
        1 <= len(heading.text.split()) <= MAX_HEADING_WORDS
        and (code or not _CODE.search(heading.text))
        and not heading.text.endswith(("...", "…"))
        and bool(words - GENERIC)
        and not gives_answer(heading, answer)
        and bool(words - content_words(question))
    )


def asks_page_subject(headings: Sequence[Heading], answer: str) -> bool:
    """Whether the answer is what the sentence's page is about: the page's title (its outermost heading of
    level 0 or 1, :meth:`DocumentHeadings.above`) gives the answer (:func:`gives_answer`), as "Dagster" on
    the page "Dagster" of a site with a page for each of several tools. Such a question cannot name its
    page, and the sentence is mostly the page's one-line account of its subject, which reads as well of
    the subjects of sibling pages ("a modern Python data orchestration platform"); read blind, such
    questions were usable markedly less often than the rest (``docs/results/qgen-llm-free.md``)."""
    page = _page(headings)
    return page is not None and gives_answer(page, answer)


def _page(headings: Sequence[Heading]) -> Heading | None:
    """The page's title among ``headings``: its first heading of level 0 or 1."""
    return next((h for h in headings if h.level <= 1), None)


def outer_section_named(headings: Sequence[Heading], named: Sequence[Heading], answer: str) -> bool:
    """Whether a question naming ``named`` (:func:`named_headings`) would name a section around the sentence's
    own one because its own heading gives the answer ("Sharding" under "Creating volumes with kubectl
    (sharding)" asked "In the section “Access Modes”"): the heading right above the sentence, not the page's
    title (its first heading of level 0 or 1, as :func:`asks_page_subject` reads it), gives the answer, and
    another heading than the page's title is named instead: a section about something else. With the page's
    title alone named, or no heading, the question stays."""
    page = _page(headings)
    inner = headings[-1] if headings else None
    if inner is None or inner is page or not gives_answer(inner, answer):
        return False
    return any(h is not page for h in named)


def named_headings(question: str, headings: Sequence[Heading], answer: str) -> tuple[Heading, ...]:
    """The headings the question names, outermost first (module docstring): the innermost of those that
    may be named, after the outermost when there are two or more; none when no heading may be."""
    named = [short for h in headings if names_place(short := shortened(h), answer, question)]
    if len(named) >= 2:
        return (named[0], named[-1])
    return tuple(named)


def names_page(named: Sequence[Heading]) -> bool:
    """Whether a question naming ``named`` (:func:`named_headings`) says which page its sentence is on: it
    names the page's title or a top-level heading, or a section of another heading ("In the section “X”
    of “Y”"). A section named alone ("Maintenance", "Third party packages") often recurs on other pages of
    a site, and read blind such questions were usable no more often than those naming no heading."""
    return len(named) >= 2 or (len(named) == 1 and named[0].level <= 1)


def opens_with_name(question: str, sent: Any) -> bool:
    """Whether the question's first word is a name that keeps its capital after a heading lead: a proper noun
    of its sentence (a possessive too: "Scout's"; a title with its dot, "Mr. Kennon"), or a word with a capital
    after its first letter, which no common word has ("OSS-Fuzz", "UUIDs", "GitHub")."""
    head = _WORD.search(question.split()[0])
    if head is None:
        return False
    names = {t.text.rstrip(".") for t in sent if t.pos_ == "PROPN"}  # "Mr." is the word "Mr" and its dot
    return any(ch.isupper() for ch in head.group()[1:]) or head.group() in names


def scoped_body(question: str, name_first: bool) -> str:
    """``question`` as it reads after the headings that open it (:func:`scoped_question`): its first letter
    lower-cased, unless it opens with a name (``name_first``), which keeps its capital."""
    return question if name_first else question[:1].lower() + question[1:]


def scoped_question(question: str, named: Sequence[Heading], name_first: bool) -> str:
    """``question`` opened with the headings :func:`named_headings` chose; unchanged when there are none.
    ``name_first``: the question opens with a name, which keeps its capital."""
    if not named:
        return question
    body = scoped_body(question, name_first)
    inner = named[-1]
    if len(named) >= 2:
        return f"In the section “{inner.text}” of “{named[0].text}”, {body}"
    if inner.level <= 1:
        return f"In “{inner.text}”, {body}"
    return f"In the section “{inner.text}”, {body}"


_SCOPE_LEAD = re.compile(r"^In (?:the section )?“[^”]*”(?: of “[^”]*”)?, ")
"""The lead :func:`scoped_question` writes, in each of its three forms."""


def unscoped(question: str) -> str:
    """``question`` without the headings that open it ("In the section “X” of “Y”, …"): the inverse of
    :func:`scoped_question` but for the first letter's case."""
    return _SCOPE_LEAD.sub("", question, count=1)
