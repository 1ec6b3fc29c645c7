"""The shipped fake OpenAI server itself: embeddings, routes, usage block, fault sequence, counters."""

from __future__ import annotations

import httpx
import numpy as np

from kgrag.config import EmbeddingConfig
from kgrag.models.embeddings import OpenAIEmbedder
from kgrag.testing import FakeOpenAIServer, FaultPlan, fake_openai_server


def test_embeddings_are_deterministic_and_sdk_compatible() -> None:
    with FakeOpenAIServer() as server:
        cfg = EmbeddingConfig(provider="openai", base_url=server.base_url, model="fake", dimension=64)
        embedder = OpenAIEmbedder(cfg)
        first = embedder.embed(["the cat sat", "a dog ran", "the cat sat"])
        assert first.shape == (3, 64)
        assert np.allclose(first[0], first[2]) and not np.allclose(first[0], first[1])
        assert server.stats.embedding_requests == 1


def test_chat_reply_has_usage_and_unknown_routes_are_404() -> None:
    with fake_openai_server() as base_url:
        body = {"model": "m", "messages": [{"role": "user", "content": "one two"}]}
        reply = httpx.post(base_url + "/chat/completions", json=body).json()
        assert reply["choices"][0]["message"]["content"] == "echo: one two"
        assert reply["usage"] == {"prompt_tokens": 2, "completion_tokens": 3, "total_tokens": 5}
        assert httpx.post(base_url + "/completions", json=body).status_code == 404


def test_fault_sequence_then_healthy() -> None:
    plan = FaultPlan(sequence=["rate_limit", "server_error", "truncated", None], retry_after_s=2)
    with FakeOpenAIServer(faults=plan) as server:
        url = server.base_url + "/chat/completions"
        body = {"model": "m", "messages": [{"role": "user", "content": "a b c d e f"}]}
        limited = httpx.post(url, json=body)
        assert limited.status_code == 429 and limited.headers["retry-after"] == "2"
        assert httpx.post(url, json=body).status_code == 500
        cut = httpx.post(url, json=body).json()["choices"][0]
        assert cut["finish_reason"] == "length" and len(cut["message"]["content"]) < len("echo: a b c d e f")
        assert httpx.post(url, json=body).json()["choices"][0]["finish_reason"] == "stop"
        assert server.stats.faults == {"rate_limit": 1, "server_error": 1, "truncated": 1}
        assert server.stats.max_in_window(60) == 4 and server.stats.max_in_flight == 1


def test_a_blocked_rate_injects_its_exact_share_in_every_block() -> None:
    plan = FaultPlan(rate=0.3, kinds=("server_error",), seed=5, block=10)
    with FakeOpenAIServer(faults=plan) as server:
        url = server.base_url + "/chat/completions"
        body = {"model": "m", "messages": [{"role": "user", "content": "a"}]}
        codes = [httpx.post(url, json=body).status_code for _ in range(40)]
    blocks = [codes[i : i + 10] for i in range(0, 40, 10)]
    assert [block.count(500) for block in blocks] == [3, 3, 3, 3]
    assert len({tuple(block) for block in blocks}) > 1  # the places are drawn, not a fixed pattern


def test_a_server_honouring_max_tokens_stops_a_long_reply_there_with_length() -> None:
    from kgrag.documents.tokens import TokenCounter

    long_reply = "word " * 300

    def responder(_: object) -> str:
        return long_reply

    counter = TokenCounter.for_encoding("cl100k_base")
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 50}
    with FakeOpenAIServer(responder, cut_at_max_tokens=True) as server:
        choice = httpx.post(f"{server.base_url}/chat/completions", json=body).json()["choices"][0]
        short = httpx.post(f"{server.base_url}/chat/completions", json={**body, "max_tokens": 1000}).json()
    assert choice["finish_reason"] == "length" and len(counter.encode(choice["message"]["content"])) == 50
    assert short["choices"][0]["finish_reason"] == "stop"  # a reply under max_tokens goes out whole
    with FakeOpenAIServer(responder) as ignoring:  # the default ignores max_tokens, as some servers do
        whole = httpx.post(f"{ignoring.base_url}/chat/completions", json=body).json()["choices"][0]
    assert whole["finish_reason"] == "stop" and whole["message"]["content"] == long_reply
