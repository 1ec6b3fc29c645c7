"""Neo4j import files: parsed back with the csv module (Neo4j itself cannot run here)."""

from __future__ import annotations

import csv
from pathlib import Path

from tests.store.backends import StoreMaker

from kgrag.graph.io.neo4j import ENTITY_HEADER, RELATION_HEADER, export_neo4j, type_label
from kgrag.store import Store


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def test_csv_parses_back_with_nasty_strings(small_store: Store, tmp_path: Path, nasty_text: str) -> None:
    out = tmp_path / "neo4j"
    assert export_neo4j(small_store, out) == {"entities": 7, "relations": 5}
    entities = _rows(out / "entities.csv")
    relations = _rows(out / "relations.csv")
    assert list(entities[0]) == ENTITY_HEADER and list(relations[0]) == RELATION_HEADER
    stored = {e.id: e for e in small_store.graph.entities()}
    assert {row["id:ID"] for row in entities} == set(stored)
    by_key = {row["key"]: row for row in entities}
    assert by_key["a"]["description"] == nasty_text  # quotes, commas, semicolon, newline, tab, unicode
    assert by_key["c"]["chunk_ids:string[]"] == "doc1-c0;doc1-c1"
    assert by_key["d"][":LABEL"] == "Entity;Organization"
    ids = set(stored)
    assert all(row[":START_ID"] in ids and row[":END_ID"] in ids for row in relations)
    assert all(row[":START_ID"] < row[":END_ID"] and row[":TYPE"] == "RELATED_TO" for row in relations)
    nasty = next(row for row in relations if row["description"] == nasty_text)
    assert nasty["keywords:string[]"].split(";") == ["semi,colon", 'quo"te', "comma, here"]
    assert sorted(float(row["weight:double"]) for row in relations) == [1.0, 1.0, 1.0, 2.5, 3.0]
    works = next(row for row in relations if row["label"] == "works at")
    assert works["chunk_ids:string[]"] == "doc1-c0;doc1-c1"


def test_quotes_are_doubled_and_newlines_kept_inside_quotes(small_store: Store, tmp_path: Path) -> None:
    export_neo4j(small_store, tmp_path)
    raw = (tmp_path / "entities.csv").read_text(encoding="utf-8")
    assert '"He said ""hi"", then; left\nnew line' in raw
    assert raw.splitlines()[0] == '"id:ID","key","name","type","description","chunk_ids:string[]",":LABEL"'


def test_load_script_and_readme(small_store: Store, tmp_path: Path) -> None:
    export_neo4j(small_store, tmp_path)
    cypher = (tmp_path / "load.cypher").read_text(encoding="utf-8")
    assert "LOAD CSV WITH HEADERS FROM 'file:///entities.csv'" in cypher
    assert "MERGE (a)-[r:RELATED_TO {id: row.id}]->(b)" in cypher
    assert "row.`:START_ID`" in cypher and "toFloat(row.`weight:double`)" in cypher
    readme = (tmp_path / "README.md").read_text(encoding="utf-8")
    assert "neo4j-admin database import full --nodes=entities.csv --relationships=relations.csv" in readme
    assert "--multiline-fields=true" in readme


def test_type_labels() -> None:
    assert type_label("health condition") == "HealthCondition"
    assert type_label("chemical_name") == "ChemicalName"
    assert type_label("3d model") == ""
    assert type_label("") == ""
    assert type_label("Entity") == "Entity"


def test_empty_graph_writes_headers_only(tmp_path: Path, make_store: StoreMaker) -> None:
    export_neo4j(make_store("s1"), tmp_path)
    assert _rows(tmp_path / "entities.csv") == [] and _rows(tmp_path / "relations.csv") == []
