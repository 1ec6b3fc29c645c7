"""Citation attribution on the sample corpus: does kgrag attribute an uncited answer sentence to the passage
the model would have cited, and does it leave sentences no passage supports unsupported? Also the
calibration of ``generation.attribution_threshold``.

    .venv/bin/python bench/bench_citation_attribution.py [--ws DIR] [--k 5] [--out FILE.json]

Builds (or reuses, with ``--ws``) a workspace of ``examples/sample/docs`` with the default embedder and no
graph, and asks each sample question through the default pipeline and the real answer path
(:func:`~kgrag.generation.answer.generate_answer`) with the ``scripted`` provider as the model. The scripted
model writes the question's reference answer, every sentence followed by ``[c:ID]`` markers of the context
passages that hold the question's evidence sentences (or the "I don't know" sentence when none does): its
own citations. The markers are then removed and the attributor aligns each sentence again.

* **agreement**: share of the model-cited sentences whose attributed passage is one the model cited
  (Wilson 95% interval); a sentence left unsupported counts as a disagreement.
* **unsupported kept unsupported**: the reference answer of another question (one whose evidence the
  context does not hold) put to this question's context: the share marked unsupported.

Rows: the embedding weight at 0 (lexical only), 0.5 (the default) and 1 (embedding only), each with the
threshold calibrated on the other half of the questions (two folds by question order: the figure is
out-of-sample), and a baseline that attributes every sentence to the top-ranked passage. The threshold
that maximises balanced accuracy over all questions at the default weight is printed: that is the default
of ``generation.attribution_threshold``. CPU seconds of attribution per answer are reported (``process_time``).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kgrag import Workspace
from kgrag.config import LLMConfig
from kgrag.core.llm_types import ChatRequest
from kgrag.generation.answer import IDK_SENTENCE, generate_answer
from kgrag.generation.attribution import (
    Attributor,
    SupportPassage,
    answer_sentences,
    content_stems,
    embedding_support,
    lexical_support,
)
from kgrag.models.llm import create_llm_client
from kgrag.models.llm.scripted import ScriptedProvider, ScriptRule

REPO = Path(__file__).resolve().parents[1]
SAMPLE_DOCS = REPO / "examples" / "sample" / "docs"
QUESTIONS = REPO / "examples" / "sample" / "questions.json"
PASSAGE = re.compile(r"^\[c:(\S+)\] (.*)$", re.MULTILINE)
WEIGHTS = (0.0, 0.5, 1.0)
THRESHOLDS = np.round(np.arange(0.20, 0.951, 0.01), 2)


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[*_`#|]", " ", text).split()).casefold()


def holds(passage: str, evidence: str) -> bool:
    """The passage holds the evidence sentence (markdown marks and spacing ignored)."""
    return _norm(evidence) in _norm(passage)


@dataclass
class Case:
    """One question's context passages, the model-cited sentences and an unsupported claim."""

    qid: str
    passages: list[SupportPassage]
    sentences: list[tuple[str, set[str]]]  # (sentence without markers, passages the model cited)
    foreign: str  # another question's answer, not held by this context


def scripted_model(questions: dict[str, dict[str, Any]], seen: dict[str, set[str]]) -> ScriptedProvider:
    """A model that answers each sample question with its reference answer, citing after each sentence the
    context passages that hold an evidence sentence sharing at least two content words with it (a
    sentence that uses no evidence, "Welcome!", is left uncited), or says it does not know when no
    passage holds evidence; ``seen`` gets the passage ids each question's context showed."""

    def reply(request: ChatRequest) -> str:
        user = request.messages[-1]["content"]
        question = user.rsplit("Question:", 1)[-1].strip()
        entry = questions[question]
        passages = PASSAGE.findall(user)
        seen[question] = {pid for pid, _ in passages}
        held = [(pid, [e for e in entry["evidence"] if holds(text, e)]) for pid, text in passages]
        if not any(evidence for _, evidence in held):
            return IDK_SENTENCE
        out = []
        for a, b in _spans(entry["answer"]):
            sentence = entry["answer"][a:b].rstrip()
            words = content_stems(sentence)
            cited = [pid for pid, evidence in held if any(len(words & content_stems(e)) >= 2 for e in evidence)]
            out.append(sentence + (" " + "".join(f"[c:{pid}]" for pid in cited) if cited else ""))
        return " ".join(out)

    return ScriptedProvider([ScriptRule("Question:", reply)])


