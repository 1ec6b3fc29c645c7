"""The answer every generation path returns; defined in :mod:`kgrag.core.answer` so retrieval pipelines
can name it too, re-exported here where generation code looks for it."""

from kgrag.core.answer import Answer

__all__ = ["Answer"]
