"""The unbiased pairwise procedure removes the bias it claims to remove.

Two pipelines give answers of *equal* quality; A's are short and B's long. The judge
(:class:`kgrag.testing.biased_judge.BiasedJudge`) ignores content and favours whichever answer is
shown first and whichever is longer. The naive protocol (A always first, one trial, no alignment)
reports a large win for A; the unbiased one aligns lengths, judges both orders N times over M
trials and must find a tie within its confidence interval, while reporting the position inconsistency
it neutralised and the pairs it had to discard.
"""

from __future__ import annotations

from kgrag.config import LLMConfig
from kgrag.evaluation.judges.base import JudgeSetup
from kgrag.evaluation.pairwise.types import AnswerPair, PairwiseSettings
from kgrag.evaluation.pairwise.unbiased import UnbiasedJudge
from kgrag.models.llm import create_llm_client
from kgrag.testing.biased_judge import BiasedJudge


def _pairs(n: int = 16) -> list[AnswerPair]:
    pairs = []
    for i in range(n):
        short = f"Drug {i} lowers blood pressure by relaxing the vessel walls."
        long_ = short + " It does so gradually, and patients usually notice the effect within a few weeks of daily use."
        marker = " STUBBORN" if i == 0 else ""
        pairs.append(AnswerPair(f"q{i}", f"How does drug {i} work?", "Fact", short + marker, long_, "ctx", "ctx"))
    return pairs


def _setup() -> JudgeSetup:
    client = create_llm_client(LLMConfig(provider="scripted", model="biased-judge"), provider=BiasedJudge().provider())
    return JudgeSetup((client,), temperature=0.0)


def test_naive_pairwise_shows_a_large_spurious_win() -> None:
    result = UnbiasedJudge().compare(_pairs(), _setup(), PairwiseSettings.naive())
    assert result["rates"]["win_a"] >= 0.8
    assert result["rates"]["win_b"] == 0.0  # equal totals are ties, not handed to A
    assert result["verdict"] == "A better"
    assert result["alignment"]["enabled"] is False and result["position_consistency"] is None


def test_unbiased_procedure_reports_a_tie_within_its_interval() -> None:
    settings = PairwiseSettings(repeats=2, trials=8, bootstrap_samples=500)
    result = UnbiasedJudge().compare(_pairs(), _setup(), settings)
    low, high = result["ci"]["relative"]
    assert low <= 0 <= high, result["ci"]
    assert result["verdict"] == "tie within the confidence interval"
    assert abs(result["rates"]["relative"]) < 0.2
    assert result["position_consistency"] is not None and result["position_consistency"] < 0.6
    alignment = result["alignment"]
    assert alignment["discarded"] == 1 and alignment["discard_rate"] == 1 / 16 and "q0" in alignment["reasons"][0]
    assert len(result["per_trial"]) == 8 and result["unmeasured"] == 0
    assert set(result["aspects"]) == {"comprehensiveness", "relevance", "empowerment", "directness"}