def _spans(text: str) -> list[tuple[int, int]]:
    return [(s.start, s.end) for s in answer_sentences(text)]


def build_cases(ws: Workspace, k: int) -> tuple[list[Case], int]:
    """Every sample question answered by the scripted model; the count of "I don't know" answers."""
    entries = json.loads(QUESTIONS.read_text(encoding="utf-8"))
    by_question = {e["question"].strip(): e for e in entries}
    seen: dict[str, set[str]] = {}
    provider = scripted_model(by_question, seen)
    client = create_llm_client(LLMConfig(provider="scripted", model="scripted"), provider=provider)
    cases, idk = [], 0
    for index, entry in enumerate(entries):
        result = ws.querying.retrieve(entry["question"], k=k)
        answer = generate_answer(client, entry["question"], result, ws.config.generation)
        print(f"answered {index + 1}/{len(entries)}", file=sys.stderr, flush=True)
        if answer.idk:
            idk += 1
            continue
        shown = seen[entry["question"].strip()]
        passages = [SupportPassage(i.id, i.text) for i in result.items if i.kind == "chunk" and i.id in shown]
        sentences = [(s.claim, set(s.cited)) for s in answer_sentences(answer.text)]
        foreign = _foreign(entries, index, passages)
        cases.append(Case(entry["id"], passages, sentences, foreign))
    return cases, idk


def _foreign(entries: list[dict[str, Any]], index: int, passages: list[SupportPassage]) -> str:
    """The reference answer of the next question (in a fixed stride) whose evidence the passages lack."""
    for step in range(17, 17 + len(entries)):
        other = entries[(index + step) % len(entries)]
        if not any(holds(p.text, e) for p in passages for e in other["evidence"]):
            return str(other["answer"])
    return ""


@dataclass
class Parts:
    """Each case's embedding and lexical support matrices (sentences, then the foreign claim, by passage),
    computed once for every weight; ``cpu_s`` the CPU seconds per answer spent computing them."""

    embedding: list[np.ndarray]
    lexical: list[np.ndarray]
    cpu_s: float


def score_parts(cases: list[Case], embedder: Any) -> Parts:
    parts = Parts([], [], 0.0)
    started = time.process_time()
    for number, case in enumerate(cases):
        claims = [text for text, _ in case.sentences] + ([case.foreign] if case.foreign else [])
        parts.embedding.append(embedding_support(claims, case.passages, embedder))
        parts.lexical.append(lexical_support(claims, case.passages))
        print(f"scored {number + 1}/{len(cases)}", file=sys.stderr, flush=True)
    parts.cpu_s = (time.process_time() - started) / max(1, len(cases))
    return parts


@dataclass
class Judged:
    """At one threshold: per model-cited sentence whether the attribution meets the model's citations,
    how many passages it attributed and how many of them the model cited; per foreign claim whether it
    stayed unsupported."""

    agree: list[bool]
    attributed: list[int]
    cited_share: list[float]
    kept: list[bool]


def judge(cases: list[Case], parts: Parts, weight: float, threshold: float, among: set[int]) -> Judged:
    """The cases of ``among`` attributed at ``weight`` and ``threshold`` (the library's own pick)."""
    attributor = Attributor(None, threshold, weight)
    out = Judged([], [], [], [])
    for number in sorted(among):
        case = cases[number]
        matrix = weight * parts.embedding[number] + (1 - weight) * parts.lexical[number]
        for row, (_, cited) in enumerate(case.sentences):
            if not cited:
                continue
            chosen = {case.passages[i].id for i in attributor.pick(matrix[row])}
            out.agree.append(bool(chosen & cited))
            if chosen:
                out.attributed.append(len(chosen))
                out.cited_share.append(len(chosen & cited) / len(chosen))
        if case.foreign:
            out.kept.append(not attributor.pick(matrix[-1]))
    return out


