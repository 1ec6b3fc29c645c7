"""The `kgrag` command line. Exit codes: 0 ok, 1 user error (one line), 2 internal error (see --debug).

Command bodies import the workspace (and through it pydantic, NumPy, the models) when they run, never at
module level: ``kgrag --help`` and typos must answer at once.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from kgrag.cli.calibrate_command import eval_calibrate
from kgrag.cli.chat_command import chat
from kgrag.cli.community_commands import communities_command, report_command
from kgrag.cli.compare_commands import compare, tune_reranker
from kgrag.cli.errors import guarded, run_app
from kgrag.cli.eval_plan_command import eval_plan
from kgrag.cli.eval_run_commands import eval_list, eval_pairwise, eval_report, eval_run
from kgrag.cli.eval_trace_commands import eval_export, eval_rescore
from kgrag.cli.graph_commands import graph_app
from kgrag.cli.help import KgragGroup
from kgrag.cli.index_command import index, print_index_report
from kgrag.cli.llm_commands import cost, prompts_app
from kgrag.cli.mcp_command import mcp_command
from kgrag.cli.migrate_command import migrate
from kgrag.cli.notes import StderrNotes
from kgrag.cli.options import DebugOpt, WorkspaceOpt, new_console, open_workspace
from kgrag.cli.prune_command import prune
from kgrag.cli.qgen_command import eval_qgen
from kgrag.cli.ranges import MAX_ITEMS, MAX_K
from kgrag.cli.serve_command import serve
from kgrag.cli.show_command import show_command
from kgrag.cli.tune_commands import tune_app
from kgrag.core.errors import KgragError

if TYPE_CHECKING:  # types only: the modules are imported inside the commands that use them
    from kgrag.core.records import DocumentRecord
    from kgrag.retrieval.requirements import RequirementStatus

app = typer.Typer(
    cls=KgragGroup,
    add_completion=False,
    no_args_is_help=True,
    help="Build plain-RAG and GraphRAG indexes over your documents and query them.",
)
eval_app = typer.Typer(no_args_is_help=True, help="Evaluate retrieval pipelines on a QA dataset.")
app.add_typer(eval_app, name="eval")
eval_app.command("run")(eval_run)
eval_app.command("list")(eval_list)
eval_app.command("report")(eval_report)
eval_app.command("export")(eval_export)
eval_app.command("rescore")(eval_rescore)
eval_app.command("pairwise")(eval_pairwise)
eval_app.command("qgen")(eval_qgen)
eval_app.command("calibrate")(eval_calibrate)
eval_app.command("plan")(eval_plan)
app.add_typer(prompts_app, name="prompts")
app.command("cost")(cost)
app.add_typer(graph_app, name="graph")
app.command("serve")(serve)
app.command("mcp")(mcp_command)
graph_app.command("communities")(communities_command)
graph_app.command("report")(report_command)
app.command("compare")(compare)
app.add_typer(tune_app, name="tune")
app.command("tune-reranker", hidden=True)(tune_reranker)  # older spelling of `kgrag tune reranker`
app.command("migrate")(migrate)
app.command("show")(show_command)
app.command("index")(index)
app.command("chat")(chat)
app.command("prune")(prune)


def _print_version(value: bool) -> None:
    if value:
        from kgrag import __version__

        typer.echo(f"kgrag {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Build plain-RAG and GraphRAG indexes over your documents and query them."""


