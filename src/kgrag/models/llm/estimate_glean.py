"""Gleaning priced by what the run re-sends.

A gleaning call does not re-send its unit as the first pass did: it carries the gleaning prompt (shorter
than the extraction prompt), the names already found, and, for a unit whose first pass found few
entities, only its sparse chunks (:mod:`kgrag.graph.extract.glean`). Which chunks are sparse depends on
the reply, so the estimate builds each priced unit's gleaning request from the stand-in graph the
extractor makes of the text at the model's measured name share (:mod:`kgrag.graph.extract.structural`):
the names a model returning that share would list, located in the unit's chunks as the run locates them.
Those requests are counted, not sent, and not added to the total themselves; how many of them the run
sends is the gleaning share (``EstimateAssumptions.glean_rate``, measured by ``--probe`` or a ledger), so
the prediction is that share of each priced request. Without priced requests (an extractor that never
builds them) a gleaning call is priced as a first pass, as before.

With the stand-in's shares measured (``EstimateAssumptions.glean_by_stand_in``), the extractor decides
per unit, by the run's own rule (:class:`~kgrag.graph.extract.glean.GleanPolicy`) applied to the stand-in
first pass, which units are gleaned, and builds requests for those alone: each is predicted sent. Whether
a run gleans depends on how thin each unit's first pass is, so a share measured on other units (a probe's
two, an earlier slice) does not carry over to units of a different density; the stand-in at the model's
shares does.
"""

from __future__ import annotations

from dataclasses import dataclass

GLEAN_PROMPT = "glean_graph"


@dataclass(frozen=True)
class Gleaning:
    """Predicted gleaning: calls, prompt and completion tokens."""

    calls: int
    prompt: float
    completion: float


def priced_gleaning(
    first: tuple[int, float, float],
    priced: tuple[int, int],
    rate: float,
    completion_share: float,
    *,
    per_unit: bool = False,
) -> Gleaning:
    """Gleaning of ``first`` passes (calls, prompt, completion tokens) at ``rate`` gleaning calls per first
    pass, each replying ``completion_share`` of a first pass; ``priced``: the gleaning requests counted for
    those first passes (requests, prompt tokens), or (0, 0). ``per_unit``: the requests are those of the
    units the run is predicted to glean (decided per unit on the stand-in graph): each one is sent."""
    calls, prompt, completion = first
    requests, resent = priced
    if calls and per_unit:
        return Gleaning(requests, float(resent), completion / calls * requests * completion_share)
    if not calls or rate <= 0:
        return Gleaning(0, 0.0, 0.0)
    each = resent / requests if requests else prompt / calls
    return Gleaning(round(calls * rate), calls * rate * each, completion * rate * completion_share)
