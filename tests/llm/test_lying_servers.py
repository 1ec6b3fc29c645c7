"""Servers that lie about usage or ignore ``max_tokens`` cannot push spend past the token budget, and empty
replies are failures, not summaries."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from kgrag.config import LLMConfig
from kgrag.core.errors import BudgetExceededError
from kgrag.graph.build.summarize import CallableSummarizer
from kgrag.graph.build.summarize_llm import llm_summarize
from kgrag.models.llm import ScriptedProvider, ScriptRule, create_llm_client
from kgrag.models.llm.http import OpenAICompatibleProvider

CAP = 6000
REPLY_WORDS = 400  # about 400 tokens, whatever max_tokens asked


def _lying_provider(usage: dict[str, Any]) -> OpenAICompatibleProvider:
    body = {"choices": [{"message": {"content": "word " * REPLY_WORDS}, "finish_reason": "stop"}], "usage": usage}
    provider = OpenAICompatibleProvider("http://server/v1", json_mode="off", model="m")
    provider._client = httpx.Client(
        transport=httpx.MockTransport(lambda r: httpx.Response(200, json=body)), base_url="http://server/v1/"
    )
    return provider


@pytest.mark.parametrize(
    "usage",
    [
        {"prompt_tokens": -5000, "completion_tokens": -5000},  # negative: never accepted
        {"prompt_tokens": 1, "completion_tokens": 1},  # under-reported
        {},  # not reported at all
    ],
)
def test_spend_stays_within_the_budget_whatever_the_server_reports(usage: dict[str, Any]) -> None:
    cfg = LLMConfig(provider="openai", model="m", max_tokens_budget=CAP, max_output_tokens=20, max_concurrency=1)
    client = create_llm_client(cfg, provider=_lying_provider(usage))
    counter = client.runner.counter()
    real = 0
    with pytest.raises(BudgetExceededError):
        for i in range(100):
            question = f"say something {i}"
            result = client.chat([{"role": "user", "content": question}], stage="query.generate")
            real += counter.count(question) + counter.count(result.text) + 4
    assert 0 < real <= 1.1 * CAP  # what the server really sent, counted here, never passes the cap by 10%
    assert client.runner.budget.used >= real * 0.95  # the budget was charged what was really sent
    summary = client.summary()
    assert summary.total.prompt_tokens >= 0 and summary.total.completion_tokens >= 0


def test_an_empty_summary_reply_is_a_counted_failure_not_a_summary() -> None:
    provider = ScriptedProvider([ScriptRule(".", "   ")])
    client = create_llm_client(LLMConfig(provider="scripted"), provider=provider)
    summarizer = CallableSummarizer(lambda name, texts: llm_summarize(client, name, texts, 40), 40)
    text = summarizer.summarize("Kestrel", ["Kestrel is a product.", "Kestrel ships sensors."])
    assert text and summarizer.failures == 1  # the extractive fallback stands in, and the builder retries it
