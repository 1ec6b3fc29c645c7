"""A learned routing policy for ``auto``: question features → pipeline, as a small decision tree stored as data.

``kgrag tune router`` fits the tree on labelled questions (:mod:`kgrag.tuning.router_fit`) and
stores it as JSON in the workspace's meta table under :data:`POLICY_KEY`; ``auto`` then routes by it
instead of its cue-word heuristics, and its trace names the rule that fired. Nothing here is pickled or
evaluated: a node is either a split (``feature``, ``threshold``, ``le``/``gt`` children) or a leaf
(``pipeline``), and loading checks every field, so a hand-edited policy fails with a line naming what is
wrong.

Every feature is computable at query time without a label: wording cues, the question's length, how
many of its phrases name graph entities, and how far two cheap first-stage searches (dense and BM25)
agree on the top passages. The last ones cost one dense and one BM25 search of the question; the routed
pipeline reuses the query vector and (up to ``retrieval.candidate_pool`` hits) the BM25 search.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from typing_extensions import TypedDict

from kgrag.core.errors import KgragError
from kgrag.core.records import ScoredId
from kgrag.retrieval.query_context import QueryContext
from kgrag.retrieval.steps.basic import DenseSearch, QueryState, bm25_hits
from kgrag.retrieval.steps.graph_local import query_keywords
from kgrag.retrieval.steps.route_graph import RouteGraph, outermost

POLICY_KEY = "router.policy"
"""Workspace meta key holding the policy's JSON."""
POLICY_VERSION = 1
POOL = 10
"""Passages of each first-stage search compared for the agreement features."""
MAX_DEPTH = 6
"""Deepest tree a stored policy may hold (the fitter uses 3 by default)."""

_CUES: dict[str, re.Pattern[str]] = {
    "cue_connective": re.compile(
        r"\b(relationship|relate[sd]?|connect(ed|ion)?|link(ed)?|between|compare[sd]?|comparison|differ(s|ence)?|"
        r"versus|affect(s|ed)?|impact(s|ed)?|influence[sd]?|lead(s)? to|result(s)? in|cause[sd]?|"
        r"mechanism|contribute[sd]?)\b",
        re.IGNORECASE,
    ),
    "cue_summary": re.compile(
        r"\b(describe|explain|discuss|summari[sz]e|overview|role of|significance|approach(es)?|options|"
        r"management|considerations?|overall)\b",
        re.IGNORECASE,
    ),
    "cue_creative": re.compile(
        r"^\s*(you are|imagine|rewrite|transform|as an?|assume|format|reformat|write|draft|create|compose|pretend)\b|"
        r"\b(story|poem|letter|dialogue|scenario|summary for|patient-facing|note|protocol|handout)\b",
        re.IGNORECASE,
    ),
    "cue_conjunction": re.compile(r",? and (how|what|which|why|when|is|are|does|do)\b|\bboth\b", re.IGNORECASE),
    "cue_condition": re.compile(r"^\s*(if|for|when|in) \b|\bpatient\b", re.IGNORECASE),
}
_WH = ("what", "which", "how", "why")
_WORD = re.compile(r"\w+")

FEATURES: dict[str, str] = {
    "words": "words in the question",
    "phrases": "content words and phrases of the question (the graph's keyword lookup)",
    "graph_entities": "phrases of the question that name a graph entity",
    "graph_bridge": "1 when two entities the question names are linked in the graph only through a third one",
    **{f"wh_{w}": f"1 when the question starts with {w!r}" for w in _WH},
    "wh_none": "1 when the question starts with none of what/which/how/why (imperatives, yes/no, conditions)",
    **{name: f"1 when the question matches the {name[4:]} cue words" for name in _CUES},
    "pool_overlap": f"share of the dense top {POOL} also in the BM25 top {POOL}",
    "top_agree": "1 when dense and BM25 rank the same passage first",
    "dense_top": "cosine-like score of the best dense passage",
}
"""Every feature a policy may split on, with what it measures (``kgrag tune router`` prints the rules
with these names)."""


