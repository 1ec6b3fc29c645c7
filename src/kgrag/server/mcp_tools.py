"""kgrag as MCP tools: one workspace's search, answers, lookups and graph for agents, over the ``mcp`` SDK.

:func:`build_mcp_server` makes an :class:`mcp.server.MCPServer` whose tools go through the workspace
sub-APIs only (``ws.querying``, ``ws.documents``, ``ws.graph``), like the CLI and the HTTP routes:

* ``search``: the passages a pipeline retrieves for a query, each with its source (file, title, section,
  page), no answer and no LLM call;
* ``ask``: an answer with its citations, each marked ``model-cited`` or ``attributed``
  (:mod:`kgrag.generation.attribution`), the support of every sentence, warnings and the cost;
* ``show``: a passage, document (id or path), entity or relation by id, as ``kgrag show`` prints it;
* ``list_documents``: the indexed documents with their status;
* ``graph_neighbours``: an entity (id or name) and what lies within a few hops of it.

The tools only read. ``allow_index`` adds ``index`` (index files or folders of this machine), which only
``kgrag mcp --allow-index`` turns on; the HTTP transport (:mod:`kgrag.server.mcp_http`) never does.
``present`` rewrites every reply before it leaves (the server hides its own paths with it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from typing_extensions import TypedDict

from kgrag import __version__
from kgrag.core.errors import KgragError
from kgrag.documents.provenance import SourceDict
from kgrag.generation.respond import CostDict
from kgrag.generation.types import SentenceDict
from kgrag.retrieval.lookup import ShownDict

if TYPE_CHECKING:
    from mcp.server import MCPServer

    from kgrag.generation import QueryResponse
    from kgrag.workspace import Workspace

R = TypeVar("R")


class Passage(TypedDict):
    """A retrieved passage with its source."""

    chunk_id: str
    score: float
    text: str
    source: SourceDict | None


class SearchReply(TypedDict):
    """``search``: the passages a pipeline retrieved for the query."""

    query: str
    pipeline: str
    passages: list[Passage]


class Citation(TypedDict):
    """A cited passage: ``model-cited``, or ``attributed`` by kgrag; with its source."""

    chunk_id: str
    kind: str
    source: SourceDict | None


class AskReply(TypedDict):
    """``ask``: the answer, its citations, the support of each sentence, warnings, cost and pipeline."""

    answer: str
    mode: str
    idk: bool
    pipeline: str
    citations: list[Citation]
    sentences: list[SentenceDict]
    warnings: list[str]
    cost: CostDict


class DocumentRow(TypedDict):
    id: str
    source: str
    title: str
    status: str
    error: str | None


class DocumentsReply(TypedDict):
    """``list_documents``: one page of the indexed documents and how many there are."""

    total: int
    offset: int
    documents: list[DocumentRow]


MAX_K = 50
MAX_LIST = 1000
INSTRUCTIONS = (
    "Tools over one kgrag workspace (an indexed document collection). Use `search` for passages with their "
    "sources, `ask` for a cited answer, `show` to read a passage or document an answer cites, "
    "`list_documents` for what is indexed, `graph_neighbours` for an entity's relations. Citations marked "
    "'attributed' were aligned to the passage by kgrag because the model cited none; sentences marked "
    "'unsupported' are backed by no passage."
)
Present = Callable[[Any], Any]
NameSource = Callable[[str], str]


def _identity(value: Any) -> Any:
    return value


class WorkspaceTools:
    """The tools' bodies over one workspace; each returns JSON-like data or raises :class:`KgragError`."""

    def __init__(
        self,
        ws: Workspace,
        present: Present = _identity,
        name_source: NameSource | None = None,
        max_question: int | None = None,
    ) -> None:
        self.ws = ws
        self.present = present
        self.name_source = name_source
        """How a document's source is named in a reply's text (a server's clients see file names only)."""
        self.max_question = max_question
        """The longest question or query taken (``server.max_question_chars`` on a server); None: any."""

    def _check_length(self, text: str) -> None:
        if self.max_question is not None and len(text) > self.max_question:
            raise KgragError(f"question longer than {self.max_question} characters")

    def _sources(self, chunk_ids: list[str]) -> dict[str, SourceDict]:
        return {cid: ref.to_dict() for cid, ref in self.ws.documents.sources(chunk_ids).items()}

    def search(self, query: str, k: int = 5, pipeline: str | None = None) -> SearchReply:
        _check_k(k)
        self._check_length(query)
        result = self.ws.querying.retrieve(query, pipeline, k)
        chunks = [item for item in result.items if item.kind == "chunk"]
        sources = self._sources([item.id for item in chunks])
        passages: list[Passage] = [
            {"chunk_id": item.id, "score": round(item.score, 6), "text": item.text, "source": sources.get(item.id)}
            for item in chunks
        ]
        return self.present({"query": query, "pipeline": result.pipeline, "passages": passages})

    def ask(self, question: str, pipeline: str | None = None, k: int | None = None) -> AskReply:
        if k is not None:
            _check_k(k)
        self._check_length(question)
        response = self.ws.querying.query(question, pipeline, k)
        return self.present(answer_payload(response, self._sources(response.answer.citations)))

    def show(self, ident: str) -> ShownDict:
        shown = self.ws.documents.show(ident.strip())
        if shown is None:
            raise KgragError(
                f"no passage, document, entity or relation has the id {ident!r} (passage ids come from `search` "
                "and `ask`, document ids and paths from `list_documents`)"
            )
        if self.name_source is not None and shown.kind == "chunk" and shown.sources:
            ref = shown.sources[0]  # the heading names the file relative to the process's directory
            shown = replace(shown, heading=replace(ref, source=self.name_source(ref.source)).label())
        return self.present(shown.to_dict())

    def list_documents(self, limit: int = 100, offset: int = 0) -> DocumentsReply:
        if not 1 <= limit <= MAX_LIST or offset < 0:
            raise KgragError(f"limit must be 1-{MAX_LIST} and offset at least 0 (got {limit}, {offset})")
        documents = self.ws.documents.list()
        rows: list[DocumentRow] = [
            {"id": d.id, "source": d.source, "title": d.title, "status": str(d.status.value), "error": d.error}
            for d in documents[offset : offset + limit]
        ]
        return self.present({"total": len(documents), "offset": offset, "documents": rows})

    def graph_neighbours(self, entity: str, depth: int = 1, limit: int = 50) -> dict[str, Any]:
        if not 1 <= depth <= 3 or not 1 <= limit <= 500:
            raise KgragError(f"depth must be 1-3 and limit 1-500 (got {depth}, {limit})")
        if self.ws.graph.counts().get("entities", 0) == 0:
            raise KgragError("this workspace has no graph (index it with a pipeline that extracts one)")
        entity_id = entity if self.ws.graph.entity(entity) is not None else None
        if entity_id is None:
            matches = self.ws.graph.search_entities(entity, 1)
            if not matches:
                raise KgragError(f"no entity is named like {entity!r}")
            entity_id = matches[0].id
        found = self.ws.graph.neighbourhood(entity_id, depth, limit)
        if found is None:
            raise KgragError(f"no entity has the id {entity_id!r}")
        return self.present(asdict(found))

    def index(self, paths: list[str]) -> dict[str, Any]:
        if not paths:
            raise KgragError("name at least one file or folder to index")
        missing = [p for p in paths if not Path(p).expanduser().exists()]
        if missing:
            raise KgragError(f"no such file or folder: {', '.join(missing)}")
        report = self.ws.index([Path(p).expanduser() for p in paths])
        return self.present(report.to_dict())


