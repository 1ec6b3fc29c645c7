"""Extraction units: consecutive chunks of one document, overlaps shown once, token limit respected."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from kgrag.documents import TokenCounter
from kgrag.graph.extract.units import PART_SEPARATOR, build_units, new_part

COUNTER = TokenCounter.for_encoding("cl100k_base")


@pytest.fixture
def doc_chunks(kit: Any) -> dict[str, list[Any]]:
    texts = kit.sample_texts(limit=4)
    return {doc_id: kit.chunk_records(text, doc_id) for doc_id, text in texts.items()}


def test_units_cover_every_chunk_once_in_document_order(doc_chunks: dict[str, list[Any]]) -> None:
    chunks = [c for cs in doc_chunks.values() for c in cs]
    units = build_units(list(reversed(chunks)), 1200, COUNTER)
    seen = [c.id for u in units for c in u.chunks]
    assert sorted(seen) == sorted(c.id for c in chunks)
    assert len(seen) == len(set(seen))
    for unit in units:
        assert {c.doc_id for c in unit.chunks} == {unit.doc_id}
        ords = [c.ord for c in unit.chunks]
        assert ords == list(range(ords[0], ords[0] + len(ords)))  # consecutive neighbours only


def test_units_respect_the_token_limit_and_drop_overlaps(doc_chunks: dict[str, list[Any]]) -> None:
    chunks = [c for cs in doc_chunks.values() for c in cs]
    for limit in (150, 400, 1200):
        for unit in build_units(chunks, limit, COUNTER):
            assert unit.n_tokens <= limit or len(unit.chunks) == 1
            assert COUNTER.count(unit.text) <= unit.n_tokens + 2
    doc = next(iter(doc_chunks.values()))
    unit = build_units(doc[:3], 10_000, COUNTER)[0]
    assert len(unit.chunks) == 3
    overlap = doc[0].char_end - doc[1].char_start
    assert overlap > 0  # the default chunking repeats trailing sentences
    assert unit.text.count(doc[1].text[:overlap]) == 1  # shown once, not twice
    assert unit.text.startswith(doc[0].text)
    assert unit.text.endswith(doc[2].text[doc[1].char_end - doc[2].char_start :].lstrip())


def test_whole_chunks_larger_than_the_limit_are_units_of_their_own(doc_chunks: dict[str, list[Any]]) -> None:
    doc = next(iter(doc_chunks.values()))
    units = build_units(doc, 20, COUNTER)
    assert [u.chunk_ids for u in units] == [(c.id,) for c in doc]
    assert all(u.text == c.text for u, c in zip(units, doc, strict=True))


def test_gaps_and_document_changes_start_new_units(doc_chunks: dict[str, list[Any]]) -> None:
    first, second = list(doc_chunks.values())[:2]
    picked = [first[0], first[1], first[3], second[0]]
    units = build_units(picked, 10_000, COUNTER)
    assert [u.chunk_ids for u in units] == [(first[0].id, first[1].id), (first[3].id,), (second[0].id,)]
    assert units[1].text == first[3].text  # no neighbour shown before it: the whole chunk


def test_duplicates_are_extracted_once_and_bad_limits_refused(doc_chunks: dict[str, list[Any]]) -> None:
    doc = next(iter(doc_chunks.values()))
    units = build_units([doc[0], doc[0], doc[1]], 10_000, COUNTER)
    assert [u.chunk_ids for u in units] == [(doc[0].id, doc[1].id)]
    assert build_units([], 1200, COUNTER) == []
    with pytest.raises(ValueError):
        build_units(doc, 0, COUNTER)


def test_new_part_shows_whole_chunk_when_offsets_do_not_line_up(doc_chunks: dict[str, list[Any]]) -> None:
    doc = next(iter(doc_chunks.values()))
    assert new_part(None, doc[1]) == doc[1].text
    shifted = replace(doc[0], text="something else entirely " * 5)
    assert new_part(shifted, doc[1]) == doc[1].text  # the claimed overlap is not really there
    contiguous = replace(doc[1], char_start=doc[0].char_end + 1)
    assert new_part(doc[0], contiguous) == contiguous.text
    assert PART_SEPARATOR == "\n"
