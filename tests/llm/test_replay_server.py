"""The replay server answers a request recorded more than once with its replies in recorded order."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from kgrag.testing.replay_server import ReplayServer


def _record(content: str, temperature: float, reply: str, completion: int) -> str:
    messages = [{"role": "user", "content": content}]
    return json.dumps({
        "messages": messages, "params": {"temperature": temperature}, "prompt": "extract_graph",
        "response": reply, "finish_reason": "stop", "usage": [5, completion],
    })  # fmt: skip


def test_a_request_recorded_twice_gets_both_replies_in_order_then_the_last(tmp_path: Path) -> None:
    recording = tmp_path / "replies.jsonl"
    lines = [_record("retry me", 0.7, "first reply", 3), _record("plain", 0.0, "only", 1),
             _record("retry me", 0.7, "second reply", 4)]  # fmt: skip
    recording.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with ReplayServer(recording) as server:

        def ask(content: str, temperature: float) -> str:
            body = {"model": "local", "messages": [{"role": "user", "content": content}], "temperature": temperature}
            reply = httpx.post(server.base_url + "/chat/completions", json=body).json()
            return str(reply["choices"][0]["message"]["content"])

        assert [ask("retry me", 0.7) for _ in range(3)] == ["first reply", "second reply", "second reply"]
        assert [ask("plain", 0.0) for _ in range(2)] == ["only", "only"]
        assert ask("retry me", 0.0) == ""  # another temperature is another request: not recorded
        assert (server.answered, server.unrecorded) == (5, 1)