def _check_k(k: int) -> None:
    if not 1 <= k <= MAX_K:
        raise KgragError(f"k must be 1-{MAX_K} (got {k})")


def answer_payload(response: QueryResponse, sources: dict[str, SourceDict]) -> AskReply:
    """An answer as the ``ask`` tool returns it: text, citations (each ``model-cited`` or ``attributed``,
    with its source), the support of each sentence, warnings, cost and the pipeline."""
    answer = response.answer
    attributed = set(answer.attributed)
    citations: list[Citation] = [
        {
            "chunk_id": cid,
            "kind": "attributed" if cid in attributed else "model-cited",
            "source": sources.get(cid),
        }
        for cid in answer.citations
    ]
    return {
        "answer": answer.text,
        "mode": answer.mode,
        "idk": answer.idk,
        "pipeline": response.result.pipeline,
        "citations": citations,
        "sentences": [s.to_dict() for s in answer.sentences],
        "warnings": answer.warnings,
        "cost": response.cost.to_dict(),
    }


def _call(body: Callable[..., R], **kwargs: Any) -> R:
    """Run a tool body; a user-facing error becomes the tool's error message, never a traceback."""
    from mcp.server.mcpserver.exceptions import ToolError

    try:
        return body(**kwargs)
    except KgragError as exc:
        raise ToolError(str(exc)) from exc


