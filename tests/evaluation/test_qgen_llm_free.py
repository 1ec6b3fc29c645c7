"""LLM-free question generation on the real sample corpus (real spaCy pipeline, real chunker): enough
known-item questions, each with evidence that holds the answer and a question that does not; two-chunk
questions that no single chunk answers; the same seed gives the same file; the file is a dataset
`kgrag eval retrieval` reads."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import SAMPLE_DOCS, SAMPLE_QUESTIONS
from typer.testing import CliRunner

from kgrag import Workspace
from kgrag.cli.app import app
from kgrag.config import KgragConfig
from kgrag.documents.words import content_words
from kgrag.evaluation.datasets import load_dataset
from kgrag.evaluation.qgen import QGenResult
from kgrag.evaluation.qgen.cloze import Passage, clean
from kgrag.evaluation.qgen.known_item import known_item_questions
from kgrag.evaluation.qgen.quality import MIN_QUALITY
from kgrag.graph.extract.nlp import SpacyExtractor
from kgrag.graph.extract.settings import nlp_settings


@pytest.fixture(scope="module")
def sample_ws(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    path = tmp_path_factory.mktemp("qgen") / "ws"
    with Workspace.init(
        path, embedding={"provider": "fake"}, graph={"extractor": "none"}, llm={"provider": "none"}
    ) as ws:
        ws.index([SAMPLE_DOCS])
    yield path


@pytest.fixture(scope="module")
def generated(sample_ws: Path) -> QGenResult:
    with Workspace.open(sample_ws) as ws:
        return ws.eval.qgen(None, None, seed=0, llm="none")


CliRun = tuple[str, Path, list[dict[str, Any]]]
"""What one ``kgrag eval qgen`` printed, the file it wrote, and the records in it."""


def _cli_qgen(sample_ws: Path, out: Path, *options: str) -> CliRun:
    """``kgrag eval qgen --llm none`` writing ``out``: the command's output and the records it wrote. Each
    call is a generation of its own (a pipeline loaded and the corpus parsed afresh)."""
    result = CliRunner().invoke(
        app, ["eval", "qgen", "--llm", "none", "-w", str(sample_ws), *options, "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    rows = json.loads(text) if out.suffix == ".json" else [json.loads(line) for line in text.splitlines()]
    return result.output, out, rows


@pytest.fixture(scope="module")
def cli_same_seed(sample_ws: Path, tmp_path_factory: pytest.TempPathFactory) -> CliRun:
    """The command's file for the settings of ``generated`` (seed 0, the default kinds and count)."""
    return _cli_qgen(sample_ws, tmp_path_factory.mktemp("cli") / "generated.json", "--seed", "0")


@pytest.fixture(scope="module")
def cli_other_seed(sample_ws: Path, tmp_path_factory: pytest.TempPathFactory) -> CliRun:
    """Fewer known-item questions than the corpus has, another seed, one record per line."""
    out = tmp_path_factory.mktemp("cli") / "generated.jsonl"
    return _cli_qgen(sample_ws, out, "--kinds", "known-item", "--per-kind", "5", "--seed", "7")


def _holds(text: str, phrase: str) -> bool:
    return re.search(r"(?<![a-z0-9])" + re.escape(phrase.lower()) + r"(?![a-z0-9])", text) is not None


def _chunk_texts(ws_path: Path) -> dict[str, str]:
    with Workspace.open(ws_path) as ws:
        return {c.id: " ".join(clean(c.text).lower().split()) for c in ws.store.chunks.iter_all()}


def test_at_least_fifty_questions_with_evidence_holding_the_answer(generated: QGenResult, sample_ws: Path) -> None:
    items = generated.items
    # few but good: the checks reject fragments, tables, lists, "also", "our"; the quality floor keeps the best
    assert len(items) >= 8
    assert all(generated.meta[i.id]["quality"] >= MIN_QUALITY for i in items)
    chunks = _chunk_texts(sample_ws)
    for item in items:
        parts = item.answer.split("; ") if item.question_type == "two-chunk" else [item.answer]
        assert len(parts) == len(item.evidence) and item.evidence
        for answer, sentence in zip(parts, item.evidence, strict=True):
            assert answer.lower() in sentence.lower(), item
        assert not content_words(item.answer) & content_words(item.question), item
        assert item.answer.lower() not in item.question.lower()
        assert item.question.endswith("?")
        for chunk_id, sentence in zip(generated.meta[item.id]["chunk_ids"], item.evidence, strict=True):
            assert " ".join(sentence.lower().split()) in chunks[chunk_id]  # the evidence is the corpus's own text


