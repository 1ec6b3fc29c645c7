"""Which shapes of an LLM-free known-item question were read as usable, from the blind reads' verdicts?

Parses every ``docs/results/qgen-blind-read-*.md`` (question, answer, source sentence, verdict), gives each
question coarse shape features a generator can compute without an LLM (the answer's form, the question's
length, the source sentence's form and length, where the answer stands), and prints the usable share per
value of each feature with a 95 % Wilson interval. Then a leave-one-corpus-out check of a shape rule: for
each corpus, the rule (one or two features, each a set of values, keeping at least 20 questions of the other
corpora) with the highest Wilson lower bound on the other corpora is applied to the held-out corpus's
questions; the kept and usable counts are summed over the held-out corpora. Finally the usable share of
the rule the generator uses (:func:`kgrag.evaluation.qgen.quality.trusted_shape`) per corpus.

    python bench/bench_qgen_shapes.py [--reads 'docs/results/qgen-blind-read-*.md'] [--leave-out vuejs]
"""

from __future__ import annotations

import argparse
import glob
import itertools
import math
import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from kgrag.evaluation.qgen.quality import trusted_shape

Row = dict[str, Any]
Rule = tuple[tuple[str, frozenset[Any]], ...]
_NUMBER_WORD = re.compile(r"(?i)(?:one|two|three|four|five|six|seven|eight|nine|ten|hundreds|thousands|millions)\b")
_FUNCTION = frozenset("the a an of in on to for and or by with from at as".split())
MIN_KEPT = 20


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of ``k`` successes in ``n``."""
    if n == 0:
        return 0.0, 1.0
    p, d = k / n, 1 + z * z / n
    centre, half = (p + z * z / (2 * n)) / d, z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return centre - half, centre + half


def read(paths: Sequence[str]) -> list[Row]:
    rows: list[Row] = []
    for path in sorted(paths):
        corpus = path.split("blind-read-")[1].removesuffix(".md")
        for block in re.split(r"\n### \d+\. ", Path(path).read_text(encoding="utf-8"))[1:]:
            field = {k: re.search(rf"- {k}(?: \([^)]*\))?: (.*)", block) for k in ("Question", "Answer", "Source")}
            verdict = re.search(r"- Verdict: \*\*(\w+)\*\*", block)
            if verdict is None or field["Question"] is None or field["Answer"] is None:
                continue
            source = field["Source"].group(1).strip().strip('"') if field["Source"] else ""
            q, a = field["Question"].group(1).strip(), field["Answer"].group(1).strip()
            rows.append({"corpus": corpus, "q": q, "a": a, "src": source, "usable": verdict.group(1) == "usable"})
    return rows


def answer_form(a: str) -> str:
    words = a.split()
    if re.search(r"\d", a) or _NUMBER_WORD.match(a):
        return "number/date"
    if words and words[0][:1].isupper() and all(w[:1].isupper() or w.lower() in _FUNCTION for w in words):
        return "name, one word" if len(words) == 1 else "name, 2+ words"
    return "mixed case" if any(w[:1].isupper() for w in words) else "lower case"


def _opens(r: Row) -> bool:
    return bool(re.sub(r"^(?:The|A|An)\s+", "", r["src"]).lower().startswith(r["a"].lower()))


def _length(n: int, low: int, high: int) -> str:
    return f"<{low}" if n < low else f"{low}-{high}" if n <= high else f">{high}"


FEATURES: dict[str, Callable[[Row], Any]] = {
    "answer form": lambda r: answer_form(r["a"]),
    "question words": lambda r: _length(len(r["q"].split()), 10, 17),
    "source words": lambda r: _length(len(r["src"].split()), 15, 24),
    "copular source (is a/the)": lambda r: bool(re.search(r"\b(?:is|are|was|were)\s+(?:a|an|the|one)\b", r["src"])),
    "answer asked as subject": lambda r: bool(re.match(r"(?i)(?:what|who|which)\b", r["q"])),
    "answer opens the source": _opens,
    "fronted opening": lambda r: bool(re.match(r"^[^,]{1,40},", r["src"])) and not _opens(r),
}


def share(flags: Sequence[bool]) -> str:
    k, n = sum(flags), len(flags)
    lo, hi = wilson(k, n)
    return f"{k}/{n} ({k / max(1, n):.0%}) [{lo:.0%}, {hi:.0%}]"


def keeps(rule: Rule, r: Row) -> bool:
    return all(r[f] in values for f, values in rule)


def rules(rows: Sequence[Row]) -> list[Rule]:
    conditions = []
    for f in FEATURES:
        values = sorted({r[f] for r in rows}, key=str)
        for size in range(1, len(values)):
            conditions += [(f, frozenset(s)) for s in itertools.combinations(values, size)]
    pairs = [(a, b) for a, b in itertools.combinations(conditions, 2) if a[0] != b[0]]
    return [(c,) for c in conditions] + pairs


def lower_bound(rule: Rule, rows: Sequence[Row]) -> float:
    kept = [r["usable"] for r in rows if keeps(rule, r)]
    return wilson(sum(kept), len(kept))[0] if len(kept) >= MIN_KEPT else -1.0


def shown(rule: Rule) -> str:
    return " and ".join(f"{f} in {{{', '.join(sorted(map(str, v)))}}}" for f, v in rule)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reads", default="docs/results/qgen-blind-read-*.md")
    parser.add_argument("--leave-out", default="", help="Corpora (comma-separated) not to use at all.")
    args = parser.parse_args()
    rows = [r for r in read(glob.glob(args.reads)) if r["corpus"] not in args.leave_out.split(",")]
    for r in rows:
        r.update({f: fn(r) for f, fn in FEATURES.items()})
    print(f"all: {share([r['usable'] for r in rows])}")
    for f in FEATURES:
        groups: dict[str, list[bool]] = defaultdict(list)
        for r in rows:
            groups[str(r[f])].append(r["usable"])
        print(f"\n| {f} | usable [95% Wilson] |\n| --- | ---: |")
        for value, flags in sorted(groups.items()):
            print(f"| {value} | {share(flags)} |")
    candidates, held = rules(rows), []
    print("\n| held out | rule chosen on the others | kept of held out | usable of kept |\n| --- | --- | ---: | ---: |")
    for corpus in sorted({r["corpus"] for r in rows}):
        train = [r for r in rows if r["corpus"] != corpus]
        best = max(candidates, key=lambda rule: lower_bound(rule, train))
        test = [r for r in rows if r["corpus"] == corpus]
        kept = [r["usable"] for r in test if keeps(best, r)]
        held += kept
        print(f"| {corpus} | {shown(best)} | {len(kept)}/{len(test)} | {sum(kept)}/{len(kept)} |")
    print(f"\nheld-out usable share of the rule: {share(held)}")
    print("\n| corpus | trusted shape: usable | other: usable |\n| --- | ---: | ---: |")
    for corpus in [*sorted({r["corpus"] for r in rows}), "all"]:
        test = [r for r in rows if corpus in ("all", r["corpus"])]
        trusted = [r["usable"] for r in test if trusted_shape(r["a"], r["q"])]
        other = [r["usable"] for r in test if not trusted_shape(r["a"], r["q"])]
        print(f"| {corpus} | {share(trusted)} | {share(other)} |")


if __name__ == "__main__":
    main()
