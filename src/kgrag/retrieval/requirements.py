"""What a pipeline ``requires``, checked before it runs so a missing prerequisite is one clear message
(what is missing, what to run or configure) instead of an empty result or an error deep in a step.

A requirement is a name in :data:`REQUIREMENTS`: how to check it on a query context, and what to tell
the user when it is not met. ``kgrag pipelines`` shows the same checks for every pipeline.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from kgrag.core.errors import KgragError
from kgrag.retrieval.query_context import QueryContext
from kgrag.retrieval.resources.graph import GRAPH_COUNTS, GRAPH_ENTITIES
from kgrag.retrieval.resources.stored import COMMUNITIES, VECTOR_COUNT

EMPTY_GRAPH_MESSAGE = (
    "this workspace has no knowledge graph yet; run `kgrag index` with a graph extractor "
    "(graph.extractor = nlp, llm or auto) to build one, then query again"
)


@dataclass(frozen=True)
class Requirement:
    """A prerequisite: ``met(ctx)`` says whether the workspace has it; ``fix`` says how to get it."""

    name: str
    what: str
    met: Callable[[QueryContext], bool]
    fix: Callable[[QueryContext], str]
    caution: Callable[[QueryContext], str] = lambda _: ""
    """What a reader should know when it is met but poorly ("" when nothing)."""


def _no_llm(ctx: QueryContext) -> str:
    return (
        "llm.provider = none; set [llm] provider (and model) in kgrag.toml or KGRAG_LLM__PROVIDER "
        "(see docs/llm.md), then query again"
    )


def _no_vectors(ctx: QueryContext) -> str:
    return (
        f"the workspace has no chunk embeddings for {ctx.model_id!r}; run `kgrag index PATH` "
        "(or `kgrag reindex --embeddings` after changing the embedding model)"
    )


def _no_communities(ctx: QueryContext) -> str:
    return (
        "this workspace has no community reports yet; run `kgrag graph communities` (or index with "
        "`indexing.pipeline = graphrag`) after building a graph"
    )


def _graph_caution(ctx: QueryContext) -> str:
    if ctx.get(GRAPH_COUNTS)["relations"]:
        return ""
    entities = ctx.get(GRAPH_ENTITIES)
    return (
        f"the graph has {entities} entit{'y' if entities == 1 else 'ies'} and no relation: graph pipelines can "
        "only match entities to their passages, with no relation to follow"
    )


REQUIREMENTS: Mapping[str, Requirement] = MappingProxyType(
    {
        "graph": Requirement(
            "graph",
            "a non-empty knowledge graph",
            lambda ctx: ctx.get(GRAPH_ENTITIES) > 0,
            lambda _: EMPTY_GRAPH_MESSAGE,
            _graph_caution,
        ),
        "llm": Requirement(
            "llm", "an LLM provider other than `none`", lambda ctx: ctx.config.llm.provider != "none", _no_llm
        ),
        "communities": Requirement(
            "communities",
            "embedded community reports",
            lambda ctx: len(ctx.get(COMMUNITIES)) > 0,
            _no_communities,
        ),
        "embeddings": Requirement(
            "embeddings", "chunk vectors for the workspace's model", lambda ctx: ctx.get(VECTOR_COUNT) > 0, _no_vectors
        ),
    }
)


@dataclass(frozen=True)
class RequirementStatus:
    """One requirement of one pipeline on one workspace: met or not, and the fix when not."""

    name: str
    met: bool
    message: str = ""
    """Unmet: what is missing and the fix. Met: a caution, when it is met poorly ("" when not)."""


def requirement_status(requires: Iterable[str], ctx: QueryContext) -> list[RequirementStatus]:
    """Check each requirement (sorted by name); an unknown name is reported as unmet."""
    out = []
    for name in sorted(requires):
        requirement = REQUIREMENTS.get(name)
        if requirement is None:
            known = ", ".join(REQUIREMENTS)
            out.append(RequirementStatus(name, False, f"unknown requirement {name!r} (known: {known})"))
        elif requirement.met(ctx):
            out.append(RequirementStatus(name, True, requirement.caution(ctx)))
        else:
            out.append(RequirementStatus(name, False, f"needs {requirement.what}: {requirement.fix(ctx)}"))
    return out


def enforce_requirements(pipeline: str, requires: Iterable[str], ctx: QueryContext) -> None:
    """Raise one :class:`KgragError` naming every unmet requirement of ``pipeline`` and its fix."""
    missing = [status for status in requirement_status(requires, ctx) if not status.met]
    if missing:
        raise KgragError(f"pipeline {pipeline!r} cannot run: " + "; ".join(s.message for s in missing))
