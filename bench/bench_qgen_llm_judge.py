"""Can an LLM tell which LLM-free generated questions a blind reader found usable?

The blind reads (``docs/results/qgen-blind-read-*.md``, parsed by :func:`bench_qgen_shapes.read`) give a
verdict for every question the LLM-free generator asked on eleven corpora. This bench asks a chat model
two yes/no questions about each read question and takes the difference of the log-probabilities of its
first reply token being "Yes" and "No" (``top_logprobs``; a token missing from the top 20 counts at the
20th's value) as a score:

- ``alone``: the question only: is it well-formed, self-contained and single-answered?
- ``with source``: the question, its source sentence and the intended answer: the same, judged with
  what the generator used.

No score is fitted, so nothing is tuned on the verdicts: a score is worth keeping as a filter only if it
ranks usable questions above the rest (the AUC, with a percentile bootstrap interval over questions) and
if the 10 best-scored of each read's 25 are usable more often than all 25 (precision, Wilson interval).

Against a running OpenAI-compatible server::

    .venv/bin/python bench/bench_qgen_llm_judge.py --base-url http://127.0.0.1:8000/v1 --model NAME

or with the project's local model (``make llm-check`` builds both first)::

    .venv/bin/python bench/bench_qgen_llm_judge.py --server-python .llm-venv/bin/python \\
        --gguf .llm-models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf
"""

from __future__ import annotations

import argparse
import glob
import json
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from openai import OpenAI

from bench_qgen_shapes import read, wilson
from llm_check import add_server_options, chat_server

PROMPTS: dict[str, str] = {
    "alone": (
        "A quiz about a set of documents needs questions that a reader of the whole set can answer without "
        "being told which page a question came from.\n\nQuestion: {q}\n\nIs this question well-formed English, "
        "does it name what it asks about, and does it have exactly one answer? Reply Yes or No."
    ),
    "with source": (
        "A quiz question was written from one sentence of a set of documents.\n\nSentence: {s}\nQuestion: {q}\n"
        "Intended answer: {a}\n\nIs the question well-formed English, understandable without the sentence, and is "
        "the intended answer its only answer? Reply Yes or No."
    ),
}
PER_READ_TOP = 10
RESAMPLES = 2000


def yes_minus_no(client: OpenAI, model: str, prompt: str) -> float:
    """log P("Yes") − log P("No") for the reply's first token."""
    reply = client.chat.completions.create(
        model=model, messages=[{"role": "user", "content": prompt}], max_tokens=1, temperature=0.0,
        logprobs=True, top_logprobs=20,
    )  # fmt: skip
    content = reply.choices[0].logprobs.content if reply.choices[0].logprobs else None
    if not content:
        raise SystemExit("the server returned no logprobs; it cannot be measured this way")
    top = {t.token.strip().lower(): t.logprob for t in reversed(content[0].top_logprobs)}
    floor = min(top.values())
    return top.get("yes", floor) - top.get("no", floor)


def auc(scores: Sequence[float], usable: Sequence[bool]) -> float:
    """The probability that a usable question outscores an unusable one (ties count half)."""
    pos = [s for s, u in zip(scores, usable, strict=True) if u]
    neg = [s for s, u in zip(scores, usable, strict=True) if not u]
    if not pos or not neg:
        return float("nan")
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def auc_interval(scores: Sequence[float], usable: Sequence[bool]) -> tuple[float, float]:
    rng = random.Random(0)
    n, draws = len(scores), []
    for _ in range(RESAMPLES):
        idx = [rng.randrange(n) for _ in range(n)]
        draws.append(auc([scores[i] for i in idx], [usable[i] for i in idx]))
    draws = sorted(d for d in draws if d == d)
    return draws[int(0.025 * len(draws))], draws[int(0.975 * len(draws)) - 1]


def top_per_read(rows: list[dict[str, Any]], key: str) -> tuple[int, int]:
    kept = usable = 0
    for corpus in sorted({r["corpus"] for r in rows}):
        mine = sorted((r for r in rows if r["corpus"] == corpus), key=lambda r: -r["score"][key])[:PER_READ_TOP]
        kept += len(mine)
        usable += sum(r["usable"] for r in mine)
    return usable, kept


def report(rows: list[dict[str, Any]]) -> None:
    usable = [r["usable"] for r in rows]
    k = sum(usable)
    lo, hi = wilson(k, len(rows))
    print(f"{len(rows)} read questions from {len({r['corpus'] for r in rows})} reads; usable {k} "
          f"({k / len(rows):.0%} [{lo:.0%}, {hi:.0%}])")  # fmt: skip
    print("| score | AUC [95% CI] | reads with AUC > 0.5 | usable among each read's best 10 [95% CI] |")
    print("| --- | --- | ---: | --- |")
    for key in PROMPTS:
        scores = [r["score"][key] for r in rows]
        a, (alo, ahi) = auc(scores, usable), auc_interval(scores, usable)
        above = sum(
            auc([r["score"][key] for r in rows if r["corpus"] == c], [r["usable"] for r in rows if r["corpus"] == c])
            > 0.5
            for c in {r["corpus"] for r in rows}
        )
        u, n = top_per_read(rows, key)
        plo, phi = wilson(u, n)
        print(f"| {key} | {a:.3f} [{alo:.3f}, {ahi:.3f}] | {above} of {len({r['corpus'] for r in rows})} | "
              f"{u} of {n} ({u / n:.0%} [{plo:.0%}, {phi:.0%}]) |")  # fmt: skip


def score_all(rows: list[dict[str, Any]], ask: Callable[[str], float]) -> None:
    for i, r in enumerate(rows, 1):
        r["score"] = {key: ask(p.format(q=r["q"], s=r["src"], a=r["a"])) for key, p in PROMPTS.items()}
        if i % 25 == 0:
            print(f"{i}/{len(rows)} scored", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reads", default="docs/results/qgen-blind-read-*.md")
    add_server_options(parser)
    parser.add_argument("--out", type=Path, help="write every question with its scores as JSON")
    args = parser.parse_args()
    rows = read(glob.glob(args.reads))
    if not rows:
        raise SystemExit(f"no blind-read questions found in {args.reads}")
    with chat_server(args, 2048) as url:
        client = OpenAI(base_url=url, api_key="none", timeout=120)
        score_all(rows, lambda prompt: yes_minus_no(client, args.model, prompt))
    report(rows)
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
