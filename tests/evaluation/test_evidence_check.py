"""A team's own question file, as they would write it: evidence copied from a page's Markdown source, a
question without evidence, one whose evidence the index cannot hold, a typo in a field name, a repeated
id, a question type spelled two ways. Each test states what the report would otherwise get wrong."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from tests.conftest import SAMPLE_DOCS
from typer.testing import CliRunner

from kgrag.cli.app import app
from kgrag.core.errors import KgragError
from kgrag.evaluation import load_dataset
from kgrag.evaluation.ceiling import ChunkWords
from kgrag.evaluation.datasets import QAItem
from kgrag.evaluation.evidence_check import check_evidence
from kgrag.evaluation.recall import evidence_recall, evidence_word_forms
from kgrag.workspace import Workspace

COPIED = (
    "**Maximum** password length should be **at least 64 characters** to allow passphrases "
    "([NIST SP800-63B](https://pages.nist.gov/800-63-4/sp800-63b.html#passwordlength))."
)
INDEXED = (
    "Maximum password length should be at least 64 characters to allow passphrases (NIST SP800-63B). "
    "Note that certain implementations of hashing algorithms may cause long password denial of service."
)


def test_evidence_copied_from_markdown_source_is_recalled_from_the_indexed_page() -> None:
    assert evidence_recall([COPIED], [INDEXED], 0.7) == 1.0
    assert evidence_recall([COPIED], ["Passwords shorter than 8 characters are considered weak."], 0.7) == 0.0


def test_plain_evidence_is_read_once_and_markup_free_text_is_unchanged() -> None:
    assert len(evidence_word_forms("Alcohol use is a risk factor for liver cancer.")) == 1
    assert len(evidence_word_forms(COPIED)) == 2
    assert evidence_word_forms("") == ()


def _item(qid: str, *evidence: str) -> QAItem:
    return QAItem(id=qid, question="q?", answer="a", question_type="Fact Retrieval", evidence=list(evidence))


def test_the_check_names_unscored_questions_and_evidence_no_chunk_holds() -> None:
    chunks = [INDEXED, "Argon2id should use a minimum configuration of 19 MiB of memory and an iteration count of 2."]
    items = [
        _item("h1", COPIED),
        _item("h2"),
        _item("h3", "Argon2id should use 19 MiB of memory.", "Bcrypt has a maximum input length of 72 bytes."),
    ]
    check = check_evidence(items, iter(chunks), 0.7)
    assert check.unscored == ["h2"] and check.sentences == 3
    assert check.unheld == {"h3": ["Bcrypt has a maximum input length of 72 bytes."]}
    text = " ".join(check.lines())
    assert "1 of 3 questions have no evidence" in text and "h2" in text
    assert "1 of 3 evidence sentences (1 questions: h3) are held by no single chunk" in text
    assert "reach 67% of the evidence" in text


def test_the_check_finds_exactly_what_every_chunk_compared_with_every_sentence_finds() -> None:
    rng = random.Random(7)
    vocabulary = [f"w{i}" for i in range(60)]
    chunks = [" ".join(rng.sample(vocabulary, rng.randint(5, 25))) for _ in range(80)]
    items = [
        _item(f"q{i}", *(" ".join(rng.sample(vocabulary, rng.randint(1, 9))) for _ in range(3))) for i in range(60)
    ]
    words = ChunkWords(chunks)
    for threshold in (0.5, 0.7, 1.0):
        expected = {}
        for item in items:
            missing = [e for e in item.evidence if not words.holding(set(e.split()), threshold)]
            if missing:
                expected[item.id] = missing
        assert check_evidence(items, chunks, threshold).unheld == expected


def _write(tmp_path: Path, records: list[dict[str, object]]) -> Path:
    path = tmp_path / "questions.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


def _record(ident: str, **fields: object) -> dict[str, object]:
    return {
        "id": ident,
        "question": "Which?",
        "answer": "x",
        "question_type": "Fact Retrieval",
        "evidence": ["x y"],
    } | fields


def test_a_misspelt_field_is_refused_naming_the_field_it_should_be(tmp_path: Path) -> None:
    typo = {k: v for k, v in _record("h2").items() if k != "evidence"} | {"evidance": ["x y"]}
    with pytest.raises(KgragError, match=r"record 1 \(id h2\) has a field 'evidance', not 'evidence'"):
        load_dataset(_write(tmp_path, [_record("h1"), typo]))
    # fields of their own are kept out and ignored, a short one included
    extra = _record("h1", source="guide.md", evidence_relations=[], chunk_ids=["c1"], qid=7, answers=["x"])
    assert load_dataset(_write(tmp_path, [extra]))[0].evidence == ["x y"]


def test_a_repeated_id_is_refused(tmp_path: Path) -> None:
    with pytest.raises(KgragError, match="records 0 and 2 share the id 'h1'"):
        load_dataset(_write(tmp_path, [_record("h1"), _record("h2"), _record("h1")]))


def test_a_question_type_spelt_another_way_joins_its_type(tmp_path: Path) -> None:
    records = [
        _record("a"),
        _record("b"),
        _record("c", question_type="Fact retrieval"),
        _record("d", question_type="x"),
    ]
    records.append(_record("e", question_type="complex_reasoning"))
    types = [item.question_type for item in load_dataset(_write(tmp_path, records))]
    assert types == ["Fact Retrieval", "Fact Retrieval", "Fact Retrieval", "x", "complex_reasoning"]


def test_eval_retrieval_reports_what_its_evidence_cannot_measure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KGRAG_EMBEDDING__PROVIDER", "fake")
    ws = tmp_path / "ws"
    with Workspace.init(ws, graph={"extractor": "none"}) as opened:
        opened.index([SAMPLE_DOCS])
    held = "Kestrel is the stream-processing platform that ingests sensor telemetry from Osprey devices."
    records = [
        _record("held", question="What is Kestrel?", evidence=[held]),
        _record("none", question="Who runs the night shift?", evidence=[]),
        _record("elsewhere", question="When did Kestrel launch?", evidence=["Zanzibar quokkas juggle tangerines."]),
    ]
    dataset, out = _write(tmp_path, records), tmp_path / "reports"
    args = ["eval", "retrieval", "-w", str(ws), "--dataset", str(dataset), "--pipelines", "dense,bm25"]
    result = CliRunner().invoke(app, [*args, "--out", str(out)], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    assert "1 of 3 questions have no evidence" in result.output and "none" in result.output
    check = json.loads((out / "retrieval_eval.json").read_text())["evidence_check"]
    assert check["unscored"] == ["none"] and check["unheld"] == {"elsewhere": ["Zanzibar quokkas juggle tangerines."]}


def test_a_stored_run_prints_the_evidence_check_its_report_printed() -> None:
    from kgrag.evaluation.evidence_check import EvidenceCheck
    from kgrag.evaluation.reports import _evidence_lines

    check = check_evidence([_item("h1"), _item("h2", "Bcrypt has a maximum input length of 72 bytes.")], [INDEXED], 0.7)
    stored = json.loads(json.dumps({"threshold": 0.7, "evidence_check": check.payload()}))
    assert EvidenceCheck.from_payload(stored["evidence_check"], 0.7) == check
    assert _evidence_lines(stored) == check.lines() and "h1" in check.lines()[0]
    assert _evidence_lines({"threshold": 0.7}) == []