def text_features(query: str) -> dict[str, float]:
    """The features read from the wording alone."""
    words = _WORD.findall(query)
    first = words[0].lower() if words else ""
    values: dict[str, float] = {"words": float(len(words)), "phrases": float(len(query_keywords(query)))}
    for w in _WH:
        values[f"wh_{w}"] = float(first == w)
    values["wh_none"] = float(first not in _WH)
    for name, pattern in _CUES.items():
        values[name] = float(pattern.search(query) is not None)
    return values


def pool_features(dense: list[str], bm25: list[str]) -> dict[str, float]:
    """Agreement of the two first-stage rankings (passage ids, best first)."""
    top = dense[:POOL]
    overlap = len(set(top) & set(bm25[:POOL])) / POOL
    agree = float(bool(dense) and bool(bm25) and dense[0] == bm25[0])
    return {"pool_overlap": overlap, "top_agree": agree}


def question_features(
    query: str, env: QueryContext, lexical_hits: dict[str, tuple[int, list[ScoredId]]] | None = None
) -> dict[str, float]:
    """All :data:`FEATURES` of ``query`` in this workspace. ``lexical_hits`` is the run's BM25 memo
    (:attr:`QueryState.lexical_hits`), so the routed pipeline reuses this search."""
    values = text_features(query)
    graph = RouteGraph(env.graph_index())
    named = [p for p in query_keywords(query) if graph.known(p)]
    values["graph_entities"] = float(len(named))
    values["graph_bridge"] = float(graph.bridge(outermost(named)) is not None)
    scratch = QueryState(
        query=query, k=POOL, queries=[query], lexical_hits={} if lexical_hits is None else lexical_hits
    )
    DenseSearch(POOL).run(scratch, env)
    dense = scratch.streams.get("dense", [])
    # searched as deep as the pipelines' pools, so the routed pipeline's BM25 step finds it in the run's memo
    bm25 = bm25_hits(scratch, env, [query], max(POOL, env.config.retrieval.candidate_pool))[0][:POOL]
    values.update(pool_features([i.id for i in dense], [chunk_id for chunk_id, _ in bm25]))
    values["dense_top"] = dense[0].score if dense else 0.0
    return values


class NodeDict(TypedDict, total=False):
    """A :class:`Node` as stored: a leaf (``pipeline``, ``questions``) or a split (``feature``, ``threshold``,
    ``questions``, ``le``, ``gt``)."""

    pipeline: str
    feature: str
    threshold: float
    questions: int
    le: NodeDict
    gt: NodeDict


@dataclass(frozen=True)
class Node:
    """A split (``feature`` ≤ ``threshold`` goes to ``le``, else ``gt``) or, with ``pipeline`` set, a leaf.
    ``questions`` is how many fitting questions reached the node (for the printed rules)."""

    pipeline: str | None = None
    feature: str = ""
    threshold: float = 0.0
    le: Node | None = None
    gt: Node | None = None
    questions: int = 0

    def to_dict(self) -> NodeDict:
        if self.pipeline is not None:
            return {"pipeline": self.pipeline, "questions": self.questions}
        assert self.le is not None and self.gt is not None
        return {
            "feature": self.feature,
            "threshold": self.threshold,
            "questions": self.questions,
            "le": self.le.to_dict(),
            "gt": self.gt.to_dict(),
        }