def _balanced(judged: Judged) -> float:
    return (float(np.mean(judged.agree)) + float(np.mean(judged.kept))) / 2 if judged.agree and judged.kept else 0.0


def calibrate(cases: list[Case], parts: Parts, weight: float, among: set[int]) -> float:
    """The threshold maximising (agreement + unsupported kept) / 2 over ``among`` (lowest on ties)."""
    values = [_balanced(judge(cases, parts, weight, float(t), among)) for t in THRESHOLDS]
    return float(THRESHOLDS[int(np.argmax(values))])


def wilson(hits: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion."""
    if n == 0:
        return (0.0, 0.0)
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (round(centre - half, 3), round(centre + half, 3))


def _rates(judged: list[Judged]) -> dict[str, Any]:
    agree = [a for j in judged for a in j.agree]
    kept = [k for j in judged for k in j.kept]
    attributed = [n for j in judged for n in j.attributed]
    share = [x for j in judged for x in j.cited_share]
    return {
        "agreement": round(sum(agree) / len(agree), 3),
        "agreement_ci": wilson(sum(agree), len(agree)),
        "sentences": len(agree),
        "unsupported_kept": round(sum(kept) / len(kept), 3),
        "unsupported_kept_ci": wilson(sum(kept), len(kept)),
        "foreign_claims": len(kept),
        "passages_per_attributed_sentence": round(float(np.mean(attributed)), 2) if attributed else 0.0,
        "attributed_passages_model_cited": round(float(np.mean(share)), 3) if share else 0.0,
    }


def evaluate(cases: list[Case], weight: float, parts: Parts) -> dict[str, Any]:
    """One row: each half of the questions judged at the threshold calibrated on the other half, and the
    threshold calibrated on all questions."""
    folds = [set(range(0, len(cases), 2)), set(range(1, len(cases), 2))]
    thresholds = [calibrate(cases, parts, weight, folds[1]), calibrate(cases, parts, weight, folds[0])]
    judged = [judge(cases, parts, weight, thresholds[i], folds[i]) for i in (0, 1)]
    row = {"weight": weight, "fold_thresholds": thresholds, **_rates(judged)}
    row["threshold_all"] = calibrate(cases, parts, weight, set(range(len(cases))))
    return row


def top_passage_baseline(cases: list[Case]) -> dict[str, Any]:
    """Every sentence attributed to the top-ranked passage (no threshold: nothing is ever unsupported)."""
    right = [case.passages[0].id in cited for case in cases for _, cited in case.sentences if cited]
    return {"weight": "top-ranked passage", "agreement": round(sum(right) / len(right), 3),
            "agreement_ci": wilson(sum(right), len(right)), "sentences": len(right),
            "unsupported_kept": 0.0, "unsupported_kept_ci": (0.0, 0.0)}  # fmt: skip


def _workspace(path: Path | None, stack_dir: Path) -> Workspace:
    if path is not None and (path / "kgrag.toml").exists():
        return Workspace.open(path)
    ws = Workspace.init(path or stack_dir / "ws", graph={"extractor": "none"})
    ws.index([SAMPLE_DOCS])
    return ws


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ws", type=Path, help="workspace of the sample docs (built here when absent)")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp, _workspace(args.ws, Path(tmp)) as ws:
        cases, idk = build_cases(ws, args.k)
        embedder = ws.components.query_context.embedder()
        parts = score_parts(cases, embedder)
        rows = [evaluate(cases, weight, parts) for weight in WEIGHTS]
        rows.append(top_passage_baseline(cases))
        uncited = sum(1 for case in cases for _, cited in case.sentences if not cited)
        report = {"questions": len(cases) + idk, "answered": len(cases), "idk": idk, "k": args.k,
                  "embedder": ws.config.embedding.model, "sentences_model_left_uncited": uncited,
                  "scoring_cpu_s_per_answer": round(parts.cpu_s, 4), "rows": rows}  # fmt: skip
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
