"""Prompt tuning over a workspace (``ws.prompt_tune``): tune the extraction and report prompts for its
corpus (see :mod:`kgrag.graph.tune`); the overrides go to ``llm.prompts_dir``, else to the workspace's own
prompt directory, where opening the workspace applies them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from kgrag.config import CONFIG_FILE_NAME
from kgrag.core.errors import DocumentError
from kgrag.core.registries import Registries
from kgrag.documents import TokenCounter
from kgrag.documents.discovery import discover
from kgrag.documents.loaders import LOADERS, load_path
from kgrag.graph.extract.nlp import SpacyExtractor
from kgrag.graph.extract.settings import nlp_settings
from kgrag.graph.tune.run import TuneOptions, Tuner, TuneResult
from kgrag.graph.tune.sample import SourceText
from kgrag.tuning.ports import TuneParts


class PromptTuner:
    """Samples the corpus (given files, else the stored documents, read with the loaders of
    ``registries``) and writes the tuned prompts (to ``llm.prompts_dir``, else ``own_dir``)."""

    def __init__(self, parts: TuneParts, registries: Registries, own_dir: Path) -> None:
        self._parts = parts
        self._registries = registries
        self._own_dir = own_dir

    @property
    def prompts_dir(self) -> Path:
        """Where overrides go: ``llm.prompts_dir`` when set, else the workspace's own prompt directory."""
        configured = self._parts.config.llm.prompts_dir
        return Path(configured) if configured is not None else self._own_dir

    def sources(self, paths: Sequence[Path] = ()) -> tuple[list[SourceText], list[str]]:
        """The texts to sample and the files that could not be read (one line each)."""
        config = self._parts.config
        if not paths:
            store = self._parts.store
            texts = []
            for doc in store.documents.list():
                chunks = store.chunks.for_document(doc.id)
                if chunks:
                    texts.append(SourceText(doc.source, "\n\n".join(c.text for c in chunks)))
            return texts, []
        found, skipped = [], []
        loaders = self._registries.get(LOADERS)  # what this workspace indexes, it samples
        for path in discover(list(paths), config.documents.include, config.documents.exclude):
            try:
                found += [SourceText(d.source, d.text) for d in load_path(path, config.documents, loaders)]
            except DocumentError as exc:
                skipped.append(str(exc))
        return found, skipped

    def tune(self, options: TuneOptions, paths: Sequence[Path] = ()) -> TuneResult:
        """Tune, check the tuned prompts against the shipped ones on one passage (when a model is
        configured), and if they are not worse write the overrides and kgrag.toml and apply both to this
        open workspace."""
        parts = self._parts
        sources, skipped = self.sources(paths)
        client = parts.llm_if_configured() if options.llm == "auto" else None  # --llm none sends nothing
        nlp = nlp_settings(parts.config)
        tuner = Tuner(
            client,
            lambda: SpacyExtractor(model=nlp.spacy_model, allow_torch=nlp.spacy_torch).nlp,
            TokenCounter.for_encoding(parts.config.chunking.encoding).count,
            ab_client=client,
        )
        directory = self.prompts_dir
        result = tuner.tune(sources, options, directory, parts.path / CONFIG_FILE_NAME)
        result.notes[:0] = skipped
        if not result.kept:
            return result  # nothing was written: the workspace keeps its prompts and types
        config = parts.config  # the client may have replaced it with one fitted to the server: read it now
        config.graph.entity_types = result.types
        config.graph.language = result.language
        config.llm.prompts_dir = directory.resolve()
        if client is not None:
            client.use_prompts_dir(config.llm.prompts_dir)
        return result
