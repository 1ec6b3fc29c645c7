"""The workspace's own prompt overrides: ``<workspace>/prompts/`` is the override directory when
``llm.prompts_dir`` is not set (``kgrag prompts tune`` writes there)."""

from __future__ import annotations

from pathlib import Path

from kgrag.config import KgragConfig

WORKSPACE_PROMPTS = "prompts"


def with_workspace_prompts(config: KgragConfig, directory: Path) -> KgragConfig:
    """``config`` with ``llm.prompts_dir`` = ``<directory>/prompts`` when unset and that directory exists."""
    candidate = directory / WORKSPACE_PROMPTS
    if config.llm.prompts_dir is None and candidate.is_dir():
        config.llm.prompts_dir = candidate.resolve()
    return config
