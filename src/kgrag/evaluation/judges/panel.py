"""Reference-based 1-5 judge panel (feldt-hellstrom-2026): each panel model scores the answer against
the reference with reasoning first; the panel score is the mean of the judges that answered.

A judge whose reply is unusable is left out of the mean and counted in the note; if none answered,
the score is unmeasured. Each model's own score is kept too, so disagreement between judges shows.
"""

from __future__ import annotations

import statistics

from kgrag.evaluation.judges.base import JudgeSetup
from kgrag.evaluation.judges.call import ask
from kgrag.evaluation.judges.schemas import ReferenceScore
from kgrag.evaluation.metrics.base import Measured, Sample


class ReferencePanel:
    name = "panel"
    paper = "feldt-hellstrom-2026"
    prompts = ("eval_reference_judge",)
    scale = (1.0, 5.0)

    def score(self, sample: Sample, setup: JudgeSetup) -> dict[str, Measured]:
        variables = {"question": sample.question, "reference": sample.reference, "answer": sample.answer}
        per_judge: dict[str, Measured] = {}
        values: list[float] = []
        failures: list[str] = []
        tokens = 0
        for client in setup.clients:
            reply = ask(
                client,
                self.prompts[0],
                variables,
                ReferenceScore,
                stage="eval.judge.panel",
                temperature=setup.temperature,
                seed=setup.seed,
            )
            tokens += reply.tokens
            model = client.settings.model
            if reply.value is None:
                failures.append(f"{model}: {reply.note}")
                per_judge[f"judge.panel.{model}"] = Measured.unmeasured(reply.note, reply.tokens)
                continue
            values.append(float(reply.value.score))
            per_judge[f"judge.panel.{model}"] = Measured(float(reply.value.score), "", reply.tokens)
        note = "; ".join(failures)
        mean = Measured(statistics.fmean(values), note, tokens) if values else Measured.unmeasured(note, tokens)
        return {"judge.panel": mean, **per_judge}
