"""``kgrag chat`` on the sample corpus: a follow-up is answered from the previous turn (LLM-free and with
the fake OpenAI server's model), conversations are stored, listed, continued and deleted."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kgrag import Workspace
from kgrag.cli.app import app
from kgrag.generation.rewrite import Turn
from kgrag.testing import FakeOpenAIServer

FIRST, FOLLOW_UP = "Which team owns Kestrel?", "and who leads it?"
LEAD = "Rui Carvalho"  # the Platform team lead, who owns Kestrel (examples/sample/WORLD.md)


def _chat(ws: Path, lines: list[str], *options: str) -> str:
    result = CliRunner().invoke(app, ["chat", "-w", str(ws), *options], input="\n".join(lines) + "\n")
    assert result.exit_code == 0, result.output
    return result.output


def _answers(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("Answer: ")]


@pytest.fixture
def plain_ws(indexed_sample: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(indexed_sample, tmp_path / "ws"))


def test_chat_answers_a_follow_up_from_the_previous_turn_without_an_llm(plain_ws: Path) -> None:
    alone = _answers(_chat(plain_ws, [FOLLOW_UP]))
    assert len(alone) == 1 and LEAD not in alone[0]  # by itself the follow-up finds no lead of anything
    output = _chat(plain_ws, [FIRST, FOLLOW_UP])
    answers = _answers(output)
    assert len(answers) == 2 and LEAD in answers[1] and "Kestrel" in answers[1]
    assert f"searched for: {FOLLOW_UP} (Kestrel)" in output


def test_conversations_are_stored_listed_continued_and_deleted(plain_ws: Path) -> None:
    output = _chat(plain_ws, [FIRST])
    conversation = re.search(r"conversation (conv-\w+)", output)
    assert conversation is not None
    ident = conversation.group(1)
    continued = _chat(plain_ws, [FOLLOW_UP], "--resume", ident)
    assert LEAD in _answers(continued)[0] and "conversation conv-" not in continued
    listed = _chat(plain_ws, [], "--list")
    assert f"{ident}  2 turns  {FIRST}" in listed
    with Workspace.open(plain_ws) as ws:
        turns = ws.conversations.get(ident).turns
        assert [t.question for t in turns] == [FIRST, FOLLOW_UP] and turns[1].standalone.endswith("(Kestrel)")
    assert f"deleted conversation {ident}" in _chat(plain_ws, [], "--delete", ident)
    result = CliRunner().invoke(app, ["chat", "-w", str(plain_ws), "--resume", ident])
    assert result.exit_code == 1 and "no conversation" in result.output


def test_with_an_llm_the_follow_up_is_rewritten_by_the_model_and_the_trace_shows_it(
    llm_ws: Path, llm_server: FakeOpenAIServer
) -> None:
    output = _chat(llm_ws, [FIRST, FOLLOW_UP])
    answers = _answers(output)
    assert len(answers) == 2 and LEAD in answers[1], output
    assert "searched for: and who leads it (Kestrel)?" in output
    with Workspace.open(llm_ws) as ws:
        reply = ws.conversations.answer(FOLLOW_UP, [])
        assert reply.rewrite.method == "none"  # no history: taken as asked
        record = ws.conversations.list()[0]
        history = [Turn(t.question, t.answer, t.standalone) for t in record.turns[:1]]
        reply = ws.conversations.answer(FOLLOW_UP, history)
        step = reply.response.result.trace[0]
        assert step.step == "rewrite" and step.params["method"] == "llm"
        assert step.params["standalone"] == "and who leads it (Kestrel)?"
        stages = [c.stage for c in ws.store.llm_ledger.calls()]
        assert "query.rewrite" in stages
