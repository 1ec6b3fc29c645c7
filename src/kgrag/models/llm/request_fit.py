"""Fit one request to the model's known context window before it is sent, instead of refusing it.

A configuration is fitted once (:mod:`kgrag.models.llm.window_fit`, :mod:`kgrag.graph.extract.preflight`),
but single requests still vary: a re-ask quotes the rejected reply, a unit may be longer than its budget,
a server's own tokenizer counts differently. Every request therefore passes :func:`fit_request` in the
call runner, which, when ``prompt + max_tokens`` would overflow the window, in order:

1. drops a quoted reply (the assistant turn of a re-ask) to one line: the error that follows it says what
   was wrong, and a reply that was cut at the token limit is the largest message of the request;
2. lowers ``max_tokens`` to what the window leaves, down to a floor (:data:`MIN_REPLY_TOKENS`, or the
   request's own ``max_tokens`` when smaller);
3. raises :class:`RequestTooLargeError`: this request cannot be sent. It is a :class:`ModelError`, so a
   plain chat call still stops; a structured call turns it into a failed item, which a caller that can
   make the request smaller (graph extraction splits its unit) does, and every other item goes on.

The error names the settings that set the request's size (:data:`SIZE_SETTINGS`, by prompt).
"""

from __future__ import annotations

from dataclasses import replace

from kgrag.core.errors import ModelError
from kgrag.core.llm_types import ChatRequest, Message, Usage
from kgrag.models.llm.tokens import TextTokenCounter, count_message_tokens

MIN_REPLY_TOKENS = 256  # below this a structured reply is rarely complete: refuse rather than send
DROPPED_REPLY = "(my previous reply, omitted here: it did not fit the context window)"
CUT_REPLY = "(my previous reply, omitted here: it was cut off at the token limit)"  # a re-ask quotes no half reply
CUT_MARK = "cut off at the token limit"  # in the error of a reply cut at max_tokens (structured.parse_reply)
TOO_LARGE_MARK = "does not fit the context window"
FILLED_SHARE = 0.75  # a reply this close to its room (or the window) was cut by the limit, not by a fault
FIRST_REPLY_MARK = "(first reply:"  # a re-ask's error ends with the first reply's, after this

_UNIT = "graph.extractors.llm.unit_tokens (the text per extraction request; its reply room is about twice that)"
# what sets a request's size, per prompt: the hint a too-large request names
SIZE_SETTINGS = {
    "extract_graph": _UNIT,
    "glean_graph": _UNIT,
    "answer": "generation.context_tokens (the passages an answer carries) or llm.max_output_tokens",
    "community_report": "communities.report_input_tokens (the material per report)",
}
DEFAULT_SIZE_SETTINGS = "llm.max_output_tokens (the reply room)"
SERVER_HINT = (
    "or raise the server's window (llama.cpp --ctx-size, vLLM --max-model-len, Ollama num_ctx / "
    "OLLAMA_CONTEXT_LENGTH) and then llm.context_window"
)


class RequestTooLargeError(ModelError):
    """One request cannot fit the model's context window even with its reply room at the floor."""


def size_settings(prompt_name: str | None) -> str:
    """The settings that set the size of requests of ``prompt_name``, for error messages."""
    return SIZE_SETTINGS.get(prompt_name or "", DEFAULT_SIZE_SETTINGS)


def is_size_failure(error: str | None) -> bool:
    """True when a failed item's error says its last reply was cut at the token limit or its request did not
    fit: a smaller request may succeed where the same one would fail again. Only the last try counts (a
    re-ask's error quotes the first reply's after ``(first reply:``)."""
    if error is None:
        return False
    last = error.split(FIRST_REPLY_MARK, 1)[0]
    return CUT_MARK in last or TOO_LARGE_MARK in last


def cut_short(error: str, usage: Usage, max_tokens: int, window: int | None) -> str:
    """``error`` as it should be recorded: a reply said to be cut at the token limit that filled neither its
    reply room nor the window (by :data:`FILLED_SHARE`) was cut by something else (a proxy, a dropped
    stream): asking again is the remedy there, not a smaller request, so the error stops saying "token
    limit" and :func:`is_size_failure` is False for it."""
    if CUT_MARK not in error:
        return error
    filled = max_tokens and usage.completion_tokens >= FILLED_SHARE * max_tokens
    full = window is not None and usage.prompt_tokens + usage.completion_tokens >= FILLED_SHARE * window
    if filled or full or not max_tokens:
        return error
    return (
        f"the reply stopped early ({usage.completion_tokens} of {max_tokens} reply tokens) marked as cut off; "
        "give the complete answer again"
    )


def _drop_quoted_reply(messages: tuple[Message, ...]) -> tuple[Message, ...] | None:
    """``messages`` with a re-ask's quoted reply replaced by :data:`DROPPED_REPLY`, or None when there is none."""
    if len(messages) < 3 or messages[-2]["role"] != "assistant":
        return None
    if messages[-2]["content"] in (DROPPED_REPLY, CUT_REPLY):
        return None
    dropped: Message = {"role": "assistant", "content": DROPPED_REPLY}
    return (*messages[:-2], dropped, messages[-1])


def fit_request(request: ChatRequest, counter: TextTokenCounter, window: int | None) -> tuple[ChatRequest, int]:
    """``request`` fitted to ``window`` and its prompt tokens; raises :class:`RequestTooLargeError` when it
    cannot be (see the module docstring). Unchanged when the window is unknown or the request fits."""
    prompt_tokens = count_message_tokens(counter, request.messages)
    max_tokens = request.max_tokens or 0
    if window is None or prompt_tokens + max_tokens <= window:
        return request, prompt_tokens
    shorter = _drop_quoted_reply(request.messages)
    if shorter is not None:
        request = replace(request, messages=shorter)
        prompt_tokens = count_message_tokens(counter, shorter)
        if prompt_tokens + max_tokens <= window:
            return request, prompt_tokens
    floor = min(max_tokens, MIN_REPLY_TOKENS) if max_tokens else 0
    room = window - prompt_tokens
    if max_tokens and room >= floor and room > 0:
        return replace(request, params={**request.params, "max_tokens": room}), prompt_tokens
    name = request.prompt.name if request.prompt else None
    raise RequestTooLargeError(
        f"a request{f' of prompt {name!r}' if name else ''} of {prompt_tokens} prompt tokens with at least "
        f"{floor} for its reply {TOO_LARGE_MARK} of {window} tokens (llm.context_window). Lower "
        f"{size_settings(name)}, {SERVER_HINT}."
    )