@app.command()
@guarded
def init(
    directory: Annotated[Path | None, typer.Argument(help="Workspace directory to create.")] = None,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="On an existing workspace: write a fresh default kgrag.toml (the old one is kept as "
            "kgrag.toml.bak); the index is kept.",
        ),
    ] = False,
    workspace: WorkspaceOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Create a workspace: a commented kgrag.toml and the SQLite database. An existing workspace is left
    as it is (exit 0) unless --force."""
    from kgrag.config import CONFIG_FILE_NAME
    from kgrag.workspace import DB_FILE_NAME, Workspace, resolve_workspace_dir

    target = resolve_workspace_dir(directory or workspace)
    toml = target / CONFIG_FILE_NAME
    console = new_console()
    if toml.exists() or (target / DB_FILE_NAME).exists():
        if not force:
            console.print(
                Text.assemble(
                    "workspace ",
                    (str(target.resolve()), "bold"),
                    " already exists; nothing was changed "
                    "(--force writes a fresh default kgrag.toml, keeping the index)",
                )
            )
            return
        if toml.exists():
            toml.replace(toml.with_name(CONFIG_FILE_NAME + ".bak"))
    with Workspace.init(target) as ws:
        console.print(Text.assemble("initialised workspace ", (str(ws.path.resolve()), "bold")))


@app.command()
@guarded
def remove(
    documents: Annotated[list[str], typer.Argument(help="Document ids, sources or file paths.")],
    workspace: WorkspaceOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Delete documents and everything derived from them."""
    with open_workspace(workspace) as ws:
        removed, unknown = ws.indexing.remove(documents, StderrNotes())
    console = new_console()
    for source in removed:
        console.print(f"removed {source}")
    if unknown:
        raise KgragError(f"no document matches: {', '.join(unknown)} (see `kgrag status --documents`)")


