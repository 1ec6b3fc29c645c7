"""Deterministic synthetic corpora of any size, made from the GraphRAG-Bench Medical corpus.

The Medical corpus is one JSON record of ~1 MB (45 lines, one topic each). A corpus of ``multiplier``
times its size is written as ``.txt`` documents, one source line per document, cycling through the
lines: copy 0 is the original text, copy ``k ≥ 1`` is the same text with

* every integer ``n`` replaced by ``n + k``,
* every mid-sentence capitalised word, every acronym and every lower-case word of 9+ letters (the
  medical terms: ``carcinoma``, ``treatment``) suffixed with a pronounceable tag derived from ``k``
  (``Basal`` → ``Basalra``, ``BCC`` → ``BCCRA``),

so no chunk of a copy shares a content hash with another copy (nothing dedupes, every chunk is embedded
and extracted) and the graph keeps growing with new entities, as a larger real corpus would. A multiplier
below 1 takes the first lines, the last one cut at a sentence end. Documents are written one at a time
(streamed; the 1 MB source is the only text held), so 10M tokens (≈ 40×) costs no more memory than 1×.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

SYLLABLES = ("ra", "to", "mi", "ke", "lu", "sa", "no", "vi")
_NUMBER = re.compile(r"\d+")
_NAME = re.compile(r"(?<=[a-z,;] )[A-Z][a-z]+|\b[A-Z]{2,}\b|\b[a-z]{9,}\b")


def tag(copy: int) -> str:
    """A short letters-only tag unique to ``copy`` (base-8 digits spelled as syllables)."""
    out = ""
    while copy > 0:
        copy, digit = divmod(copy - 1, len(SYLLABLES))
        out = SYLLABLES[digit] + out
    return out


def perturb(text: str, copy: int) -> str:
    """``text`` as copy ``copy`` (0 = unchanged): numbers shifted, names and terms suffixed."""
    if copy == 0:
        return text
    suffix = tag(copy)
    text = _NUMBER.sub(lambda m: str(int(m.group()) + copy), text)
    return _NAME.sub(lambda m: m.group() + (suffix.upper() if m.group().isupper() else suffix), text)


def source_lines(corpus: Path) -> list[str]:
    records = json.loads(corpus.read_text(encoding="utf-8"))
    return [line.strip() for r in records for line in r["context"].split("\n") if line.strip()]


def documents(corpus: Path, multiplier: float) -> Iterator[tuple[str, str]]:
    """(name, text) of the documents of a ``multiplier``× corpus, in order, one at a time."""
    lines = source_lines(corpus)
    budget = int(sum(len(line) for line in lines) * multiplier)
    index = 0
    while budget > 0:
        copy, line_no = divmod(index, len(lines))
        text = perturb(lines[line_no], copy)
        if len(text) > budget:
            cut = text.rfind(". ", 0, budget)
            text = text[: cut + 1] if cut > 0 else text[:budget]
        budget -= len(text)
        yield f"c{copy:03d}-l{line_no:02d}.txt", text
        index += 1


def write_corpus(corpus: Path, multiplier: float, out: Path) -> tuple[int, int]:
    """Write the ``multiplier``× corpus under ``out`` (reused when complete); returns (documents, chars)."""
    done = out / ".complete"
    if done.exists():
        n_docs, chars = (int(x) for x in done.read_text().split())
        return n_docs, chars
    out.mkdir(parents=True, exist_ok=True)
    n_docs = chars = 0
    for name, text in documents(corpus, multiplier):
        (out / name).write_text(text, encoding="utf-8")
        n_docs, chars = n_docs + 1, chars + len(text)
    done.write_text(f"{n_docs} {chars}")
    return n_docs, chars
