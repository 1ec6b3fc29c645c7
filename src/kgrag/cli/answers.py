"""How ``kgrag query`` and ``kgrag compare`` show an answer: every passage with where it comes from.

Answer text, passages, titles and paths come from documents and models: they are handed to rich as
:class:`~rich.text.Text` on a console without markup (:func:`kgrag.cli.options.new_console`), so a
``[/time]`` in a passage prints as written and ``[c:ID]`` citations stay in the answer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

if TYPE_CHECKING:
    from kgrag.documents.provenance import SourceDict, SourceRef
    from kgrag.generation.respond import QueryResponseDict
    from kgrag.workspace import QueryResponse, Workspace

    class ResponsePayload(QueryResponseDict):
        """``kgrag query --json``: the response and the sources of its passages."""

        sources: dict[str, SourceDict]


SNIPPET = 160


def passage_ids(response: QueryResponse) -> list[str]:
    """Chunk ids whose source a reader needs: the retrieved passages and everything the answer cites."""
    ids = [item.id for item in response.result.items if item.kind == "chunk"]
    return list(dict.fromkeys([*ids, *response.answer.citations]))


def response_sources(ws: Workspace, responses: list[QueryResponse]) -> dict[str, SourceRef]:
    """The sources of every passage of ``responses``, read in one pass."""
    return ws.documents.sources(list(dict.fromkeys(cid for r in responses for cid in passage_ids(r))))


def response_payload(response: QueryResponse, sources: dict[str, SourceRef]) -> ResponsePayload:
    """``kgrag query --json``: the response plus ``sources`` (chunk id → path, title, section, page, span)."""
    found = {cid: sources[cid].to_dict() for cid in passage_ids(response) if cid in sources}
    return {**response.to_dict(), "sources": found}


def source_line(chunk_id: str, sources: dict[str, SourceRef]) -> str:
    """Where ``chunk_id`` comes from, in one line ("source unknown" for a chunk of a removed document)."""
    ref = sources.get(chunk_id)
    return ref.label() if ref is not None else "source unknown"


class StreamPrinter:
    """The sink of a streamed answer on the terminal: ``Answer:`` then each piece as it comes; when the
    checked answer differs from what streamed (a citation the context did not hold was removed), it is
    printed again as checked."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.pieces: list[str] = []

    def __call__(self, delta: str) -> None:
        if not self.pieces:
            self.console.print(Text("Answer: ", style="bold"), end="")
        self.pieces.append(delta)
        self.console.print(Text(delta), end="")
        self.console.file.flush()

    def finish(self, checked: str) -> None:
        """End the streamed line; print ``checked`` when it is not what streamed."""
        streamed = "".join(self.pieces)
        if self.pieces:
            self.console.print()
        if checked != streamed:
            self.console.print(Text.assemble(("Answer as checked", "bold"), ": ", checked))


def print_response(
    console: Console, response: QueryResponse, sources: dict[str, SourceRef], printer: StreamPrinter | None = None
) -> None:
    """The answer (unless ``printer`` streamed it: then only its ending), then each retrieved item
    with its scores, a snippet and (for passages) its source."""
    if printer is None:
        console.print(Text.assemble(("Answer", "bold"), f" ({response.answer.mode}): ", response.answer.text))
    else:
        printer.finish(response.answer.text)
    if response.answer.cost_line:
        console.print(response.answer.cost_line, style="dim")
    for warning in response.answer.warnings:
        console.print(f"warning: {warning}", style="yellow")
    print_support(console, response)
    if response.route is not None:  # `auto`: what the router found the question to be, and where it went
        console.print(Text.assemble("\n", ("Route", "bold"), ": ", response.route.line()))
    retrieval_ms = response.timings_ms.get("retrieval", 0)
    console.print(Text.assemble("\n", ("Context", "bold"), f" ({response.result.pipeline}, {retrieval_ms:.1f} ms):"))
    cited, attributed = set(response.answer.citations), set(response.answer.attributed)
    for rank, item in enumerate(response.result.items, start=1):
        snippet = " ".join(item.text.split())[:SNIPPET]
        scores = ", ".join(f"{k}={v:.3g}" for k, v in item.scores.items())
        console.print(Text.assemble(f"{rank}. ", (item.id, "cyan"), f" ({scores}) {snippet}…"))
        if item.kind == "chunk":
            mark = ("  cited", "green") if item.id in cited else ""
            mark = ("  attributed", "yellow") if item.id in attributed else mark
            console.print(Text.assemble("   ↳ ", source_line(item.id, sources), mark))
    listed = {item.id for item in response.result.items}
    extra = [cid for cid in response.answer.citations if cid not in listed]
    if extra:
        console.print(Text.assemble("\n", ("Cited", "bold"), " (graph provenance, not in the list above):"))
        for cid in extra:
            console.print(Text.assemble("- ", (cid, "cyan"), f": {source_line(cid, sources)}"))


SUPPORT_STYLE = {"cited": "green", "miscited": "red", "attributed": "yellow", "unsupported": "red"}


def print_support(console: Console, response: QueryResponse) -> None:
    """Sentence by sentence, what backs the answer, when kgrag had to attribute (the model cited only some
    sentences, or none): ``cited``, ``attributed → ID`` or ``unsupported``."""
    sentences = response.answer.sentences
    if all(s.status == "cited" for s in sentences):
        return
    legend = " (per sentence: cited by the model, miscited, attributed by kgrag, unsupported):"
    console.print(Text.assemble("\n", ("Support", "bold"), legend))
    for sentence in sentences:
        where = f" → {', '.join(sentence.passages)}" if sentence.passages else ""
        mark = (f"[{sentence.status}{where}]", SUPPORT_STYLE[sentence.status])
        console.print(Text.assemble("- ", mark, " ", sentence.text))
