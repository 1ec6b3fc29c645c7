"""``ws.eval.pairwise``: answer questions with two pipelines and compare the answers with a pairwise judge
(unbiased or two-pass), stored as a ``pairwise`` run."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from kgrag.core.errors import KgragError
from kgrag.core.eval_records import EvalRunRecord
from kgrag.evaluation.datasets import QAItem
from kgrag.evaluation.judges.base import JUDGES
from kgrag.evaluation.pairwise.collect import aa_check as run_aa_check
from kgrag.evaluation.pairwise.collect import answer_pairs, pairwise_scores, pairwise_settings
from kgrag.evaluation.pairwise.types import AnswerWriter, PairwiseSettings
from kgrag.evaluation.pairwise.writer import pipeline_writer
from kgrag.evaluation.session import JudgeFactory, judge_setup, new_eval_id, pick
from kgrag.generation import QueryResponse
from kgrag.workspace.components import Components
from kgrag.workspace.query_api import QueryAPI


@dataclass(frozen=True)
class PairwiseRequest:
    """What to compare: pipelines ``a`` and ``b`` under ``judge`` (settings default to the config), at
    ``k`` items, with an A/A check (A's answers on both sides) when ``aa_check``."""

    a: str
    b: str
    judge: str = "unbiased"
    settings: PairwiseSettings | None = None
    k: int | None = None
    dataset: str = ""
    aa_check: bool = False


def pairwise_run(
    parts: Components,
    querying: QueryAPI,
    judge_factory: JudgeFactory,
    items: list[QAItem],
    req: PairwiseRequest,
    on_question: Callable[[], None] | None = None,
) -> EvalRunRecord:
    """Length alignment regenerates an answer with its pipeline's own generation step from the context it
    retrieved (:func:`_writer`); the judge's rewrite is the fallback."""
    config = parts.config
    setup = judge_setup(config, judge_factory)
    if setup is None:
        raise KgragError("pairwise judging needs an LLM judge: set llm.provider (see docs/llm.md)")
    judge_obj = pick(parts.registries.get(JUDGES), [req.judge], "judge")[req.judge]
    if not hasattr(judge_obj, "compare"):
        raise KgragError(f"judge {req.judge!r} scores single answers; use `kgrag eval run --judge {req.judge}`")
    chosen = req.settings or pairwise_settings(config.evaluation)
    if chosen.temperature is not None:  # the disclosure names the temperature the calls ran at
        setup = replace(setup, temperature=chosen.temperature)

    def writer(pipeline: str, question: str, response: QueryResponse) -> AnswerWriter | None:
        return _writer(parts, querying, pipeline, question, response)

    pairs = answer_pairs(items, req.a, req.b, lambda q, p: querying.query(q, p, req.k), on_question, writer)
    result = judge_obj.compare(pairs, setup, chosen)
    if req.aa_check:
        result["aa_check"] = run_aa_check(judge_obj, pairs, setup, chosen)
    run_id = new_eval_id("pairwise")
    payload = {
        "id": run_id,
        "a": req.a,
        "b": req.b,
        "judge_name": req.judge,
        "protocol": chosen.protocol,
        "dataset": req.dataset,
        "questions": len(pairs),
        "settings": chosen.__dict__,
        "judge": setup.describe(judge_obj.prompts),
        "result": result,
    }
    record = EvalRunRecord(run_id, "pairwise", time.time(), req.dataset, f"{req.a} vs {req.b}", payload)
    parts.store.eval_runs.save(record, pairwise_scores(run_id, req.a, req.b, result))
    return record


def _writer(
    parts: Components, querying: QueryAPI, pipeline: str, question: str, response: QueryResponse
) -> AnswerWriter | None:
    """``pipeline``'s own generation step for ``question``, over the context it retrieved."""
    ctx = parts.query_context
    own_step = querying.pipeline(pipeline).answer is not None
    return pipeline_writer(ctx.llm(), question, response.result, ctx.config.generation, own_step)
