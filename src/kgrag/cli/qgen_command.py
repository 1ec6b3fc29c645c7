"""`kgrag eval qgen`: write a generated question set in the dataset format `kgrag eval` reads."""

from __future__ import annotations

import textwrap
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from kgrag.cli.errors import guarded
from kgrag.cli.options import DebugOpt, WorkspaceOpt, new_console, open_workspace
from kgrag.cli.ranges import MAX_SEED

if TYPE_CHECKING:
    from rich.console import Console

    from kgrag.evaluation.qgen import QGenResult
    from kgrag.evaluation.qgen.generate import PerKind

_KINDS_HELP = (
    "With an LLM: node, edge, subgraph, answer-given, single-fact, multi-fact, and the LLM-free known-item, "
    "two-chunk in the same set; without: known-item, two-chunk (comma-separated, each with its own count if "
    "wanted: single-fact:150,known-item; default: node,edge,subgraph,single-fact or both LLM-free kinds)."
)
_LLM_HELP = (
    "`none`: known-item questions from the chunks with spaCy, no LLM; `config`: the configured LLM; "
    "`auto` (default): the LLM when one is configured, else none."
)


def _shown(offered: dict[str, int], left_out: dict[str, int]) -> str:
    parts = [f"{offered[k] - left_out.get(k, 0)}/{offered[k]} {k}s" for k in sorted(offered)]
    return ", ".join(parts)


REASONS_SHOWN = 10
"""Rejection reasons listed one a line, the most frequent first; the rest are counted in one line."""
WRAP = 100
"""Notes are wrapped at this width (or the terminal's, when narrower)."""


def _rejections(rejected: Counter[str]) -> list[str]:
    """One line per reason, the most frequent first, the rarer ones summed up in a last line."""
    if not rejected:
        return ["rejected: none"]
    ranked = rejected.most_common()
    lines = [f"rejected {sum(rejected.values()):,}, by reason:"]
    lines += [f"  {why}: {n}" for why, n in ranked[:REASONS_SHOWN]]
    if rest := ranked[REASONS_SHOWN:]:
        lines.append(f"  … {len(rest)} more reasons: {sum(n for _, n in rest):,} in all")
    return lines


def _summary(console: Console, result: QGenResult, out: Path) -> None:
    """What was kept and written, the rejections by reason, what the generator was shown, the generators'
    notes (fewer questions than asked, and why), and how many LLM-free questions name the headings above
    their sentence: short lines, a long list counted rather than run on."""
    from kgrag.evaluation.datasets import LLM_FREE_KINDS

    width = min(console.width, WRAP)
    kinds = Counter(item.question_type for item in result.items)
    each = f" ({', '.join(f'{n} {kind}' for kind, n in kinds.most_common())})" if len(kinds) > 1 else ""
    lines = [f"kept {len(result.items)} of {result.generated} generated questions{each} → {out}"]
    lines += _rejections(result.rejected)
    if result.offered:
        lines.append(f"shown to the generator: {_shown(result.offered, result.left_out)}")
    for note, times in Counter(result.notes).items():  # a failure noted on every attempt is shown once
        text = note if times == 1 else f"{note} (×{times})"
        lines += textwrap.wrap(text, width, subsequent_indent="  ", break_long_words=False, break_on_hyphens=False)
    for line in lines:
        console.print(line, markup=False, highlight=False)
    free = [item for item in result.items if item.question_type in LLM_FREE_KINDS]
    if free:
        metas = [result.meta.get(item.id) for item in free]
        named = sum(bool(meta and meta.get("headings")) for meta in metas)
        console.print(
            f"{named} of {len(free)} LLM-free questions name the headings above their sentence "
            "(evaluation.qgen_headings)",
            markup=False,
            highlight=False,
        )


def _kinds(text: str | None, per_kind: int | None) -> tuple[list[str] | None, PerKind | None]:
    """``--kinds`` as names and counts: ``single-fact:150,known-item`` gives single-fact its own count and
    known-item ``--per-kind``'s (or, without it, the generator's default)."""
    from kgrag.core.errors import KgragError

    own: dict[str, int] = {}
    for part in (text or "").split(","):
        name, colon, count = (piece.strip() for piece in part.partition(":"))
        if colon and not (name and count.isascii() and count.isdigit() and int(count) >= 1):
            raise KgragError(f"--kinds {part.strip()!r}: write a kind, then after ':' a whole number, 1 or more")
        if name:
            own[name] = int(count) if colon else own.get(name, 0)
    if not own:
        return None, per_kind
    if not any(own.values()):
        return list(own), per_kind
    every = per_kind or 0
    return list(own), {name: count or every for name, count in own.items() if count or every}


@guarded
def eval_qgen(
    out: Annotated[Path, typer.Option("--out", help="Where to write the questions: .json (a list) or .jsonl.")],
    kinds: Annotated[
        str | None,
        typer.Option("--kinds", help=_KINDS_HELP),
    ] = None,
    per_kind: Annotated[
        int | None,
        typer.Option(
            "--per-kind", min=1, help="Attempts per kind the LLM writes (10), questions per LLM-free kind (60)."
        ),
    ] = None,
    seed: Annotated[
        int, typer.Option("--seed", min=0, max=MAX_SEED, help="Seed of the sampling: same seed, same questions.")
    ] = 0,
    llm: Annotated[str, typer.Option("--llm", help=_LLM_HELP)] = "auto",
    judge_model: Annotated[
        str | None, typer.Option("--judge-model", help="Model checking answerability (default: the generating one).")
    ] = None,
    no_check: Annotated[
        bool,
        typer.Option(
            "--no-check",
            help="With an LLM: keep questions without the model's answerability check (more questions, more of "
            "them vague or unanswerable; for a model too small to judge its own).",
        ),
    ] = False,
    workspace: WorkspaceOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Generate a QA dataset from this workspace's documents (and graph, with an LLM): de-duplicated, each
    question checked against the passages it came from."""
    from kgrag.cli.progress import console_progress
    from kgrag.core.errors import KgragError
    from kgrag.evaluation.qgen.output import cited_chunks, write_questions

    if llm not in ("auto", "none", "config"):
        raise KgragError(f"--llm {llm!r}: choose auto, none or config")
    if out.suffix not in (".json", ".jsonl"):
        raise KgragError(f"--out {out}: name a .json (a list) or .jsonl (one question per line) file")
    names, counts = _kinds(kinds, per_kind)
    console = new_console()
    with open_workspace(workspace) as ws, console_progress(console) as progress:
        result = ws.eval.qgen(
            names,
            counts,
            seed=seed,
            llm=llm,  # type: ignore[arg-type]  # checked above
            judge_model=judge_model,
            llm_check=not no_check,
            progress=progress,
        )
        documents = {cid: ref.source for cid, ref in ws.documents.sources(cited_chunks(result)).items()}
    write_questions(out, result, documents)
    _summary(console, result, out)
