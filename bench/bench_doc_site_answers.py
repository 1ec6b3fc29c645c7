"""Thirty questions over two documentation sites nobody on the project wrote: evidence in the top 5, and
does the extractive answer state the fact?

The sites: pydantic's MkDocs Material pages (``docs/concepts/*.md``, ``why.md``, ``install.md``,
``version-policy.md``) and Requests' Sphinx sources (``docs/**/*.rst``), read from git checkouts given with
``--pydantic`` and ``--requests`` (e.g. ``git clone`` of github.com/pydantic/pydantic and psf/requests;
nothing is downloaded here and nothing of them is committed). A tree that cannot read ``.rst`` (the code
before the reStructuredText loader) gets the same files named ``.txt``, which it indexes verbatim, as a
user of that version would have had to.

Each tree is indexed into a fresh workspace with the default config (``llm.provider = none``) and the
``fast`` indexing pipeline (chunks and BM25 only, so two trees index in seconds on a loaded machine), or
with ``--index-pipeline standard`` (the default pipeline: embeddings and the spaCy graph), then each
question is asked with every pipeline of ``--pipelines`` (default ``bm25``; e.g. ``bm25,hybrid,auto``; one
workspace for all of them, 5 passages) and judged:

* evidence: a retrieved passage holds one of the question's evidence strings;
* fact: the answer holds one of its fact strings and is not "not found";
* wrong: the answer is not "not found" and holds none of the fact strings, although it answers;
* for the off-topic questions, the answer must be "not found";
* context tokens: the tokens of every item handed to the answer (the pipeline's context budget count when
  it has one), per query.

``--corpus DIR --questions FILE`` asks a question set of your own of any folder instead (a JSON list of
``{"site", "text", "fact": [...], "evidence": [...]}``; empty ``evidence`` marks an off-topic question), the
folder indexed as it is.

Strings are compared lower-cased with markup characters (`` ` ``, ``*``, "¶") removed and white space
collapsed, so that an index holding raw markup is not penalised for the markup itself.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/bench_doc_site_answers.py --pydantic ../pydantic \
        --requests ../requests [--before /path/to/tree] [--workdir DIR] [--ask-only] [--json out.json] \
        [--index-pipeline standard --pipelines bm25,hybrid,auto]
    HF_HUB_OFFLINE=1 .venv/bin/python bench/bench_doc_site_answers.py --corpus DIR --questions FILE [...]

``--workdir`` keeps each tree's workspace (one per tree and indexing pipeline) and reuses one that is
already indexed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
K = 5
NOT_FOUND = "not found"
PYDANTIC_PAGES = ("docs/concepts", "docs/why.md", "docs/install.md", "docs/version-policy.md")
REQUESTS_PAGES = ("docs",)


@dataclass(frozen=True)
class Question:
    site: str
    text: str
    fact: tuple[str, ...] = ()  # any of these in the answer states the fact
    evidence: tuple[str, ...] = ()  # any of these in a retrieved passage is the evidence; () = off-topic


QUESTIONS = (
    Question("pydantic", "In which Pydantic version are named type aliases fully supported?", ("2.11",),
             ("named type aliases are now fully supported",)),
    Question("pydantic", "Does Pydantic validate default values by default?", ("not validate default values",),
             ("will not validate default values",)),
    Question("pydantic", "What is the default value of by_alias?", ("by_alias is false",), ("by_alias is false",)),
    Question("pydantic", "Since which version can default factories take already validated data?", ("2.10",),
             ("default factories can take already validated data",)),
    Question("pydantic", "When was the exclude_if parameter added?", ("2.12",), ("the exclude_if parameter.",)),
    Question("pydantic", "Does Pydantic coerce values to the desired type by default?", ("attempt to coerce",),
             ("attempt to coerce values to the desired type",)),
    Question("pydantic", "How does Pydantic sort JSON schemas by default?", ("alphabetically",),
             ("alphabetically sorting keys",)),
    Question("pydantic", "Is the return value of a function decorated with validate_call validated by default?",
             ("is not validated", "not validated"), ("return value of the function is not validated",)),
    Question("pydantic", "What does model_copy return by default?", ("shallow copy",), ("shallow copy",)),
    Question("pydantic", "How do I install pydantic with email validation support?", ("pydantic[email]",),
             ("pydantic[email]",)),
    Question("pydantic", "Which Python version do I need to install Pydantic?", ("3.10",), ("python 3.10+",)),
    Question("pydantic", "What happens to extra data provided to a Pydantic model by default?", ("ignored",),
             ("values will simply be ignored",)),
    Question("pydantic", "When will functionality marked as deprecated be removed?", ("v3",),
             ("will not be removed until the next major v3 release",)),
    Question("pydantic", "Which config setting made models immutable in Pydantic V1?", ("allow_mutation",),
             ("allow_mutation = false",)),
    Question("pydantic", "Which language is the core validation logic of Pydantic written in?", ("rust",),
             ("written in rust",)),
    Question("requests", "Is SSL certificate verification enabled by default in Requests?", ("verify is set to true",
             "ssl verification is enabled"), ("by default, ssl verification is enabled",
             "verify is set to true")),
    Question("requests", "For which HTTP verb does Requests not follow redirects by default?", ("head",),
             ("location redirection for all verbs except head",)),
    Question("requests", "In which version was the json parameter added?", ("2.4.2",), ("added in version 2.4.2",)),
    Question("requests", "What does r.json() raise when the body is not valid JSON?", ("jsondecodeerror",),
             ("raises requests.exceptions.jsondecodeerror",)),
    Question("requests", "Which headers are removed when a request is redirected off-host?", ("authorization",),
             ("authorization headers will be removed",)),
    Question("requests", "Which CA bundle does Requests use to verify certificates?", ("certifi",), ("certifi",)),
    Question("requests", "How is a single timeout value applied?", ("both the connect and the read",),
             ("applied to both the connect and the read",)),
    Question("requests", "Which environment variables does Requests read proxy settings from?",
             ("http_proxy",), ("http_proxy",)),
    Question("requests", "What does the Session object persist across requests?", ("persist certain parameters",
             "cookies"), ("persist certain parameters",)),
    Question("requests", "How do I install Requests with pip?", ("pip install requests",), ("pip install requests",)),
    Question("requests", "In which version did Requests add support for SOCKS proxies?", ("2.10.0",),
             ("2.10.0",)),
    Question("requests", "Under which license is Requests released?", ("apache 2.0",), ("apache 2.0",)),
    Question("requests", "What does raise_for_status raise for a bad response?", ("httperror",), ("httperror",)),
    Question("requests", "What will a major release of Requests include?", ("breaking changes",),
             ("a major release will include breaking changes",)),
    Question("requests", "How do I disable SSL certificate verification in Requests?", ("verify=false",
             "verify to false", "verify is set to false"), ("verify=false", "verify is set to false")),
    Question("off", "Who owns Kestrel?"),
    Question("off", "What is the boiling point of mercury?"),
    Question("off", "Who won the 1998 FIFA World Cup?"),
)  # fmt: skip


def load_questions(path: Path | None) -> tuple[Question, ...]:
    """The questions of ``path`` (see the module docstring), or the built-in set."""
    if path is None:
        return QUESTIONS
    rows = json.loads(path.read_text(encoding="utf-8"))
    return tuple(
        Question(row["site"], row["text"], tuple(row.get("fact", ())), tuple(row.get("evidence", ()))) for row in rows
    )


def normalize(text: str) -> str:
    """Lower case, markup characters removed, typographic quotes made plain, white space collapsed."""
    for mark in ("¶", "`", "*"):
        text = text.replace(mark, "")
    text = text.replace("\u2018", "'").replace("\u2019", "'")
    return " ".join(text.lower().split())


def holds(texts: list[str], needles: tuple[str, ...]) -> bool:
    return any(needle in normalize(text) for text in texts for needle in needles)


def cpu_s() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def copy_site(checkout: Path, pages: tuple[str, ...], target: Path, rst_as_txt: bool) -> int:
    """Copy the site's pages (keeping their folders); ``.rst`` as ``.txt`` when the tree cannot read it."""
    count = 0
    for page in pages:
        root = checkout / page
        for path in sorted(root.rglob("*") if root.is_dir() else [root]):
            if path.suffix not in (".md", ".rst") or not path.is_file():
                continue
            name = path.relative_to(checkout)
            out = target / (name.with_suffix(".txt") if rst_as_txt and path.suffix == ".rst" else name)
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, out)
            count += 1
    return count


