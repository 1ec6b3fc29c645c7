"""The LLM proposal: entity types, a domain sentence and the language in one structured call
(``propose_domain``), and a worked example written by running the extraction prompt on short passages of the
sample and keeping a reply whose names all occur in the passage.

Nothing the model says is trusted as-is: types are cleaned to a few lower-case words, the domain sentence
is cut to one line, and the example keeps only grounded entities and relations between them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, Field

from kgrag.graph.extract.parse import ExtractionReply, parse_items, render_types
from kgrag.graph.tune.example import ExampleItems, entity_item, relation_item
from kgrag.graph.tune.sample import Passage
from kgrag.models.llm import LLMClient

PROPOSE_PROMPT = "propose_domain"
EXTRACT_PROMPT = "extract_graph"
STAGE = "tune.prompts"
SAMPLE_CHARS = 12_000  # the passages shown in the proposal request (a few thousand tokens)
EXAMPLE_WORDS = 60
EXAMPLE_TRIES = 2
MAX_EXAMPLE_ENTITIES, MAX_EXAMPLE_RELATIONS = 5, 3
_TYPE = re.compile(r"^[^\W\d_][^\W_]*(?: [^\W\d_][^\W_]*){0,2}$")
_LANGUAGE = re.compile(r"^[^\W\d_]{2,30}$")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


class DomainProposal(BaseModel):
    """Reply of ``propose_domain``."""

    entity_types: list[str] = Field(default_factory=list, max_length=40)
    domain: str = ""
    language: str = ""


@dataclass(frozen=True)
class LLMProposal:
    types: list[str]
    domain: str
    language: str | None


def clean_types(raw: Sequence[str], limit: int) -> list[str]:
    """Lower-case types of 1-3 words (letters and digits), deduplicated, ``concept`` last."""
    found: list[str] = []
    for item in raw:
        name = " ".join(item.replace("_", " ").replace("-", " ").split()).casefold()
        if _TYPE.match(name) and name not in found and name != "concept":
            found.append(name)
    return [*found[: max(1, limit - 1)], "concept"]


def one_line(text: str, limit: int = 200) -> str:
    return " ".join(text.split())[:limit].strip()


def propose(client: LLMClient, sample: Sequence[Passage], max_types: int) -> LLMProposal | None:
    """The model's proposal, cleaned; None when the call fails or proposes no usable type."""
    shown: list[str] = []
    size = 0
    for number, passage in enumerate(sample, 1):
        piece = f"[{number}] {' '.join(passage.text.split())}"
        if size + len(piece) > SAMPLE_CHARS and shown:
            break
        shown.append(piece)
        size += len(piece)
    result = client.structured(
        PROPOSE_PROMPT, {"max_types": max_types, "sample": "\n".join(shown)}, DomainProposal, stage=STAGE
    )
    if not result.ok or result.value is None:
        return None
    types = clean_types(result.value.entity_types, max_types)
    if len(types) < 2:
        return None
    language = one_line(result.value.language, 30)
    return LLMProposal(types, one_line(result.value.domain), language if _LANGUAGE.match(language) else None)


def short_text(text: str, words: int = EXAMPLE_WORDS) -> str:
    """Whole sentences from the start of ``text`` up to about ``words`` words (at least one sentence)."""
    kept: list[str] = []
    count = 0
    for sentence in _SENTENCE_END.split(" ".join(text.split())):
        n = len(sentence.split())
        if kept and count + n > words:
            break
        kept.append(sentence)
        count += n
    return " ".join(kept)


def llm_example(
    client: LLMClient, sample: Sequence[Passage], types: Sequence[str], language: str
) -> ExampleItems | None:
    """A grounded extraction of a short passage by the model itself, or None when no try gives one."""
    candidates = sorted((short_text(p.text) for p in sample), key=lambda t: -len(set(re.findall(r"\b[A-Z]\w+", t))))
    for text in candidates[:EXAMPLE_TRIES]:
        variables = {"entity_types": render_types(types), "language": language, "text": text}
        result = client.structured(EXTRACT_PROMPT, variables, ExtractionReply, stage=STAGE)
        if not result.ok or result.value is None:
            continue
        items = parse_items(result.value, list(types))
        folded = text.casefold()
        entities = [e for e in items.entities if e.name.casefold() in folded][:MAX_EXAMPLE_ENTITIES]
        names = {e.name for e in entities}
        relations = [r for r in items.relations if r.source in names and r.target in names][:MAX_EXAMPLE_RELATIONS]
        if len(entities) >= 2:
            return ExampleItems(
                text,
                [entity_item(e.name, e.type, e.description or e.name) for e in entities],
                [relation_item(r.source, r.target, r.label, r.description or r.label) for r in relations],
            )
    return None
