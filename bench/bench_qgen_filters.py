"""Do LLM-free generated questions rank retrieval pipelines as hand-written ones do, before and after the
defect filters (:mod:`kgrag.evaluation.qgen.defects`) and the quality floor (``qgen.quality``)?

For one indexed workspace and its hand-written questions: generates known-item (+ two-chunk) questions
from the workspace's chunks without the filters (``strict=False``, no quality floor), with them (no
floor) and with them and the floor (the default), runs LLM-free evidence
recall@k with each pipeline on every set, and prints per set the mean recall per pipeline with a
percentile bootstrap 95 % interval, then Kendall τ between each generated ranking and the hand-written
one with a bootstrap interval (both question sets resampled together, 1,000 times). CPU seconds, not
wall time, are reported (the machine is shared).

    HF_HUB_OFFLINE=1 python bench/bench_qgen_filters.py --prepare DIR      # the two cuts, indexed
    HF_HUB_OFFLINE=1 python bench/bench_qgen_filters.py DIR/medical/ws DIR/medical/questions.json --per-kind 100
    HF_HUB_OFFLINE=1 python bench/bench_qgen_filters.py WS QUESTIONS --per-kind 1000 --best 50 --no-unfiltered

    HF_HUB_OFFLINE=1 python bench/bench_qgen_filters.py --cut 900000:1050000 --n 25 --out FILE.json   # read one
    HF_HUB_OFFLINE=1 python bench/bench_qgen_filters.py --blind-cut 200000:350000 --n 25 --out FILE.json
    HF_HUB_OFFLINE=1 python bench/bench_qgen_filters.py --dir DOCS --blind-cut 0:150000 --n 25 --out FILE.json

``--cut`` and ``--blind-cut`` chunk a character range of Medical (``--source novel`` for Novel-58553) without
indexing it, generate ``--n`` known-item questions (seeded) and write question, answer, evidence
sentence and chunk ids (``PATH#NNNNN`` with ``--dir``) to FILE (and FILE with ``.md``) for a reader;
``--cut`` also prints the rejection counts and the two-chunk share of a mixed set. ``--blind-cut``
writes nothing else, so the blind reader's cut stays unseen. With ``--dir DOCS`` they read a folder of
documents instead (files in path order until END characters, read by the indexing loaders).

``--best N`` asks N questions per kind of the set with the quality floor (all candidates of the others
with a large ``--per-kind``); ``--no-unfiltered`` leaves out the set without the filters (to save CPU).

``--prepare`` writes the first 100k characters of GraphRAG-Bench Medical and of Novel-58553 from
``../shared/datasets`` with the hand-written questions whose every evidence statement has at least 70 %
of its content words in a window of three sentences of the cut, and indexes each (default settings, no
LLM).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from kgrag import Workspace
from kgrag.config import KgragConfig
from kgrag.documents.chunking import chunk_text
from kgrag.documents.provenance import authored_title, changelog_source
from kgrag.documents.tokens import TokenCounter
from kgrag.documents.words import content_words
from kgrag.evaluation.datasets import QAItem, load_dataset
from kgrag.evaluation.qgen.cloze import Passage
from kgrag.evaluation.qgen.known_item import known_item_questions, store_passages
from kgrag.evaluation.qgen.lookups import shipped_lookups
from kgrag.evaluation.qgen.quality import MIN_QUALITY
from kgrag.evaluation.retrieval_eval import RetrievalEvalReport
from kgrag.evaluation.stats.rank_agreement import Scores, kendall_tau, tau_interval
from kgrag.graph.extract.nlp import SpacyExtractor
from kgrag.graph.extract.settings import nlp_settings

PIPELINES = "dense,bm25,hybrid,graph-local,graph-hybrid,graph-mix,ppr,paths,auto"


def per_question(report: RetrievalEvalReport) -> Scores:
    scores: Scores = defaultdict(list)
    for o in sorted(report.outcomes, key=lambda o: o.id):
        if o.recall is not None:
            scores[o.pipeline].append(o.recall)
    return dict(scores)


def tau(a: dict[str, float], b: dict[str, float]) -> float:
    """Kendall τ of two rankings, 0 where undefined (one side all ties)."""
    return kendall_tau(a, b) or 0.0


def tau_ci(gen: Scores, hand: Scores, rng: random.Random, samples: int = 1000) -> tuple[float, float]:
    """τ's bootstrap interval, both sets' questions resampled (:func:`tau_interval`)."""
    interval = tau_interval(gen, hand, rng, samples)
    if interval is None:
        raise SystemExit("a question set is empty: no rank agreement to give")
    return interval


def mean_ci(values: list[float], rng: random.Random, samples: int = 2000) -> tuple[float, float, float]:
    means = sorted(statistics.fmean(rng.choices(values, k=len(values))) for _ in range(samples))
    return statistics.fmean(values), means[int(0.025 * samples)], means[int(0.975 * samples) - 1]


def print_recall_table(scores: dict[str, Scores], pipelines: list[str], rng: random.Random) -> None:
    """Mean recall per pipeline and set with its interval, ordered by the hand-written set; n = questions
    with evidence."""
    means = {p: statistics.fmean(scores["hand-written"][p]) for p in pipelines}
    print("| pipeline | " + " | ".join(f"{n} (n = {len(s[pipelines[0]])})" for n, s in scores.items()) + " |")
    print("| --- |" + " ---: |" * len(scores))
    for p in sorted(pipelines, key=lambda p: -means[p]):
        cells = []
        for s in scores.values():
            m, lo, hi = mean_ci(s[p], rng)
            cells.append(f"{m:.3f} [{lo:.3f}, {hi:.3f}]")
        print(f"| {p} | " + " | ".join(cells) + " |")


def generate(
    ws: Workspace, per_kind: int, strict: bool, seed: int, min_quality: float = 0.0, learned: bool = True
) -> list[QAItem]:
    passages = store_passages(ws.store)
    own = nlp_settings(ws.config)
    nlp = SpacyExtractor(own.spacy_model, allow_torch=own.spacy_torch).nlp
    kinds = ("known-item", "two-chunk")
    result = known_item_questions(
        passages,
        nlp,
        kinds,
        per_kind,
        seed=seed,
        strict=strict,
        min_quality=min_quality,
        learned=learned,
        lookups=shipped_lookups(),
    )
    print(f"strict={strict}, min_quality={min_quality}: {len(result.items)} of {result.generated} candidates; ", end="")
    print(f"rejected {dict(result.rejected.most_common())}")
    return result.items


SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
CUT = 100_000


def _covered(evidence: list[str], windows: list[set[str]]) -> bool:
    for statement in evidence:
        words = content_words(statement)
        if not words or max(len(words & w) / len(words) for w in windows) < 0.7:
            return False
    return True


def prepare(out: Path) -> None:
    """The Medical and Novel-58553 cuts with their covered hand-written questions, each indexed."""
    medical = json.loads((SHARED / "graphrag-bench-medical/corpus.json").read_text(encoding="utf-8"))[0]["context"]
    novel = json.loads((SHARED / "graphrag-bench-novel/corpus.json").read_text(encoding="utf-8"))
    cuts = {
        "medical": (medical[:CUT], SHARED / "graphrag-bench-medical/questions.json", "Medical"),
        "novel": (next(c["context"] for c in novel if c["corpus_name"] == "Novel-58553")[:CUT],
                  SHARED / "graphrag-bench-novel/questions.json", "Novel-58553"),
    }  # fmt: skip
    for name, (text, questions, source) in cuts.items():
        sentences = re.split(r"(?<=[.!?])\s+", text)
        windows = [content_words(" ".join(sentences[i : i + 3])) for i in range(len(sentences))]
        items = [q for q in json.loads(questions.read_text(encoding="utf-8")) if q["source"] == source]
        kept = [q for q in items if q.get("evidence") and _covered(q["evidence"], windows)]
        (out / name / "docs").mkdir(parents=True, exist_ok=True)
        (out / name / "docs" / f"{name}.txt").write_text(text, encoding="utf-8")
        (out / name / "questions.json").write_text(json.dumps(kept, indent=1), encoding="utf-8")
        with Workspace.init(out / name / "ws") as ws:
            ws.index([out / name / "docs"])
        print(f"{name}: {len(text)} characters, {len(kept)} questions, indexed")


def cut_passages(source: str, span: str) -> list[Passage]:
    """A character range of Medical or Novel-58553, chunked as indexing would (200 tokens, overlap 24)."""
    start, end = (int(x) for x in span.split(":"))
    if source == "medical":
        text = json.loads((SHARED / "graphrag-bench-medical/corpus.json").read_text(encoding="utf-8"))[0]["context"]
    else:
        novel = json.loads((SHARED / "graphrag-bench-novel/corpus.json").read_text(encoding="utf-8"))
        text = next(c["context"] for c in novel if c["corpus_name"] == "Novel-58553")
    chunks = chunk_text(text[start:end], TokenCounter.for_encoding(), 200, 24)
    return [Passage(f"{source}-{start}-{c.ord:05d}", f"{source}-{start}", c.text, c.char_start) for c in chunks]


def dir_passages(folder: Path, limit: int) -> list[Passage]:
    """The documents of a folder (read by the indexing loaders, Markdown rendered, front matter left out),
    in path order until ``limit`` characters, chunked as indexing would (200 tokens, overlap 24). A file the
    loaders refuse (front matter with no text after it, a JSON file without a text field) is skipped and
    named, as indexing would."""
    from kgrag.core.errors import KgragError
    from kgrag.documents.loaders import load_path, supported_suffixes

    cfg, counter, passages, total = KgragConfig().documents, TokenCounter.for_encoding(), [], 0
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix.lower() in supported_suffixes()):
        try:
            docs = load_path(path, cfg)
        except KgragError as error:
            print(f"skipped (the loaders refuse it): {error}")
            continue
        for doc in docs:
            doc_id = str(path.relative_to(folder))
            chunks = chunk_text(doc.text, counter, 200, 24)
            title = authored_title(doc.title, str(path))
            changelog = changelog_source(doc_id)
            passages += [
                Passage(f"{doc_id}#{c.ord:05d}", doc_id, c.text, c.char_start, title, changelog) for c in chunks
            ]
            total += len(doc.text)
        if total >= limit:
            break
    return passages


def write_read(
    passages: list[Passage],
    n: int,
    seed: int,
    out: Path,
    kinds: tuple[str, ...],
    scope: bool = True,
    trimmed: bool = False,
    changelogs: bool = False,
    learned: bool = True,
) -> Counter[str]:
    """``n`` questions per kind for a reader: JSON and a Markdown table (question, answer, evidence);
    ``scope=False``: the same questions without the headings above their sentences; ``trimmed``: long
    sentences asked with parts left out too; ``learned=False``: picked in the order of preferences (the
    library's default) instead of the usability model (:func:`kgrag.evaluation.qgen.known_item.pick_known_items`),
    to read beside it."""
    nlp = SpacyExtractor(nlp_settings(KgragConfig()).spacy_model).nlp
    result = known_item_questions(
        passages,
        nlp,
        kinds,
        n,
        seed=seed,
        scope=scope,
        trimmed=trimmed,
        changelogs=changelogs,
        learned=learned,
        lookups=shipped_lookups(),
    )
    rows: list[dict[str, Any]] = [
        {
            "n": i + 1,
            "kind": q.question_type,
            "question": q.question,
            "answer": q.answer,
            "evidence": q.evidence,
            "chunk_ids": result.meta[q.id]["chunk_ids"],
        }
        for i, q in enumerate(result.items)
    ]
    out.write_text(json.dumps(rows, indent=1, ensure_ascii=False), encoding="utf-8")
    lines = ["| # | question | answer | evidence |", "| ---: | --- | --- | --- |"]
    lines += [f"| {r['n']} | {r['question']} | {r['answer']} | {' / '.join(r['evidence'])} |" for r in rows]
    out.with_suffix(".md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    questions = "".join(f"{r['n']}. {r['question']}\n" for r in rows)  # to read first, before any source
    out.with_suffix(".questions.txt").write_text(questions, encoding="utf-8")
    print(f"{result.generated} candidates passed the checks; {'; '.join(result.notes)}")
    print(f"{sum(len(p.text) for p in passages):,} characters in the chunks read (overlaps counted twice)")
    two = sum(r["kind"] == "two-chunk" for r in rows)
    print(f"{len(rows)} questions, {two} of them two-chunk ({two / max(1, len(rows)):.0%})")
    return result.rejected


def question_sets(ws: Workspace, args: argparse.Namespace) -> dict[str, list[QAItem]]:
    """The hand-written set, then the generated ones: without the filters (unless left out), with them and
    no quality floor, with them and the floor (``--best`` questions per kind)."""
    sets = {"hand-written": load_dataset(args.questions)}
    if not args.no_unfiltered:
        sets["generated, no filters"] = generate(ws, args.per_kind, False, args.seed)
    sets["generated, filters"] = generate(ws, args.per_kind, True, args.seed)
    best = args.best or args.per_kind
    sets["generated, filters + quality floor"] = generate(ws, best, True, args.seed, MIN_QUALITY, not args.before_model)
    return sets


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workspace", type=Path, nargs="?")
    parser.add_argument("questions", type=Path, nargs="?")
    parser.add_argument("--prepare", type=Path, help="Write and index the two cuts in this directory, then stop.")
    parser.add_argument("--per-kind", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--pipelines", default=PIPELINES)
    parser.add_argument("--out", type=Path, default=Path("/tmp/qgen-filters.json"))
    parser.add_argument("--cut", help="START:END characters: write --n questions of this dev cut to --out.")
    parser.add_argument("--blind-cut", help="START:END characters: write --n known-item questions only.")
    parser.add_argument("--source", choices=("medical", "novel"), default="medical")
    parser.add_argument("--n", type=int, default=25)
    parser.add_argument("--best", type=int, help="Questions per kind for the set with the quality floor.")
    parser.add_argument("--no-unfiltered", action="store_true", help="Leave out the set without the filters.")
    parser.add_argument("--dir", type=Path, help="With --blind-cut or --cut 0:LIMIT: a folder of documents instead.")
    parser.add_argument("--no-scope", action="store_true", help="With --blind-cut or --cut: no headings named.")
    parser.add_argument(
        "--trimmed", action="store_true", help="With --blind-cut or --cut: long sentences asked trimmed too."
    )
    parser.add_argument(
        "--changelogs", action="store_true", help="With --blind-cut or --cut: questions from changelogs too."
    )
    parser.add_argument(
        "--before-model",
        action="store_true",
        help="Picked in the order of preferences, the library's default (the set with the floor, or --blind-cut /"
        " --cut); without it this bench picks by the usability model, as the blind reads that compare both did.",
    )
    args = parser.parse_args()
    if args.blind_cut or args.cut:
        span = args.blind_cut or args.cut
        passages = dir_passages(args.dir, int(span.split(":")[1])) if args.dir else cut_passages(args.source, span)
        kinds = ("known-item",) if args.blind_cut else ("known-item", "two-chunk")
        rejected = write_read(
            passages,
            args.n,
            args.seed,
            args.out,
            kinds,
            not args.no_scope,
            args.trimmed,
            args.changelogs,
            not args.before_model,
        )
        if args.cut:
            print(f"{len(passages)} passages; rejected {dict(rejected.most_common())}")
        print(f"wrote {args.out} and {args.out.with_suffix('.md')}")
        return
    if args.prepare is not None:
        prepare(args.prepare)
        return
    if args.workspace is None or args.questions is None:
        parser.error("give WORKSPACE and QUESTIONS, or --prepare DIR")
    pipelines = args.pipelines.split(",")
    rng = random.Random(args.seed)
    cpu = time.process_time()
    with Workspace.open(args.workspace) as ws:
        sets = question_sets(ws, args)
        scores = {name: per_question(ws.eval.retrieval(items, pipelines, args.k)) for name, items in sets.items()}
    means = {name: {p: statistics.fmean(v) for p, v in s.items()} for name, s in scores.items()}
    print(f"\nCPU {time.process_time() - cpu:.0f} s\n")
    print_recall_table(scores, pipelines, rng)
    out: dict[str, object] = {"means": means, "n": {k: len(v) for k, v in sets.items()}}
    print("\n| generated set | Kendall τ with hand-written [95 % CI] |\n| --- | --- |")
    for name in list(sets)[1:]:
        lo, hi = tau_ci(scores[name], scores["hand-written"], rng)
        t = tau(means[name], means["hand-written"])
        out[name] = {"tau": t, "ci": [lo, hi]}
        print(f"| {name} | {t:.3f} [{lo:.3f}, {hi:.3f}] |")
    args.out.write_text(json.dumps(out, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
