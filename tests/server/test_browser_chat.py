"""The Ask view as a conversation, in headless Chromium against ``kgrag serve`` as a real process, with no
injected or mocked responses: the workspace's LLM is the fake OpenAI server of this test process, which
streams its replies a word at a time. With one pipeline chosen, an answer streams in (a part of it is
on the page before the rest), a follow-up ("and who leads it?") is rewritten from the previous turn and
answered from it, its citation opens the cited passage, its trace shows the rewrite, "context only"
lists passages without an answer, Stop ends a stream, and "New conversation" starts afresh. Screenshots
go to ``build/test-artifacts/``.
"""

from __future__ import annotations

import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.server.browser_support import ARTIFACTS, Page
from tests.server.serve_support import serve

from kgrag.testing import FakeOpenAIServer
from kgrag.testing.answer_responder import answer_responder
from kgrag.testing.workspace_toml import write_workspace_toml

LEAD = "Rui Carvalho"
SOME_TEXT = re.compile(r"\S")


@pytest.fixture(scope="module")
def llm() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(answer_responder, stream_delay_s=0.03) as server:
        yield server


@pytest.fixture(scope="module")
def served(sample_dir: Path, llm: FakeOpenAIServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    workspace = tmp_path_factory.mktemp("chat") / "sample"
    shutil.copytree(sample_dir, workspace)
    write_workspace_toml(workspace, {"embedding.provider": '"fake"', "graph.extractor": '"none"',
                                     "llm.provider": '"openai"', "llm.providers.openai.base_url": f'"{llm.base_url}"',
                                     "llm.model": '"fake-model"', "llm.cache_enabled": "false"})  # fmt: skip
    yield from serve({"sample": workspace})


@pytest.fixture
def view(page: Page) -> Any:
    """The Ask view with only ``hybrid`` ticked."""
    ask = page.open("ask")
    ask.wait_for_selector("#view-ask:not([hidden]) #pipelines input[data-pipeline='hybrid']")
    for box in ask.locator("#pipelines input").all():
        box.set_checked(False)
    ask.check("#pipelines input[data-pipeline='hybrid']")
    return ask


def _ask(page: Any, question: str) -> Any:
    turns = page.locator(".turn").count()
    page.fill("#question", question)
    page.press("#question", "Enter")
    turn = page.locator(".turn").nth(turns)
    turn.locator(".answer:not(.streaming) .cost, .error").first.wait_for(timeout=60_000)
    return turn


def _shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"webapp-chat-{name}.png"), full_page=True)


def test_answers_stream_and_a_follow_up_is_answered_from_the_previous_turn(view: Any, llm: FakeOpenAIServer) -> None:
    streams = llm.stats.streams
    view.fill("#question", "Which team owns Kestrel?")
    view.click("#ask-button")
    partial = view.locator(".answer.streaming .text.live", has_text=SOME_TEXT)
    partial.wait_for()  # (no wait_for_function: the page's CSP refuses the eval it needs)
    seen = partial.inner_text()
    first = view.locator(".turn").nth(0)
    first.locator(".answer:not(.streaming) .cost").wait_for(timeout=60_000)
    final = first.locator(".answer .text").inner_text()
    assert seen and len(seen) < len(final)  # a part of the answer was on the page before the rest
    assert view.inner_text("#conversation-id").startswith("conversation conv-")
    second = _ask(view, "and who leads it?")
    assert llm.stats.streams == streams + 2
    assert "searched for: and who leads it (Kestrel)?" in second.locator(".standalone").inner_text()
    answer = second.locator(".answer[data-pipeline='hybrid']")
    assert LEAD in answer.locator(".text").inner_text() and "LLM:" in answer.locator(".cost").inner_text()
    answer.locator("details.trace summary").click()
    assert "rewrite" in answer.locator("details.trace tbody tr").first.inner_text()
    _shot(view, "conversation")
    answer.locator("a.citation").first.click()
    view.wait_for_selector("#passage-dialog[open] .sentence.hl")
    assert LEAD in view.inner_text("#passage-dialog .sentence.hl")
    view.keyboard.press("Escape")
    assert view.locator(".turn").count() == 2  # the history stays on the page


def test_context_only_stop_and_a_new_conversation(view: Any, llm: FakeOpenAIServer) -> None:
    view.check("#context-only")
    calls = llm.stats.chat_requests
    turn = _ask(view, "Who leads the Platform team?")
    assert "context only" in turn.locator(".answer .text").inner_text()
    assert turn.locator(".answer .passage").count() > 0 and llm.stats.chat_requests == calls  # no LLM call
    _shot(view, "context-only")
    view.uncheck("#context-only")
    aborted = llm.stats.streams_aborted
    view.fill("#question", "Which team owns Osprey?")
    view.click("#ask-button")
    view.locator(".answer.streaming .text.live", has_text=SOME_TEXT).wait_for()
    view.click("#stop-button")
    view.locator(".turn").nth(1).locator(".stopped").wait_for()
    deadline = time.monotonic() + 30
    while llm.stats.streams_aborted == aborted and time.monotonic() < deadline:
        time.sleep(0.1)
    assert llm.stats.streams_aborted == aborted + 1  # stopping the page's stream stopped the LLM's
    view.click("#new-conversation")
    assert view.locator(".turn").count() == 0 and view.inner_text("#conversation-id") == ""
    alone = _ask(view, "and who leads it?")
    assert alone.locator(".standalone").count() == 0  # no earlier turn: asked as written