def test_answers_are_varied_and_distinctive(generated: QGenResult, sample_ws: Path) -> None:
    singles = [i for i in generated.items if i.question_type == "known-item"]
    # quality, not a round robin over labels, decides what is kept; the best of the sample still vary
    labels = {generated.meta[i.id]["answer_label"] for i in singles}
    assert len(labels) >= 5  # people, dates, counts, organisations, places, ... each asked their own way
    assert len({_unscoped(i.question).split()[0].lower() for i in singles}) >= 7
    chunks = _chunk_texts(sample_ws)

    common = [i.answer for i in singles if sum(_holds(t, i.answer) for t in chunks.values()) > len(chunks) // 10]
    assert not common  # no answer that a tenth of the passages contain
    templates = {generated.meta[i.id]["template"] for i in singles}
    assert len(templates) >= 5


_PAIRED = [
    "Marta Lindqvist founded a choir in Tolvey in 1987 with eleven singers from Bergen.",
    "Marta Lindqvist recorded an album at the Halden Studios in Oslo in 2003.",
    "Rain fell on the harbour for most of the week and the ferries kept to their timetable.",
    "The market square fills with stalls selling bread, cheese and fish every Saturday morning.",
    "A new bridge over the river opened to cyclists after two years of building work.",
    "The library lends books, maps and records to anyone who lives in the county.",
]


_SCOPE = re.compile(r"^In (?:the section “([^”]+)”(?: of “([^”]+)”)?|“([^”]+)”), ")


def _unscoped(question: str) -> str:
    """The question without the headings named before it (:mod:`kgrag.evaluation.qgen.scope`)."""
    return _SCOPE.sub("", question)


def test_questions_name_the_headings_of_their_source_and_the_setting_turns_it_off(
    generated: QGenResult, sample_ws: Path
) -> None:
    with Workspace.open(sample_ws) as ws:
        documents = {d.id: d for d in ws.store.documents.list()}
        chunk_docs = {c.id: c.doc_id for c in ws.store.chunks.iter_all()}
        texts = {d: "\n".join(c.text for c in ws.store.chunks.for_document(d)) for d in documents}
    singles = [i for i in generated.items if i.question_type == "known-item"]
    scoped = [(i, _SCOPE.match(i.question)) for i in singles]
    assert sum(m is not None for _, m in scoped) >= len(singles) // 2  # the sample's pages have headings
    for item, match in scoped:
        named = generated.meta[item.id].get("headings", [])
        assert bool(named) == (match is not None)  # the file says which headings the question names
        if match is None:
            continue
        assert {g for g in match.groups() if g} == set(named)
        doc_id = chunk_docs[generated.meta[item.id]["chunk_ids"][0]]
        for heading in named:  # each is its page's title or a heading on it, and shares no word with the answer
            assert heading == documents[doc_id].title or f"# {heading}" in texts[doc_id], (heading, doc_id)
            assert not content_words(heading) & content_words(item.answer)
    with Workspace.open(sample_ws, evaluation={"qgen_headings": False}) as ws:
        plain = ws.eval.qgen(None, None, seed=0, llm="none")
    assert not any(plain.meta[i.id].get("headings") for i in plain.items)
    unscoped = {(i.answer, tuple(i.evidence)): i.question for i in plain.items if i.question_type == "known-item"}
    both = [(i, m) for i, m in scoped if (i.answer, tuple(i.evidence)) in unscoped]
    assert len(both) >= len(scoped) // 2  # without headings to prefer, much the same questions are picked
    for item, match in both:
        wording = _unscoped(item.question)[:1].upper() + _unscoped(item.question)[1:] if match else item.question
        assert unscoped[(item.answer, tuple(item.evidence))] == wording


def test_two_questions_about_one_name_in_two_chunks_are_asked_together() -> None:
    own = nlp_settings(KgragConfig())
    nlp = SpacyExtractor(own.spacy_model, allow_torch=own.spacy_torch).nlp
    passages = [Passage(f"c{i}", "d", text) for i, text in enumerate(_PAIRED)]
    result = known_item_questions(passages, nlp, ("known-item", "two-chunk"), 5)
    pairs = [i for i in result.items if i.question_type == "two-chunk"]
    assert len(pairs) == 1 and "Marta Lindqvist" in pairs[0].question and " Also, " in pairs[0].question
    assert sorted(pairs[0].answer.split("; ")) == ["Oslo", "eleven"]  # a name written as one beats "the Halden Studios"
    assert sorted(result.meta[pairs[0].id]["chunk_ids"]) == ["c0", "c1"]


def test_too_few_pairs_say_why() -> None:
    own = nlp_settings(KgragConfig())
    nlp = SpacyExtractor(own.spacy_model, allow_torch=own.spacy_torch).nlp
    passages = [Passage(f"c{i}", "d", text) for i, text in enumerate(_PAIRED)]
    result = known_item_questions(passages, nlp, ("two-chunk",), 3)
    assert len(result.items) == 1
    [note] = [n for n in result.notes if "two-chunk" in n]
    assert note.startswith("only 1 two-chunk questions of the 3 asked: a pair needs two sentences")
    alone = known_item_questions(passages[:1], nlp, ("two-chunk",), 3)
    assert alone.items == [] and any("held no such pair" in n for n in alone.notes)


def test_two_chunk_questions_need_both_chunks(generated: QGenResult, sample_ws: Path) -> None:
    # the sample corpus leaves few candidates to pair after the checks (none at present): each pair found
    # must need both chunks; that pairs are made at all is checked on a corpus made for it (above)
    pairs = [i for i in generated.items if i.question_type == "two-chunk"]
    chunks = _chunk_texts(sample_ws)
    for item in pairs:
        first, second = generated.meta[item.id]["chunk_ids"]
        assert first != second
        a, b = item.answer.split("; ")
        assert not (_holds(chunks[second], a) and _holds(chunks[second], b))
        assert not (_holds(chunks[first], a) and _holds(chunks[first], b))


def test_same_seed_same_questions_other_seed_other_draw(
    generated: QGenResult,
    cli_same_seed: CliRun,
    cli_other_seed: CliRun,
    sample_ws: Path,
) -> None:
    # two independent generations with one seed: the API's and the command's, each parsing the corpus afresh
    _, _, rows = cli_same_seed
    assert [(r["id"], r["question"], r["answer"], r["evidence"]) for r in rows] == [
        (i.id, i.question, i.answer, i.evidence) for i in generated.items
    ]
    # fewer asked than the corpus has: five above the floor, from five documents (one each before any gets a second)
    _, _, other = cli_other_seed
    assert len(other) == 5 and {r["question_type"] for r in other} == {"known-item"}
    assert all(r["quality"] >= MIN_QUALITY for r in other)
    with Workspace.open(sample_ws) as ws:
        chunk_docs = {c.id: c.doc_id for c in ws.store.chunks.iter_all()}
    assert len({chunk_docs[r["chunk_ids"][0]] for r in other}) == 5
    singles = [i for i in generated.items if i.question_type == "known-item"]
    assert all(0.0 < generated.meta[i.id]["usability"] < 1.0 for i in singles)  # each written with its chance


def test_each_written_question_names_the_document_it_came_from(sample_ws: Path, cli_same_seed: CliRun) -> None:
    """``source`` is the path of the document of the question's first passage, as ``kgrag show`` prints it
    (every document when its passages come from several), and the generator is named apart."""
    _, out, rows = cli_same_seed
    with Workspace.open(sample_ws) as ws:
        chunk_docs = {c.id: c.doc_id for c in ws.store.chunks.iter_all()}
        paths = {d.id: d.source for d in ws.store.documents.list()}
    for row in rows:
        documents = list(dict.fromkeys(paths[chunk_docs[cid]] for cid in row["chunk_ids"]))
        assert row["source"] == documents[0] and Path(row["source"]).is_file()
        assert row.get("sources", documents[:1]) == documents and row["generator"] == "kgrag-qgen"
    assert any("sources" in row for row in rows if row["question_type"] == "two-chunk")
    shown = CliRunner().invoke(app, ["show", rows[0]["source"], "-w", str(sample_ws)])
    assert shown.exit_code == 0 and f"source: {rows[0]['source']}" in shown.output
    assert len(load_dataset(out)) == len(rows)  # still a dataset `--dataset` reads


def test_cli_shows_progress_while_it_parses_and_a_summary_of_short_lines(cli_same_seed: CliRun) -> None:
    """Not on a terminal, progress comes as plain lines, as `kgrag index` gives it: each stage when it
    starts and ends (and every few seconds between); the summary lists the most frequent rejections one a
    line, counts the rest and wraps the notes."""
    output, _, _ = cli_same_seed
    lines = output.splitlines()
    parsed = next(line for line in lines if line.startswith("parse lines: started, "))
    total = int(parsed.split(", ")[1].split()[0])
    assert total > 100 and f"parse lines: done, {total}/{total} (100%)" in output
    assert re.search(r"find answers: done, (\d+)/\1 \(100%\)", output)
    assert lines.index(parsed) < next(i for i, line in enumerate(lines) if line.startswith("kept "))
    reasons = [line for line in lines if re.match(r"  \S.*: \d+$", line)]
    assert 1 < len(reasons) <= 10 and re.search(r"^  … \d+ more reasons: [\d,]+ in all$", output, re.M)
    assert all(len(line) <= 100 for line in lines if not line.startswith("kept "))


def test_cli_writes_a_dataset_that_retrieval_evaluation_reads(
    sample_ws: Path,
    tmp_path: Path,
    cli_same_seed: CliRun,
    cli_other_seed: CliRun,
) -> None:
    output, out, rows = cli_same_seed
    assert "kept" in output and "rejected" in output
    named = sum(bool(r.get("headings")) for r in rows)
    assert f"{named} of {len(rows)} LLM-free questions name the headings above their sentence" in output
    sample_fields = set(json.loads(SAMPLE_QUESTIONS.read_text(encoding="utf-8"))[0]) - {"evidence_relations"}
    assert all(sample_fields <= set(r) for r in rows)
    assert len(load_dataset(out)) == len(rows) >= 8
    assert all(r["quality"] >= MIN_QUALITY for r in rows)
    # one record per line holds the same record as the list does, question by question
    by_id = {r["id"]: r for r in rows}
    assert all(r == by_id[r["id"]] for r in cli_other_seed[2])
    report = CliRunner().invoke(
        app,
        [
            "eval",
            "retrieval",
            "-w",
            str(sample_ws),
            "--dataset",
            str(out),
            "--pipelines",
            "bm25,dense",
            "--out",
            str(tmp_path),
        ],
        env={"COLUMNS": "250", "KGRAG_EMBEDDING__PROVIDER": "fake"},  # the workspace's embedder, for dense
    )
    assert report.exit_code == 0, report.output
    summary = json.loads((tmp_path / "retrieval_eval.json").read_text(encoding="utf-8"))
    assert "known-item" in json.dumps(summary)
    # the report says the questions were generated, in its JSON, its markdown and on the terminal
    caveats = summary["caveats"]
    assert caveats[0].startswith(f"{len(rows)} of {len(rows)} questions were generated without an LLM")
    markdown = (tmp_path / "retrieval_eval.md").read_text(encoding="utf-8")
    assert "**Generated questions.** " + caveats[0] in markdown
    terminal = " ".join(report.output.split())  # as printed, lines wrapped at the terminal's width
    assert "Generated questions." in terminal and "When generated questions can be trusted" in terminal
    easy = [p for p in ("bm25", "dense") if summary["summary"][p]["All"] >= 0.9]
    assert (len(caveats) == 2) == (len(easy) == 2)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--out", "q.txt"], ".json (a list) or .jsonl"),
        (["--out", "q.json", "--kinds", "subgraph"], "unknown question kind(s) without an LLM: subgraph"),
        (["--out", "q.json", "--llm", "gpt"], "choose auto, none or config"),
        (["--out", "q.json", "--llm", "config"], "needs llm.provider"),
    ],
)
def test_cli_errors_are_one_clear_line(sample_ws: Path, tmp_path: Path, extra: list[str], message: str) -> None:
    args = ["eval", "qgen", "-w", str(sample_ws), *extra]
    if "--llm" not in extra:
        args += ["--llm", "none"]
    args = [str(tmp_path / a) if a.startswith("q.") else a for a in args]
    result = CliRunner().invoke(app, args)
    assert result.exit_code != 0
    assert message in result.output and "Traceback" not in result.output
    assert not list(tmp_path.iterdir())  # nothing half-written


