"""The built-in indexing stages, one module each; ``KINDS["stage"]`` registers them by name.

A stage is a small class with a ``name`` and ``run(ctx: IndexContext)`` (:class:`kgrag.core.stages.Stage`).
Every stage does only what is missing, so any pipeline can be re-run, killed and resumed.
"""

from kgrag.core.stages import Stage
from kgrag.indexing.context import IndexContext

IndexStage = Stage[IndexContext]

__all__ = ["IndexStage"]
