"""Length alignment and what it leaves: the residual gap must not decide verdicts.

The judge (:class:`kgrag.testing.biased_judge.BiasedJudge`) ignores content unless told otherwise and
favours the answer shown first and the longer answer. Answers are *equal* in content, B's 8 words longer:
inside the paper's fixed 10-word tolerance, and enough for this judge to call B better every time. The
pipeline's own generation step (:func:`kgrag.generation.answer.generate_answer` with a target length, over
a :class:`~kgrag.testing.biased_judge.TargetLengthWriter` model that stops short of the target as models
do) regenerates the shorter answer from its own retrieved context.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from pydantic import ValidationError

from kgrag.config import GenerationConfig, LLMConfig
from kgrag.core.context import ContextItem, RetrievalResult
from kgrag.evaluation.judges.base import JudgeSetup
from kgrag.evaluation.judges.schemas import AspectScores
from kgrag.evaluation.pairwise.alignment import align
from kgrag.evaluation.pairwise.collect import aa_check
from kgrag.evaluation.pairwise.report import render_pairwise, warnings_of
from kgrag.evaluation.pairwise.stats import small_sample_factor
from kgrag.evaluation.pairwise.two_pass import TwoPassJudge
from kgrag.evaluation.pairwise.types import AnswerPair, PairwiseSettings
from kgrag.evaluation.pairwise.unbiased import UnbiasedJudge
from kgrag.evaluation.pairwise.writer import PipelineWriter, pipeline_writer
from kgrag.models.llm import LLMClient, create_llm_client
from kgrag.prompts import load_prompt
from kgrag.testing.biased_judge import BiasedJudge, TargetLengthWriter, stretch
from kgrag.testing.fake_openai_server import FakeOpenAIServer

SEEDS = range(40)
QUESTIONS = 12
GOOD = "at dawn when the reservoir pressure drops below the marked line"
PLAIN = "during the day once the operators decide the reservoir needs it"


def _client(provider: Any, model: str) -> LLMClient:
    return create_llm_client(LLMConfig(provider="scripted", model=model), provider=provider)


def _setup(judge: BiasedJudge | None = None) -> JudgeSetup:
    return JudgeSetup((_client((judge or BiasedJudge()).provider(), "biased-judge"),), temperature=0.7)


def _writer(generator: LLMClient, question: str, context: str) -> PipelineWriter:
    result = RetrievalResult("p", question, [ContextItem("chunk", "c1", context, 1.0)])
    return PipelineWriter(generator, question, result, GenerationConfig())


def _pairs(seed: int, gap: int = 8, words: int = 30, b_content: str = PLAIN) -> list[AnswerPair]:
    """Equal answers (A's content = B's unless ``b_content`` differs), B ``gap`` words longer."""
    generator = _client(TargetLengthWriter(seed=seed).provider(), "generator")
    pairs = []
    for i in range(QUESTIONS):
        question = f"When does Kestrel valve {i} open?"
        ctx_a = f"Kestrel valve {i} opens {PLAIN} and closes again by noon."
        ctx_b = f"Kestrel valve {i} opens {b_content} and closes again by noon."
        a, b = stretch(ctx_a, words), stretch(ctx_b, words + gap)
        wa, wb = _writer(generator, question, ctx_a), _writer(generator, question, ctx_b)
        pairs.append(AnswerPair(f"q{i}", question, "Fact", a, b, ctx_a, ctx_b, wa, wb))
    return pairs


def _settings(seed: int, **overrides: Any) -> PairwiseSettings:
    return PairwiseSettings(**{"trials": 4, "bootstrap_samples": 400, "seed": seed, "temperature": 0.7, **overrides})


def test_equal_answers_eight_words_apart_are_a_tie_at_90_percent_of_seeds() -> None:
    verdicts: Counter[str] = Counter()
    fixed: Counter[str] = Counter()
    for seed in SEEDS:
        result = UnbiasedJudge().compare(_pairs(seed), _setup(), _settings(seed))
        verdicts[result["verdict"]] += 1
        assert result["alignment"]["regenerated"] >= QUESTIONS - 1 and result["alignment"]["judge_rewrite"] == 0
        assert abs(result["length_gap"]["mean"]) <= 2 and {"spearman", "point_biserial"} <= set(result["length_gap"])
        if seed < 10:  # the paper's procedure, fixed 10-word tolerance: the 8-word gap stays inside it and decides
            paper = _settings(seed, tolerance_share=1.0, exact_lengths=False)
            old = UnbiasedJudge().compare(_pairs(seed), _setup(), paper)
            fixed[old["verdict"]] += 1
            assert old["length_gap"]["mean"] == -8 and old["alignment"]["within_tolerance"] == QUESTIONS
            assert "that side is the longer one in 12 of 12 pairs" in old["length_gap"]["length_flag"]
    assert verdicts["tie within the confidence interval"] >= 0.9 * len(SEEDS), verdicts
    assert fixed["B better"] == 10, fixed


def _short_pairs(seed: int) -> list[AnswerPair]:
    """Equal answers from a generator that ends 2 words short of any length it is asked for: A 2 words
    shorter than B, inside the 2-word tolerance, so nothing would be regenerated or padded."""
    generator = _client(TargetLengthWriter(undershoot=0.0, jitter=0, short_by=2, seed=seed).provider(), "generator")
    pairs = []
    for i in range(QUESTIONS):
        question = f"When does Kestrel valve {i} open?"
        ctx = f"Kestrel valve {i} opens {PLAIN} and closes again by noon."
        writer = _writer(generator, question, ctx)
        a, b = stretch(ctx, 28), stretch(ctx, 30)
        pairs.append(AnswerPair(f"q{i}", question, "Fact", a, b, ctx, ctx, writer, writer))
    return pairs


def test_a_gap_inside_the_tolerance_from_a_generator_ending_short_does_not_decide() -> None:
    verdicts: Counter[str] = Counter()
    paper: Counter[str] = Counter()
    for seed in SEEDS:
        result = UnbiasedJudge().compare(_short_pairs(seed), _setup(), _settings(seed))
        verdicts[result["verdict"]] += 1
        assert result["length_gap"]["equal"] == QUESTIONS and result["alignment"]["generator"]["flag"]
        if seed < 10:  # the paper's procedure leaves the 2-word gap (inside its tolerance) and the judge follows it
            old = UnbiasedJudge().compare(_short_pairs(seed), _setup(), _settings(seed, exact_lengths=False))
            paper[old["verdict"]] += 1
            assert old["length_gap"]["mean"] == -2 and old["length_gap"]["length_flag"]
    assert verdicts["tie within the confidence interval"] >= 0.9 * len(SEEDS), verdicts
    assert paper["B better"] == 10, paper


def test_the_a_a_check_flags_a_generator_that_ends_short() -> None:
    exact = aa_check(UnbiasedJudge(), _short_pairs(1), _setup(), _settings(1))
    assert exact["generator"]["mean"] == 2 and "ends 2.0 words short" in exact["generator"]["flag"]
    assert exact["flags"] == [exact["generator"]["flag"]]
    paper = aa_check(UnbiasedJudge(), _short_pairs(1), _setup(), _settings(1, exact_lengths=False))
    assert not paper["passed"] and paper["verdict"] == "A better" and len(paper["flags"]) == 2
    payload = {"a": "a", "b": "b", "judge_name": "unbiased", "settings": {}, "result": {"aa_check": paper}}
    assert "A/A check flag" in render_pairwise(payload)
    assert sum(w.startswith("A/A check: the generator ends") for w in warnings_of(payload)) == 1


def test_the_report_shows_the_residual_gap_and_its_correlation() -> None:
    result = UnbiasedJudge().compare(_pairs(3), _setup(), _settings(3, exact_lengths=False))
    gaps = [row["gap"] for row in result["per_question"]]
    assert all(abs(g) <= 2 for g in gaps) and result["length_gap"]["pairs"] == len(gaps)
    spearman = result["length_gap"]["spearman"]
    assert spearman is not None and spearman["r"] > 0  # this judge does prefer the longer of two answers
    payload = {"a": "a", "b": "b", "judge_name": "unbiased", "protocol": "unbiased", "settings": {}, "result": result}
    text = render_pairwise(payload)
    assert "Length gap after alignment, words of A − words of B" in text and "Spearman ρ" in text
    assert f"mean {result['length_gap']['mean']:+.1f}" in text and "point-biserial r" in text
    assert "regenerated by the pipeline's own generator" in text and "unbiased procedure" in text


def test_a_real_difference_is_still_detected_and_a_a_is_a_tie() -> None:
    judge = BiasedJudge(better_terms=("dawn",), term_bonus=0.5)
    won: Counter[str] = Counter()
    passed = 0
    for seed in range(10):
        pairs = _pairs(seed, b_content=GOOD)
        result = UnbiasedJudge().compare(pairs, _setup(judge), _settings(seed))
        won[result["verdict"]] += 1
        check = aa_check(UnbiasedJudge(), pairs, _setup(judge), _settings(seed))
        passed += check["passed"]
        assert check["rates"]["tie"] > 0 and abs(check["rates"]["relative"]) < abs(result["rates"]["relative"])
    assert won["B better"] >= 9, won
    assert passed >= 9  # an A/A check errs at about the nominal 5 %


def test_a_a_check_fails_under_the_naive_protocol() -> None:
    check = aa_check(UnbiasedJudge(), _pairs(0, gap=0), _setup(), PairwiseSettings.naive())
    assert check["verdict"] == "A better" and not check["passed"]
    payload = {"a": "a", "b": "b", "judge_name": "unbiased", "protocol": "naive", "settings": {}}
    payload["result"] = {"verdict": "A better", "rates": check["rates"], "aa_check": check}
    assert "A/A check" in render_pairwise(payload) and "FAILED" in render_pairwise(payload)
    assert any("A/A check did not come out a tie" in w for w in warnings_of(payload))


def test_regeneration_asks_the_pipeline_generator_with_its_own_context() -> None:
    writer_model = TargetLengthWriter(undershoot=0.0, jitter=0)
    generator = _client(writer_model.provider(), "generator")
    context = "Kestrel valve 7 opens at dawn and closes by noon; the keeper logs both times in the valve book."
    pair = AnswerPair(
        "q7", "When does valve 7 open?", "Fact", "At dawn.", stretch(context, 30), context, context,
        _writer(generator, "When does valve 7 open?", context), None,
    )  # fmt: skip
    judge = _client(BiasedJudge().provider(), "judge")
    done = align(pair, judge, PairwiseSettings())
    assert done.pair is not None and done.steps == ("regenerated",) and writer_model.requests == [30]
    assert set(done.pair.answer_a.split()) <= set(context.split())  # drawn from its own retrieved context
    assert done.record["gap_before"] == -28 and done.record["gap_after"] == 0 and done.record["rewritten"] == "a"
    # no generator (a pipeline with its own answer step): the judge rewrites, and the record says so
    fallback = align(
        AnswerPair("q7", pair.question, "Fact", "At dawn.", pair.answer_b, context, context), judge, PairwiseSettings()
    )
    assert fallback.pair is not None and fallback.steps[0] == "judge-rewrite"
    assert pipeline_writer(generator, "q", RetrievalResult("p", "q", []), GenerationConfig(), True) is None


def test_target_length_goes_into_the_answer_request() -> None:
    writer_model = TargetLengthWriter(undershoot=0.0, jitter=0)
    generator = _client(writer_model.provider(), "generator")
    writer = _writer(generator, "When does valve 7 open?", "Kestrel valve 7 opens at dawn.")
    text = writer.regenerate(12, 0)
    assert text is not None and len(text.split()) == 12 and writer_model.requests == [12]
    assert "$target_words" in load_prompt("answer_length").user


@pytest.mark.parametrize(("longer", "tolerance"), [(10, 2), (30, 2), (60, 3), (100, 5), (200, 10), (900, 10)])
def test_tolerance_is_relative_for_short_answers(longer: int, tolerance: int) -> None:
    assert PairwiseSettings().tolerance(longer) == tolerance


def test_scores_are_whole_points() -> None:
    assert AspectScores(comprehensiveness=3, relevance=4, empowerment=0, directness=5).total() == 12
    with pytest.raises(ValidationError):
        AspectScores(comprehensiveness=3.5, relevance=4, empowerment=0, directness=5)
    prompt = load_prompt("eval_pairwise_aspects")
    assert prompt.version == "3" and "whole points" in prompt.system


def test_identical_trials_are_detected_stopped_and_reported() -> None:
    deterministic = BiasedJudge(honours_seed=False)
    setup = JudgeSetup((_client(deterministic.provider(), "greedy"),), temperature=0.0)
    result = UnbiasedJudge().compare(_pairs(0, gap=0), setup, _settings(0, trials=6, temperature=0.0))
    assert result["trials"] == {**result["trials"], "requested": 6, "run": 2, "identical": True}
    payload = {"a": "a", "b": "b", "judge_name": "unbiased", "settings": {}, "result": result}
    assert "ran 2 of 6" in render_pairwise(payload) and warnings_of(payload)
    sampled = UnbiasedJudge().compare(_pairs(0, gap=0), setup, _settings(0, trials=6, temperature=0.7))
    assert sampled["trials"]["run"] == 6 and not sampled["trials"]["identical"]
    rows = [tuple(row["outcomes"]) for row in sampled["per_question"]]
    assert any(len(set(r)) > 1 for r in rows)


def test_naive_report_is_titled_naive_and_counts_ties() -> None:
    judge = BiasedJudge(position_bonus=0.0, noise=0.0)  # equal answers, no bias: every total is equal
    result = UnbiasedJudge().compare(_pairs(0, gap=0), _setup(judge), PairwiseSettings.naive())
    assert result["rates"]["tie"] == 1.0 and result["verdict"] == "tie within the confidence interval"
    payload = {"a": "a", "b": "b", "judge_name": "unbiased", "protocol": "naive", "result": result}
    payload["settings"] = PairwiseSettings.naive().__dict__
    title = render_pairwise(payload).splitlines()[0]
    assert "naive protocol" in title and "unbiased" not in title


def test_two_pass_report_says_what_was_judged() -> None:
    result = TwoPassJudge().compare(_pairs(0, gap=0), _setup(), _settings(0))
    payload = {"a": "a", "b": "b", "judge_name": "two-pass", "settings": {}, "result": result}
    text = render_pairwise(payload)
    assert f"Judged passes: {2 * QUESTIONS}, {2 * QUESTIONS} with a verdict" in text and "0 of 0" not in text
    assert "two-pass win rate (deg-rag)" in text and "Length gap (answers not aligned)" in text
    empty = {**payload, "result": TwoPassJudge().compare([], _setup(), _settings(0))}
    assert "No pass was judged: there were no questions to compare" in render_pairwise(empty)


def test_everything_discarded_says_so() -> None:
    pairs = [AnswerPair("q0", "Q?", "Fact", "short STUBBORN", stretch("a b c d e f", 40))]
    result = UnbiasedJudge().compare(pairs, _setup(), _settings(0))
    payload = {"a": "a", "b": "b", "judge_name": "unbiased", "settings": {}, "result": result}
    assert "length alignment discarded all 1 pairs" in render_pairwise(payload)


def test_small_sample_factor_widens_few_questions_only() -> None:
    assert small_sample_factor(12, 0.95) > 1.15 and 1.0 < small_sample_factor(400, 0.95) < 1.01


def test_biased_judge_over_http_the_naive_protocol_is_fooled_and_the_unbiased_one_is_not() -> None:
    judge = BiasedJudge()
    with FakeOpenAIServer(judge.responder()) as server:
        own = {"openai": {"base_url": server.base_url}}
        cfg = LLMConfig(provider="openai", providers=own, model="biased", timeout_s=5)
        setup = JudgeSetup((create_llm_client(cfg),), temperature=0.7)
        pairs = _pairs(1)[:8]  # B 8 words longer; the generator (not the server) regenerates A
        naive = UnbiasedJudge().compare(pairs, setup, PairwiseSettings.naive())
        fair = UnbiasedJudge().compare(pairs, setup, _settings(1, trials=3))
        assert server.stats.requests == 8 + 8 * 3 * 2 * 2
    assert naive["verdict"] == "A better" and fair["verdict"] == "tie within the confidence interval"
    assert fair["unmeasured"] == 0 and fair["rates"]["tie"] > 0 and fair["alignment"]["regenerated"] == 8
