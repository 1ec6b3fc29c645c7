"""The learned router's tree and cross-validation on synthetic per-question recalls where the right policy is
known, and the policy's JSON form (round trip, hand edits refused with the field named)."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from kgrag.core.errors import KgragError
from kgrag.retrieval.steps.router_policy import RouterPolicy, pool_features, text_features
from kgrag.tuning.router_fit import AUTO, Row, assign_folds, cross_validate, render_markdown
from kgrag.tuning.router_tree import TreeSettings, fit_policy, leaf_choice

PIPES = ["rerank", "graph-mix-rerank", "bm25"]


def _rows(n: int = 400, seed: int = 0) -> list[Row]:
    """Creative questions are served by bm25 only, long non-creative ones by graph-mix-rerank a bit better
    than rerank, short ones by rerank; recall is noisy around those means."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        creative = i % 5 == 0
        words = rng.randint(5, 40)
        if creative:
            means = {"rerank": 0.1, "graph-mix-rerank": 0.1, "bm25": 0.6}
            qtype = "Creative Generation"
        elif words > 20:
            means = {"rerank": 0.4, "graph-mix-rerank": 0.7, "bm25": 0.3}
            qtype = "Complex Reasoning"
        else:
            means = {"rerank": 0.8, "graph-mix-rerank": 0.5, "bm25": 0.6}
            qtype = "Fact Retrieval"
        recall = {p: min(1.0, max(0.0, m + rng.uniform(-0.2, 0.2))) for p, m in means.items()}
        features = {"cue_creative": float(creative), "words": float(words), "pool_overlap": rng.random()}
        rows.append(Row(f"q{i}", qtype, features, recall, {p: 900 + 10 * j for j, p in enumerate(PIPES)}))
    return rows


def _rewards(rows: list[Row]) -> np.ndarray:
    return np.array([[r.recall[p] for p in PIPES] for r in rows])


def test_the_known_policy_is_found_and_routes_each_kind_of_question() -> None:
    rows = _rows()
    policy = fit_policy([r.features for r in rows], _rewards(rows), PIPES, TreeSettings(min_leaf=20, min_learn=40))
    assert policy.decide({"cue_creative": 1.0, "words": 10.0})[0] == "bm25"
    assert policy.decide({"cue_creative": 0.0, "words": 30.0})[0] == "graph-mix-rerank"
    pipeline, rule = policy.decide({"cue_creative": 0.0, "words": 8.0})
    assert pipeline == "rerank" and rule.endswith("→ rerank") and "words ≤" in rule
    assert "pool_overlap" not in json.dumps(policy.root.to_dict())  # noise is not split on
    rules = policy.rules()
    assert len(rules) in (3, 4) and all(line.endswith("questions)") for line in rules)
    assert all("→ bm25" in line for line in rules if "cue_creative > 0.5" in line)


def test_cross_validated_auto_beats_every_single_pipeline_on_every_type() -> None:
    report = cross_validate(_rows(), PIPES, folds=5, seed=0, settings=TreeSettings(min_leaf=20, min_learn=40))
    assert report.goal_met()
    for qtype in report.types:
        best = max(report.recall[p][qtype] for p in PIPES)
        assert report.recall[AUTO][qtype] >= best - 1e-9
    assert report.routes["Creative Generation"] == {"bm25": 80}
    assert len(report.fold_recall) == 5 and report.counts["All"] == 400
    assert report.tokens["rerank"]["All"] == 900
    table = render_markdown(report)
    assert "auto (learned, held out)" in table and "(n=80)" in table and "→ bm25" in table


