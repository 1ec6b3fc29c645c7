"""A measured extraction reply is priced for each other unit by the names that unit holds
(:mod:`kgrag.models.llm.estimate_reply`): a unit naming more is predicted to reply longer, but not in
proportion; the probe records the names of the units it measured; and the recorded replies of a real small
model support the damping (within each corpus, the scaled reply of one unit predicts another's better than
the same size for every unit and better than a size in proportion to names)."""

from __future__ import annotations

import json
import math
import os
from itertools import permutations
from pathlib import Path
from typing import cast

from tests.conftest import SAMPLE_DOCS
from tests.llm.test_estimate_structure import NEVER

from kgrag import Workspace
from kgrag.core.llm_types import ChatRequest, Message, PromptRef
from kgrag.models.llm.estimate import EstimatingProvider, distinct_names
from kgrag.models.llm.estimate_assumed import EstimateAssumptions
from kgrag.models.llm.estimate_reply import REPLY_FIXED_NAMES, name_scale
from kgrag.models.llm.tokens import default_token_counter
from kgrag.testing import FakeOpenAIServer
from kgrag.testing.estimate_check import KEY_ENV, write_workspace
from kgrag.testing.extraction_responder import ExtractionResponder

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "llm_replies"
FEW = "The committee met in Harwick. Its chair spoke about the budget for the coming year."
MANY = (
    "Ada Morrow of Fenwick Labs met Jonas Pell and Rina Oduya in Harwick. Tallis Corp sent Mira Quent, "
    "who briefed the Orrin Council and Dr. Selby about Project Kestrel and the Vantor Bridge."
)


def _extraction(text: str) -> ChatRequest:
    messages = cast(tuple[Message, ...], ({"role": "user", "content": f"Extract.\nText:\n{text}"},))
    return ChatRequest(messages, "m", {"max_tokens": 50}, PromptRef("extract_graph", "1"))


def _priced(assumptions: EstimateAssumptions, text: str) -> int:
    provider = EstimatingProvider(NEVER, default_token_counter(), assumptions)
    return provider.complete(_extraction(text)).completion_tokens or 0


def test_a_unit_naming_more_is_priced_above_the_measured_reply_and_one_naming_less_below() -> None:
    few, many = len(distinct_names(FEW)), len(distinct_names(MANY))
    assert few < 3 < 10 < many
    measured = EstimateAssumptions(extraction_completion=300.0, extraction_names=6.0)
    low, high = _priced(measured, FEW), _priced(measured, MANY)
    assert low < 300 < high  # a measured size is not capped by max_tokens (50 here): it is what the server sent
    assert high == round(300 * (REPLY_FIXED_NAMES + many) / (REPLY_FIXED_NAMES + 6))
    # damped: the richer unit costs more, but less than in proportion to its names
    assert high / low < many / few


def test_without_the_measured_units_names_every_unit_is_priced_at_the_measured_mean() -> None:
    measured = EstimateAssumptions(extraction_completion=300.0)
    assert _priced(measured, FEW) == _priced(measured, MANY) == 300
    assert name_scale(measured, 40) == 1.0
    assert "300 completion tokens each" in measured.lines()[0]
    named = EstimateAssumptions(extraction_completion=300.0, extraction_names=6.0)
    assert "for a unit of 6 distinct names" in named.lines()[0]


def _clean_first_replies(path: Path) -> list[tuple[int, int]]:
    """(distinct names of the unit, completion tokens) of each unit's first complete extraction reply in one
    recorded run; the halves of a unit retried smaller are left out (follow-ups, priced apart), and so are
    replies recorded without the server's count (streamed from llama-cpp-python, which sends none)."""
    replies: dict[str, int] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        first = record["prompt"] == "extract_graph" and len(record["messages"]) == 2
        if first and record["finish_reason"] == "stop" and record["usage"][1] is not None:
            replies.setdefault(record["messages"][-1]["content"].split("Text:\n", 1)[-1], record["usage"][1])
    flat = {text: " ".join(text.split()) for text in replies}
    units = [t for t in replies if not any(flat[t][:80] in flat[o] and len(o) > len(t) for o in replies)]
    return [(len(distinct_names(text)), replies[text]) for text in units]


def _error(pairs: list[list[tuple[int, int]]], fixed: float | None) -> float:
    """Mean |log(predicted / replied)| predicting each unit from each other unit of the same run (``fixed``
    None: the same size for every unit)."""
    errors = []
    for run in pairs:
        for (names, replied), (probe_names, probe_replied) in permutations(run, 2):
            scale = 1.0 if fixed is None else (fixed + names) / (fixed + probe_names)
            errors.append(abs(math.log(probe_replied * scale / replied)))
    return sum(errors) / len(errors)


def test_the_real_models_recorded_replies_support_the_damped_scale() -> None:
    runs = [_clean_first_replies(path) for path in sorted(FIXTURES.glob("qwen2.5-coder-0.5b-q4km*.jsonl"))]
    runs = [run for run in runs if len(run) > 1]
    assert len(runs) >= 3, "too few recorded runs with two units or more"
    damped = _error(runs, REPLY_FIXED_NAMES)
    assert damped < _error(runs, None)  # better than pricing every unit like the probed one
    assert damped < _error(runs, 0.0)  # and better than replies in proportion to names


def test_the_probe_records_its_units_names_and_the_estimate_scales_from_them(tmp_path: Path) -> None:
    os.environ.setdefault(KEY_ENV, "sk-estimate-check")
    docs = sorted(SAMPLE_DOCS.iterdir())[:3]
    with (
        FakeOpenAIServer(ExtractionResponder().for_server, include_usage=False) as server,
        Workspace.open(write_workspace(tmp_path / "ws", server.base_url)) as ws,
    ):
        _, estimate = ws.estimate_index(docs, probe=True)
        stored = ws.store.meta.get("estimate.probe_names")
    assert stored is not None and float(stored) > 0
    line = next(line for line in estimate.assumptions if line.startswith("assumed: extraction replies"))
    assert f"for a unit of {float(stored):.0f} distinct names (as measured)" in line, line
