"""load_path on arbitrary bytes either returns documents or raises DocumentError, nothing else."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kgrag.config import DocumentsConfig
from kgrag.core.errors import DocumentError
from kgrag.documents.loaders import load_path

_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.sampled_from(["text", "id", "title", "x"]) | st.text(max_size=5), children, max_size=4)
    ),
    max_leaves=20,
)
_JSON_BYTES = _JSON_VALUES.map(lambda value: json.dumps(value).encode())
_JSONL_BYTES = st.lists(_JSON_VALUES.map(json.dumps), max_size=5).map(lambda lines: "\n".join(lines).encode())
_PAYLOADS = (
    st.binary(max_size=400)
    | _JSON_BYTES
    | _JSONL_BYTES
    | st.text(max_size=200).map(lambda text: text.encode("utf-8", "surrogatepass"))
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(payload=_PAYLOADS, suffix=st.sampled_from([".txt", ".json", ".jsonl", ".md", ".html"]))
def test_random_bytes_never_crash(tmp_path: Path, payload: bytes, suffix: str) -> None:
    path = tmp_path / f"fuzz{suffix}"
    path.write_bytes(payload)
    fields = {"id_field": "id", "title_field": "title"}
    cfg = DocumentsConfig(loaders={".json": fields, ".jsonl": fields})
    try:
        docs = load_path(path, cfg)
    except DocumentError as exc:
        assert str(path.name) in str(exc)
        return
    assert docs
    assert all(doc.text.strip() for doc in docs)


@pytest.mark.parametrize("suffix", [".pdf", ".docx"])
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(payload=st.binary(min_size=1, max_size=400))
def test_random_bytes_in_binary_formats_never_crash(tmp_path: Path, suffix: str, payload: bytes) -> None:
    path = tmp_path / f"fuzz{suffix}"
    path.write_bytes(payload)
    with pytest.raises(DocumentError):
        load_path(path, DocumentsConfig())
