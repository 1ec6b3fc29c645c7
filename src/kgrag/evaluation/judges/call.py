"""One structured judge call whose failure becomes a note, never an exception and never a zero.

While :func:`recording` is active, every call also reports its request and reply (with the judge's
reasoning) to the recorder, so an evaluation run can store what each score rests on.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Generic, TypedDict, TypeVar

from pydantic import BaseModel, JsonValue

from kgrag.core.llm_types import StructuredResult
from kgrag.evaluation.judge_client import JudgeClient
from kgrag.models.llm import LLMUnavailableError, ProviderError

M = TypeVar("M", bound=BaseModel)


class JudgeRequest(TypedDict):
    """What one judge call asks: the prompt, the stage, the sampling and the prompt's variables."""

    prompt: str
    stage: str
    temperature: float
    seed: int
    variables: Mapping[str, object]


class JudgeCall(TypedDict):
    """One judge call as a run stores it: the request (variables as plain values), the judge model and
    prompt version, the validated reply dumped to JSON (its shape is the prompt's output schema; None when
    there was none), the raw text, why it was unusable (``note``), and the tokens it took."""

    prompt: str
    stage: str
    temperature: float
    seed: int
    variables: dict[str, str | int | float]
    model: str
    prompt_version: str
    reply: dict[str, JsonValue] | None
    raw: str
    note: str
    prompt_tokens: int
    completion_tokens: int
    cached: bool


_RECORDER: ContextVar[list[JudgeCall] | None] = ContextVar("kgrag_judge_recorder", default=None)


@contextmanager
def recording() -> Iterator[list[JudgeCall]]:
    """Collect every judge call made inside the block (request, reply, reasoning, tokens) into a list."""
    calls: list[JudgeCall] = []
    token = _RECORDER.set(calls)
    try:
        yield calls
    finally:
        _RECORDER.reset(token)


@dataclass(frozen=True)
class JudgeReply(Generic[M]):
    """The validated reply, or ``value is None`` and ``note`` says why (recorded as unmeasured);
    ``call_failed`` tells a call that never got a reply from a reply that could not be used."""

    value: M | None
    note: str
    tokens: int
    call_failed: bool = False


def ask(
    judge: JudgeClient,
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
    request: JudgeRequest = {
        "prompt": prompt,
        "stage": stage,
        "temperature": temperature,
        "seed": seed,
        "variables": variables,
    }
    try:
        result = judge.structured(prompt, variables, model, stage=stage, temperature=temperature, seed=seed)
    except (LLMUnavailableError, ProviderError) as exc:  # this item only; ModelError/budget stop the run
        _report(request, judge, None, f"judge call failed: {exc}")
        return JudgeReply(None, f"judge call failed: {exc}", 0, call_failed=True)
    tokens = result.usage.total_tokens
    if not result.ok or result.value is None:
        _report(request, judge, result, f"judge reply unusable: {result.error}")
        return JudgeReply(None, f"judge reply unusable: {result.error}", tokens)
    _report(request, judge, result, "")
    return JudgeReply(result.value, "", tokens)


def _report(request: JudgeRequest, judge: JudgeClient, result: StructuredResult[Any] | None, note: str) -> None:
    calls = _RECORDER.get()
    if calls is None:
        return
    usage = result.usage if result is not None else None
    calls.append(
        {
            "prompt": request["prompt"],
            "stage": request["stage"],
            "temperature": request["temperature"],
            "seed": request["seed"],
            "variables": {
                k: v if isinstance(v, str | int | float) else str(v) for k, v in request["variables"].items()
            },
            "model": judge.settings.model,
            "prompt_version": judge.prompt(request["prompt"]).version,
            "reply": result.value.model_dump(mode="json") if result is not None and result.value is not None else None,
            "raw": result.raw_text if result is not None else "",
            "note": note,
            "prompt_tokens": usage.prompt_tokens if usage else 0,
            "completion_tokens": usage.completion_tokens if usage else 0,
            "cached": usage.cached if usage else False,
        }
    )


def numbered(texts: list[str], label: str = "Item") -> str:
    """Items as ``[Item 1] ...`` blocks, the way the prompts refer to them."""
    return "\n\n".join(f"[{label} {i}] {text}" for i, text in enumerate(texts, start=1)) or "(none)"