def test_a_mix_with_llm_written_questions_gets_its_own_caveat_and_rank_agreement(
    sample_ws: Path, tmp_path: Path, cli_same_seed: CliRun
) -> None:
    """The LLM-free set plus questions typed as an LLM's (the sample set relabelled ``single-fact``) through
    `kgrag eval retrieval`: the report's caveats describe a mix and give the two kinds' rank agreement."""
    _, _, rows = cli_same_seed
    written = [
        {**q, "id": f"w-{q['id']}", "question_type": "single-fact"} for q in json.loads(SAMPLE_QUESTIONS.read_text())
    ]
    mixed = tmp_path / "mixed.json"
    mixed.write_text(json.dumps(rows + written), encoding="utf-8")
    report = CliRunner().invoke(
        app,
        ["eval", "retrieval", "-w", str(sample_ws), "--dataset", str(mixed), "--pipelines", "bm25,dense,hybrid",
         "--out", str(tmp_path / "rep")],
        env={"COLUMNS": "250", "KGRAG_EMBEDDING__PROVIDER": "fake"},
    )  # fmt: skip
    assert report.exit_code == 0, report.output
    caveats = json.loads((tmp_path / "rep" / "retrieval_eval.json").read_text(encoding="utf-8"))["caveats"]
    assert caveats[0].startswith(
        f"{len(rows)} of {len(rows) + len(written)} questions were generated without an LLM and"
    )
    assert re.fullmatch(
        r"On this set the two kinds rank the 3 pipelines at Kendall τ -?\d\.\d\d \[-?\d\.\d\d, .*", caveats[-1]
    )
    assert caveats[-1] in (tmp_path / "rep" / "retrieval_eval.md").read_text(encoding="utf-8")