def build_mcp_server(
    ws: Workspace,
    *,
    allow_index: bool = False,
    present: Present = _identity,
    name_source: NameSource | None = None,
    max_question: int | None = None,
) -> MCPServer:
    """An MCP server exposing ``ws`` (read-only unless ``allow_index``); ``present`` rewrites every reply,
    ``name_source`` names documents in reply texts and ``max_question`` caps questions (all three given by
    ``kgrag serve``: it shows no paths and takes no question longer than ``server.max_question_chars``)."""
    from mcp.server import MCPServer
    from mcp_types import ToolAnnotations

    tools = WorkspaceTools(ws, present, name_source, max_question)
    server: MCPServer = MCPServer("kgrag", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")
    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    @server.tool(annotations=read_only)
    def search(query: str, k: int = 5, pipeline: str | None = None) -> SearchReply:
        """Passages of the workspace that answer `query`, best first, each with its source (file, title,
        section, page); no LLM call. `pipeline` as listed by `kgrag pipelines` (default: the workspace's)."""
        return _call(tools.search, query=query, k=k, pipeline=pipeline)

    @server.tool(annotations=read_only)
    def ask(question: str, pipeline: str | None = None, k: int | None = None) -> AskReply:
        """Answer `question` from the workspace with citations: each citation's passage id, source and kind
        ('model-cited', or 'attributed' by kgrag when the model cited nothing), the support of every
        sentence ('cited', 'attributed' or 'unsupported'), warnings and the LLM cost."""
        return _call(tools.ask, question=question, pipeline=pipeline, k=k)

    @server.tool(annotations=read_only)
    def show(id: str) -> ShownDict:
        """A passage (chunk id as cited), a document (id or file path), an entity or a relation: its text,
        where it comes from and its facts."""
        return _call(tools.show, ident=id)

    @server.tool(annotations=read_only)
    def list_documents(limit: int = 100, offset: int = 0) -> DocumentsReply:
        """The indexed documents (id, source, title, status), `limit` from `offset`, and how many there are."""
        return _call(tools.list_documents, limit=limit, offset=offset)

    @server.tool(annotations=read_only)
    def graph_neighbours(entity: str, depth: int = 1, limit: int = 50) -> dict[str, Any]:
        """The knowledge-graph entity named `entity` (an id or a name) with the entities within `depth` hops
        (at most `limit`) and the relations among them, each relation with its source passages."""
        return _call(tools.graph_neighbours, entity=entity, depth=depth, limit=limit)

    if allow_index:

        @server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
        def index(paths: list[str]) -> dict[str, Any]:
            """Index files or folders of this machine into the workspace (only what is new or changed) and
            return the run's summary."""
            return _call(tools.index, paths=paths)

    return server
