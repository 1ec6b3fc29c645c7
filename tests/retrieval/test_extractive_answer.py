"""The LLM-free answer picks the sentence that answers, skips headings, signatures and code, says "not
found" when nothing retrieved answers, and needs no model.

Passages are shaped like what the loaders hand over for real documents: Markdown pages with headings and
tables, an API reference page (signature, prose, doctest lines), a contact list.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from tests.conftest import SAMPLE_QUESTIONS

from kgrag import Workspace
from kgrag.core.context import ContextItem, RetrievalResult
from kgrag.evaluation import load_dataset
from kgrag.generation.answer_cues import answer_types, cue_share
from kgrag.generation.extractive import NOT_FOUND, extractive_answer, question_terms
from kgrag.generation.sentence_kinds import is_code, is_heading, states_something

INCIDENT = """# Postmortem: INC-2024-031

## Summary

Status: final. Severity: SEV1.

On 14 May 2024 Kestrel ingestion stalled for 3 hours and 40 minutes. SRE engineer Daniel Park was the
incident commander. The root cause was a partition rebalancing loop in Tern after a Kestrel 4.2
configuration change.

## Timeline

| Time | Event |
|------|-------|
| 09:12 | Alerts stop arriving in Heron |
| 12:52 | Ingestion recovers |
"""

OSPREY = """## Battery life

Osprey S3

The Osprey S3 lasts 7 years at a 15-minute reporting interval and 4 years at a 5-minute interval.
Battery life is measured at 10 °C, the typical temperature of a water main chamber.
"""

API_PAGE = """shutil.copystat(src, dst, *, follow_symlinks=True)

Copy the permission bits, last access time, last modification time, and flags from src to dst.
On Linux, copystat() also copies the extended attributes where possible.

>>> import shutil
>>> shutil.copystat("settings.ini", "settings.bak")
"""

CONTACTS = """Contacts

Ana Souto +351 21 555 0101, Bo Lindahl +47 55 55 01 02, Carl Mayer +49 30 5550 1003.
Office hours are from nine to five on weekdays, and the switchboard forwards calls after hours.
"""


def _result(*texts: str) -> RetrievalResult:
    items = [ContextItem("chunk", f"c{i}", text, 1.0 / (i + 1), [f"c{i}"]) for i, text in enumerate(texts)]
    return RetrievalResult("q", "hybrid", items)


class NoModel:
    """An embedder that must not be called: the lexical answer needs no model."""

    name = "none"
    dimension = 8
    window_tokens = 256

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        raise AssertionError("the lexical extractive answer embedded text")


def _answer(question: str, *texts: str, n: int = 3) -> str:
    answer = extractive_answer(question, _result(*texts), NoModel(), n)  # type: ignore[arg-type]
    return answer.text


FAQ = """## Timetables

How do I undo a timetable I already published?

Publish a corrected timetable; the planner keeps the old one in its history. Currently the planner supports
four tide models:

