"""Does a small local model, asked the question with no passage, tell the trivial read questions apart?

A known-item question is trivial when anyone could answer it without the corpus ("302" for "Found",
"Unicode" for UTF-8). A closed-book probe asks a model each question alone; a question whose answer the
model gives would be refused. This bench asks every question of the blind reads
(``bench/data/qgen_blind_verdicts.jsonl.gz``) of an OpenAI-compatible server (``make llm-check``'s llama.cpp
server with Qwen2.5-Coder-0.5B, for one), caches the replies, and prints per group of reads how many
questions of each verdict the probe would refuse and the share usable before and after.

A reply gives the answer when it holds every content word of the answer (every word, for an answer with
no content word), so "the United States" is given by "United States" and "302" is not by "403".

    python bench/bench_qgen_closed_book.py --base-url http://127.0.0.1:PORT/v1 --cache replies.jsonl
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

from openai import OpenAI

from bench_qgen_page_subject import read_questions, share
from kgrag.documents.words import content_words

GROUPS = ((1, 23), (24, 29), (30, 33), (1, 33))
LAST_READ = 33
"""The reads asked (those of the figures in ``docs/results/qgen-llm-free.md``); ``--last-read`` asks more."""
ASK = (
    "Answer the question from general knowledge in as few words as possible: a name, term or number only. "
    "If you do not know, say: unknown."
)
MAX_TOKENS = 16


def _key(row: dict[str, Any]) -> str:
    return f"{row['read']}/{row['corpus']}/{row['number']}/{row.get('version') or ''}"


def gives(answer: str, reply: str) -> bool:
    """Whether ``reply`` holds the answer (module docstring)."""
    wanted = content_words(answer) or set(re.findall(r"[a-z0-9]+", answer.lower()))
    said = content_words(reply) | set(re.findall(r"[a-z0-9]+", reply.lower()))
    return bool(wanted) and wanted <= said


def replies(rows: list[dict[str, Any]], base_url: str, cache: Path) -> dict[str, str]:
    """The model's reply to each question, asked once (temperature 0) and cached in ``cache``."""
    known = {}
    if cache.exists():
        known = {r["key"]: r["reply"] for r in map(json.loads, cache.read_text(encoding="utf-8").splitlines())}
    client = OpenAI(base_url=base_url, api_key="none")
    with cache.open("a", encoding="utf-8") as sink:
        for i, row in enumerate(rows):
            if (key := _key(row)) in known:
                continue
            messages = [{"role": "system", "content": ASK}, {"role": "user", "content": row["question"]}]
            reply = client.chat.completions.create(
                model="local", messages=messages, temperature=0, max_tokens=MAX_TOKENS, seed=0
            )
            known[key] = reply.choices[0].message.content or ""
            sink.write(json.dumps({"key": key, "reply": known[key]}) + "\n")
            if i % 100 == 0:
                print(f"{i} of {len(rows)} asked", flush=True)
    return known


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base-url", required=True, help="OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1")
    parser.add_argument("--cache", type=Path, required=True, help="JSONL of replies, read and extended")
    parser.add_argument("--last-read", type=int, default=LAST_READ, help="the last read whose questions are asked")
    args = parser.parse_args()
    rows = [r for r in read_questions() if r["read"] <= args.last_read]
    said = replies(rows, args.base_url, args.cache)
    print("| reads | questions | refused, by verdict | usable before | usable after |")
    print("| --- | ---: | --- | --- | --- |")
    for low, high in GROUPS:
        these = [r for r in rows if low <= r["read"] <= high]
        refused = [r for r in these if gives(r["answer"] or "", said[_key(r)])]
        by_verdict: Counter[str] = Counter(r["verdict"] for r in refused)
        totals: Counter[str] = Counter(r["verdict"] for r in these)
        cells = ", ".join(f"{v} {by_verdict[v]}/{totals[v]}" for v in sorted(totals))
        usable, left = totals["usable"], len(these) - len(refused)
        print(
            f"| {low}–{high} | {len(these)} | {cells} | {share(usable, len(these))} "
            f"| {share(usable - by_verdict['usable'], left)} |"
        )


if __name__ == "__main__":
    main()
