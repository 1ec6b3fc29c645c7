"""`kgrag cost` and `kgrag prompts ...`: what the LLM cost, and the prompt files behind it."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Column, Table

from kgrag.cli.errors import guarded
from kgrag.cli.options import DebugOpt, WorkspaceOpt, new_console, open_workspace
from kgrag.cli.prompt_tune_command import tune_command

prompts_app = typer.Typer(no_args_is_help=True, help="List, export and tune the LLM prompt files.")
prompts_app.command("tune")(tune_command)


@guarded
def cost(
    run: Annotated[str | None, typer.Option("--run", help="Only this run id (see the by-run table).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    workspace: WorkspaceOpt = None,
    debug: DebugOpt = False,
) -> None:
    """LLM calls, tokens, retries, cache hits and money per stage and per run."""
    with open_workspace(workspace) as ws:
        usage = ws.llm_usage(run)
    if as_json:
        typer.echo(json.dumps(asdict(usage), indent=2, default=str))
        return
    console = new_console()
    if usage.total.calls == 0:
        console.print("no LLM calls recorded in this workspace (llm.provider is `none`, or nothing has run yet)")
        return
    for title, rows in (("stage", usage.by_stage), ("run", usage.by_run)):
        batch = usage.total.batch_calls > 0  # calls answered through the Batch API, priced at its share
        columns = ("calls", "cached", *(("batch",) if batch else ()), "retries", "errors")
        table = Table(*columns, "prompt tok", "completion tok", "USD")
        # The run id is what `--run` takes: never wrapped or cut with an ellipsis, whatever the width.
        width = max([len(title), *(len(name) for name in rows)])
        table.columns.insert(0, Column(title, no_wrap=True, min_width=width, overflow="ignore"))
        for name, t in sorted(rows.items()):
            table.add_row(
                name,
                str(t.calls),
                str(t.cache_hits),
                *((str(t.batch_calls),) if batch else ()),
                str(t.retries),
                str(t.errors),
                str(t.prompt_tokens),
                str(t.completion_tokens),
                f"{t.cost_usd:.4f}",
            )
        console.print(table)
    console.print(f"total: {usage.lines()[-1].removeprefix('total: ')}")


@prompts_app.command("list")
@guarded
def list_command(workspace: WorkspaceOpt = None, debug: DebugOpt = False) -> None:
    """Every prompt with its version, whether a file overrides it (`tuned`: written by `kgrag prompts tune`)
    and where it is loaded from (shipped, llm.prompts_dir or the workspace's prompts/ folder)."""
    from kgrag.prompts import list_prompts
    from kgrag.prompts.overrides import is_tuned
    from kgrag.workspace.kinds import prompt_schemas

    with open_workspace(workspace) as ws:
        prompts = list_prompts(ws.config.llm.prompts_dir, prompt_schemas(ws))
    table = Table("name", "version", "override", "output", "description", "source")
    for p in prompts:
        output = p.output_schema if isinstance(p.output_schema, str) else "json schema"
        shipped = p.source.startswith("kgrag/prompts/")
        override = "-" if shipped else ("tuned" if is_tuned(Path(p.source)) else "edited")
        table.add_row(p.name, p.version, override, output, p.description, p.source)
    new_console().print(table)


@prompts_app.command("export")
@guarded
def export_command(
    directory: Annotated[Path, typer.Argument(help="Directory to write the prompt files into.")],
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace files that exist.")] = False,
    debug: DebugOpt = False,
) -> None:
    """Copy the shipped prompts to DIR; edit them and set llm.prompts_dir = DIR to use the copies."""
    from kgrag.prompts import export_prompts

    written = export_prompts(directory, overwrite=overwrite)
    console = new_console()
    for path in written:
        console.print(f"wrote {path}")
    console.print(
        f'set `prompts_dir = "{directory}"` under [llm] in kgrag.toml to use them; bump '
        "`version` in a file you edit so cached replies of the old prompt are not reused"
    )
