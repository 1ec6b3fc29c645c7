"""``kgrag --help`` as written: help texts are plain text, and commands are listed by what they work on.

Typer renders help through rich with markup on, so a help text or docstring that mentions a config
section (``[denoise] settings``), an extra (``pip install 'kgrag[ray]'``) or a TOML line lost those words
on screen. :class:`KgragGroup` is the root command's class: when typer builds the command tree it
escapes every command's and parameter's help once, so what a docstring says is what the user reads, and
it sorts the top-level commands into :data:`PANELS` (workspace, index, query, graph, eval, serve) instead
of the order they were registered in.
"""

from __future__ import annotations

import inspect
from typing import Any

from rich.markup import escape
from typer.core import TyperGroup

PANELS: dict[str, tuple[str, ...]] = {
    "Workspace": ("init", "status", "cost", "prompts", "migrate"),
    "Index": ("index", "remove", "reindex", "prune"),
    "Query": ("query", "chat", "compare", "show", "pipelines"),
    "Graph": ("graph",),
    "Eval": ("eval", "tune", "tune-reranker"),
    "Serve": ("serve", "mcp"),
}
"""Top-level commands per help panel, in the order ``kgrag --help`` lists them."""

_ORDER = {name: rank for rank, name in enumerate(name for names in PANELS.values() for name in names)}
_PANEL_OF = {name: panel for panel, names in PANELS.items() for name in names}
_DONE = "_kgrag_plain_help"


def plain(text: str | None) -> str | None:
    """``text`` escaped so rich shows it verbatim, each paragraph on one line for rich to wrap (a docstring
    wrapped at 120 columns would otherwise break mid-sentence: rich markup mode keeps single newlines).
    A paragraph starting with ``\\b`` keeps its lines, as click promises. None stays None."""
    if text is None:
        return None
    paragraphs = inspect.cleandoc(text).split("\n\n")
    joined = [p if p.startswith("\b") else " ".join(line.strip() for line in p.splitlines()) for p in paragraphs]
    return escape("\n\n".join(joined))


def plain_help(command: Any) -> None:
    """Escape the help of ``command``, its parameters and, for a group, every sub-command (once each)."""
    if getattr(command, _DONE, False):
        return
    setattr(command, _DONE, True)
    command.help = plain(command.help)
    command.short_help = plain(command.short_help)
    command.epilog = plain(command.epilog)
    for param in command.params:
        if isinstance(getattr(param, "help", None), str):
            param.help = plain(param.help)
    for sub in (getattr(command, "commands", None) or {}).values():  # a group (typer vendors click)
        plain_help(sub)


class KgragGroup(TyperGroup):
    """The root ``kgrag`` group: plain-text help everywhere, top-level commands in :data:`PANELS`."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        for name, command in self.commands.items():
            panel = _PANEL_OF.get(name)
            if panel is not None:
                setattr(command, "rich_help_panel", panel)  # noqa: B010 - a typer attribute click lacks
        plain_help(self)

    def list_commands(self, ctx: Any) -> list[str]:
        """Panel order first, then registration order for anything :data:`PANELS` does not name."""
        names = super().list_commands(ctx)
        return sorted(names, key=lambda name: _ORDER.get(name, len(_ORDER)))
