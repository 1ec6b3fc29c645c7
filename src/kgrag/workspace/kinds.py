"""One typed accessor per registry kind: ``kinds.rerankers(ws).register("mine", my_factory, settings=MySettings)``.

Each returns the workspace's own ``Registry[T]`` of that kind (built-ins, installed plug-ins, and what
code registered on this workspace), typed by the :class:`~kgrag.core.builtins.RegistryKind` its layer
declares. ``ws`` is a :class:`~kgrag.Workspace` or its :class:`~kgrag.workspace.components.Components`.
A store backend, embedder or LLM provider that a workspace opens with is registered before it opens:
``regs = Registries(); kinds.stores(regs).register(...)``, then ``Workspace.open(path, registries=regs)``.

The kinds are declared beside what they produce, so this module imports those layers on first call.
Two kinds are read below the workspace and are handed down to where they are used: the workspace's
prompt schemas go to its LLM client (and to ``kgrag prompts list``), which passes them to every prompt
file it loads, so ``output_schema = "my_schema"`` in a workspace prompt file finds a schema registered
with ``prompt_schemas(ws).register("my_schema", MyModel)``; the workspace's vector indexes travel in
its store config (:func:`with_registered_kinds`), so ``store.vector_index = "mine"`` builds the index
registered as ``mine`` in the store backend and in the graph index. Register both before the workspace
opens (``Workspace.open(path, registries=regs)``) or before its client or store first loads a prompt or
builds an index. The ``ray`` engine's workers read files in other processes with the built-in and
plug-in loaders.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from kgrag.core.registries import Registries, RegistryKind
from kgrag.core.registry import Registry

if TYPE_CHECKING:
    from pydantic import BaseModel

    from kgrag.communities.detect import BuilderFactory
    from kgrag.config.denoise import DenoiseConfig
    from kgrag.config.model import KgragConfig
    from kgrag.core.vector_index import VectorIndexFactory
    from kgrag.denoise.reflect import ReflectorFactory
    from kgrag.denoise.types import Blocker, Grouper, Matcher, Merger
    from kgrag.documents.loaders import Loader
    from kgrag.evaluation.metrics.base import Metric
    from kgrag.graph.extract.choose import ExtractorFactory, SummarizerFactory
    from kgrag.indexing.engines import EngineFactory
    from kgrag.indexing.registries import PipelineEntry, StageFactory
    from kgrag.models.embeddings import EmbedderFactory
    from kgrag.models.llm.registry import ProviderFactory
    from kgrag.retrieval.pipelines import PipelineFactory
    from kgrag.retrieval.query_context import QueryResource
    from kgrag.retrieval.rerank import RerankerFactory
    from kgrag.store.registry import StoreFactory


class HasRegistries(Protocol):
    """A workspace or its components: anything holding a workspace's :class:`Registries`."""

    @property
    def registries(self) -> Registries: ...


Owner = HasRegistries | Registries


def _of(owner: Owner, kind: RegistryKind[Any]) -> Registry[Any]:
    registries = owner if isinstance(owner, Registries) else owner.registries
    return registries.get(kind)


def stores(owner: Owner) -> Registry[StoreFactory]:
    from kgrag.store.registry import STORES

    return _of(owner, STORES)


def vector_indexes(owner: Owner) -> Registry[VectorIndexFactory]:
    from kgrag.core.vector_index import VECTOR_INDEXES

    return _of(owner, VECTOR_INDEXES)


def embedders(owner: Owner) -> Registry[EmbedderFactory]:
    from kgrag.models.embeddings import EMBEDDERS

    return _of(owner, EMBEDDERS)


def llm_providers(owner: Owner) -> Registry[ProviderFactory]:
    from kgrag.models.llm.registry import LLM_PROVIDERS

    return _of(owner, LLM_PROVIDERS)


def extractors(owner: Owner) -> Registry[ExtractorFactory]:
    from kgrag.graph.extract.choose import EXTRACTORS

    return _of(owner, EXTRACTORS)


def summarizers(owner: Owner) -> Registry[SummarizerFactory]:
    from kgrag.graph.extract.choose import SUMMARIZERS

    return _of(owner, SUMMARIZERS)


def prompt_schemas(owner: Owner) -> Registry[type[BaseModel]]:
    from kgrag.prompts.loader import PROMPT_SCHEMAS

    return _of(owner, PROMPT_SCHEMAS)


def loaders(owner: Owner) -> Registry[Loader]:
    from kgrag.documents.loaders import LOADERS

    return _of(owner, LOADERS)


def pipelines(owner: Owner) -> Registry[PipelineFactory]:
    from kgrag.retrieval.pipelines import PIPELINES

    return _of(owner, PIPELINES)


def query_resources(owner: Owner) -> Registry[QueryResource[Any]]:
    from kgrag.retrieval.query_context import QUERY_RESOURCES

    return _of(owner, QUERY_RESOURCES)


def answer_strategies(owner: Owner) -> Registry[Any]:
    from kgrag.generation.recipes import ANSWER_STRATEGIES

    return _of(owner, ANSWER_STRATEGIES)


def rerankers(owner: Owner) -> Registry[RerankerFactory]:
    from kgrag.retrieval.rerank import RERANKERS

    return _of(owner, RERANKERS)


def stages(owner: Owner) -> Registry[StageFactory]:
    from kgrag.indexing.registries import STAGES

    return _of(owner, STAGES)


def index_pipelines(owner: Owner) -> Registry[PipelineEntry]:
    from kgrag.indexing.registries import INDEX_PIPELINES

    return _of(owner, INDEX_PIPELINES)


def index_engines(owner: Owner) -> Registry[EngineFactory]:
    from kgrag.indexing.registries import INDEX_ENGINES

    return _of(owner, INDEX_ENGINES)


def community_builders(owner: Owner) -> Registry[BuilderFactory]:
    from kgrag.communities.detect import COMMUNITY_BUILDERS

    return _of(owner, COMMUNITY_BUILDERS)


def resolution_blockers(owner: Owner) -> Registry[Callable[[DenoiseConfig], Blocker]]:
    from kgrag.denoise.resolve import BLOCKERS

    return _of(owner, BLOCKERS)


def resolution_matchers(owner: Owner) -> Registry[Callable[[DenoiseConfig], Matcher]]:
    from kgrag.denoise.resolve import MATCHERS

    return _of(owner, MATCHERS)


def resolution_groupers(owner: Owner) -> Registry[Callable[[DenoiseConfig], Grouper]]:
    from kgrag.denoise.resolve import GROUPERS

    return _of(owner, GROUPERS)


def resolution_mergers(owner: Owner) -> Registry[Callable[[DenoiseConfig], Merger]]:
    from kgrag.denoise.resolve import MERGERS

    return _of(owner, MERGERS)


def triple_reflectors(owner: Owner) -> Registry[ReflectorFactory]:
    from kgrag.denoise.runner import TRIPLE_REFLECTORS

    return _of(owner, TRIPLE_REFLECTORS)


def metrics(owner: Owner) -> Registry[Callable[[], Metric]]:
    from kgrag.evaluation.metrics.base import METRICS

    return _of(owner, METRICS)


def judges(owner: Owner) -> Registry[Any]:
    from kgrag.evaluation.judges.base import JUDGES

    return _of(owner, JUDGES)


def with_registered_kinds(config: KgragConfig, owner: Owner) -> KgragConfig:
    """``config`` whose store section carries the owner's ``vector_index`` registry, so the store backend
    and the graph index build the indexes registered on that workspace (config values are unchanged)."""
    store = config.store.with_vector_indexes(vector_indexes(owner))
    return config.model_copy(update={"store": store})
