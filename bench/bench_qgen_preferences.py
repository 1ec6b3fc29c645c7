"""Were the questions the generator now asks for first read as usable more often than the others?

``kgrag.evaluation.qgen.known_item.preference`` takes candidates in this order: the question names the
headings above its sentence, it keeps every content word of its sentence outside the answer (``whole``),
it has the trusted shape. This bench reads the verdicts of the blind reads
(``bench/data/qgen_blind_verdicts.jsonl.gz``) and prints, with Wilson 95 % intervals, the usable share:

- of the questions read with their headings (``version`` ``headings``) by whether the question names a
  heading and whether it is whole: reads 12–16, on which the preferences were chosen, and the reads
  after them apart;
- of the questions naming a heading, by whether they name the page (its title, or a section "of" it) or
  a section alone, per read too;
- of every question read without headings (reads 1–16, ``version`` ``plain``) by whether it is whole
  and whether it has the trusted shape, overall and per read, with the number of reads in which each
  group led.

Whole is computed as the generator computes it, on the question without its headings.

    python bench/bench_qgen_preferences.py
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_qgen_shapes import wilson
from kgrag.evaluation.qgen.cloze import keeps_whole
from kgrag.evaluation.qgen.quality import trusted_shape
from kgrag.tuning.qgen_usability import load_verdicts

VERDICTS = Path(__file__).parent / "data" / "qgen_blind_verdicts.jsonl.gz"
CHOSEN_AFTER = 16
"""The preferences were chosen on the verdicts of reads up to this one; later reads test them."""
SCOPE = re.compile(r"^In (?:the section “[^”]*”(?: of “[^”]*”)?|“[^”]*”), ")
Row = dict[str, Any]


def headed(row: Row) -> bool:
    return SCOPE.match(row["question"]) is not None


def names_page(row: Row) -> bool:
    """The question names its page: "In “Page”, …" or "In the section “X” of “Page”, …" (not a section
    named alone)."""
    match = SCOPE.match(row["question"])
    return match is not None and not (match.group(0).startswith("In the section") and " of “" not in match.group(0))


def whole(row: Row) -> bool:
    return keeps_whole(row["source"], row["answer"], SCOPE.sub("", row["question"]))


def trusted(row: Row) -> bool:
    return trusted_shape(row["answer"], SCOPE.sub("", row["question"]))


def share(rows: list[Row]) -> str:
    k, n = sum(r["usable"] for r in rows), len(rows)
    lo, hi = wilson(k, n)
    return f"{k} of {n} ({k / max(1, n):.0%} [{lo:.0%}, {hi:.0%}])"


def table(rows: list[Row], first: tuple[str, Callable[[Row], bool]], second: tuple[str, Callable[[Row], bool]]) -> None:
    print(f"| {first[0]} | {second[0]} | usable |\n| --- | --- | ---: |")
    for a in (True, False):
        for b in (True, False):
            group = [r for r in rows if first[1](r) == a and second[1](r) == b]
            print(f"| {'yes' if a else 'no'} | {'yes' if b else 'no'} | {share(group)} |")
    for name, sign in (first, second):
        print(f"| {name}: yes | | {share([r for r in rows if sign(r)])} |")
        print(f"| {name}: no | | {share([r for r in rows if not sign(r)])} |")


def per_read(rows: list[Row], name: str, sign: Callable[[Row], bool]) -> None:
    reads: dict[int, list[Row]] = defaultdict(list)
    for r in rows:
        reads[r["read"]].append(r)
    led = 0
    print(f"\n| read | {name}: yes | {name}: no |\n| ---: | ---: | ---: |")
    for read, group in sorted(reads.items()):
        yes, no = [r for r in group if sign(r)], [r for r in group if not sign(r)]
        rate = [sum(r["usable"] for r in g) / len(g) if g else float("nan") for g in (yes, no)]
        led += rate[0] > rate[1]
        print(
            f"| {read} | {sum(r['usable'] for r in yes)} of {len(yes)} | {sum(r['usable'] for r in no)} of {len(no)} |"
        )
    print(f"{name}: the 'yes' group led in {led} of {len(reads)} reads")


def main() -> None:
    rows = load_verdicts(VERDICTS)
    scoped = [r for r in rows if r["version"] == "headings"]
    plain = [r for r in rows if r["version"] == "plain"]
    before = [r for r in scoped if r["read"] <= CHOSEN_AFTER]
    after = [r for r in scoped if r["read"] > CHOSEN_AFTER]
    print(f"Read with their headings, reads 12-{CHOSEN_AFTER} (the preferences chosen on these): {share(before)}\n")
    table(before, ("names a heading", headed), ("whole", whole))
    print(f"\nRead with their headings, reads {CHOSEN_AFTER + 1} on (after the choice): {share(after)}\n")
    table(after, ("names a heading", headed), ("whole", whole))
    named = [r for r in scoped if headed(r)]
    print("\nQuestions naming a heading: the page named, or a section alone\n")
    for label, rows_ in (
        (f"reads 12-{CHOSEN_AFTER}", [r for r in named if r["read"] <= CHOSEN_AFTER]),
        (f"reads {CHOSEN_AFTER + 1} on", [r for r in named if r["read"] > CHOSEN_AFTER]),
    ):
        print(
            f"- {label}: page named {share([r for r in rows_ if names_page(r)])}; "
            f"section alone {share([r for r in rows_ if not names_page(r)])}"
        )
    per_read(named, "names the page", names_page)
    print(f"\nRead without headings (reads 1-16): {share(plain)}\n")
    table(plain, ("whole", whole), ("trusted shape", trusted))
    per_read(plain, "whole", whole)
    per_read(plain, "trusted shape", trusted)


if __name__ == "__main__":
    main()