@app.command()
@guarded
def reindex(
    embeddings: Annotated[bool, typer.Option("--embeddings", help="Re-embed all chunks.")] = False,
    workspace: WorkspaceOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Rebuild derived data with the current config (e.g. after changing the embedding model)."""
    if not embeddings:
        raise KgragError("say what to rebuild, e.g. `kgrag reindex --embeddings`")
    from kgrag.cli.progress import console_progress

    console = new_console()
    with open_workspace(workspace, allow_model_change=True) as ws, console_progress(console) as progress:
        report = ws.reindex_embeddings(progress)
    print_index_report(console, report)


@app.command()
@guarded
def status(
    workspace: WorkspaceOpt = None,
    documents: Annotated[bool, typer.Option("--documents", help="List every document.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    debug: DebugOpt = False,
) -> None:
    """Counts, sizes, models and documents per status."""
    with open_workspace(workspace) as ws:
        info = ws.status()
        docs = [_document_row(d) for d in ws.documents.list()] if documents else []
    if as_json:
        typer.echo(json.dumps({**info, "document_list": docs}, indent=2))
        return
    console = new_console()
    _print_status(console, info, docs)
    if info.get("unfinished"):
        console.print(Text(str(info["unfinished"]), style="yellow"))


def _document_row(doc: DocumentRecord) -> dict[str, str]:
    row = {"id": doc.id, "source": doc.source, "status": doc.status.value}
    if doc.metadata.get("duplicate_of"):  # a copy of another document's file, stored once
        row["duplicate_of"] = doc.metadata["duplicate_of"]
    return row


def without_path(error: str, source: str) -> str:
    """A failed file's ``error`` without the path it starts with when that path is ``source``'s, written
    as it was given to ``kgrag index`` ("bad/empty.md: the file is empty …" under "/…/bad/empty.md")."""
    head, sep, rest = error.partition(": ")
    given = head.removeprefix("./")
    if sep and given and (source == head or source.endswith("/" + given)):
        return rest
    return error


def _print_status(console: Console, info: dict[str, object], docs: list[dict[str, str]]) -> None:
    from kgrag.cli.render import status_table

    console.print(status_table(info))
    failed = info.get("failed") or []
    assert isinstance(failed, list)
    for entry in failed:
        reason = without_path(entry["error"], entry["source"])
        console.print(Text.assemble(("failed", "red"), f" {entry['source']}: {reason}"))
    for doc in docs:
        copy = f"  (copy of {doc['duplicate_of']})" if "duplicate_of" in doc else ""
        console.print(f"{doc['id']}  {doc['status']:<8} {doc['source']}{copy}")


@app.command()
@guarded
def query(
    question: Annotated[str, typer.Argument(help="The question.")],
    pipeline: Annotated[str | None, typer.Option("--pipeline", "-p", help="Pipeline name.")] = None,
    k: Annotated[int | None, typer.Option("--k", min=1, max=MAX_K, help="Context items to retrieve.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the full response as JSON.")] = False,
    stream: Annotated[
        bool | None,
        typer.Option(
            "--stream/--no-stream",
            help="Print the answer as it is written (default: on a terminal, not with --json or when piped).",
        ),
    ] = None,
    workspace: WorkspaceOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Retrieve context for a question and answer it with citations."""
    from kgrag.cli.answers import StreamPrinter, print_response, response_payload, response_sources

    console = new_console()
    printer = StreamPrinter(console) if (stream if stream is not None else console.is_terminal) else None
    with open_workspace(workspace) as ws:
        ws.querying.require_chunks()
        if (unfinished := ws.querying.unfinished()) is not None:
            StderrNotes().note(unfinished)
        response = ws.querying.query(question, pipeline, k, sink=None if as_json else printer)
        sources = response_sources(ws, [response])
    if as_json:
        typer.echo(json.dumps(response_payload(response, sources), indent=2))
    else:
        print_response(console, response, sources, printer)


@app.command()
@guarded
def pipelines(workspace: WorkspaceOpt = None, debug: DebugOpt = False) -> None:
    """List the retrieval pipelines (built-in, plug-in, local) with what each needs and whether this
    workspace has it, and the keyword ranking of its store."""
    from kgrag.retrieval.recipes.bm25 import lexical_ranking

    with open_workspace(workspace) as ws:
        infos = ws.querying.pipelines()
        ranking = lexical_ranking(ws.config)
    table = Table("pipeline", "needs", "origin", "description")
    for info in infos:
        needs = ", ".join(f"{r.name} ({_shown(r)})" for r in info.requirements) or "-"
        table.add_row(info.name, needs, info.origin, info.description or info.error)
    console = new_console()
    console.print(table)
    console.print(f"Keyword search (`bm25` and every pipeline that fuses BM25) on this workspace's store: {ranking}.")
    for info in infos:
        for problem in [info.error] if info.error else [r.message for r in info.requirements if not r.met]:
            console.print(Text.assemble((info.name, "yellow"), f": {problem}"))
    cautions = {r.name: r.message for info in infos for r in info.requirements if r.met and r.message}
    for name, caution in cautions.items():  # once per requirement, not once per pipeline needing it
        console.print(Text.assemble((name, "yellow"), f": {caution}"))


def _shown(status: RequirementStatus) -> str:
    if not status.met:
        return "missing"
    return "ok, but see below" if status.message else "ok"


@eval_app.command("retrieval")
@guarded
def eval_retrieval(
    dataset: Annotated[Path, typer.Option("--dataset", help="GraphRAG-Bench .json or .jsonl questions.")],
    pipelines: Annotated[
        str, typer.Option("--pipelines", help="Comma-separated pipeline names.")
    ] = "dense,bm25,hybrid",
    k: Annotated[
        int,
        typer.Option(
            "--k",
            min=1,
            max=MAX_K,
            help="Passages per question, at most; graph pipelines add graph items in the budget.",
        ),
    ] = 5,
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, max=MAX_ITEMS, help="Only the first N questions.")
    ] = None,
    out: Annotated[Path | None, typer.Option("--out", help="Report directory (default: <workspace>/reports).")] = None,
    baseline: Annotated[
        str | None, typer.Option("--baseline", help="Pipeline paired differences are taken against (default: first).")
    ] = None,
    workspace: WorkspaceOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Evidence recall per question type at one context budget (with the items each pipeline handed over),
    95% intervals, paired differences against a baseline (wins/losses/ties) and a verdict, LLM-free;
    stores the run (`kgrag eval list`) and writes JSON, markdown and a plot."""
    from kgrag.cli.eval_command import run_retrieval_eval

    run_retrieval_eval(workspace, dataset, pipelines, k, limit, out, new_console(), baseline)


def main() -> None:
    run_app(app)