def index(workspace: Path, sites: dict[str, Path], index_pipeline: str) -> dict[str, Any]:
    """A fresh default workspace over copies of both sites (or over ``sites["corpus"]`` as it is); reused
    when already indexed."""
    from kgrag import Workspace
    from kgrag.documents.loaders import supported_suffixes

    if (workspace / "kgrag.toml").exists():
        with Workspace.open(workspace) as ws:
            return {"reused": True, "chunks": ws.status()["chunks"]}
    docs = workspace.parent / f"{workspace.name}-docs"
    rst_as_txt = ".rst" not in supported_suffixes()
    if "corpus" in sites:
        docs, pages = sites["corpus"], sum(1 for path in sites["corpus"].rglob("*") if path.is_file())
    else:
        pages = copy_site(sites["pydantic"], PYDANTIC_PAGES, docs / "pydantic", False)
        pages += copy_site(sites["requests"], REQUESTS_PAGES, docs / "requests", rst_as_txt)
    cpu, wall = cpu_s(), time.perf_counter()
    with Workspace.init(workspace) as ws:
        ws.index([docs], pipeline=index_pipeline)
        chunks = ws.status()["chunks"]
    return {
        "reused": False, "pages": pages, "rst_as_txt": rst_as_txt, "chunks": chunks, "index_pipeline": index_pipeline,
        "index_cpu_s": cpu_s() - cpu, "index_wall_s": time.perf_counter() - wall,
    }  # fmt: skip


