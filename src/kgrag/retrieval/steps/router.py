"""The ``auto`` router (triple-layer-graphrag): local, multi-hop or global, then that route's pipeline.

With an LLM configured the ``route_query`` prompt decides; otherwise (or on an invalid reply) cue-word
heuristics do: corpus-wide wording ("main themes", "overall", "summarise") → global; wording about
connections ("relationship between", "compare", "affect", "lead to", "why"; whole words, none inside a
hyphenated compound such as "link-local"), or two entities named in the
question that the graph links only through a third one (:mod:`.route_graph`: not named together in any
passage, not related directly, but sharing a neighbour) → multi-hop; anything else → local. Naming two
things is not enough: a one-fact question often names its subject and what it asks about ("the default
value of by_alias"), and a passage that names both answers it. "global" is offered only when a
pipeline for it is registered (community search belongs to its own recipe); otherwise global questions go
to the multi-hop route, which is the graph route that reads most widely. A route whose pipeline's
requirements are unmet here (no graph yet) falls back to the local route. The decision, its source and its
reason are the first trace step, with a label saying what the decider found the question to be ("single
fact", "multi-hop", "linked via a third entity", "corpus-wide"); the chosen pipeline's steps then run on
the same state.

A policy fitted by ``kgrag tune router`` and stored in the workspace (:mod:`.router_policy`) replaces
both the LLM and the heuristics: its decision tree picks the pipeline from the question's features, and
the trace's reason is ``rule: <conditions> → <pipeline>``. A chosen pipeline that cannot run here falls
back to the policy's default, then to the local route.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from kgrag.core.context import RouteDecision
from kgrag.core.errors import KgragError
from kgrag.retrieval.pipelines import Pipeline, build_pipeline
from kgrag.retrieval.query_context import QueryContext
from kgrag.retrieval.requirements import enforce_requirements
from kgrag.retrieval.resources.stored import ROUTER_POLICY
from kgrag.retrieval.steps.basic import QueryState
from kgrag.retrieval.steps.graph_local import query_keywords
from kgrag.retrieval.steps.query import ask
from kgrag.retrieval.steps.route_graph import Bridge, RouteGraph, outermost
from kgrag.retrieval.steps.router_policy import RouterPolicy, question_features

DEFAULT_ROUTES = {"local": "rerank", "multi-hop": "graph-mix-rerank", "global": "global"}
"""Multi-hop goes to ``graph-mix-rerank``: routed there, ``auto`` recalled more of the evidence than with
``ppr`` on GraphRAG-Bench Medical (the figures: docs/results/design-measurements.md)."""


def _cue_words(alternatives: str) -> re.Pattern[str]:
    """The cue words ``alternatives`` as whole words: not inside a longer word, nor a part of a hyphenated
    compound, which names a thing rather than asking about a link ("a link-local address", "age-related
    risk factors", "well-connected")."""
    return re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w-])", re.IGNORECASE)


_GLOBAL = _cue_words(
    r"(main|overall|common|recurring|key|major) (themes?|topics?|trends?|ideas|patterns)|summari[sz]e|"
    r"summary of|across (the|all)|in general|overview"
)
_MULTI_HOP = _cue_words(
    r"relationship|relate[sd]?|connect(ed|ion)?|link(ed)?|between|compare[sd]?|comparison|differ(s|ence)?|"
    r"versus|vs\.?|affect(s|ed)?|impact(s|ed)?|influence[sd]?|lead(s)? to|result(s)? in|cause[sd]?|why|"
    r"mechanism|contribute[sd]?"
)
"""Wording about connections. Not "through": in a question it says by what means or along what path
("privileges gained through setuid programs", "a tumour spreading through the layers"), and a question
that asks how two things connect through a third names the connection too ("connections between A and
B through C")."""

_NAMING_PARTICIPLES = re.compile(
    r"\b(?:linked|connected)(?=\s+(?!(?:to|with|by|through|via|in|on|and|or|together)\b)[a-z])", re.IGNORECASE
)
""""linked" or "connected" naming a kind of thing ("a linked worktree", "connected devices") rather than
asking how two things connect ("linked to", "how are A and B connected?"): not connective wording."""


class EntityLinks(Protocol):
    """What the heuristics ask of the graph (:class:`~.route_graph.RouteGraph` over the loaded index)."""

    def known(self, phrase: str) -> bool: ...

    def bridge(self, named: Sequence[str]) -> Bridge | None: ...


def heuristic_route(query: str, graph: EntityLinks) -> tuple[str, str]:
    """(route, reason) from cue words and how the graph links the entities the question names."""
    route, reason, _ = heuristic_decision(query, graph)
    return route, reason


