"""Write a test workspace's ``kgrag.toml`` from ``{"section.key": "TOML value"}`` lines.

Tests and checks that need a workspace configured in ways ``Workspace.init`` overrides do not persist
(the LLM endpoint, extractor, prices) write the file directly; this is the one place that groups the
dotted keys into TOML sections.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def write_workspace_toml(workspace: Path, lines: Mapping[str, str]) -> Path:
    """Replace ``workspace/kgrag.toml`` with ``lines`` (values already TOML-encoded); returns ``workspace``."""
    sections: dict[str, list[str]] = {}
    for dotted, value in lines.items():
        section, key = dotted.split(".", 1)
        sections.setdefault(section, []).append(f"{key} = {value}")
    text = "".join(f"[{name}]\n" + "\n".join(body) + "\n" for name, body in sections.items())
    (workspace / "kgrag.toml").write_text(text, encoding="utf-8")
    return workspace
