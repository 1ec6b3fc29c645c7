"""Two-pass pairwise win rate (deg-rag): each question is judged twice, pass A with (A, B) and pass B
with (B, A); a method's wins on a criterion are its "1" verdicts in pass A plus its "2" verdicts in
pass B, ties are counted when the judge says so, and rates are over all judged passes. A failed pass
is unmeasured (reported), not a loss. deg-rag does not align lengths, so the report gives the raw length
gap per pair and whether verdicts follow it."""

from __future__ import annotations

from kgrag.evaluation.judges.base import JudgeSetup
from kgrag.evaluation.judges.call import ask
from kgrag.evaluation.judges.schemas import TwoPassVerdict
from kgrag.evaluation.pairwise.alignment import words
from kgrag.evaluation.pairwise.lengths import gap_summary
from kgrag.evaluation.pairwise.payloads import CriterionSummary, PairwiseResult
from kgrag.evaluation.pairwise.stats import consistency, summarize_outcomes
from kgrag.evaluation.pairwise.types import AnswerPair, PairwiseSettings

CRITERIA = ("comprehensiveness", "diversity", "empowerment", "overall")
_MAP = {True: {"1": "A", "2": "B", "tie": "tie"}, False: {"1": "B", "2": "A", "tie": "tie"}}


class TwoPassJudge:
    name = "two-pass"
    paper = "deg-rag"
    prompts = ("eval_two_pass",)

    def _pass(self, pair: AnswerPair, setup: JudgeSetup, a_first: bool, temperature: float) -> dict[str, str] | None:
        first, second = (pair.answer_a, pair.answer_b) if a_first else (pair.answer_b, pair.answer_a)
        reply = ask(
            setup.primary,
            "eval_two_pass",
            {"question": pair.question, "answer_1": first, "answer_2": second},
            TwoPassVerdict,
            stage="eval.pairwise.two_pass",
            temperature=temperature,
            seed=setup.seed * 2 + int(a_first),
        )
        if reply.value is None:
            return None
        return {c: _MAP[a_first][getattr(reply.value, c)] for c in CRITERIA}

    def compare(self, pairs: list[AnswerPair], setup: JudgeSetup, settings: PairwiseSettings) -> PairwiseResult:
        temperature = setup.temperature if settings.temperature is None else settings.temperature
        passes = [(self._pass(p, setup, True, temperature), self._pass(p, setup, False, temperature)) for p in pairs]
        stats = (settings.confidence, settings.bootstrap_samples, settings.seed)
        criteria: dict[str, CriterionSummary] = {}
        for criterion in CRITERIA:
            table = [[x[criterion] if x else None, y[criterion] if y else None] for x, y in passes]
            counts = {k: sum(o == k for row in table for o in row) for k in ("A", "B", "tie")}
            criteria[criterion] = (
                {**summarize_outcomes(table, *stats), "counts": counts} if pairs else {"rates": None, "counts": counts}
            )
        overall = criteria["overall"]
        verdict = overall.get("verdict", "no decision")
        gaps = [words(p.answer_a) - words(p.answer_b) for p in pairs]
        outcomes = [[x["overall"] if x else None, y["overall"] if y else None] for x, y in passes]
        return {
            "criteria": criteria,
            "rates": overall.get("rates"),
            "ci": overall.get("ci"),
            "verdict": verdict,
            "confidence": settings.confidence,
            "unmeasured": overall.get("unmeasured", 0),
            "decisions": overall.get("decisions", 0),
            "per_trial": [],  # two passes of one trial: no per-trial spread to plot
            "length_gap": gap_summary(gaps, outcomes, verdict),
            "per_question": [
                {
                    "question_id": p.question_id,
                    "question_type": p.question_type,
                    "outcomes": [x["overall"] if x else None, y["overall"] if y else None],
                    "gap": gap,
                }
                for p, (x, y), gap in zip(pairs, passes, gaps, strict=True)
            ],
            "position_consistency": consistency(
                [(x["overall"] if x else None, y["overall"] if y else None) for x, y in passes]
            ),
        }
