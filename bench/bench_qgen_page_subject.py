"""How often read blind questions were usable when their answer is what their page is about.

A known-item question whose answer the page's title gives ("Dagster" on the page "Dagster") is refused by
:func:`kgrag.evaluation.qgen.scope.asks_page_subject`. This bench reads the verdicts of the blind reads
(``bench/data/qgen_blind_verdicts.jsonl.gz``) two ways:

- **the rule itself**, for the reads whose corpora are still on disk (``--corpora DIR``, one folder per
  corpus as the reads used them): each question's source file is loaded as indexing loads it, its
  sentence found, the headings above it taken, and the rule run on them;
- **a proxy for every read**: a word of the answer (three letters or more) in the source file's name (the
  folder's name for an ``index`` or ``README`` page), since most documentation pages are named after their
  subject; the corpora of the early reads are gone, and this needs only the recorded file name.

Both print, per group of reads, how many questions the rule (or proxy) picks out and the share usable among
them and among the rest (95% Wilson intervals).

    HF_HUB_OFFLINE=1 python bench/bench_qgen_page_subject.py --corpora /tmp/reads/c [--show]
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from bench_qgen_shapes import wilson
from kgrag.config import KgragConfig
from kgrag.core.errors import KgragError
from kgrag.documents.loaders import load_path
from kgrag.documents.provenance import authored_title
from kgrag.evaluation.qgen.cloze import Passage
from kgrag.evaluation.qgen.scope import DocumentHeadings, Heading, asks_page_subject, sentence_offset
from kgrag.tuning.qgen_usability import load_verdicts

VERDICTS = Path(__file__).parent / "data" / "qgen_blind_verdicts.jsonl.gz"
GROUPS = ((1, 16), (17, 23), (24, 29), (30, 37), (1, 37))
_INDEX_PAGES = ("index", "readme", "_index")


def read_questions() -> list[dict[str, Any]]:
    """Every read question once: of the reads that read each question with and without its headings
    (12–16), the version with them, as every later read was read."""
    every = load_verdicts(VERDICTS)
    both = {r["read"] for r in every if r.get("version") == "headings"}
    return [r for r in every if not (r["read"] in both and r.get("version") == "plain")]


def file_named_after(row: dict[str, Any]) -> bool:
    """The proxy: a word of the answer in the source file's name (its folder's for an index page)."""
    parts = re.split(r"[/\\]", row["source_file"].lower())
    stem = parts[-1].rsplit(".", 1)[0]
    if stem in _INDEX_PAGES and len(parts) >= 2:
        stem = parts[-2]
    answer_words = {w for w in re.findall(r"[a-z0-9]+", (row["answer"] or "").lower()) if len(w) >= 3}
    return bool(answer_words & set(re.findall(r"[a-z0-9]+", stem)))


def headings_above(path: Path, sentence: str) -> tuple[Heading, ...] | None:
    """The headings the sentence sits under in the file as indexing loads it; None when the file cannot be
    loaded or the sentence is not found in it."""
    try:
        docs = load_path(path, KgragConfig().documents)
    except KgragError:
        return None
    for doc in docs:
        passage = Passage(f"{doc.source}#00000", doc.source, doc.text, 0, authored_title(doc.title, doc.source))
        offset = sentence_offset(doc.text, sentence)
        if offset is not None:
            return DocumentHeadings([passage]).above(passage.doc_id, offset)
    return None


def rule_on_disk(corpora: Path) -> Callable[[dict[str, Any]], bool | None]:
    """The rule as the generator runs it, for the rows whose source file is under ``corpora``."""

    def rule(row: dict[str, Any]) -> bool | None:
        path = corpora / row["corpus"] / row["source_file"]
        above = headings_above(path, row["source"]) if path.is_file() else None
        return None if above is None else asks_page_subject(above, row["answer"] or "")

    return rule


def share(k: int, n: int) -> str:
    """``k`` of ``n`` with its share and 95% Wilson interval."""
    if n == 0:
        return "—"
    low, high = wilson(k, n)
    return f"{k}/{n} = {k / n:.0%} [{low:.0%}, {high:.0%}]"


def report(rows: Iterable[dict[str, Any]], picks: Callable[[dict[str, Any]], bool | None], name: str) -> None:
    """Per group of reads: questions picked out, usable among them and among the rest."""
    seen = [(row, picks(row)) for row in rows]
    print(f"\n{name}")
    print("| reads | questions | picked out | usable, picked out | usable, the rest |")
    print("| --- | ---: | ---: | --- | --- |")
    for low, high in GROUPS:
        counts: Counter[tuple[bool, bool]] = Counter()
        for row, picked in seen:
            if picked is not None and low <= row["read"] <= high:
                counts[picked, row["verdict"] == "usable"] += 1
        picked_n, rest_n = counts[True, True] + counts[True, False], counts[False, True] + counts[False, False]
        if picked_n + rest_n == 0:
            continue
        print(
            f"| {low}–{high} | {picked_n + rest_n} | {picked_n} | {share(counts[True, True], picked_n)} "
            f"| {share(counts[False, True], rest_n)} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpora", type=Path, help="folder with one folder per read corpus")
    parser.add_argument("--show", action="store_true", help="list the questions the rule picks out")
    args = parser.parse_args()
    rows = read_questions()
    report(rows, file_named_after, "proxy: a word of the answer in the source file's name")
    if args.corpora:
        rule = rule_on_disk(args.corpora)
        report(rows, rule, f"the rule (asks_page_subject), questions whose source file is under {args.corpora}")
        if args.show:
            for row in rows:
                if rule(row):
                    print(f"{row['read']} {row['verdict']:10} {row['answer']} | {row['question']}")


if __name__ == "__main__":
    main()