- Harmonic, the default
"""


def test_an_faq_question_and_a_lead_in_are_never_the_answer() -> None:
    text = _answer("How do I undo a timetable I already published?", FAQ)
    assert text.startswith("Publish a corrected timetable;")
    assert "How do I undo" not in text and "four tide models:" not in text


def test_the_stated_fact_wins_over_headings_and_title_lines() -> None:
    text = _answer("How long does the Osprey S3 battery last?", OSPREY, INCIDENT, n=1)
    assert text.startswith("The Osprey S3 lasts 7 years") and text.endswith("[c0]")


def test_signatures_and_code_are_never_the_answer() -> None:
    answer = extractive_answer("What does shutil.copystat copy?", _result(API_PAGE), None, 3)
    assert not answer.idk and "Copy the permission bits" in answer.text
    assert "follow_symlinks=True)" not in answer.text and ">>>" not in answer.text


def test_a_question_with_two_parts_gets_a_sentence_for_each() -> None:
    text = _answer("Who was the incident commander for INC-2024-031, and what was the root cause?", INCIDENT)
    assert "Daniel Park was the incident commander" in text and "root cause was a partition rebalancing" in text
    assert "# Postmortem" not in text and "Status: final" not in text


def test_the_kind_of_answer_asked_for_breaks_a_tie() -> None:
    passage = (
        "The staged rollout rule was introduced to protect customer fleets from bad firmware. "
        "The staged rollout rule was introduced in November 2023 across every customer."
    )
    assert "November 2023" in _answer("When was the staged rollout rule introduced?", passage, n=1)
    assert "protect customer fleets" in _answer("Why was the staged rollout rule introduced?", passage, n=1)


def test_a_who_leads_question_is_answered_by_the_sentence_saying_led_by() -> None:
    team = (
        "# Harbour Team\n\nThe Harbour team builds and runs the billing backbone of the company. The team "
        "sits in the Porto office and is led by Marta Quental."
    )
    text = _answer("Who leads the Harbour team?", team, n=1)
    assert text.startswith("The team sits in the Porto office and is led by Marta Quental.")
    assert "written by Aisha Okafor" in _answer(
        "Who wrote Shale?", "Shale is a columnar store. It was written by Aisha Okafor in 2021.", n=1
    )


@pytest.mark.parametrize("question", ["Who owns Kestrel?", "What is the boiling point of mercury?"])
def test_an_off_topic_question_is_not_found_and_cites_nothing(question: str) -> None:
    answer = extractive_answer(question, _result(CONTACTS, API_PAGE), None, 3)
    assert answer.idk and answer.text.startswith(NOT_FOUND.removesuffix(".")) and answer.citations == []
    assert answer.evidence and answer.evidence[0]["coverage"] < 0.25  # the closest sentence, for inspection


MANAGERS = """To create one's own manager, one creates a subclass of BaseManager and uses the register()
classmethod to register new types or callables with the manager class. Proxy objects forward method calls
to the referent in the server process. Connections are authenticated with an HMAC digest of a shared key.
The address is a pair of hostname and port number for a TCP socket. Shutting down stops the server process
after the last proxy has gone. Each registered type may name the methods its proxies expose."""


def test_a_question_about_a_name_no_passage_holds_is_not_found() -> None:
    # the passage covers "owns" well ("own", "owns"), but says nothing about Kestrel: not an answer
    answer = extractive_answer("Who owns Kestrel?", _result(MANAGERS), None, 3)
    assert answer.idk and answer.text.startswith(NOT_FOUND.removesuffix(".")) and answer.citations == []
    assert answer.evidence and answer.evidence[0]["coverage"] >= 0.25  # coverage alone would have answered
    # an identifier the passage does not repeat is left to coverage (multi-hop answers often omit it)
    found = extractive_answer("Who was the incident commander for INC-2099-001?", _result(INCIDENT), None, 3)
    assert not found.idk and "Daniel Park" in found.text


def test_min_coverage_zero_always_answers() -> None:
    answer = extractive_answer("Who owns Kestrel?", _result(CONTACTS), None, 1, min_coverage=0.0)
    assert not answer.idk and answer.citations == ["c0"]


def test_the_subject_named_only_in_a_heading_still_counts() -> None:
    # "copystat" appears only in the signature line, which is not a candidate: the passage vouches for it.
    page = API_PAGE.replace("On Linux, copystat() also copies the extended attributes where possible.", "")
    answer = extractive_answer("What does copystat copy?", _result(page), None, 1)
    assert not answer.idk and answer.text.startswith("Copy the permission bits")


def test_identifiers_count_as_one_word() -> None:
    terms = question_terms("When did INC-2024-031 start, and who owned follow_symlinks?")
    assert terms["inc"] == terms["2024"] == terms["031"] == pytest.approx(1 / 3)
    assert terms["start"] == 1.0 and terms["own"] == 1.0


@pytest.mark.parametrize(
    ("question", "kinds"),
    [
        ("Who wrote Shale and which team owns it?", ("person",)),
        ("When, where and by whom was Tessellate Systems founded?", ("date", "place", "person")),
        ("How many sensors did FW 7.1 brick?", ("number",)),
        ("How long must a new engineer wait before joining the on-call rotation?", ("duration",)),
        ("Who performs the audit, and on which day?", ("person", "date")),
        ("What are the hotel caps for business travel?", ("number",)),
        ("Why did ADR-007 choose LoRaWAN?", ("cause",)),
        ("How does Riffle detect leaks?", ()),
    ],
)
def test_answer_types_follow_the_question_words(question: str, kinds: tuple[str, ...]) -> None:
    assert answer_types(question) == kinds


def test_a_cue_already_in_the_question_does_not_count() -> None:
    question = "When did INC-2024-031 happen?"
    assert cue_share(("date",), "INC-2024-031 was reviewed by the SRE team.", question.lower()) == 0.0
    assert cue_share(("date",), "INC-2024-031 began on 14 May 2024.", question.lower()) == 1.0


@pytest.mark.parametrize(
    "line",
    [
        "# Hiring process",
        "Osprey S3",
        "shutil.copystat(src, dst, *, follow_symlinks=True)",
        ">>> import shutil",
        "def copystat(src, dst, *, follow_symlinks=True):",
        'config = {"retries": 3, "timeout_s": 2.5};',
        "How should I undo a pushed ferry timetable?",
        'The planner asks: "Which crossing comes first?"',
    ],
)
def test_headings_signatures_code_and_questions_state_nothing(line: str) -> None:
    assert not states_something(line)


@pytest.mark.parametrize(
    "line",
    [
        "| 2. Skills interview | Video call | 60 minutes | An engineer from the team |",
        "- 30 minutes per stage",
        "Copy the permission bits, last access time, last modification time, and flags from src to dst.",
    ],
)
def test_table_rows_list_items_and_prose_can_answer(line: str) -> None:
    assert states_something(line), (is_heading(line), is_code(line))


def test_off_topic_questions_on_the_sample_corpus_end_to_end(sample_ws: Workspace) -> None:
    on_topic = load_dataset(SAMPLE_QUESTIONS)[0]
    found = sample_ws.query(on_topic.question, pipeline="bm25")
    assert not found.answer.idk and found.answer.citations
    missing = sample_ws.query("What is the boiling point of mercury at sea level?", pipeline="bm25")
    assert (
        missing.answer.idk
        and missing.answer.text.startswith(NOT_FOUND.removesuffix("."))
        and not missing.answer.citations
    )


def test_the_corpus_sample_is_stemmed_once_per_store_generation(sample_ws: Workspace) -> None:
    from kgrag.generation.answer_sentences import sentence_stems
    from kgrag.generation.corpus_sample import CORPUS_SAMPLE, SAMPLE_STEMS, null_coverage

    ctx = sample_ws.components.query_context
    sample_ws.query("What is the boiling point of mercury at sea level?", pipeline="bm25")
    stems = ctx.get(SAMPLE_STEMS)
    sample_ws.query("Who maintains the harbour lights?", pipeline="bm25")
    assert ctx.get(SAMPLE_STEMS) is stems and stems  # kept between queries, not re-stemmed
    assert list(stems) == [sentence_stems(sentence) for sentence in ctx.get(CORPUS_SAMPLE)]
    question = "Who maintains the harbour lights?"
    coverage = null_coverage(question, stems)
    assert coverage is not None and 0.0 <= coverage <= 1.0
    assert null_coverage(question, ()) is None and null_coverage("the of and", stems) is None


VERSIONED = """itertools.pairwise(iterable) returns successive overlapping pairs taken from the input iterable.
The number of 2-tuples in the output iterator will be one fewer than the number of inputs. New in version 3.10.
The pickle module implements binary protocols for serializing and de-serializing a Python object structure.
Protocol version 5 was added in Python 3.8. Protocol version 4 was added in Python 3.4."""


def test_a_version_question_is_answered_by_the_version_note() -> None:
    answer = _answer("When did itertools.pairwise become available?", VERSIONED, n=1)
    assert "3.10" in answer


def test_a_fact_about_another_subject_is_not_stated() -> None:
    answer = extractive_answer("In which Python version was the secrets module added?", _result(VERSIONED), None, 2)
    assert answer.idk and "secrets" in answer.text and not answer.citations  # says why: the subject is missing


def test_a_default_question_prefers_the_sentence_that_states_the_default() -> None:
    passage = (
        "The by_alias parameter controls serialization by alias for model dumps and exports. "
        "By default, by_alias is False, so field names are used."
    )
    assert "By default, by_alias is False" in _answer("What is the default value of by_alias?", passage, n=1)


def test_an_identifier_must_be_in_the_passage_as_written() -> None:
    passage = (
        "Field aliases are used for validation by default. In the event that the default value is not hashable, "
        "a deep copy of the default value is made. ConfigDict.validate_by_alias is True by default."
    )
    answer = extractive_answer("What is the default value of by_alias?", _result(passage), None, 2)
    assert answer.idk and "by_alias" in answer.text  # "alias" and "validate_by_alias" are not by_alias
    held = "Calling Response.raise_for_status() raises an HTTPError for a response with a 4xx or 5xx status."
    assert "HTTPError" in _answer("What does raise_for_status raise for a bad response?", held, n=1)


def test_a_sentence_about_another_thing_of_the_same_kind_is_not_stated() -> None:
    passage = (
        "Added in v2.12: The exclude_if parameter. Added in v2.7.0: The deprecated parameter marks a field. "
        "You can pass a dict to the json parameter of a request."
    )
    answer = extractive_answer("In which version was the json parameter added?", _result(passage), None, 2)
    assert answer.idk and not answer.citations
    stated = _answer("In which version was the json parameter added?", passage + " The json parameter was added in "
                     "version 2.4.2.", n=1)  # fmt: skip
    assert "2.4.2" in stated


def test_a_thing_singled_out_by_its_kind_must_be_named_as_one() -> None:
    schema = "Pydantic follows the latest version of the JSON Schema specification (2020-12) when it generates schemas."
    answer = extractive_answer("In which version was the json parameter added?", _result(schema), None, 2)
    assert answer.idk  # "JSON Schema" is not the json parameter
    proxies = "Requests reads the proxy configuration from the environment variables http_proxy and https_proxy."
    assert "http_proxy" in _answer("Which environment variables does Requests read proxy settings from?", proxies, n=1)
