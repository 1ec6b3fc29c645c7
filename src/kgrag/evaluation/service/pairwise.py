"""Pairwise evaluation (``ws.eval.pairwise``): answer questions with two pipelines and compare the answers
with a pairwise judge (unbiased or two-pass), stored as a ``pairwise`` run."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

from kgrag.core.errors import KgragError
from kgrag.core.eval_records import EvalRunRecord
from kgrag.core.registries import Registries
from kgrag.evaluation.datasets import QAItem
from kgrag.evaluation.judges.base import JUDGES
from kgrag.evaluation.pairwise.collect import aa_check as run_aa_check
from kgrag.evaluation.pairwise.collect import answer_pairs, pairwise_scores, pairwise_settings
from kgrag.evaluation.pairwise.types import AnswerWriter
from kgrag.evaluation.pairwise.writer import pipeline_writer
from kgrag.evaluation.service.ports import EvalParts, Querying
from kgrag.evaluation.service.requests import PairwiseRequest
from kgrag.evaluation.session import JudgeFactory, judge_setup, new_eval_id, pick
from kgrag.generation import QueryResponse


def pairwise_run(
    parts: EvalParts,
    querying: Querying,
    registries: Registries,
    judge_factory: JudgeFactory,
    items: list[QAItem],
    req: PairwiseRequest,
    on_question: Callable[[], None] | None = None,
) -> EvalRunRecord:
    """Compare the answers of ``req.a`` and ``req.b`` on ``items`` with ``req.judge`` (from ``registries``)
    and store the run. Length alignment regenerates an answer with its pipeline's own generation step from
    the context it retrieved (:func:`_writer`); the judge's rewrite is the fallback."""
    config = parts.config
    setup = judge_setup(config, judge_factory)
    if setup is None:
        raise KgragError("pairwise judging needs an LLM judge: set llm.provider (see docs/llm.md)")
    judge_obj = pick(registries.get(JUDGES), [req.judge], "judge")[req.judge]
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
    parts: EvalParts, querying: Querying, pipeline: str, question: str, response: QueryResponse
) -> AnswerWriter | None:
    """``pipeline``'s own generation step for ``question``, over the context it retrieved."""
    ctx = parts.query_context
    own_step = querying.pipeline(pipeline).answer is not None
    return pipeline_writer(ctx.llm(), question, response.result, ctx.config.generation, own_step)
