"""Corrections to the calls an estimate counts on its stand-in graph, from what the model was seen to do.

The stages after extraction run for real on the stand-in graph (:mod:`kgrag.graph.extract.structural`),
so their calls are counted, not guessed; two things about them the stand-in cannot show:

* its entities and relations carry no description (so no summary is counted twice), while the
  confirmation and reflection prompts quote one per numbered line: each line quoting an empty one is
  priced at the mean length measured on the model's own (:func:`quoted_descriptions`);
* a model whose entities are not capitalised names forms other communities and other merge candidates:
  the counted community reports and merge confirmations are scaled by the measured ratios of reportable
  communities and of resolution groups (:func:`counted_share`), the reports left out when units will stay
  failed (:mod:`kgrag.indexing.estimate_failures`: detection waits).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:
    from kgrag.core.llm_types import ChatRequest
    from kgrag.models.llm.estimate_assumed import EstimateAssumptions

# Prompts quoting the stand-in graph's (empty) descriptions, one numbered line each: entity or relation ones.
QUOTED_DESCRIPTIONS = {"confirm_merge": 0, "reflect_triples": 1}
REPORT_PROMPT = "community_report"
MERGE_PROMPT = "confirm_merge"


class CountedPart(Protocol):
    """The counted calls of one prompt and their tokens."""

    calls: int
    prompt: int
    completion: int


Part = TypeVar("Part", bound=CountedPart)
_UNDESCRIBED_LINE = re.compile(r"^\d+\. .*:[ \t]*$", re.MULTILINE)


def quoted_descriptions(assumptions: EstimateAssumptions, request: ChatRequest) -> int:
    """The tokens the model's own descriptions would add to ``request`` when it quotes the stand-in
    graph's empty ones (one numbered line each ending in ``:``), as measured (0 when not measured)."""
    side = QUOTED_DESCRIPTIONS.get(request.prompt.name if request.prompt else "")
    if side is None:
        return 0
    each = (assumptions.entity_description, assumptions.relation_description)[side]
    user = "\n".join(str(m.get("content", "")) for m in request.messages if m.get("role") == "user")
    return round(each * len(_UNDESCRIBED_LINE.findall(user)))


def counted_share(assumptions: EstimateAssumptions, prompt: str) -> float:
    """What the counted calls of ``prompt`` are multiplied by (1 for all but the community reports and the
    merge confirmations, scaled by their measured ratios; no report when units will stay failed,
    ``held_back``: community detection then waits)."""
    if prompt == MERGE_PROMPT:
        return assumptions.merge_share
    if prompt != REPORT_PROMPT:
        return 1.0
    return 0.0 if assumptions.held_back else assumptions.report_share


def held_parts(assumptions: EstimateAssumptions, counted: Sequence[tuple[str, Part]]) -> list[tuple[str, Part]]:
    """The prompts whose counted calls (``counted``, before scaling) are left out of the total because their
    stage waits (:func:`counted_share` 0), named as held back."""
    return [
        (f"held back (not in the total): {name}", part)
        for name, part in counted
        if assumptions.held_back and part.calls and not counted_share(assumptions, name)
    ]
