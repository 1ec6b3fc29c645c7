"""``kgrag chat``: a conversation on the terminal. Each line read is a question; follow-ups are rewritten
from the earlier turns (``ws.conversations``), answers stream as they are written, and the conversation
is kept in the workspace, so ``--resume ID`` continues it later; ``--list`` and ``--delete ID`` manage them.

Lines come from stdin, so a conversation can be piped in (``printf 'q1\\nq2\\n' | kgrag chat``). ``/new``
starts a new conversation, ``/exit`` (or end of input) ends.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.text import Text

from kgrag.cli.answers import StreamPrinter, source_line
from kgrag.cli.errors import guarded_session
from kgrag.cli.notes import StderrNotes
from kgrag.cli.options import DebugOpt, WorkspaceOpt, new_console, open_workspace
from kgrag.core.errors import KgragError

if TYPE_CHECKING:
    from kgrag.generation.conversation import ConversationReply
    from kgrag.workspace import Workspace

PROMPT = "you> "


def _print_turn(console: Console, ws: Workspace, reply: ConversationReply, printer: StreamPrinter, new: bool) -> None:
    response = reply.response
    printer.finish(response.answer.text)
    if new:
        console.print(f"conversation {reply.conversation_id} (continue it with --resume)", style="dim")
    if reply.rewrite.method != "none":
        console.print(Text.assemble("searched for: ", reply.rewrite.standalone), style="dim")
    console.print(response.answer.cost_line, style="dim")
    sources = ws.documents.sources(response.answer.citations)
    for cid in response.answer.citations:
        console.print(Text.assemble("  [c:", (cid, "cyan"), "] ", source_line(cid, sources)))


def _list(console: Console, ws: Workspace) -> None:
    conversations = ws.conversations.list()
    if not conversations:
        console.print("no conversations yet (start one with `kgrag chat`)")
    for record in conversations:
        console.print(Text.assemble((record.id, "cyan"), f"  {len(record.turns)} turns  ", record.title))


@guarded_session
def chat(
    pipeline: Annotated[str | None, typer.Option("--pipeline", "-p", help="Pipeline name.")] = None,
    k: Annotated[int | None, typer.Option("--k", help="Context items to retrieve.")] = None,
    resume: Annotated[str | None, typer.Option("--resume", help="Continue the stored conversation ID.")] = None,
    list_: Annotated[bool, typer.Option("--list", help="List the stored conversations and exit.")] = False,
    delete: Annotated[str | None, typer.Option("--delete", help="Delete the conversation ID and exit.")] = None,
    workspace: WorkspaceOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Ask questions as a conversation: follow-ups ("and who leads it?") are rewritten from the earlier
    turns, answers stream, and the conversation is stored in the workspace."""
    console = new_console()
    with open_workspace(workspace) as ws:
        if list_:
            _list(console, ws)
            return
        if delete is not None:
            if not ws.conversations.delete(delete):
                raise KgragError(f"no conversation {delete!r} in this workspace (see `kgrag chat --list`)")
            console.print(f"deleted conversation {delete}")
            return
        ws.querying.require_chunks()
        if (unfinished := ws.querying.unfinished()) is not None:
            StderrNotes().note(unfinished)
        conversation = ws.conversations.get(resume).id if resume else None
        _loop(console, ws, conversation, pipeline, k)


def _loop(console: Console, ws: Workspace, conversation: str | None, pipeline: str | None, k: int | None) -> None:
    interactive = sys.stdin.isatty()
    while True:
        if interactive:
            console.print(PROMPT, end="", style="bold")
        line = sys.stdin.readline()
        if not line:
            break
        question = line.strip()
        if question in ("/exit", "/quit"):
            break
        if question == "/new":
            conversation = None
            console.print("new conversation", style="dim")
            continue
        if not question:
            continue
        printer = StreamPrinter(console)
        reply = ws.conversations.ask(question, conversation, pipeline, k, sink=printer)
        _print_turn(console, ws, reply, printer, conversation is None)
        conversation = reply.conversation_id
