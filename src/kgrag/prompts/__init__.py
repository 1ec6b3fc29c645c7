"""Prompt files shipped with kgrag (``*.toml`` here) and the loader that lets users override them.

See :mod:`kgrag.prompts.loader` for the file format and the ``$placeholder`` template syntax.
"""

from kgrag.prompts.loader import TEXT_OUTPUT, Prompt, export_prompts, list_prompts, load_prompt

__all__ = ["TEXT_OUTPUT", "Prompt", "export_prompts", "list_prompts", "load_prompt"]