def ask(workspace: Path, pipelines: list[str], questions: tuple[Question, ...]) -> dict[str, Any]:
    """Every question with every pipeline; answers, the judgements, context tokens and CPU time per query."""
    from kgrag import Workspace
    from kgrag.documents import TokenCounter

    out: dict[str, Any] = {}
    with Workspace.open(workspace) as ws:
        counter = TokenCounter.for_encoding(ws.config.chunking.encoding)
        for pipeline in pipelines:
            ws.query("warm-up: load the models", pipeline, K)
            started = time.process_time()
            rows = [ask_one(ws, question, pipeline, counter) for question in questions]
            cpu_ms = 1000 * (time.process_time() - started) / len(questions)
            out[pipeline] = {"rows": rows, "query_cpu_ms": cpu_ms}
    return out


def ask_one(ws: Any, question: Question, pipeline: str, counter: Any) -> dict[str, Any]:
    response = ws.query(question.text, pipeline, K)
    result = response.result
    texts = [item.text for item in result.items if item.kind == "chunk"]
    answer = response.answer.text
    refused = bool(getattr(response.answer, "idk", False)) or NOT_FOUND in normalize(answer)
    states = holds([answer], question.fact) and not refused
    tokens = result.context_tokens
    return {
        "evidence": holds(texts, question.evidence) if question.evidence else False,
        "fact": refused if not question.evidence else states,
        "wrong": bool(question.evidence) and not refused and not states,
        "refused": refused,
        "answer": answer,
        "context_tokens": tokens if tokens is not None else sum(counter.count(i.text) for i in result.items),
        "route": result.route.to_dict() if result.route else None,
    }


def measure(workspace: Path, sites: dict[str, Path], ask_only: bool, index_pipeline: str,
            pipelines: list[str], questions: tuple[Question, ...]) -> dict[str, Any]:  # fmt: skip
    import kgrag

    result: dict[str, Any] = {"kgrag": kgrag.__file__, "load_before": os.getloadavg()}
    if not ask_only:
        result.update(index(workspace, sites, index_pipeline))
    result["pipelines"] = ask(workspace, pipelines, questions)
    result["load_after"] = os.getloadavg()
    return result


def run_tree(tree: Path, workspace: Path, sites: dict[str, Path], args: argparse.Namespace) -> dict[str, Any]:
    """:func:`measure` with ``tree/src`` first on the path, in a subprocess."""
    env = {**os.environ, "PYTHONPATH": str(tree / "src"), "HF_HUB_OFFLINE": os.environ.get("HF_HUB_OFFLINE", "1")}
    command = [sys.executable, __file__, "--measure-only", str(workspace), "--index-pipeline", args.index_pipeline,
               "--pipelines", args.pipelines] + (["--ask-only"] if args.ask_only else [])  # fmt: skip
    command += [arg for name, path in sites.items() for arg in (f"--{name}", str(path))]
    command += ["--questions", str(args.questions.resolve())] if args.questions else []
    done = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True, env=env)
    out = dict(json.loads(done.stdout.strip().splitlines()[-1]))
    out["tree"] = str(tree)
    return out


def short(text: str, width: int = 100) -> str:
    """The answer on one line without its citation markers, cut to ``width`` characters."""
    flat = " ".join(re.sub(r"\s*\[c[0-9a-f]{6,}\]", "", text).split()).replace("|", "\\|")
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def totals(rows: list[dict[str, Any]], questions: tuple[Question, ...]) -> dict[str, int]:
    answerable = [(q, r) for q, r in zip(questions, rows, strict=True) if q.evidence]
    held = [r for _, r in answerable if r["evidence"]]
    return {
        "questions": len(answerable),
        "evidence": len(held),
        "fact_all": sum(r["fact"] for _, r in answerable),
        "fact_held": sum(r["fact"] for r in held),
        "wrong": sum(r["wrong"] for _, r in answerable),
        "refused_held": sum(r["refused"] for r in held),
        "off_topic": sum(1 for q in questions if not q.evidence),
        "off_topic_not_found": sum(r["refused"] for q, r in zip(questions, rows, strict=True) if not q.evidence),
    }