def test_on_noise_the_policy_is_the_best_single_pipeline() -> None:
    rng = random.Random(1)
    rows = [
        Row(f"q{i}", "Fact Retrieval", {"words": float(rng.randint(3, 30)), "pool_overlap": rng.random()},
            {"rerank": rng.random() * 0.9 + 0.1, "graph-mix-rerank": rng.random() * 0.9, "bm25": rng.random() * 0.9},
            dict.fromkeys(PIPES, 900))
        for i in range(300)
    ]  # fmt: skip
    policy = fit_policy([r.features for r in rows], _rewards(rows), PIPES)
    assert policy.rules() == ["always → rerank (300 questions)"] and policy.default == "rerank"
    report = cross_validate(rows, PIPES, folds=5, seed=0)
    assert report.routes["All"] == {"rerank": 300} and report.goal_met()


def test_a_leaf_keeps_the_default_unless_the_advantage_is_clear() -> None:
    tied = np.array([[0.5, 0.52], [0.5, 0.48], [0.6, 0.61], [0.4, 0.40]])
    assert leaf_choice(tied, default=0, z=1.0) == 0
    clear = np.array([[0.1, 0.9], [0.2, 0.8], [0.0, 1.0], [0.3, 0.7]])
    assert leaf_choice(clear, default=0, z=1.0) == 1


def test_folds_are_stratified_by_type_and_seeded() -> None:
    rows = _rows(100)
    folds = assign_folds(rows, 5, seed=0)
    creative = [f for f, r in zip(folds, rows, strict=True) if r.question_type == "Creative Generation"]
    assert sorted(creative.count(f) for f in range(5)) == [4] * 5
    assert assign_folds(rows, 5, seed=0) == folds and assign_folds(rows, 5, seed=1) != folds
    with pytest.raises(KgragError, match="--folds"):
        assign_folds(rows, 1, seed=0)
    with pytest.raises(KgragError, match="lower --folds"):
        assign_folds(rows[:3], 5, seed=0)


def test_policy_json_round_trip() -> None:
    rows = _rows()
    policy = fit_policy(
        [r.features for r in rows], _rewards(rows), PIPES, TreeSettings(min_leaf=20, min_learn=40), "synthetic"
    )
    again = RouterPolicy.from_json(policy.to_json())
    assert again == policy
    data = json.loads(policy.to_json())
    assert data["version"] == 1 and data["dataset"] == "synthetic" and data["fitted_on"] == 400
    for features in ({"cue_creative": 1.0}, {"words": 33.0}, {"words": 3.0}):
        assert again.decide(features) == policy.decide(features)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["tree"].update(feature="shoe_size"), "unknown feature 'shoe_size'"),
        (lambda d: d["tree"].update(threshold="high"), "'threshold' must be a number"),
        (lambda d: d["tree"]["le"].update(pipeline="nope"), "leaf pipeline 'nope'"),
        (lambda d: d.update(default="dense"), "'default' must be one of"),
        (lambda d: d.update(version=9), "not a version-1 router policy"),
        (lambda d: d.update(pipelines="rerank"), "'pipelines' must be a non-empty list"),
    ],
)
def test_a_broken_policy_is_refused_naming_the_field(edit, message: str) -> None:  # type: ignore[no-untyped-def]
    data = {
        "version": 1,
        "default": "rerank",
        "pipelines": ["rerank", "bm25"],
        "tree": {"feature": "words", "threshold": 10, "le": {"pipeline": "rerank"}, "gt": {"pipeline": "bm25"}},
    }
    edit(data)
    with pytest.raises(KgragError, match=message) as caught:
        RouterPolicy.from_json(json.dumps(data))
    assert str(caught.value).startswith("router.policy")
    with pytest.raises(KgragError, match="not valid JSON"):
        RouterPolicy.from_json("{tree:")


def test_wording_and_pool_features() -> None:
    creative = text_features("Imagine you are a nurse writing a discharge letter for a patient with CLL.")
    assert creative["cue_creative"] == 1.0 and creative["wh_none"] == 1.0 and creative["wh_what"] == 0.0
    fact = text_features("Which biomarker is associated with CML?")
    assert fact["wh_which"] == 1.0 and fact["cue_creative"] == 0.0 and fact["words"] == 6.0
    assert text_features("How does smoking affect the risk of bladder cancer?")["cue_connective"] == 1.0
    assert pool_features(["a", "b", "c"], ["a", "x"]) == {"pool_overlap": 0.1, "top_agree": 1.0}
    assert pool_features([], ["a"]) == {"pool_overlap": 0.0, "top_agree": 0.0}


