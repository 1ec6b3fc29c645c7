"""`kgrag prompts tune`: propose entity types, a domain note and the language for a corpus and write them as
prompt overrides of the workspace (see docs/llm.md, "Tuning prompts for a corpus")."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer
from rich.table import Table

from kgrag.cli.errors import guarded
from kgrag.cli.options import DebugOpt, WorkspaceOpt, new_console, open_workspace
from kgrag.cli.ranges import MAX_SEED

TOP_HEADS = 12


@guarded
def tune_command(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="Files or folders to sample; default: the documents already in the workspace."),
    ] = None,
    llm: Annotated[
        str,
        typer.Option(
            "--llm", help="`auto`: ask the configured LLM (NER when llm.provider is none); `none`: spaCy NER only."
        ),
    ] = "auto",
    sample_tokens: Annotated[int, typer.Option("--sample-tokens", min=200, help="Token budget of the sample.")] = 6000,
    seed: Annotated[int, typer.Option("--seed", min=0, max=MAX_SEED, help="Seed of the sample.")] = 0,
    max_types: Annotated[int, typer.Option("--max-types", min=2, max=30, help="Most entity types to propose.")] = 10,
    example: Annotated[
        str,
        typer.Option(
            "--example",
            help="`corpus`: worked examples drawn from the sample; `shipped`: keep the invented ones (small models "
            "copy an example's names and types).",
        ),
    ] = "corpus",
    force: Annotated[bool, typer.Option("--force", help="Replace prompt files written by hand.")] = False,
    workspace: WorkspaceOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Sample the corpus, propose entity types, a domain note and the language, and write tuned
    extract_graph and community_report prompts into the workspace (the next `kgrag index` uses them)."""
    from kgrag.core.errors import ConfigError
    from kgrag.graph.tune.run import TuneOptions

    if llm not in ("auto", "none"):
        raise ConfigError(f"--llm {llm!r}: use `auto` or `none`")
    if example not in ("corpus", "shipped"):
        raise ConfigError(f"--example {example!r}: use `corpus` or `shipped`")
    mode: Literal["auto", "none"] = "auto" if llm == "auto" else "none"
    source: Literal["corpus", "shipped"] = "corpus" if example == "corpus" else "shipped"
    options = TuneOptions(mode, sample_tokens, seed, max_types, force, source)
    with open_workspace(workspace) as ws:
        result = ws.prompt_tune.tune(options, paths or [])
    _print(result)


def _print(result: object) -> None:
    from kgrag.graph.tune.ner import READABLE_LABELS, VALUE_LABELS
    from kgrag.graph.tune.run import TuneResult

    assert isinstance(result, TuneResult)
    console = new_console()
    tokens = sum(p.tokens for p in result.sample)
    console.print(
        f"sample: {len(result.sample)} passages, {tokens} tokens, from "
        f"{len({p.source for p in result.sample})} of {result.documents} documents"
    )
    shares = ", ".join(
        f"{name} {share:.0%}" for name, share in sorted(result.language_guess.shares.items(), key=lambda kv: -kv[1])[:3]
    )
    console.print(f"language: {result.language} (function-word shares: {shares or 'no words'})")
    if result.ner is not None and result.ner.labels:
        table = Table("NER label", "type", "spans", "proposed", title="named entities in the sample")
        for label, count in result.ner.labels.most_common():
            readable = READABLE_LABELS.get(label, label.lower())
            proposed = "value" if label in VALUE_LABELS else ("yes" if readable in result.types else "no")
            table.add_row(label, readable, str(count), proposed)
        console.print(table)
        heads = ", ".join(f"{h} {n}" for h, n in result.ner.heads.most_common(TOP_HEADS))
        console.print(f"frequent noun-phrase heads: {heads or 'none'}")
    if result.llm is not None:
        console.print("proposed by the model (cleaned)")
    console.print(f"entity types: {', '.join(result.types)}")
    console.print(f"domain: {result.domain or '-'}")
    console.print(f"example: {result.example_origin}")
    for note in result.notes:
        console.print(f"note: {note}", markup=False)
    if not result.kept:
        console.print("nothing written: the shipped prompts extracted more on the A/B passage (see the note)")
        return
    for path, version in result.written:
        console.print(f"wrote {path!s} (version {version})")
    console.print(f"set graph.entity_types and graph.language in {result.config_file!s}")
    console.print("review the files, then run `kgrag index`: units are extracted again with the tuned prompts")
