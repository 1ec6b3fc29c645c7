"""What one call is billed: the larger of the server's and the local count, and two sends of one call.

The budget and the ledger trust no server: each is charged, component by component, the larger of what
the server reported and what was counted here, so under-reported usage or a reply past ``max_tokens``
still counts in full. A server figure under :data:`DISTRUST_SHARE` of the local count (and
:data:`DISTRUST_FLOOR` tokens short) is marked ``distrusted``, so the cost line says why it differs.
"""

from __future__ import annotations

import time
from dataclasses import replace

from kgrag.core.llm_types import ChatResponse, Prices, Usage, UsageSource
from kgrag.core.llm_usage import LOOP_SOURCE
from kgrag.models.llm.reply_loop import LOOP_FINISH

DISTRUST_SHARE = 0.5  # a reported figure under this share of the local count is not believed...
DISTRUST_FLOOR = 32  # ...when it is also this many tokens short (chat overheads make tiny calls differ)


def reply_usage(
    response: ChatResponse, counted_prompt: int, counted_reply: int, prices: Prices, started: float, attempts: int
) -> Usage:
    """The reply's usage: per component the larger of the reported and the locally counted figure (the
    counted one stands in for a missing one); ``distrusted`` when the server reported under
    :data:`DISTRUST_SHARE` of the local count (and :data:`DISTRUST_FLOOR` short), ``counted`` when it
    reported nothing. ``started``: the call's ``time.perf_counter()`` start."""
    reported = (response.prompt_tokens, response.completion_tokens)
    source: UsageSource = "counted" if None in reported else "api"
    if response.finish_reason == LOOP_FINISH:
        source = LOOP_SOURCE  # the tokens read before the loop stopped the reply, counted here
    counted = counted_prompt + counted_reply
    if source == "api" and sum(r or 0 for r in reported) < min(DISTRUST_SHARE * counted, counted - DISTRUST_FLOOR):
        source = "distrusted"
    prompt = max(response.prompt_tokens or 0, counted_prompt)
    completion = max(response.completion_tokens or 0, counted_reply)
    return Usage(prompt, completion, source, prices.cost(prompt, completion), elapsed_ms(started), attempts)


def both_sends(first: Usage, second: Usage) -> Usage:
    """One call's usage over two sends: both billed; the second's latency and attempt count already run
    from the call's start; a distrusted or counted figure in either is said."""
    return replace(
        second,
        prompt_tokens=first.prompt_tokens + second.prompt_tokens,
        completion_tokens=first.completion_tokens + second.completion_tokens,
        source=first.source if first.source != "api" else second.source,
        cost_usd=first.cost_usd + second.cost_usd,
    )


def elapsed_ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000.0