def test_of_two_tied_pipelines_the_default_hands_over_less_context() -> None:
    rng = random.Random(2)
    rows = [
        Row(f"q{i}", "Fact Retrieval", {"words": float(i % 30)}, {"rerank": v, "graph-mix-rerank": v + 0.002,
            "bm25": 0.1}, {"rerank": 900, "graph-mix-rerank": 950, "bm25": 900})
        for i, v in enumerate(rng.random() * 0.8 for _ in range(200))
    ]  # fmt: skip
    tokens = np.array([[r.tokens[p] for p in PIPES] for r in rows])
    policy = fit_policy([r.features for r in rows], _rewards(rows), PIPES, tokens=tokens)
    assert policy.default == "graph-mix-rerank"  # better on every question: worth its extra context ...
    rewards = _rewards(rows)
    rewards[:, 1] = rewards[:, 0] + 0.005 + np.array([(-0.3, 0.3)[i % 2] for i in range(len(rows))])  # ... a tie
    policy = fit_policy([r.features for r in rows], rewards, PIPES, tokens=tokens)
    assert policy.default == "rerank" and policy.rules() == ["always → rerank (200 questions)"]


def test_rules_a_small_segment_cannot_back_held_out_give_way_to_the_default() -> None:
    rows = _rows(600, seed=3)
    rng = random.Random(4)
    noisy = [
        Row(r.id, r.question_type, r.features, {p: rng.random() * 0.3 for p in PIPES}, r.tokens)
        if r.features["cue_creative"] else r
        for r in rows
    ]  # fmt: skip
    policy = fit_policy([r.features for r in noisy], _rewards(noisy), PIPES, TreeSettings(min_leaf=20, min_learn=40))
    creative = [line for line in policy.rules() if "cue_creative > 0.5" in line]
    assert creative == [f"cue_creative > 0.5 → {policy.default} (120 questions)"]
    assert any("graph-mix-rerank" in line for line in policy.rules())  # the other segment keeps its rules


def test_segments_split_first_in_order_and_each_keeps_its_own_rules() -> None:
    rng = random.Random(5)
    rows = []
    for i in range(600):
        creative, multi = i % 6 == 0, i % 6 in (1, 2)
        best = "bm25" if creative else "graph-mix-rerank" if multi else "rerank"
        recall = {p: (0.7 if p == best else 0.3) + rng.uniform(-0.1, 0.1) for p in PIPES}
        features = {
            "cue_creative": float(creative),
            "cue_conjunction": float(multi),
            "words": float(rng.randint(4, 40)),
        }
        rows.append(Row(f"q{i}", "t", features, recall, dict.fromkeys(PIPES, 900)))
    policy = fit_policy([r.features for r in rows], _rewards(rows), PIPES, TreeSettings(min_learn=100))
    assert policy.root.feature == "cue_creative" and policy.root.le is not None
    assert policy.root.le.feature == "cue_conjunction"
    assert policy.rules() == [
        "cue_creative ≤ 0.5 and cue_conjunction ≤ 0.5 → rerank (300 questions)",
        "cue_creative ≤ 0.5 and cue_conjunction > 0.5 → graph-mix-rerank (200 questions)",
        "cue_creative > 0.5 → bm25 (100 questions)",
    ]
    few = fit_policy([r.features for r in rows], _rewards(rows), PIPES, TreeSettings(min_learn=101))
    assert few.rules()[-1] == "cue_creative > 0.5 → rerank (100 questions)"  # too few to learn from
    assert policy.decide({"cue_creative": 0.0, "cue_conjunction": 1.0}) == (
        "graph-mix-rerank",
        "cue_creative ≤ 0.5 and cue_conjunction > 0.5 → graph-mix-rerank",
    )
