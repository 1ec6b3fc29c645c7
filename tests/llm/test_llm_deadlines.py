"""A lying or stalling endpoint cannot hold a run: ``llm.timeout_s`` bounds a whole attempt even when the
reply trickles in a byte at a time, and an hour-long ``Retry-After`` is cut short and said on stderr."""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kgrag.core.llm_types import ChatRequest
from kgrag.models.llm import create_llm_client
from kgrag.models.llm.base import ProviderError
from kgrag.models.llm.http import OpenAICompatibleProvider
from kgrag.models.llm.retry import MAX_RETRY_AFTER_S, RetryPolicy
from kgrag.store import Store
from kgrag.testing import FakeOpenAIServer, FaultPlan
from kgrag.testing.trickle_server import TrickleServer


def test_a_trickled_reply_is_cut_at_the_timeout() -> None:
    # a byte every 0.1 s: far below the 1 s per-read timeout, so only a whole-request bound stops it
    with TrickleServer(gap_s=0.1) as server:
        provider = OpenAICompatibleProvider(server.base_url, timeout_s=1.0)
        try:
            with pytest.raises(ProviderError, match=r"timeout: the reply took over llm\.timeout_s = 1 s") as caught:
                provider.complete(ChatRequest(model="m", messages=({"role": "user", "content": "hi"},)))
        finally:
            provider.close()
    assert caught.value.retryable
    assert server.bytes_sent < server.reply_size  # the client gave up mid-reply, it did not wait for the end


def test_retry_after_is_capped_and_said(
    store: Store, fast_cfg: Callable[..., Any], caplog: pytest.LogCaptureFixture
) -> None:
    assert RetryPolicy().delay(0, 3600.0, random.Random(0)) == MAX_RETRY_AFTER_S
    waits: list[float] = []
    faults = FaultPlan(sequence=["rate_limit"], retry_after_s=3600.0)
    with FakeOpenAIServer(faults=faults) as server:
        client = create_llm_client(fast_cfg(server.base_url, timeout_s=5.0), store, run_id="r")
        client.runner.sleep = waits.append  # record the wait instead of sleeping it
        with caplog.at_level(logging.WARNING, logger="kgrag.llm"):
            reply = client.chat([{"role": "user", "content": "hello"}], stage="test.retry")
    assert reply and waits == [MAX_RETRY_AFTER_S]
    assert "asked to wait 3600 s" in caplog.text and f"waiting {MAX_RETRY_AFTER_S:.0f} s" in caplog.text


def test_no_warning_for_short_backoffs(caplog: pytest.LogCaptureFixture, tmp_path: Path) -> None:
    from kgrag.models.llm.retry import announce_wait

    with caplog.at_level(logging.WARNING, logger="kgrag.llm"):
        announce_wait(0.5, None, "HTTP 500")
    assert caplog.text == ""
    with caplog.at_level(logging.WARNING, logger="kgrag.llm"):
        announce_wait(20.0, 20.0, "HTTP 429")
    assert "waiting 20 s before retrying" in caplog.text
