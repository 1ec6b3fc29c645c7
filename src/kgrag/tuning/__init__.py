"""Tuning a workspace to its corpus and questions: λ of a λ-fused pipeline, the ``fused`` reranker's
weights, ``auto``'s learned routing policy and the extraction/report prompts.

:class:`TuningService` is what the workspace builds (``Components.tuning_service``) with its parts and
registries; ``ws.tune`` is its facade. The fitting itself: :mod:`.lambda_fit` (λ), :mod:`.reranker_fit`
(the reranker's weights), :mod:`.router_fit` and :mod:`.router_tree` (the routing policy), and
:mod:`kgrag.graph.tune` (prompts); :mod:`.fusion`, :mod:`.router` and :mod:`.prompts` run them over a
workspace.
"""

from kgrag.tuning.ports import TuneParts
from kgrag.tuning.service import TuningService

__all__ = ["TuneParts", "TuningService"]
