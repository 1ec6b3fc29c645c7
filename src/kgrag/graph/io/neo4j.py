"""Neo4j import files: ``entities.csv`` + ``relations.csv`` for ``neo4j-admin database import``, a
``load.cypher`` for ``LOAD CSV`` into a running server, and a README with both commands.

Choices (Neo4j cannot run here, so the files follow its documented CSV dialect and are tested by
parsing them back):

* RFC-4180 CSV, every field quoted, quotes doubled; fields may span lines, hence
  ``--multiline-fields=true`` in the admin command;
* arrays (``chunk_ids``, ``keywords``) use neo4j-admin's default ``;`` delimiter, so a ``;`` inside a
  keyword becomes ``,`` (chunk ids never contain one);
* every node gets the label ``Entity`` plus its type as a CamelCase label when the type has letters;
* our relations are undirected; Neo4j's are directed, so each goes from the entity with the smaller id
  to the larger, all with type ``RELATED_TO`` and the free-text label kept as a property (free text
  would make hundreds of relationship types).
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

from kgrag.core.errors import KgragError
from kgrag.core.graph_records import EntityRecord, RelationRecord
from kgrag.store.base import Store

ENTITY_HEADER = ["id:ID", "key", "name", "type", "description", "chunk_ids:string[]", ":LABEL"]
RELATION_HEADER = [
    ":START_ID",
    ":END_ID",
    ":TYPE",
    "id",
    "label",
    "description",
    "keywords:string[]",
    "weight:double",
    "chunk_ids:string[]",
]
ARRAY_DELIMITER = ";"
RELATIONSHIP_TYPE = "RELATED_TO"
BASE_LABEL = "Entity"


def type_label(entity_type: str) -> str:
    """``"health condition"`` → ``"HealthCondition"``; empty when nothing label-worthy is left."""
    words = re.findall(r"[A-Za-z0-9]+", entity_type)
    label = "".join(word[:1].upper() + word[1:] for word in words)
    return label if label[:1].isalpha() else ""


def _array(values: tuple[str, ...]) -> str:
    return ARRAY_DELIMITER.join(value.replace(ARRAY_DELIMITER, ",") for value in values)


def _entity_row(entity: EntityRecord) -> list[str]:
    labels = [BASE_LABEL] + ([label] if (label := type_label(entity.type)) and label != BASE_LABEL else [])
    return [
        entity.id,
        entity.key,
        entity.name,
        entity.type,
        entity.description,
        _array(entity.chunk_ids),
        ARRAY_DELIMITER.join(labels),
    ]


def _relation_row(relation: RelationRecord) -> list[str]:
    return [
        relation.source_id,
        relation.target_id,
        RELATIONSHIP_TYPE,
        relation.id,
        relation.label,
        relation.description,
        _array(relation.keywords),
        repr(float(relation.weight)),
        _array(relation.chunk_ids),
    ]


def _write_csv(path: Path, header: list[str], rows: list[list[str]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, quoting=csv.QUOTE_ALL, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


LOAD_CYPHER = f"""// Load kgrag's export into a running Neo4j: copy entities.csv and relations.csv into the server's
// import directory, then run this file (cypher-shell -f load.cypher). MERGE makes re-runs idempotent.
CREATE CONSTRAINT entity_id IF NOT EXISTS FOR (e:{BASE_LABEL}) REQUIRE e.id IS UNIQUE;

LOAD CSV WITH HEADERS FROM 'file:///entities.csv' AS row
MERGE (e:{BASE_LABEL} {{id: row.`id:ID`}})
SET e.key = row.key, e.name = row.name, e.type = row.type, e.description = row.description,
    e.chunk_ids = CASE row.`chunk_ids:string[]` WHEN '' THEN []
        ELSE split(row.`chunk_ids:string[]`, '{ARRAY_DELIMITER}') END;

LOAD CSV WITH HEADERS FROM 'file:///relations.csv' AS row
MATCH (a:{BASE_LABEL} {{id: row.`:START_ID`}}), (b:{BASE_LABEL} {{id: row.`:END_ID`}})
MERGE (a)-[r:{RELATIONSHIP_TYPE} {{id: row.id}}]->(b)
SET r.label = row.label, r.description = row.description, r.weight = toFloat(row.`weight:double`),
    r.keywords = CASE row.`keywords:string[]` WHEN '' THEN []
        ELSE split(row.`keywords:string[]`, '{ARRAY_DELIMITER}') END,
    r.chunk_ids = CASE row.`chunk_ids:string[]` WHEN '' THEN []
        ELSE split(row.`chunk_ids:string[]`, '{ARRAY_DELIMITER}') END;
"""

README = f"""# kgrag graph export for Neo4j

Files: `entities.csv` (nodes, labels `{BASE_LABEL}` + CamelCase type), `relations.csv`
(`{RELATIONSHIP_TYPE}` relationships; our graph is undirected, each relation points from the smaller
entity id to the larger), `load.cypher`.

## Offline bulk import into a new, empty database (fastest)

```sh
neo4j-admin database import full --nodes=entities.csv --relationships=relations.csv \\
    --multiline-fields=true --array-delimiter="{ARRAY_DELIMITER}" --overwrite-destination=true neo4j
```

(Neo4j 4.x: `neo4j-admin import --database=neo4j --nodes=... --relationships=... --multiline-fields=true`.)

## Into a running server

Copy both CSV files into the server's `import/` directory, then:

```sh
cypher-shell -u neo4j -p <password> -f load.cypher
```

For very large graphs wrap the `LOAD CSV` statements in `CALL {{ ... }} IN TRANSACTIONS`.
"""


FILE_SUFFIXES = frozenset({".graphml", ".xml", ".csv", ".json", ".cypher", ".txt", ".zip", ".gz", ".tar"})


def export_neo4j(store: Store, directory: Path) -> dict[str, int]:
    """Write the Neo4j files into ``directory`` (created if needed); returns the row counts. A new path
    named like a file (``x.graphml``) is refused rather than made a directory of that name."""
    if directory.suffix.lower() in FILE_SUFFIXES and not directory.is_dir():
        raise KgragError(
            f"{directory}: the Neo4j export is a directory of CSV files and load scripts, and this names a "
            f"{directory.suffix} file; give a directory, e.g. {directory.with_suffix('')}/"
        )
    entities = store.graph.entities()
    relations = store.graph.relations()
    try:
        directory.mkdir(parents=True, exist_ok=True)
        _write_csv(directory / "entities.csv", ENTITY_HEADER, [_entity_row(e) for e in entities])
        _write_csv(directory / "relations.csv", RELATION_HEADER, [_relation_row(r) for r in relations])
        (directory / "load.cypher").write_text(LOAD_CYPHER, encoding="utf-8")
        (directory / "README.md").write_text(README, encoding="utf-8")
    except OSError as exc:
        raise KgragError(f"{directory}: cannot write Neo4j export ({exc.strerror})") from exc
    return {"entities": len(entities), "relations": len(relations)}
