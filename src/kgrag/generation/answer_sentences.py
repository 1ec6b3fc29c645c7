"""The sentences an LLM-free answer may quote: every sentence of the retrieved passages that can state a
fact (:mod:`.sentence_kinds`), each once, with the words of its passage; a lead-in ending in a colon only
together with the command of the code block it introduces, a table row under its table's first row, and a
list item's short sentence together with the rest of the item ("- matchsynonyms controls whether synonyms are
accepted. Default is false.": the item names what its short sentence is about; "- Incident commander. Owns
the response.": the label names who the sentence is about).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kgrag.core.context import RetrievalResult
from kgrag.documents import split_sentences
from kgrag.documents.words import ordered_content_words
from kgrag.generation.sentence_kinds import is_table_row, states_something
from kgrag.generation.stemming import stem

MIN_SENTENCE_CHARS = 20
ITEM_CHARS = 240  # a list item's sentences are joined up to this length
ITEM_SHORT_WORDS = 5  # ... when one of two neighbours is this short (a label, "Default is false.")
CODE_CHARS = 160  # a command quoted after its lead-in is cut to this many characters, at a word
_ITEM_START = re.compile(r"(?:[-*+•]|\d{1,3}[.)])\s")
_FENCED = re.compile(r"^ {0,3}(`{3,}|~{3,})[^\n]*\n.*?^ {0,3}\1[ \t]*$", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Candidate:
    text: str
    chunk_id: str
    rank: int
    words: frozenset[str]
    passage: frozenset[str]
    source: str = ""  # the passage's text


def sentence_stems(text: str) -> frozenset[str]:
    """The stems of ``text``'s content words: what a sentence is matched against a question's terms with."""
    return frozenset(stem(w) for w in ordered_content_words(text))


def candidates(result: RetrievalResult) -> list[Candidate]:
    """Fact-stating sentences of the retrieved passages, each once, with the words of their passage.
    Entity/relation/report texts are derived from passages (and prefixed with names), so they are used
    only when no passage was retrieved; otherwise the same sentence would come back once per item."""
    passages = [item for item in result.items if item.kind == "chunk"]
    out: list[Candidate] = []
    seen: set[str] = set()
    for rank, item in enumerate(passages or result.items):
        if not item.text:
            continue
        cite = item.chunk_ids[0] if item.chunk_ids else item.id
        passage = sentence_stems(item.text)
        prose = _FENCED.sub(_blank, item.text)  # code states no fact; offsets stay those of the text
        row_above = False
        for start, end in _units(prose):
            sentence = " ".join(prose[start:end].split())
            under_row, row_above = row_above, is_table_row(sentence)
            if "```" in sentence or len(sentence) < MIN_SENTENCE_CHARS or sentence in seen:  # "```": a cut block
                continue
            if not (states_something(sentence) or (row_above and under_row)):  # a row under the header states
                continue
            seen.add(sentence)
            if sentence.endswith(":"):  # "To install it, run this command:" is answered by the code after it
                code = _code_after(item.text, end)
                if not code:
                    continue  # a lead-in to a list or table: quoted alone it answers nothing
                sentence = f"{sentence} {code}"
            out.append(Candidate(sentence, cite, rank, sentence_stems(sentence), passage, item.text))
    return out


def _blank(match: re.Match[str]) -> str:
    """A fenced block as spaces and its line breaks, so that offsets in the prose are offsets in the text."""
    return re.sub(r"[^\n]", " ", match.group(0))


def _units(prose: str) -> list[tuple[int, int]]:
    """The spans of ``prose``'s sentences, a list item's sentence joined to its neighbour in the item when one
    of the two has at most ``ITEM_SHORT_WORDS`` words and the item stays within ``ITEM_CHARS``."""
    spans = split_sentences(prose)
    out: list[tuple[int, int]] = []
    for start, end in spans:
        if out and _same_item(prose, out[-1], start, end):
            out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
    return out


def _same_item(prose: str, previous: tuple[int, int], start: int, end: int) -> bool:
    """Whether the sentence ``start:end`` continues the list item that ``previous`` is (or ends)."""
    first, last = previous
    return (
        _ITEM_START.match(prose, first) is not None
        and "\n\n" not in prose[last:start]
        and _ITEM_START.match(prose, start) is None
        and prose[last - 1 : last] != ":"
        and end - first <= ITEM_CHARS
        and min(len(prose[first:last].split()) - 1, len(prose[start:end].split())) <= ITEM_SHORT_WORDS
    )


def _code_after(text: str, end: int) -> str:
    """The first command or code line of the fenced block right after ``end`` (a sentence introducing it),
    past a content tab's label ("pip", "uv") and the block's comment lines (in a block of nothing but
    ``# `` lines those are a root shell's prompts, so the first is the command), cut at a word within
    ``CODE_CHARS``; "" when no block follows."""
    rest = text[end:].lstrip()
    label, _, after = rest.partition("\n")
    if not rest.startswith(("```", "~~~")) and len(label.split()) <= 2 and after.lstrip().startswith(("```", "~~~")):
        rest = after.lstrip()  # a tab label above the block
    if not rest.startswith(("```", "~~~")):
        return ""
    lines: list[str] = []
    for line in rest.split("\n")[1:]:
        if line.strip().startswith(("```", "~~~")):
            break  # the block ends: the prose after it is no command
        if line.strip():
            lines.append(line.strip())
    code = [line for line in lines if not line.startswith(("# ", "// "))] or lines
    return _cut(code[0]) if code else ""


def _cut(line: str) -> str:
    """``line`` within ``CODE_CHARS`` characters, cut at a space and marked "…" when longer."""
    if len(line) <= CODE_CHARS:
        return line
    head = line[:CODE_CHARS].rsplit(" ", 1)[0]
    return f"{head or line[:CODE_CHARS]} …"