def heuristic_decision(query: str, graph: EntityLinks) -> tuple[str, str, str]:
    """(route, reason, label): the label says what the cue words and the graph showed the question to be."""
    if match := _GLOBAL.search(query):
        return "global", f"corpus-wide wording {match.group(0)!r}", "corpus-wide"
    if match := _MULTI_HOP.search(_NAMING_PARTICIPLES.sub("", query)):
        return "multi-hop", f"connective wording {match.group(0)!r}", "multi-hop"
    named = outermost([p for p in query_keywords(query) if graph.known(p)])
    if len(named) >= 2 and (bridge := graph.bridge(named)) is not None:
        return "multi-hop", f"{bridge.describe()}; no connective or corpus-wide wording", "linked via a third entity"
    if len(named) >= 2:
        reason = f"{', '.join(named[:3])}: named together in a passage, related directly, or not linked in the graph"
        return "local", f"{reason}; no connective or corpus-wide wording", "single fact"
    return "local", "one subject, no connective or corpus-wide wording", "single fact"


@dataclass(frozen=True)
class Route:
    """Decide the route, record it, run the routed pipeline's steps (see the module docstring)."""

    routes: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_ROUTES))
    name: str = "route"

    def _decide(self, state: QueryState, env: QueryContext) -> dict[str, str]:
        """The trace params of the LLM's or the heuristics' decision, without the pipeline."""
        has_global = self._global_problem(env) is None
        note = "" if has_global else ' "global" is not available here; do not choose it.'
        value, how, _ = ask(env, "route_query", state.query, "query.route", global_note=note)
        if value is not None:
            reason, label = value.reason or "LLM decision", f"{value.route}, as the LLM judged"
            return {"route": value.route, "label": label, "decided_by": "llm", "reason": reason}
        route, reason, label = heuristic_decision(state.query, RouteGraph(env.graph_index()))
        source = "heuristics" if how == "llm" or "no LLM" in how else f"heuristics ({how})"
        return {"route": route, "label": label, "decided_by": source, "reason": reason}

    def _global_problem(self, env: QueryContext) -> str | None:
        """Why the global route cannot run here (no such pipeline, or its requirements — community
        reports — are missing), or None when it can. A corpus-wide question is then best served by the
        multi-hop route, which still spreads over the graph, not by a single-passage local search."""
        name = self.routes.get("global", "")
        if env.pipelines is None or not name or name not in env.pipelines:
            return "no global pipeline registered"
        try:
            pipeline = self._build(name, env)
            enforce_requirements(pipeline.name, pipeline.requires, env)
        except KgragError as exc:
            return f"no global pipeline available ({exc})"
        return None

    def _target(self, route: str, env: QueryContext) -> tuple[str, str]:
        """(pipeline name, fallback note) for ``route``."""
        if route == "global" and (problem := self._global_problem(env)) is not None:
            return self.routes["multi-hop"], f"{problem}: multi-hop route instead"
        name = self.routes.get(route, self.routes["local"])
        try:
            pipeline = self._build(name, env)
            enforce_requirements(pipeline.name, pipeline.requires, env)
        except KgragError as exc:
            return self.routes["local"], f"{name} unavailable ({exc}): local route instead"
        return name, ""

    @staticmethod
    def _build(name: str, env: QueryContext) -> Pipeline:
        if env.pipelines is None:
            raise KgragError("the query context has no pipeline registry to route with")
        return build_pipeline(env.pipelines, name, env.config)

    def _learned(self, policy: RouterPolicy, state: QueryState, env: QueryContext) -> tuple[dict[str, str], str]:
        """(trace params, fallback note) of the stored policy's decision."""
        chosen, rule = policy.decide(question_features(state.query, env, state.lexical_hits))
        target, fallback = "", ""
        for candidate in dict.fromkeys((chosen, policy.default, self.routes["local"])):
            try:
                pipeline = self._build(candidate, env)
                enforce_requirements(pipeline.name, pipeline.requires, env)
            except KgragError as exc:
                fallback += f"{candidate} unavailable ({exc}); "
                continue
            target = candidate
            break
        if not target:
            raise KgragError(f"auto: no pipeline of the stored router policy can run here: {fallback.rstrip('; ')}")
        params = {"route": "learned", "label": "learned rule", "pipeline": target, "decided_by": "policy"}
        params["reason"] = f"rule: {rule}"
        return params, fallback.removesuffix("; ")

    def run(self, state: QueryState, env: QueryContext) -> None:
        started = time.perf_counter()
        policy = env.get(ROUTER_POLICY)
        if policy is not None:
            params, fallback = self._learned(policy, state, env)
            target = params["pipeline"]
        else:
            params = self._decide(state, env)
            target, fallback = self._target(params["route"], env)
            params["pipeline"] = target
        state.route = RouteDecision(
            params["route"], target, params["decided_by"], params["reason"], fallback, params["label"]
        )
        state.record(self.name, {**params}, 0, started, fallback)
        for step in self._build(target, env).steps:
            step.run(state, env)
