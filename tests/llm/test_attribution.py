"""Citations for answers the model left uncited: every sentence attributed to the context passage that
supports it, or marked unsupported, on the real small-model replies recorded in tests/fixtures and through
the real answer path with a scripted model."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from kgrag.config import EmbeddingConfig, GenerationConfig, LLMConfig
from kgrag.core.context import ContextItem, RetrievalResult
from kgrag.generation.answer import generate_answer
from kgrag.generation.attribution import Attributor, SupportPassage, answer_sentences
from kgrag.generation.strategy import attributor_for
from kgrag.models.embeddings import Embedder, create_embedder
from kgrag.models.llm import create_llm_client
from kgrag.models.llm.scripted import ScriptedProvider, ScriptRule

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "llm_replies"
PASSAGE = re.compile(r"^\[c:(\S+)\] (.*)$", re.MULTILINE)
DEFAULTS = GenerationConfig()


def _recorded_answers() -> list[dict[str, Any]]:
    records = []
    for path in sorted(FIXTURES.glob("*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            record = json.loads(line) if line.strip() else {}
            if record.get("prompt") == "answer":
                record["where"] = f"{path.name}:{number}"
                records.append(record)
    return records


RECORDED = _recorded_answers()


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    """The workspace default embedder (the one the threshold is calibrated with), loaded offline."""
    return create_embedder(EmbeddingConfig())


def _passages(record: dict[str, Any]) -> list[SupportPassage]:
    user = next(m["content"] for m in record["messages"] if m["role"] == "user")
    return [SupportPassage(pid, text) for pid, text in PASSAGE.findall(user)]


def test_the_fixtures_hold_uncited_real_answers() -> None:
    assert len(RECORDED) >= 3
    assert all(not re.search(r"\[c:", r["response"]) for r in RECORDED), "the recorded answers cite nothing"


@pytest.mark.parametrize("record", RECORDED, ids=lambda r: r["where"])
def test_every_sentence_of_a_real_small_model_answer_is_attributed_or_unsupported(
    record: dict[str, Any], embedder: Embedder
) -> None:
    passages = _passages(record)
    attributor = Attributor(embedder, DEFAULTS.attribution_threshold, DEFAULTS.attribution_embedding_weight)
    support = attributor.support(record["response"], passages)
    assert support, "an answer has at least one sentence"
    assert " ".join(s.text for s in support) == " ".join(record["response"].split())
    by_id = {p.id: p.text for p in passages}
    for sentence in support:
        assert sentence.status in ("attributed", "unsupported")
        if sentence.status == "attributed":  # the passage holds the sentence's names and figures
            (chunk,) = sentence.passages
            names = re.findall(r"\b[A-Z][a-z]+(?: [A-Z][a-z]+)*\b|\d+", sentence.text)
            held = [n for n in names if n.lower() in by_id[chunk].lower() and n not in ("Based", "When")]
            assert held, (sentence.text, by_id[chunk][:200])


def test_the_recorded_correct_answers_are_attributed(embedder: Embedder) -> None:
    """The three recorded answers are correct (docs/results/local-models.md): each is attributed."""
    attributor = Attributor(embedder, DEFAULTS.attribution_threshold, DEFAULTS.attribution_embedding_weight)
    statuses = [s.status for r in RECORDED for s in attributor.support(r["response"], _passages(r))]
    assert statuses and all(s == "attributed" for s in statuses)


def test_a_claim_no_passage_holds_is_unsupported(embedder: Embedder) -> None:
    record = RECORDED[0]
    attributor = Attributor(embedder, DEFAULTS.attribution_threshold, DEFAULTS.attribution_embedding_weight)
    (sentence,) = attributor.support("The cafeteria serves lentil soup every Thursday in Oslo.", _passages(record))
    assert sentence.status == "unsupported" and sentence.passages == []
    assert sentence.score is not None and sentence.score < DEFAULTS.attribution_threshold


def test_a_sentence_citing_a_passage_that_does_not_support_it_is_miscited(embedder: Embedder) -> None:
    """A small model asked what the context cannot answer wrote the question back with a marker ("The
    on-call rotation for the … team in Zurich is [c:…]"); kgrag kept it as a cited answer."""
    record = RECORDED[0]
    passages = _passages(record)
    attributor = Attributor(embedder, DEFAULTS.attribution_threshold, DEFAULTS.attribution_embedding_weight)
    text = f"The on-call rotation for the storage team in Zurich is [c:{passages[0].id}]."
    (sentence,) = attributor.support(text, passages)
    assert sentence.status == "miscited" and sentence.passages == [passages[0].id]
    assert sentence.score is not None and sentence.score < DEFAULTS.attribution_threshold


def test_the_recorded_correct_answers_cited_by_the_model_stay_cited(embedder: Embedder) -> None:
    """The same correct answers with the markers of the passages kgrag attributes: every sentence is cited,
    none miscited (the check does not second-guess a model that cites what backs its sentence)."""
    attributor = Attributor(embedder, DEFAULTS.attribution_threshold, DEFAULTS.attribution_embedding_weight)
    for record in RECORDED:
        passages = _passages(record)
        found = attributor.support(record["response"], passages)
        cited = " ".join(f"{s.text.rstrip('.')} [c:{s.passages[0]}]." for s in found)
        assert [s.status for s in attributor.support(cited, passages)] == ["cited"] * len(found)


def test_markers_after_the_full_stop_belong_to_the_sentence_before() -> None:
    text = "Heron is a dashboard. [c:a1] It is owned by the Apps team [c:b2][c:a1]. Nothing else."
    sentences = answer_sentences(text)
    assert [(s.claim, s.cited) for s in sentences] == [
        ("Heron is a dashboard.", ("a1",)),
        ("It is owned by the Apps team.", ("b2", "a1")),
        ("Nothing else.", ()),
    ]


def test_model_cited_sentences_stay_cited_and_are_not_rescored() -> None:
    passages = [SupportPassage("p1", "Heron is owned by the Apps team in Lisbon.")]
    support = Attributor(None, 0.5).support("Heron belongs to Apps [c:p1]. The Apps team is in Lisbon.", passages)
    assert [(s.status, s.passages) for s in support] == [("cited", ["p1"]), ("attributed", ["p1"])]
    assert support[0].score is None


def _result(texts: dict[str, str]) -> RetrievalResult:
    items = [ContextItem(id=cid, kind="chunk", text=t, score=1.0 / (n + 1)) for n, (cid, t) in enumerate(texts.items())]
    return RetrievalResult(pipeline="test", query="q", items=items)


CONTEXT = {
    "c1": "Gatekeeper is owned by Sofia Almeida of the Security team. It controls all production access.",
    "c2": "Heron is the dashboard of Tessellate Systems, built by the Apps team in Lisbon.",
}


def _answer(reply: str, generation: GenerationConfig = DEFAULTS) -> Any:
    provider = ScriptedProvider([ScriptRule("Question:", reply)])
    client = create_llm_client(LLMConfig(provider="scripted", model="m"), provider=provider)
    embedder = create_embedder(EmbeddingConfig(provider="fake"))
    attributor = attributor_for(generation, embedder)
    return generate_answer(client, "Who owns Gatekeeper?", _result(CONTEXT), generation, attributor=attributor)


def test_an_uncited_answer_gets_attributed_citations_marked_as_such() -> None:
    answer = _answer("Gatekeeper is owned by Sofia Almeida. It controls all production access.")
    assert answer.citations == ["c1"] and answer.attributed == ["c1"] and answer.model_citations == []
    assert [s.status for s in answer.sentences] == ["attributed", "attributed"]
    assert not answer.uncited
    data = answer.to_dict()
    assert data["sentences"][0]["status"] == "attributed" and data["attributed"] == ["c1"]
    assert any("attributed" in w for w in data["warnings"])


def test_invented_ids_are_dropped_and_the_sentence_attributed() -> None:
    answer = _answer("Heron is built by the Apps team in Lisbon [c:c999]. The moon is made of basalt.")
    assert answer.usage["invented_citations"] == ["c:c999"]
    assert [(s.status, s.passages) for s in answer.sentences] == [("attributed", ["c2"]), ("unsupported", [])]
    assert answer.unsupported == ["The moon is made of basalt."]
    assert any("no passage supports" in w for w in answer.warnings)


def test_a_cited_answer_keeps_the_models_citations_only() -> None:
    answer = _answer("Sofia Almeida owns Gatekeeper [c:c1].")
    assert answer.citations == ["c1"] and answer.attributed == []
    assert [s.status for s in answer.sentences] == ["cited"]


def test_attribution_off_leaves_an_uncited_answer_uncited() -> None:
    answer = _answer("Gatekeeper is owned by Sofia Almeida.", DEFAULTS.model_copy(update={"attribution": "off"}))
    assert answer.citations == [] and answer.sentences == [] and answer.uncited


def test_i_dont_know_is_not_attributed() -> None:
    answer = _answer("I don't know based on the provided context.")
    assert answer.idk and answer.citations == [] and answer.sentences == []
