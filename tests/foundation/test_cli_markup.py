"""Nothing from a document, a model, a user or a docstring is read as rich markup anywhere in the CLI:
passages with ``[/time]`` or ``[bold]`` print as written, ``[c:ID]`` citations survive, and every
command's ``--help`` shows its help texts word for word."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from tests.helpers import index_with_word_extractor
from typer import rich_utils
from typer.testing import CliRunner

from kgrag import Workspace
from kgrag.cli import help as cli_help
from kgrag.cli.app import app

# A release note as a user might keep it: markup-like brackets are ordinary text here.
NOTES = """# Release [bold]notes[/bold]

The deploy window closes at 18:00 [/time] on Fridays; the tag reads [/x] in old logs.

## Quoting [the board]

Use [c:abc] markers when quoting the change approval board, chaired by Ines Varga.
"""


TOML = '[embedding]\nprovider = "fake"\n[graph]\nextractor = "none"\n[chunking]\nsize_tokens = 24\n'


@pytest.fixture(scope="module")
def markup_ws(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("markup")
    docs = root / "docs"
    docs.mkdir()
    (docs / "notes.md").write_text(NOTES, encoding="utf-8")
    ws_dir = root / "ws"
    config = {"embedding": {"provider": "fake"}, "graph": {"extractor": "none"}, "chunking": {"size_tokens": 24}}
    with Workspace.init(ws_dir, **config) as ws:  # small chunks: the last one starts under the second heading
        index_with_word_extractor(ws, [docs])
    (ws_dir / "kgrag.toml").write_text(TOML)
    return ws_dir


def _run(*args: str) -> Any:
    # Wide enough that no line wraps or cell is cut, whatever the length of the temporary paths.
    result = CliRunner(env={"COLUMNS": "400"}).invoke(app, list(args))
    assert result.exit_code == 0, result.output
    assert "MarkupError" not in result.output and "internal error:" not in result.output
    return result


QUESTIONS = ["When does the deploy window [/time] close?", "[bold]who chairs[/bold] the board?"]


@pytest.mark.parametrize("question", QUESTIONS)
def test_query_prints_passages_and_citations_verbatim(markup_ws: Path, question: str) -> None:
    out = _run("query", question, "-w", str(markup_ws), "-p", "bm25").output
    assert "[/time]" in out and "[/x]" in out
    assert re.search(r"\[c[0-9a-f]{8,}\]", out), out  # the extractive answer's citations are kept
    assert 'notes.md · "Release [bold]notes[/bold]"' in out  # source and title, verbatim


def test_query_json_has_sources_with_sections(markup_ws: Path) -> None:
    payload = json.loads(_run("query", "who chairs the board", "-w", str(markup_ws), "-p", "bm25", "--json").output)
    sources = payload["sources"]
    assert set(payload["answer"]["citations"]) <= set(sources)
    quoting = next(s for s in sources.values() if s["section"] == "Quoting [the board]")
    assert quoting["source"].endswith("notes.md") and quoting["title"] == "Release [bold]notes[/bold]"
    assert quoting["span"][0] > 0 and quoting["page"] is None


def test_compare_and_show_print_markup_verbatim(markup_ws: Path) -> None:
    out = _run("compare", "deploy window [/time]", "-w", str(markup_ws), "-p", "bm25,hybrid").output
    assert "[/time]" in out and "notes.md" in out
    rows = json.loads(_run("compare", "deploy window", "-w", str(markup_ws), "-p", "bm25", "--json").output)
    assert rows[0]["citations"][0]["source"]["source"].endswith("notes.md")
    payload = json.loads(_run("query", "deploy window", "-w", str(markup_ws), "-p", "bm25", "--json").output)
    cited = payload["answer"]["citations"][0]
    shown = _run("show", cited, "-w", str(markup_ws)).output
    assert "[/time]" in shown or "[c:abc]" in shown
    assert "notes.md" in shown
    entity = next(iter(_entity_ids(markup_ws)))
    assert "notes.md" in _run("show", entity, "-w", str(markup_ws)).output


def _entity_ids(ws_dir: Path) -> list[str]:
    with Workspace.open(ws_dir) as ws:
        return ws.store.graph.entity_ids()


def _commands(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    yield path, command
    for name, sub in sorted((getattr(command, "commands", None) or {}).items()):
        yield from _commands(sub, (*path, name))


def _texts(command: Any) -> list[str]:
    texts = [command.help or ""]
    texts += [p.help for p in command.params if isinstance(getattr(p, "help", None), str)]
    return [t for t in texts if t]


def _flat(text: str) -> str:
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", text).split())


def test_every_help_text_is_shown_word_for_word(monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as patch:  # the tree as written, before the help is made plain
        patch.setattr(cli_help, "plain_help", lambda command: None)
        written = {path: _texts(cmd) for path, cmd in _commands(typer.main.get_command(app))}
    monkeypatch.setattr(rich_utils, "MAX_WIDTH", 4000)  # one line per help text: no wrapping to compare
    assert len(written) > 30
    for path, texts in written.items():
        shown = _flat(_run(*path, "--help").output)
        for text in texts:
            assert _flat(text) in shown, (path, text)


def test_top_level_commands_are_grouped() -> None:
    out = _run("--help").output
    panels = [title for title in cli_help.PANELS if f"─ {title} " in out]
    assert panels == list(cli_help.PANELS)  # every panel, in this order
    listed = set(typer.main.get_command(app).commands)  # type: ignore[attr-defined]
    grouped = {name for names in cli_help.PANELS.values() for name in names}
    assert listed == grouped, "every top-level command belongs to one panel"
    rows = [out.index(f"│ {name} ") for name in ("init", "index", "query", "graph", "eval", "serve")]
    assert rows == sorted(rows)


def test_known_garbling_is_gone() -> None:
    assert "[denoise] settings" in _flat(_run("graph", "denoise", "--help").output)
    assert "print the [rerank] lines" in _flat(_run("tune-reranker", "--help").output)
    assert "pip install 'kgrag[ray]'" in _flat(_run("index", "--help").output)


def test_cli_code_writes_no_markup_tags() -> None:
    """The console reads no markup (``new_console``), so a tag in a printed string would show as text."""
    tag = re.compile(r"\[/?(bold|dim|red|yellow|cyan|green|italic|magenta|blue)\b[^\]]*\]")
    cli_dir = Path(cli_help.__file__).parent
    offenders = [p.name for p in cli_dir.glob("*.py") if tag.search(p.read_text(encoding="utf-8"))]
    assert not offenders


def test_show_resolves_every_kind_of_id(markup_ws: Path) -> None:
    with Workspace.open(markup_ws) as ws:
        chunk = ws.store.chunks.get_many([c.id for c in ws.store.chunks.iter_all()])[-1]
        relation = ws.store.graph.relation_ids()[0]
        document = ws.documents.list()[0]
    pasted = _run("show", f"[c:{chunk.id}]", "-w", str(markup_ws)).output  # as cited in an LLM answer
    assert "§ Quoting [the board]" in pasted and "[c:abc]" in pasted
    by_path = json.loads(_run("show", document.source, "-w", str(markup_ws), "--json").output)
    assert by_path["kind"] == "document" and by_path["id"] == document.id
    assert "[/time]" in by_path["text"] and by_path["chunks"]
    shown = json.loads(_run("show", relation, "-w", str(markup_ws), "--json").output)
    assert shown["kind"] == "relation" and shown["sources"][0]["source"].endswith("notes.md")
    missing = CliRunner().invoke(app, ["show", "c0000000000000000", "-w", str(markup_ws)])
    assert missing.exit_code == 1 and "no chunk, document, entity or relation" in missing.output
