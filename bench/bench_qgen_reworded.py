"""Do LLM-free questions rank pipelines more like hand-written ones once a model rewords them?

LLM-free known-item questions are cut from one sentence, so they share most of their words with the
passage that answers them, which favours lexical retrieval. This bench generates the set ``kgrag eval
qgen --llm none`` would (the quality floor, ``--best`` per kind), asks a chat model to reword each question
without its source sentence's wording, and runs evidence recall@k with each pipeline on the hand-written
questions, the generated ones and the reworded ones. It prints:

- how many replies were usable rewordings (one question, not the original, the answer not in it); the
  others keep the original wording, so both generated sets hold the same questions;
- the share of each question's content words found in its evidence passage, before and after;
- each set's mean recall per pipeline and Kendall τ with the hand-written ranking, with the paired
  bootstrap difference τ(reworded) − τ(generated) (the generated indices drawn once for both).

    HF_HUB_OFFLINE=1 .venv/bin/python bench/bench_qgen_reworded.py WS QUESTIONS --best 50 \\
        --server-python .llm-venv/bin/python --gguf .llm-models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf

(``--base-url URL --model NAME`` for a server already running.)
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
from dataclasses import replace
from pathlib import Path

from openai import OpenAI

from bench_qgen_filters import PIPELINES, Scores, generate, per_question, print_recall_table, tau
from kgrag import Workspace
from kgrag.documents.words import content_words
from kgrag.evaluation.datasets import QAItem, load_dataset
from kgrag.evaluation.qgen.quality import MIN_QUALITY
from kgrag.evaluation.stats.rank_agreement import means, resampled_rows, size
from llm_check import add_server_options, chat_server

SYSTEM = (
    "You reword quiz questions. Keep the meaning and the answer, but use different words and a different "
    "sentence order wherever you can, the way a person who had not read the text would ask. Reply with the "
    "reworded question only."
)
EXAMPLE = (
    "Question: Which enzyme converts angiotensin I into angiotensin II in the lungs?",
    "In the lungs, what enzyme turns the first form of angiotensin into its active second form?",
)
RESAMPLES = 1000


def reword(client: OpenAI, model: str, question: str) -> str:
    reply = client.chat.completions.create(
        model=model, temperature=0.0, max_tokens=80,
        messages=[
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": EXAMPLE[0]},
            {"role": "assistant", "content": EXAMPLE[1]},
            {"role": "user", "content": f"Question: {question}"},
        ],
    )  # fmt: skip
    return (reply.choices[0].message.content or "").strip()


def usable_rewording(original: QAItem, text: str) -> str | None:
    """The reply's question, or None when it is not one, is the original, or spells the answer."""
    text = re.sub(r"^(?:reworded )?question:\s*", "", text.strip().strip('"'), flags=re.I).splitlines()[0:1]
    reply = text[0].strip() if text else ""
    if not reply.endswith("?") or reply.count("?") != 1 or len(reply.split()) < 4:
        return None
    if reply.lower() == original.question.lower() or original.answer.lower() in reply.lower():
        return None
    return reply


def overlap(items: list[QAItem], chunks: dict[str, str]) -> float:
    """Mean share of a question's content words that its evidence passages hold."""
    shares = []
    for item in items:
        words = content_words(item.question)
        text = " ".join(chunks.get(e, e) for e in item.evidence)
        if words:
            shares.append(len(words & content_words(text)) / len(words))
    return statistics.fmean(shares)


def paired_tau(gen: Scores, other: Scores, hand: Scores, rng: random.Random) -> tuple[float, float, float, float]:
    """τ of each generated set with the hand-written one, resampled together; the difference's interval."""
    diffs = []
    for _ in range(RESAMPLES):
        rows_g, rows_h = resampled_rows(size(gen), rng), resampled_rows(size(hand), rng)
        mh = means(hand, rows_h)
        diffs.append(tau(means(other, rows_g), mh) - tau(means(gen, rows_g), mh))
    diffs.sort()
    return (tau(means(gen), means(hand)), tau(means(other), means(hand)),
            diffs[int(0.025 * RESAMPLES)], diffs[int(0.975 * RESAMPLES) - 1])  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workspace", type=Path)
    parser.add_argument("questions", type=Path)
    parser.add_argument("--best", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--pipelines", default=PIPELINES)
    add_server_options(parser)
    parser.add_argument("--out", type=Path, default=Path("/tmp/qgen-reworded.json"))
    args = parser.parse_args()
    pipelines = args.pipelines.split(",")
    with Workspace.open(args.workspace) as ws:
        generated = generate(ws, args.best, True, args.seed, MIN_QUALITY)
        chunks = {c.id: c.text for c in ws.store.chunks.iter_all()}
        reworded, kept = [], 0
        with chat_server(args, 2048) as url:
            client = OpenAI(base_url=url, api_key="none", timeout=120)
            for i, item in enumerate(generated, 1):
                new = usable_rewording(item, reword(client, args.model, item.question))
                kept += new is not None
                reworded.append(replace(item, question=new or item.question))
                if i % 10 == 0:
                    print(f"{i}/{len(generated)} reworded", flush=True)
        sets = {"hand-written": load_dataset(args.questions), "generated": generated, "reworded": reworded}
        scores = {name: per_question(ws.eval.retrieval(items, pipelines, args.k)) for name, items in sets.items()}
    print(f"\n{kept} of {len(generated)} replies were usable rewordings (the rest keep their wording)")
    print(f"question words in the evidence: generated {overlap(generated, chunks):.2f}, "
          f"reworded {overlap(reworded, chunks):.2f}")  # fmt: skip
    averages = {name: means(s) for name, s in scores.items()}
    print()
    print_recall_table(scores, pipelines, random.Random(1))
    t_gen, t_rew, lo, hi = paired_tau(scores["generated"], scores["reworded"], scores["hand-written"], random.Random(0))
    print(f"\nKendall τ with hand-written: generated {t_gen:.3f}, reworded {t_rew:.3f}; "
          f"difference {t_rew - t_gen:+.3f} [{lo:+.3f}, {hi:+.3f}]")  # fmt: skip
    examples = [
        {"generated": g.question, "reworded": r.question, "answer": g.answer}
        for g, r in zip(generated, reworded, strict=True)
    ]
    args.out.write_text(json.dumps({"means": averages, "tau": [t_gen, t_rew, lo, hi], "questions": examples}, indent=1))


if __name__ == "__main__":
    main()
