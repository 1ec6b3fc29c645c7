#!/usr/bin/env bash
# Adds four toy extensions in a throw-away worktree of HEAD — a pipeline with a knob, a metric in the
# default set, a reranker with a knob, a stage with its own counters — checks that they validate, run
# and are documented, and prints `git diff --stat`: each is one new file plus one registration line.
# Nothing is committed; the worktree is removed at the end. Usage: scripts/toy-additions.sh [python]
set -euo pipefail
REPO="$(git rev-parse --show-toplevel)"
PY="${1:-$REPO/.venv/bin/python}"
SCRATCH="$(mktemp -d)/toys"
git -C "$REPO" worktree add --quiet --detach "$SCRATCH" HEAD
trap 'git -C "$REPO" worktree remove --force "$SCRATCH"' EXIT
cd "$SCRATCH"

cat > src/kgrag/retrieval/recipes/toy_knob.py <<'EOF'
"""``toy-knob``: BM25 with its own pool knob."""

from __future__ import annotations

from pydantic import Field

from kgrag.config import KgragConfig, PipelineBaseSettings
from kgrag.retrieval.pipelines import Pipeline
from kgrag.retrieval.recipes.parts import finish
from kgrag.retrieval.steps import BM25Search, TakeTop, UseStream


class ToyKnobSettings(PipelineBaseSettings):
    """``toy-knob``: how many BM25 candidates it reads."""

    width: int = Field(7, ge=1, description="BM25 candidates read.")


def toy_knob_pipeline(name: str, config: KgragConfig) -> Pipeline:
    width = config.retrieval.pipeline_settings(name, ToyKnobSettings).width
    steps = (BM25Search(pool=width), UseStream("bm25"), TakeTop(), *finish(name, config))
    return Pipeline(name, f"BM25 over {width} candidates.", steps)
EOF

cat > src/kgrag/evaluation/metrics/toy_length.py <<'EOF'
"""``toy-length``: answer length against a 50-word target."""

from __future__ import annotations

from kgrag.evaluation.metrics.base import Measured, MetricTools, Sample


class ToyLength:
    name = "toy-length"
    paper = "none"

    def llm_free(self, sample: Sample, tools: MetricTools) -> Measured:
        return Measured(min(1.0, len(sample.answer.split()) / 50))

    def judged(self, sample: Sample, tools: MetricTools) -> Measured:
        return self.llm_free(sample, tools)
EOF

cat > src/kgrag/models/rerankers/toy_reverse.py <<'EOF'
"""``toy-reverse``: the incoming order reversed, at most ``keep`` passages."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from kgrag.core.context import ContextItem
from kgrag.models.rerankers.base import RerankResources


class ToyReverseSettings(BaseModel):
    """``toy-reverse``: passages returned at most."""

    model_config = ConfigDict(extra="forbid")
    keep: int = Field(3, ge=1, description="Passages returned at most.")


class ToyReverse:
    def __init__(self, keep: int) -> None:
        self.keep = keep

    def rerank(self, query: str, items: Sequence[ContextItem], k: int) -> list[ContextItem]:
        return list(reversed(items))[: min(k, self.keep)]


def toy_reverse_reranker(settings: ToyReverseSettings, resources: RerankResources) -> ToyReverse:
    return ToyReverse(settings.keep)
EOF

cat > src/kgrag/indexing/stages/toy_count.py <<'EOF'
"""Stage ``toy-count``: counts the discovered files by suffix, in a report of its own."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from kgrag.indexing.context import IndexContext


@dataclass
class ToyCountReport:
    by_suffix: dict[str, int] = field(default_factory=dict)


class ToyCountStage:
    name = "toy-count"
    report_model = ToyCountReport

    def run(self, ctx: IndexContext) -> None:
        ctx.report.stage(self.name, ToyCountReport).by_suffix.update(Counter(p.suffix for p in ctx.files))
EOF

"$PY" - <<'EOF'
from pathlib import Path

lines = {
    '"graph-mix-rerank": ': '"toy-knob": Builtin("kgrag.retrieval.recipes.toy_knob:toy_knob_pipeline", ":ToyKnobSettings"),',
    '"none": "kgrag.models.rerankers.basic:keep_order_reranker",': (
        '"toy-reverse": Builtin("kgrag.models.rerankers.toy_reverse:toy_reverse_reranker", ":ToyReverseSettings"),'
    ),
    '"coverage": Builtin(': '"toy-length": Builtin("kgrag.evaluation.metrics.toy_length:ToyLength", default_set=True),',
    '"finalize": "kgrag.indexing.stages.finalize:FinalizeStage",': '"toy-count": "kgrag.indexing.stages.toy_count:ToyCountStage",',
}
for path in (Path("src/kgrag/core/builtins.py"), Path("src/kgrag/core/builtin_query.py")):
    out = []
    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        out.append(line)
        for anchor, new in lines.items():
            if line.strip().startswith(anchor):
                out.append(" " * 12 + new + "\n")
    path.write_text("".join(out), encoding="utf-8")
EOF

echo "== source changes (the toys and their registration lines)"
git add -N src
git diff --stat HEAD -- src

PYTHONPATH="$PWD/src" "$PY" -m kgrag.config > docs/configuration.md
PYTHONPATH="$PWD/src" "$PY" - <<'EOF'
from kgrag.config import load_config
from kgrag.core.registries import Registries
from kgrag.workspace import kinds

config = load_config(retrieval={"pipelines": {"toy-knob": {"width": 4}}}, rerank={"provider": "toy-reverse", "toy-reverse": {"keep": 2}})
regs = Registries()
pipeline = kinds.pipelines(regs).create("toy-knob", "toy-knob", config)
assert pipeline.description == "BM25 over 4 candidates.", pipeline.description
assert kinds.rerankers(regs).settings("toy-reverse", {"keep": 2}, "rerank.toy-reverse").keep == 2
assert "toy-length" in kinds.metrics(regs).default_names()
assert kinds.stages(regs).create("toy-count").report_model.__name__ == "ToyCountReport"
try:
    load_config(retrieval={"pipelines": {"toy-knob": {"width": "wide"}}})
except Exception as exc:
    assert "retrieval.pipelines.toy-knob.width: expected int" in str(exc), exc
print("toys: configured, validated, built, in the default set, registered")
EOF
grep -c "toy-knob\|toy-reverse" docs/configuration.md >/dev/null && echo "toys: documented in docs/configuration.md (regenerated)"
"$PY" -m ruff check --quiet src && "$PY" -m ruff format --check --quiet src && echo "toys: ruff-clean"
PYTHONPATH="$PWD/src" HF_HUB_OFFLINE=1 "$PY" -m pytest -q -p no:cacheprovider \
    tests/architecture/test_layers.py tests/foundation/test_config.py::test_configuration_docs_are_current | tail -1
echo "== with the regenerated docs/configuration.md"
git diff --stat HEAD
