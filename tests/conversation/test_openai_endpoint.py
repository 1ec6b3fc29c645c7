"""The OpenAI-compatible endpoint driven by the official ``openai`` client against ``kgrag serve`` running
as a real process (its workspace's own LLM is the fake OpenAI server of this test process): models are
listed, a cited answer comes back streamed and not streamed, the same, with citations inline and as data;
a follow-up is answered from the messages; the server's API keys apply."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the server extra is not installed (pip install 'kgrag[server]')")

import openai
from tests.server.serve_support import serve

pytestmark = pytest.mark.slow

KEY = "test-key-0123456789abcdef"
QUESTION = "Who leads the Platform team?"
# bm25: the workspace's hashing embedder makes the dense half of hybrid noise, and the passage naming the
# lead is then not always retrieved; what is under test is the endpoint, not the pipeline
MODEL = "kgrag/sample/bm25"


def serve_v1(workspace: Path, key_file: Path) -> Iterator[str]:
    """``kgrag serve -w sample=WS --api-key-file FILE``; yields its /v1 URL."""
    for url in serve({"sample": workspace}, "--api-key-file", str(key_file), env={"KGRAG_LLM__CACHE_ENABLED": "false"}):
        yield f"{url}/v1"


@pytest.fixture
def base_url(llm_ws: Path, tmp_path: Path) -> Iterator[str]:
    keys = tmp_path / "keys.txt"
    keys.write_text(f"{KEY}\n", encoding="utf-8")
    yield from serve_v1(llm_ws, keys)


def _extra(obj: Any, name: str) -> Any:
    return (obj.model_extra or {})[name]


def test_the_openai_client_gets_the_same_cited_answer_streamed_and_not(base_url: str) -> None:
    client = openai.OpenAI(base_url=base_url, api_key=KEY)
    models = [m.id for m in client.models.list()]
    assert "kgrag/sample" in models and "kgrag/sample/hybrid" in models and MODEL in models
    messages: Any = [{"role": "user", "content": QUESTION}]
    plain = client.chat.completions.create(model=MODEL, messages=messages)
    content = plain.choices[0].message.content or ""
    citations = _extra(plain, "citations")
    assert citations and f"[c:{citations[0]['id']}]" in content  # inline, and as data
    assert "Rui Carvalho" in content and "\n\nSources:\n" in content
    assert citations[0]["source"] and citations[0]["text"]
    assert citations[0]["attributed"] is False  # the scripted model cites its first sentence itself
    assert plain.usage is not None and plain.usage.completion_tokens > 0
    pieces, last = [], None
    for chunk in client.chat.completions.create(model=MODEL, messages=messages, stream=True):
        if chunk.choices and chunk.choices[0].delta.content:
            pieces.append(chunk.choices[0].delta.content)
        last = chunk
    assert len(pieces) > 3 and "".join(pieces) == content
    assert last is not None and last.choices[0].finish_reason == "stop"
    assert _extra(last, "citations") == citations


def test_a_follow_up_is_answered_from_the_messages_and_keys_are_required(base_url: str) -> None:
    client = openai.OpenAI(base_url=base_url, api_key=KEY)
    messages: Any = [{"role": "user", "content": "Which team owns Kestrel?"}]
    first = client.chat.completions.create(model="kgrag/sample", messages=messages)
    messages += [{"role": "assistant", "content": first.choices[0].message.content},
                 {"role": "user", "content": "and who leads it?"}]  # fmt: skip
    follow = client.chat.completions.create(model="kgrag/sample", messages=messages)
    assert "Rui Carvalho" in (follow.choices[0].message.content or "")
    assert _extra(follow, "kgrag")["standalone_question"] == "and who leads it (Kestrel)?"
    with pytest.raises(openai.AuthenticationError):
        openai.OpenAI(base_url=base_url, api_key="wrong-key-0123456789").models.list()
    with pytest.raises(openai.NotFoundError):
        client.chat.completions.create(model="kgrag/elsewhere", messages=messages)
