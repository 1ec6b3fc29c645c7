"""The gleaning decision of a ledger-calibrated estimate is fitted on the units the run really gleaned: the
stored graph's shares include what gleaning added, so unscaled they make first passes look complete."""

from __future__ import annotations

from itertools import pairwise

from kgrag.core.llm_usage import FIRST_ROLE, GLEAN_ROLE, CallRecord
from kgrag.indexing.estimate_glean_fit import SCALES, fit_glean_scale
from kgrag.indexing.estimate_stored import StoredGraph, StoredUnit

NAMES = ["Aspirin", "Ibuprofen", "Paracetamol", "Warfarin", "Heparin", "Clopidogrel", "Naproxen", "Codeine"]


def _unit(n: int) -> StoredUnit:
    sentences = [f"{a} was given with {b} in ward {n}." for a, b in pairwise(NAMES)]
    filler = " The nurses wrote every dose down, checked it twice and kept the charts on the wall." * 6
    return StoredUnit(" ".join(sentences) + filler, (f"c{n}",))


def _record(unit: StoredUnit, stage: str, role: str, *, cached: bool = False, model: str = "m") -> CallRecord:
    return CallRecord("r", stage, "openai", model, 100, 100, "api", 1.0, cached, 1, unit_key=unit.key, call_role=role)


def _ledger(units: list[StoredUnit], gleaned: int) -> list[CallRecord]:
    rows = [_record(unit, "index.extract", FIRST_ROLE) for unit in units]
    return rows + [_record(unit, "index.glean", GLEAN_ROLE) for unit in units[:gleaned]]


def test_a_run_that_gleaned_every_unit_scales_the_shares_down_until_the_rule_gleans_them_all() -> None:
    units = [_unit(n) for n in range(6)]
    graph = StoredGraph({}, {}, units)
    fit = fit_glean_scale(graph, _ledger(units, 6), "m", (1.0, 1.0))
    assert fit is not None and fit.units == 6 and fit.gleaned == 6
    assert fit.unscaled == 0 and fit.predicted == 6 and fit.scale < 1.0  # whole stand-ins look complete
    assert "6 gleaned" in fit.line()


def test_a_run_that_gleaned_what_the_rule_predicts_keeps_the_measured_shares() -> None:
    units = [_unit(n) for n in range(6)]
    fit = fit_glean_scale(StoredGraph({}, {}, units), _ledger(units, 0), "m", (1.0, 1.0))
    assert fit is not None and fit.scale == 1.0 and fit.predicted == fit.gleaned == 0


def test_too_few_first_passes_cached_calls_and_other_models_fit_nothing() -> None:
    units = [_unit(n) for n in range(6)]
    graph = StoredGraph({}, {}, units)
    assert fit_glean_scale(graph, _ledger(units[:3], 3), "m", (1.0, 1.0)) is None
    cached = [_record(unit, "index.extract", FIRST_ROLE, cached=True) for unit in units]
    assert fit_glean_scale(graph, cached, "m", (1.0, 1.0)) is None
    assert fit_glean_scale(graph, _ledger(units, 6), "another model", (1.0, 1.0)) is None
    assert SCALES[0] == 0.2 and SCALES[-1] == 1.5 and 1.0 in SCALES
