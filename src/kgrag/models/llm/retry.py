"""Backoff schedule for retried attempts: exponential with jitter, never shorter than Retry-After.

Jitter spreads the retries of many concurrent workers that failed together (a 429 burst) so they do
not hit the endpoint again in lockstep. A server's ``Retry-After`` is honoured up to
:data:`MAX_RETRY_AFTER_S`: an hour-long ask would stall the run for nothing a person can see, so the wait
is capped and every long wait is said on stderr (the ``kgrag.llm`` logger) before it starts.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Protocol

from kgrag.models.llm.base import ProviderError

MAX_RETRY_AFTER_S = 60.0
ANNOUNCE_WAIT_S = 5.0  # waits at least this long are said before they start

log = logging.getLogger("kgrag.llm")


class Headers(Protocol):
    """The part of a response's headers mapping that retry parsing needs."""

    def get(self, key: str) -> str | None: ...


@dataclass(frozen=True)
class RetryPolicy:
    """``max_retries`` retries after the first attempt; delay ``base_s * 2**n`` capped at ``max_s``."""

    max_retries: int = 6
    base_s: float = 0.5
    max_s: float = 30.0

    def delay(self, retry_index: int, retry_after_s: float | None, rng: random.Random) -> float:
        """Seconds before retry ``retry_index`` (0-based): half fixed, half random ("equal jitter")."""
        backoff = min(self.max_s, self.base_s * (2**retry_index))
        jittered = backoff / 2 + rng.uniform(0, backoff / 2)
        if retry_after_s is None:
            return jittered
        return max(jittered, min(retry_after_s, MAX_RETRY_AFTER_S))


def announce_wait(delay_s: float, retry_after_s: float | None, error: str) -> None:
    """Say on stderr that the run now waits ``delay_s`` before retrying (and that a longer
    ``Retry-After`` was cut to :data:`MAX_RETRY_AFTER_S`), so a long pause is never silent."""
    if retry_after_s is not None and retry_after_s > MAX_RETRY_AFTER_S:
        log.warning(
            "LLM endpoint asked to wait %.0f s (Retry-After) after %s; waiting %.0f s (the most kgrag waits) "
            "before retrying",
            retry_after_s,
            error,
            delay_s,
        )
    elif delay_s >= ANNOUNCE_WAIT_S:
        log.warning("LLM endpoint: %s; waiting %.0f s before retrying", error, delay_s)


def parse_retry_after(headers: Headers, now_epoch: float) -> float | None:
    """Seconds the server asked us to wait: ``retry-after-ms`` (OpenAI), else ``Retry-After`` in seconds
    or as an HTTP date. None when absent or unreadable."""
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - now_epoch)
    except (TypeError, ValueError, IndexError):
        return None


def unavailable_message(attempts: int, last: ProviderError | None) -> str:
    """Why the call gave up, with the advice that fits: a server nobody reached is checked, not waited for."""
    resume = "Finished calls are cached, so rerunning resumes where this stopped"
    if last is not None and last.unreachable:
        return (
            f"LLM call failed after {attempts} attempts (last error: {last}); no server answered there. Check that "
            f"it is running and that the provider's base_url names it (llm.providers.<provider>.base_url). {resume}."
        )
    return (
        f"LLM call failed after {attempts} attempts (last error: {last}); the endpoint looks down or overloaded. "
        f"{resume}; raise llm.max_retries or lower llm.max_concurrency if this repeats."
    )
