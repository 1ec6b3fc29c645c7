"""The registries an indexing run picks its parts from, one set per workspace.

Stages, pipelines, extractors and summarisers are each chosen by name (``indexing.pipeline``,
``graph.extractor``…). A workspace holds one :class:`IndexRegistries` made from the built-in table
(:data:`kgrag.core.builtins.KINDS`) and installed plug-ins; code adds its own on that instance
(``ws.indexing.registries.stages.register("my-stage", MyStage)``), which no other workspace sees.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kgrag.core.registries import Registries, RegistryKind
from kgrag.core.registry import Registry
from kgrag.graph.extract.choose import EXTRACTORS, SUMMARIZERS, ExtractorFactory, SummarizerFactory
from kgrag.indexing.engines import EngineFactory
from kgrag.indexing.stages import IndexStage

StageFactory = Callable[[], IndexStage]
"""A stage entry: called with no arguments, returns the stage (a class is the usual target)."""

PipelineEntry = Sequence[str] | Callable[[], Sequence[str]]
"""A pipeline entry: the stage names in order, or a callable returning them."""

STAGES: RegistryKind[StageFactory] = RegistryKind("stage")
INDEX_PIPELINES: RegistryKind[PipelineEntry] = RegistryKind("index_pipeline")
INDEX_ENGINES: RegistryKind[EngineFactory] = RegistryKind("index_engine")


@dataclass
class IndexRegistries:
    """``stages`` (``kgrag.stages``), ``pipelines`` (``kgrag.index_pipelines``), ``extractors``
    (``kgrag.extractors``), ``summarizers`` (``kgrag.summarizers``) and ``engines``
    (``kgrag.index_engines``)."""

    stages: Registry[StageFactory]
    pipelines: Registry[PipelineEntry]
    extractors: Registry[ExtractorFactory]
    summarizers: Registry[SummarizerFactory]
    engines: Registry[EngineFactory]

    @classmethod
    def builtin(cls) -> IndexRegistries:
        """Fresh registries holding the built-ins; plug-ins are read on first lookup of an unknown name."""
        return cls.of(Registries())

    @classmethod
    def of(cls, registries: Registries) -> IndexRegistries:
        """The indexing kinds of an owner's :class:`Registries` (a workspace's: what it registers shows)."""
        return cls(
            stages=registries.get(STAGES),
            pipelines=registries.get(INDEX_PIPELINES),
            extractors=registries.get(EXTRACTORS),
            summarizers=registries.get(SUMMARIZERS),
            engines=registries.get(INDEX_ENGINES),
        )

    def adopt_into(self, registries: Registries) -> None:
        """Make these the indexing registries of ``registries`` (a workspace opened with them uses them)."""
        registries.adopt(STAGES, self.stages)
        registries.adopt(INDEX_PIPELINES, self.pipelines)
        registries.adopt(EXTRACTORS, self.extractors)
        registries.adopt(SUMMARIZERS, self.summarizers)
        registries.adopt(INDEX_ENGINES, self.engines)