def test_sentences_too_long_to_ask_whole_give_questions_only_when_trimmed_ones_are_asked_for(
    generated: QGenResult, sample_ws: Path
) -> None:
    from kgrag.evaluation.qgen.cloze import TRIMMED_REFUSED

    assert generated.rejected[TRIMMED_REFUSED] > 0  # the sample has long sentences: refused by default
    with Workspace.open(sample_ws, evaluation={"qgen_trimmed": True}) as ws:
        trimmed = ws.eval.qgen(None, None, seed=0, llm="none")
    assert TRIMMED_REFUSED not in trimmed.rejected
    assert trimmed.generated > generated.generated  # more candidates, some with parts of their sentence left out


def test_the_command_says_when_the_corpus_gives_fewer_questions_than_asked(cli_same_seed: CliRun) -> None:
    output, _, rows = cli_same_seed
    known = sum(row["question_type"] == "known-item" for row in rows)
    assert known < 60  # the small sample corpus cannot give the default count
    assert f"only {known} known-item questions of the 60 asked" in " ".join(output.split())
    assert "evaluation.qgen_trimmed = true" in " ".join(output.split())


def test_changelogs_count_in_the_statistics_but_give_no_question_unless_asked_for(sample_ws: Path) -> None:
    from dataclasses import replace

    from tests.evaluation.qgen_spacy import spacy_nlp

    from kgrag.evaluation.qgen.known_item import known_item_questions, store_passages

    with Workspace.open(sample_ws) as ws:
        passages = store_passages(ws.store)
    first_half = sorted({p.doc_id for p in passages})[: len({p.doc_id for p in passages}) // 2]
    marked = [replace(p, changelog=p.doc_id in first_half) for p in passages]
    flagged = {p.chunk_id for p in marked if p.changelog}
    without = known_item_questions(marked, spacy_nlp(), ["known-item"], 60)
    reason = "passage of a changelog or release notes (evaluation.qgen_changelogs)"
    assert without.rejected[reason] == len(flagged)
    assert not any(set(without.meta[q.id]["chunk_ids"]) & flagged for q in without.items)
    allowed = known_item_questions(marked, spacy_nlp(), ["known-item"], 60, changelogs=True)
    assert reason not in allowed.rejected and allowed.generated > without.generated
    assert any(set(allowed.meta[q.id]["chunk_ids"]) & flagged for q in allowed.items)


def test_the_usability_setting_turns_on_picking_the_likeliest_usable(sample_ws: Path) -> None:
    with Workspace.open(sample_ws, evaluation={"qgen_usability": True}) as ws:
        learned = ws.eval.qgen(["known-item"], 5, seed=0, llm="none")
    with Workspace.open(sample_ws) as ws:  # the default: the order of preferences
        before = ws.eval.qgen(["known-item"], 5, seed=0, llm="none")
    chances = [[r.meta[i.id]["usability"] for i in r.items] for r in (learned, before)]
    assert len(chances[0]) == len(chances[1]) == 5
    assert {i.id for i in learned.items} != {i.id for i in before.items}  # the sample has more than 5 to pick from
    assert sum(chances[0]) > sum(chances[1])
