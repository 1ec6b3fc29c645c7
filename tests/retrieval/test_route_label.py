"""The line `auto` prints says what the router found the question to be, not only the route's name: two
entities the graph links only through a third send a question to the multi-hop route as "linked via a
third entity", a question about one thing (or two named together) is a single fact; the CLI, the API
trace and the typed decision carry the same label."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from typer.testing import CliRunner

from kgrag import Workspace
from kgrag.cli.app import app
from kgrag.core.context import RouteDecision
from kgrag.retrieval.steps.route_graph import Bridge
from kgrag.retrieval.steps.router import heuristic_decision


class Links:
    """Osprey and Heron are entities, linked only through Kestrel."""

    def known(self, phrase: str) -> bool:
        return phrase.lower() in {"osprey", "heron"}

    def bridge(self, named: Sequence[str]) -> Bridge | None:
        return Bridge("Osprey", "Kestrel", "Heron") if len(named) >= 2 else None


KNOWN = Links()


@pytest.mark.parametrize(
    ("question", "route", "label"),
    [
        ("Does Osprey send alerts to Heron by default?", "multi-hop", "linked via a third entity"),
        ("How does the Osprey outage affect Heron?", "multi-hop", "multi-hop"),
        ("What is the expense limit for hotels?", "local", "single fact"),
        ("What are the main themes across the incident reports?", "global", "corpus-wide"),
    ],
)
def test_the_label_says_what_the_heuristics_found(question: str, route: str, label: str) -> None:
    decided, reason, said = heuristic_decision(question, KNOWN)
    assert (decided, said) == (route, label)
    if route == "multi-hop" and label != "multi-hop":
        assert "connective" in reason and "Kestrel" in reason  # the features that decided


def test_the_route_line_leads_with_the_label() -> None:
    decision = RouteDecision("multi-hop", "graph-mix-rerank", "heuristics", "a, b", label="linked via a third entity")
    assert decision.line() == "linked via a third entity → graph-mix-rerank (heuristics: a, b)"
    assert RouteDecision("local", "rerank", "llm", "one thing").line().startswith("local → rerank")


def test_a_one_fact_question_naming_two_graph_entities_goes_to_the_local_route(graph_ws: Workspace) -> None:
    """On a word-extractor graph "expense" and "hotels" are entities named in one passage: the question is a
    single fact about both, routed to the local pipeline, and every presenter says so."""
    question = "What is the expense limit for hotels?"
    response = graph_ws.query(question, "auto", 3)
    assert response.route is not None and response.route.route == "local"
    assert response.route.label == "single fact" and "expense, hotels" in response.route.reason
    assert response.result.trace[0].params["label"] == response.route.label
    assert response.route.to_dict()["label"] == response.route.label  # what the API's `route` field carries
    cli = CliRunner().invoke(app, ["query", question, "-p", "auto", "--k", "3", "--no-stream",
                                   "-w", str(graph_ws.path)], env={"KGRAG_EMBEDDING__PROVIDER": "fake"})  # fmt: skip
    assert cli.exit_code == 0, cli.output
    route_line = next(line for line in cli.output.splitlines() if line.startswith("Route: "))
    assert route_line.startswith("Route: single fact → rerank")


class NoGraph:
    """A graph that knows none of the question's phrases: only the wording can route."""

    def known(self, phrase: str) -> bool:
        return False

    def bridge(self, named: Sequence[str]) -> Bridge | None:
        return None


@pytest.mark.parametrize(
    "question",
    [
        "What link-local IP address do the cloud instance metadata endpoints use?",  # a kind of address
        "What are the common sites and age-related risk factors of Hodgkin lymphoma?",
        "Which evidence shows that the astronomer was socially well-connected?",
        "Which docker run option stops a container from gaining privileges through setuid programs?",  # by what means
        "If a tumor spreads through all layers of the bile duct, which structures could it invade next?",
    ],
)
def test_a_cue_word_in_a_hyphenated_compound_or_through_alone_is_no_connective_wording(question: str) -> None:
    assert heuristic_decision(question, NoGraph()) == (
        "local",
        "one subject, no connective or corpus-wide wording",
        "single fact",
    )


@pytest.mark.parametrize(
    ("question", "cue"),
    [
        ("How is the link between Osprey and Heron documented?", "link"),
        ("What connections exist between Hall's wife and Moses Stickney through education?", "between"),
        ("How does the Osprey outage affect Heron through Kestrel?", "affect"),
        ("Is the cross-team budget compared with last year's?", "compared"),  # a hyphen elsewhere counts nothing
        ("Osprey versus Heron: which sends alerts first?", "versus"),
    ],
)
def test_connective_wording_still_routes_multi_hop(question: str, cue: str) -> None:
    assert heuristic_decision(question, NoGraph())[:2] == ("multi-hop", f"connective wording {cue!r}")
