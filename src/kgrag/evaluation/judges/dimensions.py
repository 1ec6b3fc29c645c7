"""Per-dimension 0-10 judge (lundberg-2026): correctness, relevance, groundedness and retrieval
relevance, each a separate call that sees only the inputs its rubric needs (the reference only for
correctness, the context only for groundedness and retrieval relevance), reasoning before the score."""

from __future__ import annotations

from kgrag.evaluation.judges.base import JudgeSetup
from kgrag.evaluation.judges.call import ask, numbered
from kgrag.evaluation.judges.schemas import DimensionScore
from kgrag.evaluation.metrics.base import Measured, Sample

DIMENSIONS = ("correctness", "relevance", "groundedness", "retrieval_relevance")


def _variables(dimension: str, sample: Sample) -> dict[str, object]:
    context = numbered(sample.contexts, "Context")
    table: dict[str, dict[str, object]] = {
        "correctness": {"question": sample.question, "reference": sample.reference, "answer": sample.answer},
        "relevance": {"question": sample.question, "answer": sample.answer},
        "groundedness": {"context": context, "answer": sample.answer},
        "retrieval_relevance": {"question": sample.question, "context": context},
    }
    return table[dimension]


class DimensionJudge:
    name = "dimensions"
    paper = "lundberg-2026"
    prompts = tuple(f"eval_dim_{d}" for d in DIMENSIONS)
    scale = (0.0, 10.0)

    def score(self, sample: Sample, setup: JudgeSetup) -> dict[str, Measured]:
        out: dict[str, Measured] = {}
        for dimension, prompt in zip(DIMENSIONS, self.prompts, strict=True):
            if dimension == "correctness" and not sample.reference.strip():
                out[f"judge.{dimension}"] = Measured.unmeasured("no reference answer")
                continue
            reply = ask(
                setup.primary,
                prompt,
                _variables(dimension, sample),
                DimensionScore,
                stage=f"eval.judge.{dimension}",
                temperature=setup.temperature,
                seed=setup.seed,
            )
            value = None if reply.value is None else float(reply.value.score)
            out[f"judge.{dimension}"] = Measured(value, reply.note, reply.tokens)
        return out
