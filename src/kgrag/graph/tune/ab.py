"""The one-unit A/B a tuning run passes before its prompts are kept.

A tuned prompt can extract less than the shipped one (a worked example drawn from a small corpus shows
one entity, and a small model then writes one). Before anything is written, the longest sampled passage
is extracted twice with the workspace's model: with the shipped prompts and shipped entity types, then
with the tuned prompts (written to a scratch directory) and the tuned types. Items are counted after
the extractor's own checks (names grounded in the passage, descriptions drawn from it), so an arm is not
rewarded for inventing. The tuned prompts are kept only when they keep at least as many items.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from kgrag.config import GraphConfig
from kgrag.core.records import ChunkRecord
from kgrag.documents.records import content_hash
from kgrag.graph.extract.glean import GleanPolicy
from kgrag.graph.extract.llm import LLMExtractor
from kgrag.models.llm import LLMClient


@dataclass(frozen=True)
class _Counter:
    count: Callable[[str], int]


@dataclass(frozen=True)
class ArmResult:
    """What one arm kept from the passage."""

    entities: int = 0
    relations: int = 0
    typed: int = 0  # entities with a type other than concept
    error: str | None = None

    @property
    def items(self) -> int:
        return self.entities + self.relations

    def text(self) -> str:
        if self.error:
            return f"failed ({self.error[:80]})"
        return f"{self.entities} entities ({self.typed} typed other than concept), {self.relations} relations"


@dataclass(frozen=True)
class ABResult:
    """Both arms on one passage of ``tokens`` tokens."""

    tokens: int
    shipped: ArmResult
    tuned: ArmResult

    @property
    def kept(self) -> bool:
        """The tuned prompts are not worse: at least as many items kept, and they did not fail."""
        return self.tuned.error is None and self.tuned.items >= self.shipped.items

    def line(self) -> str:
        verdict = "kept" if self.kept else "NOT kept (fewer items than the shipped prompts)"
        return (
            f"A/B on one passage of {self.tokens} tokens: shipped prompts {self.shipped.text()}; tuned prompts "
            f"{self.tuned.text()}: tuned prompts {verdict}"
        )


def _arm(client: LLMClient, counter: _Counter, text: str, types: Sequence[str], language: str) -> ArmResult:
    chunk = ChunkRecord("ab:0", "ab", 0, 0, len(text), text, counter.count(text), content_hash(text))
    extractor = LLMExtractor(
        client, counter, entity_types=types, language=language, unit_tokens=max(1, chunk.n_tokens),
        glean=GleanPolicy(enabled=False),
    )  # fmt: skip
    (extraction,) = extractor.extract([chunk])
    if extraction.error is not None:
        return ArmResult(error=extraction.error)
    typed = sum(entity.type != "concept" for entity in extraction.entities)
    return ArmResult(len(extraction.entities), len(extraction.relations), typed)


def one_unit_ab(
    client: LLMClient,
    count: Callable[[str], int],
    text: str,
    tuned_dir: Path,
    tuned_types: Sequence[str],
    language: str,
) -> ABResult:
    """Extract ``text`` with the shipped prompts and types, then with those in ``tuned_dir``; the client's
    prompt directory is restored afterwards."""
    previous, counter = client.settings.prompts_dir, _Counter(count)
    try:
        client.use_prompts_dir(None)
        shipped = _arm(client, counter, text, GraphConfig().entity_types, language)
        client.use_prompts_dir(tuned_dir)
        tuned = _arm(client, counter, text, tuned_types, language)
    finally:
        client.use_prompts_dir(previous)
    return ABResult(count(text), shipped, tuned)
