"""Documents from .json and .jsonl record files, one document per record.

Datasets such as GraphRAG-Bench ship their corpus as JSON records; which field holds the text, the
key and the title is configured per loader (``[documents.loaders.".json"]`` and ``".jsonl"``: ``text_field``,
``id_field``, ``title_field``). A file where no record has the text
field is almost always a configuration mistake, so it fails with the keys that *are* there; a file
where only some records lack it is kept, and the skipped count travels in each document's metadata.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kgrag.config import DocumentsConfig
from kgrag.core.errors import DocumentError
from kgrag.documents.loader_settings import JsonRecordsSettings
from kgrag.documents.reading import decode_text, normalize_newlines, require_text
from kgrag.documents.records import LoadedDocument

_MAX_LISTED_KEYS = 20


def load_json(path: Path, data: bytes, cfg: DocumentsConfig) -> list[LoadedDocument]:
    """A JSON file holding a list of records or a single record object."""
    text = require_text(path, decode_text(path, data))
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DocumentError(
            f"{path}: malformed JSON at line {exc.lineno}, column {exc.colno} ({exc.msg}); fix the file"
        ) from exc
    except (ValueError, RecursionError) as exc:
        raise DocumentError(f"{path}: cannot parse JSON ({exc}); fix the file") from exc
    if isinstance(value, dict):
        records: list[Any] = [value]
    elif isinstance(value, list):
        records = value
    else:
        raise DocumentError(
            f"{path}: top-level JSON is a {type(value).__name__}; expected a list of "
            "record objects or one record object"
        )
    return documents_from_records(path, records, cfg.loader_settings(".json", JsonRecordsSettings), "json")


def load_jsonl(path: Path, data: bytes, cfg: DocumentsConfig) -> list[LoadedDocument]:
    """A JSON Lines file: one record per non-blank line."""
    text = require_text(path, decode_text(path, data))
    records: list[Any] = []
    for line_no, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise DocumentError(
                f"{path}: malformed JSON on line {line_no}, column {exc.colno} ({exc.msg}); fix or remove that line"
            ) from exc
        except (ValueError, RecursionError) as exc:
            raise DocumentError(
                f"{path}: cannot parse JSON on line {line_no} ({exc}); fix or remove that line"
            ) from exc
    return documents_from_records(path, records, cfg.loader_settings(".jsonl", JsonRecordsSettings), "jsonl")


def documents_from_records(path: Path, records: list[Any], cfg: JsonRecordsSettings, fmt: str) -> list[LoadedDocument]:
    """One document per record with usable text; bad records are skipped only if some are good."""
    if not records:
        raise DocumentError(f"{path}: contains no records; add records or exclude the file")
    good: list[tuple[str, str, str]] = []
    first_index: dict[str, int] = {}
    for index, record in enumerate(records):
        text = _record_text(record, cfg.text_field)
        if text is None:
            continue
        key = _record_key(record, index, cfg.id_field)
        if key in first_index:
            raise DocumentError(
                f"{path}: records {first_index[key]} and {index} share the key {key!r}; make "
                f'documents.loaders.".{fmt}".id_field ({cfg.id_field!r}) unique or unset it'
            )
        first_index[key] = index
        title = _record_string(record, cfg.title_field) or f"{path.stem} #{key}"
        good.append((key, title, text))
    if not good:
        raise _no_text_error(path, records, cfg.text_field, f'documents.loaders.".{fmt}".text_field')
    skipped = str(len(records) - len(good))
    return [
        LoadedDocument.from_text(
            f"{path}#{key}", title, text, {"format": fmt, "path": str(path), "record": key, "skipped_records": skipped}
        )
        for key, title, text in good
    ]


def _record_string(record: Any, field: str | None) -> str | None:
    """The record's non-blank string value of ``field``, else None."""
    if field is None or not isinstance(record, dict):
        return None
    value = record.get(field)
    return value if isinstance(value, str) and value.strip() else None


def _record_text(record: Any, field: str) -> str | None:
    text = _record_string(record, field)
    return normalize_newlines(text) if text is not None else None


def _record_key(record: Any, index: int, id_field: str | None) -> str:
    """The configured id's value when the record has one, else the record's index in the file."""
    if id_field is not None and isinstance(record, dict):
        value = record.get(id_field)
        if value is not None and not isinstance(value, dict | list):
            return str(value)
    return str(index)


def _no_text_error(path: Path, records: list[Any], field: str, key: str) -> DocumentError:
    """Explain why no record had usable text, naming the keys the records do have."""
    objects = [record for record in records if isinstance(record, dict)]
    if not objects:
        return DocumentError(
            f"{path}: no record is a JSON object (found {type(records[0]).__name__}); "
            f"each record must be an object with a {field!r} text field"
        )
    if any(field in record for record in objects):
        return DocumentError(
            f"{path}: the text field {field!r} is empty or not a string in every record; fix the records or set {key}"
        )
    keys = sorted({str(key) for record in objects for key in record})
    listed = ", ".join(keys[:_MAX_LISTED_KEYS]) + (", ..." if len(keys) > _MAX_LISTED_KEYS else "")
    return DocumentError(
        f"{path}: no record has the text field {field!r} (available keys: "
        f"{listed or 'none'}); set {key} to the field that holds "
        "the text"
    )
