"""One structured judge call whose failure becomes a note, never an exception and never a zero."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

from pydantic import BaseModel

from kgrag.models.llm import LLMClient, LLMUnavailableError, ProviderError

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class JudgeReply(Generic[M]):
    """The validated reply, or ``value is None`` and ``note`` says why (recorded as unmeasured);
    ``call_failed`` tells a call that never got a reply from a reply that could not be used."""

    value: M | None
    note: str
    tokens: int
    call_failed: bool = False


def ask(
    judge: LLMClient,
    prompt: str,
    variables: Mapping[str, object],
    model: type[M],
    *,
    stage: str,
    temperature: float,
    seed: int,
) -> JudgeReply[M]:
    """Ask once (the client repairs and re-asks once itself). ``seed`` is part of the request, so each
    repeat and trial is a distinct call rather than a cache hit of the first one."""
    try:
        result = judge.structured(prompt, variables, model, stage=stage, temperature=temperature, seed=seed)
    except (LLMUnavailableError, ProviderError) as exc:  # this item only; ModelError/budget stop the run
        return JudgeReply(None, f"judge call failed: {exc}", 0, call_failed=True)
    tokens = result.usage.total_tokens
    if not result.ok or result.value is None:
        return JudgeReply(None, f"judge reply unusable: {result.error}", tokens)
    return JudgeReply(result.value, "", tokens)


def numbered(texts: list[str], label: str = "Item") -> str:
    """Items as ``[Item 1] ...`` blocks, the way the prompts refer to them."""
    return "\n\n".join(f"[{label} {i}] {text}" for i, text in enumerate(texts, start=1)) or "(none)"