@dataclass(frozen=True)
class RouterPolicy:
    """The fitted tree, the pipelines it may choose and the one it falls back to (the best single pipeline
    on the fitting questions), plus how it was fitted (shown by ``kgrag tune router``)."""

    root: Node
    default: str
    pipelines: tuple[str, ...]
    fitted_on: int = 0
    dataset: str = ""

    def decide(self, features: Mapping[str, float]) -> tuple[str, str]:
        """(pipeline, the rule that fired: the path of conditions, e.g. ``cue_creative > 0.5 → dense``)."""
        node, path = self.root, []
        while node.pipeline is None:
            le, gt = node.le, node.gt
            assert le is not None and gt is not None
            if features.get(node.feature, 0.0) <= node.threshold:
                path.append(f"{node.feature} ≤ {node.threshold:g}")
                node = le
            else:
                path.append(f"{node.feature} > {node.threshold:g}")
                node = gt
        return node.pipeline, f"{' and '.join(path) or 'always'} → {node.pipeline}"

    def rules(self) -> list[str]:
        """One line per leaf: its conditions, pipeline and fitting questions."""
        lines: list[str] = []

        def walk(node: Node, path: list[str]) -> None:
            if node.pipeline is not None:
                lines.append(f"{' and '.join(path) or 'always'} → {node.pipeline} ({node.questions} questions)")
                return
            assert node.le is not None and node.gt is not None
            walk(node.le, [*path, f"{node.feature} ≤ {node.threshold:g}"])
            walk(node.gt, [*path, f"{node.feature} > {node.threshold:g}"])

        walk(self.root, [])
        return lines

    def to_json(self) -> str:
        payload = {
            "version": POLICY_VERSION,
            "default": self.default,
            "pipelines": list(self.pipelines),
            "fitted_on": self.fitted_on,
            "dataset": self.dataset,
            "tree": self.root.to_dict(),
        }
        return json.dumps(payload, indent=2, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str, where: str = POLICY_KEY) -> RouterPolicy:
        """Parse and check a stored policy; :class:`KgragError` naming ``where`` and the bad field."""
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise KgragError(f"{where}: not valid JSON ({exc}); rerun `kgrag tune router`") from exc
        if not isinstance(data, dict) or data.get("version") != POLICY_VERSION:
            raise KgragError(f"{where}: not a version-{POLICY_VERSION} router policy; rerun `kgrag tune router`")
        pipelines = data.get("pipelines")
        default = data.get("default")
        if not isinstance(pipelines, list) or not all(isinstance(p, str) for p in pipelines) or not pipelines:
            raise KgragError(f"{where}: field 'pipelines' must be a non-empty list of pipeline names")
        if not isinstance(default, str) or default not in pipelines:
            raise KgragError(f"{where}: field 'default' must be one of 'pipelines'")
        root = _node(data.get("tree"), set(pipelines), f"{where}: tree", 0)
        fitted_on = data.get("fitted_on", 0)
        dataset = data.get("dataset", "")
        return cls(
            root=root,
            default=default,
            pipelines=tuple(pipelines),
            fitted_on=fitted_on if isinstance(fitted_on, int) else 0,
            dataset=dataset if isinstance(dataset, str) else "",
        )


def _node(data: object, pipelines: set[str], where: str, depth: int) -> Node:
    if depth > MAX_DEPTH:
        raise KgragError(f"{where}: deeper than {MAX_DEPTH} levels")
    if not isinstance(data, dict):
        raise KgragError(f"{where}: each node must be an object")
    questions = data.get("questions", 0)
    questions = questions if isinstance(questions, int) else 0
    if "pipeline" in data:
        if data["pipeline"] not in pipelines:
            raise KgragError(f"{where}: leaf pipeline {data['pipeline']!r} is not in 'pipelines'")
        return Node(pipeline=data["pipeline"], questions=questions)
    feature, threshold = data.get("feature"), data.get("threshold")
    if feature not in FEATURES:
        raise KgragError(f"{where}: unknown feature {feature!r} (known: {', '.join(FEATURES)})")
    if isinstance(threshold, bool) or not isinstance(threshold, int | float):
        raise KgragError(f"{where}: field 'threshold' must be a number")
    le = _node(data.get("le"), pipelines, f"{where}.le", depth + 1)
    gt = _node(data.get("gt"), pipelines, f"{where}.gt", depth + 1)
    return Node(feature=str(feature), threshold=float(threshold), le=le, gt=gt, questions=questions)


def load_policy(meta_get: Callable[[str], str | None]) -> RouterPolicy | None:
    """The workspace's stored policy (``meta_get`` reads a meta key), or None when none is stored."""
    text = meta_get(POLICY_KEY)
    return RouterPolicy.from_json(text) if text else None
