"""The rewrite of follow-up questions: the history it reads is bounded by its token budget (newest turns
kept), the LLM-free rewrite carries the previous question's names only into a question that refers back,
and an unusable or failing LLM falls back to it."""

from __future__ import annotations

from kgrag.config import LLMConfig
from kgrag.core.llm_types import ChatRequest
from kgrag.generation.rewrite import Turn, bounded_history, carry_names, names_in, rewrite_question
from kgrag.models.llm import ProviderError, ScriptedProvider, ScriptRule, create_llm_client
from kgrag.models.llm.client import LLMClient

HISTORY = [
    Turn("What does Shale store?", "Kestrel's long-term telemetry. [c:c1]"),
    Turn("Which team owns Kestrel?", "The Platform team. [c:c2]"),
]


def _words(text: str) -> int:
    return len(text.split())


def test_the_history_keeps_the_newest_turns_that_fit_the_budget() -> None:
    newest = _words(HISTORY[1].question) + _words(HISTORY[1].answer)
    assert bounded_history(HISTORY, newest, _words) == HISTORY[1:]
    assert bounded_history(HISTORY, newest - 1, _words) == []
    assert bounded_history(HISTORY, 1000, _words) == HISTORY


def test_names_are_carried_only_into_a_question_that_refers_back() -> None:
    assert names_in("Which team owns Kestrel after INC-2024-031?") == ["Kestrel", "INC-2024-031"]
    carried = carry_names("and who leads it?", HISTORY)
    assert (carried.method, carried.standalone) == ("names", "and who leads it? (Kestrel)")
    own = carry_names("Who leads Heron?", HISTORY)
    assert (own.method, own.standalone) == ("none", "Who leads Heron?")
    follow = carry_names("Who leads it?", [Turn("and who leads it?", "Rui", "and who leads it? (Kestrel)")])
    assert follow.standalone == "Who leads it? (Kestrel)"  # a chain of follow-ups keeps its subject


def test_a_subject_without_names_is_carried_in_its_content_words() -> None:
    asked = [Turn("How many days of annual leave do new employees earn?", "13 days a year. [c:c1]")]
    carried = carry_names("and how do I request it?", asked)
    assert carried.method == "words"
    assert carried.standalone == "and how do I request it? (days annual leave new employees earn)"
    about = carry_names("What about contractors?", asked)
    assert about.standalone == "What about contractors? (days annual leave new employees earn)"
    new = carry_names("How do I book a travel card?", asked)  # a new subject in its own words
    assert (new.method, new.standalone) == ("none", "How do I book a travel card?")


def _client(reply: str | None) -> LLMClient:
    def answer(request: ChatRequest) -> str:
        if reply is None:
            raise ProviderError("HTTP 400: refused", retryable=False, status=400)
        return reply

    provider = ScriptedProvider([ScriptRule("Latest question", answer)])
    return create_llm_client(LLMConfig(provider="scripted", max_retries=0), provider=provider)


def test_the_llm_rewrite_and_its_fallbacks() -> None:
    good = rewrite_question("and who leads it?", HISTORY, _client('{"question": "Who leads the Platform team?"}'), 500)
    assert (good.method, good.standalone, good.turns) == ("llm", "Who leads the Platform team?", 2)
    unusable = rewrite_question("and who leads it?", HISTORY, _client("no JSON here"), 500)
    assert unusable.method == "names" and "unusable" in unusable.note
    failing = rewrite_question("and who leads it?", HISTORY, _client(None), 500)
    assert failing.method == "names" and "failed" in failing.note
    assert rewrite_question("and who leads it?", [], _client(None), 500).method == "none"


def test_an_llm_rewrite_that_dropped_the_subject_is_not_searched() -> None:
    """A 0.5B model rewrote "and what is not one?" after "What counts as an emergency CL?" as "What is not
    one?": the subject was gone, so the LLM-free rewrite carries it instead."""
    history = [Turn("What counts as an emergency CL?", "A small change that lets a launch go on. [c:c1]")]
    lost = rewrite_question("and what is not one?", history, _client('{"question": "What is not one?"}'), 500)
    assert (lost.method, lost.standalone) == ("names", "and what is not one? (CL)")
    assert "names nothing of the last question" in lost.note
    kept = rewrite_question(
        "and what is not one?", history, _client('{"question": "What is not an emergency CL?"}'), 500
    )
    assert (kept.method, kept.standalone) == ("llm", "What is not an emergency CL?")
