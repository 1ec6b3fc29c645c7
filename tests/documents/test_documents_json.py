"""JSON and JSON Lines records: configured fields, skipped records and precise errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgrag.config import DocumentsConfig
from kgrag.core.errors import DocumentError
from kgrag.documents.loaders import load_path

CFG = DocumentsConfig()


def _write(tmp_path: Path, name: str, content: str) -> Path:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    return path


def test_json_list_of_records_uses_index_keys(tmp_path: Path) -> None:
    path = _write(tmp_path, "corpus.json", json.dumps([{"text": "First.\r\nDoc."}, {"text": "Second."}]))
    docs = load_path(path, CFG)
    resolved = path.resolve()
    assert [doc.source for doc in docs] == [f"{resolved}#0", f"{resolved}#1"]
    assert [doc.title for doc in docs] == ["corpus #0", "corpus #1"]
    assert docs[0].text == "First.\nDoc."
    assert docs[0].metadata == {"format": "json", "path": str(resolved), "record": "0", "skipped_records": "0"}


def test_json_single_object_with_configured_fields(tmp_path: Path) -> None:
    record = {"corpus_name": "Medical", "context": "Basal cell skin cancer is common.", "id": 7}
    cfg = DocumentsConfig(loaders={".json": {"text_field": "context", "id_field": "id", "title_field": "corpus_name"}})
    [doc] = load_path(_write(tmp_path, "corpus.json", json.dumps(record)), cfg)
    assert doc.source.endswith("corpus.json#7")
    assert doc.title == "Medical"
    assert doc.text == "Basal cell skin cancer is common."


def test_jsonl_skips_bad_records_when_some_are_good(tmp_path: Path) -> None:
    lines = [
        json.dumps({"text": "Good one."}),
        "",
        json.dumps({"other": 1}),
        json.dumps([1, 2]),
        json.dumps({"text": "   "}),
        json.dumps({"text": "Good two."}),
    ]
    docs = load_path(_write(tmp_path, "c.jsonl", "\n".join(lines) + "\n"), CFG)
    assert [doc.text for doc in docs] == ["Good one.", "Good two."]
    assert [doc.metadata["record"] for doc in docs] == ["0", "4"]
    assert all(doc.metadata["skipped_records"] == "3" for doc in docs)
    assert docs[0].metadata["format"] == "jsonl"


def test_missing_text_field_names_the_available_keys(tmp_path: Path) -> None:
    path = _write(tmp_path, "corpus.json", json.dumps([{"corpus_name": "M", "context": "x"}]))
    with pytest.raises(
        DocumentError,
        match=r"corpus\.json: no record has the text field 'text' "
        r"\(available keys: context, corpus_name\); set "
        r'documents\.loaders\."\.json"\.text_field',
    ):
        load_path(path, CFG)


def test_text_field_present_but_never_a_string(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match="'text' is empty or not a string in every record"):
        load_path(_write(tmp_path, "c.jsonl", '{"text": 3}\n{"text": ""}\n'), CFG)


def test_records_that_are_not_objects(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match=r"no record is a JSON object \(found int\)"):
        load_path(_write(tmp_path, "c.json", "[1, 2]"), CFG)


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("c.json", '{"text": "a",\n  "x": }', r"c\.json: malformed JSON at line 2, column 8"),
        ("c.jsonl", '{"text": "a"}\n\n{"text": "b"\n', r"c\.jsonl: malformed JSON on line 3"),
        ("c.json", "[]", r"c\.json: contains no records"),
        ("c.json", '"just a string"', r"c\.json: top-level JSON is a str"),
        ("c.json", "[" * 100_000, r"c\.json: (cannot parse JSON|malformed JSON)"),
        ("c.json", "1" * 5000, r"c\.json: cannot parse JSON"),
    ],
)
def test_malformed_json(tmp_path: Path, name: str, content: str, message: str) -> None:
    with pytest.raises(DocumentError, match=message):
        load_path(_write(tmp_path, name, content), CFG)


def test_duplicate_configured_keys_are_an_error(tmp_path: Path) -> None:
    path = _write(tmp_path, "c.jsonl", '{"id": "a", "text": "x"}\n{"id": "a", "text": "y"}\n')
    with pytest.raises(DocumentError, match=r"records 0 and 1 share the key 'a'"):
        load_path(path, DocumentsConfig(loaders={".jsonl": {"id_field": "id"}}))


def test_missing_configured_key_falls_back_to_index(tmp_path: Path) -> None:
    path = _write(tmp_path, "c.jsonl", '{"id": "a", "text": "x"}\n{"text": "y"}\n')
    docs = load_path(path, DocumentsConfig(loaders={".jsonl": {"id_field": "id"}}))
    assert [doc.metadata["record"] for doc in docs] == ["a", "1"]