def print_table(results: dict[str, dict[str, Any]], questions: tuple[Question, ...]) -> None:
    runs = {f"{tree} {pipeline}" if len(results) > 1 else pipeline: asked
            for tree, result in results.items() for pipeline, asked in result["pipelines"].items()}  # fmt: skip
    print("| run | evidence in top 5 | states the fact (of those) | states a wrong fact | not found, evidence "
          "held | off-topic \"not found\" | context tokens / query | CPU ms / query |")  # fmt: skip
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for label, asked in runs.items():
        t = totals(asked["rows"], questions)
        tokens = sum(r["context_tokens"] for r in asked["rows"]) / len(asked["rows"])
        print(f"| {label} | {t['evidence']}/{t['questions']} | {t['fact_held']}/{t['evidence']} | {t['wrong']} | "
              f"{t['refused_held']} | {t['off_topic_not_found']}/{t['off_topic']} | {tokens:.0f} | "
              f"{asked['query_cpu_ms']:.0f} |")  # fmt: skip
    head = " | ".join(f"{label}: ev. | {label}: fact | {label}: answer" for label in runs)
    print(f"\n| # | site | question | {head} |\n| --- | --- | --- |" + " :-: | :-: | --- |" * len(runs))
    for i, question in enumerate(questions):
        cells = []
        for asked in runs.values():
            row = asked["rows"][i]
            evidence = "–" if not question.evidence else ("yes" if row["evidence"] else "no")
            verdict = "yes" if row["fact"] else ("WRONG" if row["wrong"] else "no")
            cells.append(f"{evidence} | {verdict} | {short(row['answer'])}")
        print(f"| {i + 1} | {question.site} | {question.text} | {' | '.join(cells)} |")
    for label, r in results.items():
        indexed = "reused" if r.get("reused", True) else f"{r['index_cpu_s']:.0f} CPU s, {r['index_wall_s']:.0f} s wall"
        print(
            f"\n{label}: {r.get('chunks', '?')} chunks; indexing {indexed}; load {r['load_before']} → {r['load_after']}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--pydantic", type=Path, help="a checkout of pydantic/pydantic")
    parser.add_argument("--requests", type=Path, help="a checkout of psf/requests")
    parser.add_argument("--corpus", type=Path, help="a folder to index as it is (with --questions)")
    parser.add_argument("--questions", type=Path, help="a JSON question set (default: the built-in one)")
    parser.add_argument("--before", type=Path, help="a source tree (with src/) to run first")
    parser.add_argument("--workdir", type=Path, help="keep (and reuse) the workspaces here")
    parser.add_argument("--ask-only", action="store_true", help="reuse the workspaces in --workdir as they are")
    parser.add_argument("--only", choices=("before", "after"), help="run one tree")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--index-pipeline", default="fast", help="indexing pipeline (fast, standard, …)")
    parser.add_argument("--pipelines", default="bm25", help="query pipelines, comma-separated (bm25,hybrid,auto)")
    parser.add_argument("--measure-only", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.corpus is None and (args.pydantic is None or args.requests is None):
        parser.error("give --pydantic and --requests, or --corpus (with --questions)")
    named = {"corpus": args.corpus} if args.corpus else {"pydantic": args.pydantic, "requests": args.requests}
    sites = {name: path.resolve() for name, path in named.items() if path is not None}
    questions = load_questions(args.questions)
    if args.measure_only:
        pipelines = [p.strip() for p in args.pipelines.split(",") if p.strip()]
        print(json.dumps(measure(args.measure_only, sites, args.ask_only, args.index_pipeline, pipelines, questions)))
        return 0
    trees = ([("before", args.before.resolve())] if args.before else []) + [("after", REPO)]
    trees = [(label, tree) for label, tree in trees if args.only in (None, label)]
    with tempfile.TemporaryDirectory(prefix="kgrag-docsites-") as tmp:
        workdir = args.workdir or Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        results = {
            label: run_tree(tree, workdir.resolve() / f"{label}-{args.index_pipeline}", sites, args)
            for label, tree in trees
        }
    print_table(results, questions)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
