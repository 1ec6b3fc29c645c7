"""Length alignment before pairwise judging (zeng-unbiased-eval): judges prefer longer answers, so the
shorter answer is made again with the longer one's length as target, up to ``length_attempts`` times;
if still short, it is padded without new content; a pair still further apart than the tolerance
(:meth:`PairwiseSettings.tolerance`, relative to the answer length) is discarded.

"Made again" means what the paper does: the pipeline's own generation step answers once more from the
context it retrieved, with the target length in its prompt (:class:`AnswerWriter`). A later attempt
asks for the previous request's length plus that attempt's shortfall (minus its overshoot), so a
generator that always stops short is corrected rather than asked the same thing again. Attempts go on
until the lengths match exactly or ``length_attempts`` are used, even when the first gap is already
inside the tolerance: a judge that prefers longer answers turns a gap inside the tolerance into verdicts
when it leans one way (a generator that always ends two words short does exactly that), and
regenerating costs a few generation calls against the 2·N·M judge calls each pair receives. The best
attempt is kept: within the tolerance first, then one short of the target (padding can still close it),
then the closest. Whatever gap is left is then closed exactly where padding can: the shorter answer of
the two (whichever it is by then) is padded by the missing words, checked, and padded once more if the
padder missed. Each regeneration's requested and written length is recorded (``regenerations``), so a
report and the A/A check can tell a generator that systematically ends short.
Only where the pipeline cannot regenerate (its own answer step, no LLM, an empty or "I don't know"
reply) does the judge model rewrite the answer with ``eval_length_align``; each pair records which
happened, so a report can say how many answers the judge wrote. Padding uses the pipeline's model where
it has one, else the judge's.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from kgrag.evaluation.pairwise.payloads import AlignRecord
from kgrag.evaluation.pairwise.types import AnswerPair, AnswerWriter, PairwiseSettings, Side
from kgrag.models.llm import LLMClient, LLMUnavailableError

REGENERATED = "regenerated"
JUDGE_REWRITE = "judge-rewrite"
PADDED = "padded"
JUDGE_PAD = "judge-pad"


@dataclass(frozen=True)
class Aligned:
    """The pair after alignment, or ``pair is None`` with the reason it was discarded. ``steps`` names
    each change made to the shorter answer (``regenerated``, ``judge-rewrite``, ``padded``, ``judge-pad``);
    ``record`` is what the report keeps per pair."""

    pair: AnswerPair | None
    note: str
    steps: tuple[str, ...]
    record: AlignRecord

    @property
    def rewrites(self) -> int:
        return len(self.steps)


def words(text: str) -> int:
    return len(text.split())


def _judge_rewrite(client: LLMClient, pair: AnswerPair, side: Side, answer: str, target: int, attempt: int) -> str:
    reply = client.chat_prompt(
        "eval_length_align",
        {
            "question": pair.question,
            "context": pair.context(side) or "(no context)",
            "answer": answer,
            "target_words": target,
        },
        stage="eval.pairwise.align",
        seed=attempt,
    )
    return reply.text.strip()


def _judge_pad(client: LLMClient, question: str, answer: str, missing: int) -> str:
    reply = client.chat_prompt(
        "eval_length_pad", {"question": question, "answer": answer, "missing_words": missing}, stage="eval.pairwise.pad"
    )
    return reply.text.strip()


def _rank(text: str, target: int, tolerance: int) -> tuple[int, int]:
    """Lower is better: within the tolerance first, then short of the target (padding can still close
    the gap), then too long (nothing shortens it); closer first within each."""
    gap = target - words(text)
    return (0 if abs(gap) <= tolerance else 1 if gap > 0 else 2), abs(gap)


@dataclass
class _Work:
    """The shorter answer while it is being aligned."""

    pair: AnswerPair
    side: Side
    text: str
    target: int
    tolerance: int
    other: str = ""
    steps: list[str] = field(default_factory=list)
    regenerations: list[tuple[int, int]] = field(default_factory=list)

    @property
    def gap(self) -> int:
        return self.target - words(self.text)

    def take(self, candidate: str | None, step: str) -> None:
        self.steps.append(step)
        if candidate and _rank(candidate, self.target, self.tolerance) < _rank(self.text, self.target, self.tolerance):
            self.text = candidate.strip()


def _attempts(work: _Work, writer: AnswerWriter | None, judge: LLMClient, settings: PairwiseSettings) -> None:
    ask = work.target
    for attempt in range(settings.length_attempts):
        if work.gap == 0 or (not settings.exact_lengths and attempt == 0 and abs(work.gap) <= work.tolerance):
            return
        made = writer.regenerate(ask, attempt) if writer is not None else None
        if made:
            work.regenerations.append((ask, words(made)))
            work.take(made, REGENERATED)
            ask = max(1, ask + work.target - words(made))  # the next request corrects this one's miss
        else:
            work.take(_judge_rewrite(judge, work.pair, work.side, work.text, work.target, attempt), JUDGE_REWRITE)


PAD_TRIES = 2


def _padded(text: str, missing: int, writer: AnswerWriter | None, judge: LLMClient, question: str) -> tuple[str, str]:
    """``text`` lengthened by ``missing`` words (the pipeline's padder, else the judge's) and the step name."""
    made = writer.pad(text, missing) if writer is not None else None
    if made:
        return made.strip(), PADDED
    return _judge_pad(judge, question, text, missing), JUDGE_PAD


def _close(work: _Work, judge: LLMClient, settings: PairwiseSettings) -> None:
    """Pad whichever answer is shorter by exactly the words it lacks; a pad that misses is asked again,
    and a pad that does not bring the lengths closer is not kept. Without ``exact_lengths`` only a gap
    beyond the tolerance is padded (the paper's procedure)."""
    allowed = 0 if settings.exact_lengths else work.tolerance
    for _ in range(PAD_TRIES):
        gap = words(work.other) - words(work.text)
        if abs(gap) <= allowed:
            return
        short_side: Side = work.side if gap > 0 else ("b" if work.side == "a" else "a")
        text = work.text if gap > 0 else work.other
        made, step = _padded(text, abs(gap), work.pair.writer(short_side), judge, work.pair.question)
        work.steps.append(step)
        if not made or abs(words(made) - words(text) - abs(gap)) >= abs(gap):
            continue  # the padder did not lengthen it, or overshot by the whole gap: keep the original
        if gap > 0:
            work.text = made
        else:
            work.other = made


def align(pair: AnswerPair, client: LLMClient, settings: PairwiseSettings) -> Aligned:
    """Bring the shorter answer within the tolerance of the longer one, or discard the pair. ``client`` is
    the judge's, used only where the pipeline cannot make the answer again itself."""
    la, lb = words(pair.answer_a), words(pair.answer_b)
    side: Side = "a" if la < lb else "b"
    other: Side = "b" if side == "a" else "a"
    work = _Work(pair, side, pair.answer(side), max(la, lb), settings.tolerance(max(la, lb)), pair.answer(other))
    record: AlignRecord = {"question_id": pair.question_id, "gap_before": la - lb, "tolerance": work.tolerance}
    try:
        _attempts(work, pair.writer(side), client, settings)
        _close(work, client, settings)
    except LLMUnavailableError as exc:
        record["steps"] = work.steps
        record["aligned"] = False
        record["regenerations"] = work.regenerations
        return Aligned(None, f"alignment call failed: {exc}", tuple(work.steps), record)
    record["steps"] = list(work.steps)
    record["rewritten"] = side if work.steps else None
    record["regenerations"] = work.regenerations
    apart = abs(words(work.other) - words(work.text))
    if apart > work.tolerance:
        record["aligned"] = False
        note = f"still {apart} words apart (tolerance {work.tolerance}) after {len(work.steps)} rewrites"
        return Aligned(None, note, tuple(work.steps), record)
    texts = {side: work.text, other: work.other}
    aligned = replace(pair, answer_a=texts["a"], answer_b=texts["b"])
    record["aligned"] = True
    record["gap_after"] = words(aligned.answer_a) - words(aligned.answer_b)
    return Aligned(aligned, "", tuple(work.steps), record)
