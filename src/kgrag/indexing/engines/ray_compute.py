"""The Ray engine's :class:`~kgrag.indexing.compute.StageCompute`: the stages' pure compute as Ray Data stages.

=================  ==================================================  ==========================================
stage              on Ray (workers)                                    on the driver
=================  ==================================================  ==========================================
ingest             load + chunk, ``load_batch`` files per task     unchanged-file check, one transaction per
                                                                       document
embed, embed-graph the embedding model, in actors (the model loads      which texts lack a vector; the writes
                   once per actor), ``embed_batch`` texts per call
extract            a picklable, LLM-free extractor (spaCy NLP,          merging into the graph, summaries, the
                   plug-ins) in actors, ``extract_batch`` groups    LLM extractor (see :mod:`.ray_llm`)
=================  ==================================================  ==========================================

Workers get only values (paths, chunk records, texts, config sections, and the workspace's ``loader`` and
``embedder`` registries, pickled: what a workspace registered reads and embeds on the workers too) and
return values; the store
stays with the driver, which writes exactly what the local engine writes, in the same order. Model
batches are cut exactly as the local engine cuts them (the same texts in each ``embed`` call), so even
a model whose output depends on padding gives bit-identical vectors.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType

import numpy as np

from kgrag.config import DocumentsConfig, EmbeddingConfig, KgragConfig
from kgrag.core.progress import Progress
from kgrag.core.records import ChunkRecord
from kgrag.core.registries import Registries
from kgrag.core.registry import Registry
from kgrag.documents import Loader
from kgrag.documents.loaders import LOADERS
from kgrag.documents.snippets import current_roots, reading_within
from kgrag.graph.types import ChunkExtraction, Extractor
from kgrag.indexing.engines.ray_data import Batch, StageShape, ordered_map, pack, unpack
from kgrag.indexing.engines.ray_settings import ray_settings
from kgrag.indexing.prepare import ChunkPlan, PortablePlan, PreparedFile, prepare_file
from kgrag.models.embeddings import EMBEDDERS, Embedder, EmbedderFactory, create_embedder

LOAD, EMBED, EXTRACT = "ingest (load+chunk)", "embed", "extract"


def prepare_files(
    batch: Batch, cfg: DocumentsConfig, plan: PortablePlan, loaders: Registry[Loader], roots: tuple[Path, ...] = ()
) -> Batch:
    """Ray task: load (with the workspace's ``loaders``; snippet includes only from inside ``roots``, the
    driver's folders being indexed) and chunk a batch of files."""
    chunk_plan = plan.plan()
    with reading_within(roots):
        return pack([prepare_file(Path(path), cfg, chunk_plan, loaders) for path in unpack(batch)])


class EmbedWorker:
    """Ray actor: the workspace's embedding model, built once from ``[embedding]`` through the workspace's
    ``embedder`` registry; each item is one model call's texts (the local engine's batch), so the calls
    are the same as the local engine's."""

    def __init__(self, cfg: EmbeddingConfig, embedders: Registry[EmbedderFactory]) -> None:
        self.embedder = create_embedder(cfg, embedders)

    def __call__(self, batch: Batch) -> Batch:
        return pack([self.embedder.embed(texts) for texts in unpack(batch)])


class ExtractWorker:
    """Ray actor: the run's extractor (shipped pickled, loaded lazily on first use: once per actor);
    each item is a group of chunks whose extractions do not depend on any other chunk."""

    def __init__(self, extractor: Extractor) -> None:
        self.extractor = extractor

    def __call__(self, batch: Batch) -> Batch:
        return pack([list(self.extractor.extract(group)) for group in unpack(batch)])


def is_chunkwise(extractor: Extractor) -> bool:
    """Whether each chunk's extraction depends on that chunk alone (``chunkwise = True``, see graph.types)."""
    return getattr(extractor, "chunkwise", False) is True


def independent_groups(extractor: Extractor, chunks: Sequence[ChunkRecord], size: int) -> list[list[ChunkRecord]]:
    """``chunks`` cut into groups the extractor reads independently, in the order it would emit them.

    A chunkwise extractor (spaCy NLP) may be split anywhere: groups of ``size`` chunks, one model call
    each. Any other reads at most one document's chunks together (LLM units never span documents), so
    a group is a document: documents in order of first appearance, each one's chunks in input order.
    """
    if is_chunkwise(extractor):
        return [list(chunks[start : start + size]) for start in range(0, len(chunks), size)]
    groups: dict[str, list[ChunkRecord]] = {}
    for chunk in chunks:
        groups.setdefault(chunk.doc_id, []).append(chunk)
    return list(groups.values())


class RayExtractor:
    """An :class:`Extractor` giving ``inner``'s extractions, computed by Ray actors, in the same order."""

    def __init__(self, ray: ModuleType, inner: Extractor, shape: StageShape) -> None:
        self.name = inner.name
        self._ray, self._inner, self._shape = ray, inner, shape

    def extract(self, chunks: Sequence[ChunkRecord]) -> Iterator[ChunkExtraction]:
        """Chunkwise: ``batch_size`` chunks per actor call; otherwise ``batch_size`` documents."""
        groups = independent_groups(self._inner, chunks, self._shape.batch_size)
        shape = StageShape(1, self._shape.concurrency, actors=True) if is_chunkwise(self._inner) else self._shape
        for extractions in ordered_map(self._ray, groups, ExtractWorker, shape, EXTRACT, (self._inner,)):
            yield from extractions


class RayCompute:
    """Loading+chunking, embedding and (LLM-free) extraction on the Ray session ``ray``, with the loaders
    and embedders of ``registries`` (the workspace's)."""

    name = "ray"

    def __init__(self, ray: ModuleType, config: KgragConfig, progress: Progress, registries: Registries) -> None:
        self._ray, self._config, self._progress = ray, config, progress
        self._loaders, self._embedders = registries.get(LOADERS), registries.get(EMBEDDERS)
        knobs = ray_settings(config.indexing)
        self.load_shape = StageShape(knobs.load_batch, knobs.load_concurrency)
        self.extract_shape = StageShape(knobs.extract_batch, knobs.extract_concurrency, actors=True)
        self.embed_texts = knobs.embed_batch
        self.embed_concurrency = knobs.embed_concurrency

    def prepare(self, files: Sequence[Path], cfg: DocumentsConfig, plan: ChunkPlan) -> Iterator[PreparedFile]:
        yield from ordered_map(
            self._ray, list(files), prepare_files, self.load_shape, LOAD,
            (cfg, PortablePlan.of(plan), self._loaders, current_roots()),
        )  # fmt: skip

    def embed(self, embedder: Embedder, texts: Sequence[str], batch_size: int) -> Iterator[np.ndarray]:
        """Vectors in the local engine's model batches of ``batch_size`` texts, several per Ray batch.

        The driver's embedder is touched first (``dimension``): that loads and checks the workspace's model
        binding exactly as a local run does, so the model record in the database is the same."""
        if not texts:
            return
        _ = embedder.dimension
        block = max(1, batch_size)
        calls = [list(texts[start : start + block]) for start in range(0, len(texts), block)]
        shape = StageShape(max(1, self.embed_texts // block), self.embed_concurrency, actors=True)
        yield from ordered_map(self._ray, calls, EmbedWorker, shape, EMBED, (self._config.embedding, self._embedders))

    def extractor(self, extractor: Extractor) -> Extractor:
        """``extractor`` on Ray actors when it can travel there; else itself, on the driver, with a note."""
        reason = self._driver_only(extractor)
        if reason is None:
            return RayExtractor(self._ray, extractor, self.extract_shape)
        self._progress.note(f"indexing engine ray: extraction ({extractor.name}) runs on the driver: {reason}")
        return extractor

    def _driver_only(self, extractor: Extractor) -> str | None:
        """Why ``extractor`` must stay on the driver, or None when it can run on Ray workers."""
        if self._config.graph.extractor == "llm" or extractor.name.startswith("llm:"):
            return (
                "its LLM client keeps one cache, ledger, budget and rate limit for the whole run; "
                "its requests are sent by Ray actors"
            )
        try:
            self._ray.cloudpickle.dumps(extractor)
        except Exception as exc:
            return f"it cannot be sent to workers ({type(exc).__name__}: {exc})"
        return None
