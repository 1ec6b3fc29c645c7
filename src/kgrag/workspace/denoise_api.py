"""``ws.denoise``: plan, apply, undo and report graph denoising (:class:`kgrag.denoise.service.DenoiseService`)."""

from __future__ import annotations

from kgrag.denoise.service import LOG_DIR_NAME, PLAN_FILE_NAME, DenoiseService

__all__ = ["LOG_DIR_NAME", "PLAN_FILE_NAME", "DenoiseAPI"]


class DenoiseAPI(DenoiseService):
    """Graph denoising over this workspace's parts and registries (built with its ``Components``)."""
