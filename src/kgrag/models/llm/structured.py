"""Structured output: ask for JSON against a schema, repair and validate the reply, re-ask once.

Policy (documented in the client): a reply is parsed leniently (:mod:`json_repair`) and validated with
pydantic. A reply cut off at ``max_tokens`` (``finish_reason == "length"``) is rejected outright rather
than repaired, because closing its brackets would turn a half answer into a plausible-looking whole one;
for the same reason a reply whose JSON simply stops (a provider that cut it without saying so) is
rejected too, although fences, prose, quotes and commas are still repaired. A reply stopped in a
repetition loop (:mod:`.reply_loop`) is whole JSON up to the loop; its repeated items are dropped.
A rejected reply is never cached; the caller re-asks once, quoting the error, and then gives up on that
item with the reason recorded.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, JsonValue, ValidationError

from kgrag.core.llm_types import Message
from kgrag.models.llm.capabilities import response_format_for
from kgrag.models.llm.json_repair import JSONRepairError, repair_json
from kgrag.models.llm.reply_loop import LOOP_FINISH, drop_repeats

MAX_ECHOED_REPLY_CHARS = 4000
MAX_ERROR_CHARS = 600


TRUNCATION_FIX = "closed truncated output"  # the fix json_repair reports for a reply that stops mid-way


class ReplyInvalid(Exception):
    """The reply cannot be used; the message is the reason shown to the model and recorded."""


def compact_schema(schema: dict[str, JsonValue]) -> str:
    """The schema as compact JSON: the model needs the structure, not the whitespace."""
    return json.dumps(schema, separators=(",", ":"), ensure_ascii=False)


def with_instruction(messages: list[Message], instruction: str) -> list[Message]:
    """Append the output-format instruction to the system message (or add one)."""
    if messages and messages[0]["role"] == "system":
        first: Message = {"role": "system", "content": messages[0]["content"] + "\n\n" + instruction}
        return [first, *messages[1:]]
    return [{"role": "system", "content": instruction}, *messages]


def response_format(json_mode: str, name: str, schema: dict[str, JsonValue] | None) -> dict[str, JsonValue] | None:
    """The ``response_format`` request parameter for ``llm.json_mode``, or None to rely on the prompt.

    ``auto`` asks for the strongest mode (``json_schema``); the HTTP provider steps down to what the server
    takes (:mod:`kgrag.models.llm.capabilities`), so the cache key stays the same whatever the server is.
    """
    return response_format_for("json_schema" if json_mode == "auto" else json_mode, name, schema)


def _validation_message(exc: ValidationError) -> str:
    problems = []
    for error in exc.errors()[:8]:
        where = ".".join(str(part) for part in error["loc"]) or "(root)"
        problems.append(f"{where}: {error['msg']}")
    return "does not match the schema: " + "; ".join(problems)


def parse_reply(text: str, finish_reason: str | None, model: type[BaseModel] | None) -> tuple[Any, bool]:
    """The validated value (a model instance, or plain JSON when ``model`` is None) and whether it
    needed repair; raises :class:`ReplyInvalid` with a reason fit to show the model."""
    if finish_reason == "length":
        raise ReplyInvalid("the reply was cut off at the token limit; give a shorter complete answer")
    expect = "{" if model is not None else None
    try:
        repaired = repair_json(text, expect=expect)
    except JSONRepairError as exc:
        raise ReplyInvalid(f"it is not JSON ({exc})"[:MAX_ERROR_CHARS]) from None
    if TRUNCATION_FIX in repaired.fixes:  # closing the brackets would accept the first part as the whole
        raise ReplyInvalid("the JSON stops before its end (it was cut off); give the complete JSON again")
    value = drop_repeats(repaired.value) if finish_reason == LOOP_FINISH else repaired.value
    if model is None:
        return value, repaired.repaired
    try:
        return model.model_validate(value), repaired.repaired
    except ValidationError as exc:
        raise ReplyInvalid(_validation_message(exc)[:MAX_ERROR_CHARS]) from None


COPY_MIN_WORDS = 5  # a sentence this long found verbatim in the worked example was copied, not written
COPY_MIN_PHRASE_WORDS = 3  # a list item this long equal to one of the example's items was copied
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in _strings(v)]
    return []


def copied_from_example(value: Any, example_reply: str, request: str = "") -> str | None:
    """A sentence of the reply that is a verbatim copy of the prompt's worked example (small models copy
    the example instead of answering), or None. A sentence the ``request`` itself contains is quoted from
    the input, not copied: an example drawn from the user's own documents (``kgrag prompts tune``) shares
    sentences with the text it is shown next to."""
    if not example_reply:
        return None
    dumped = value.model_dump() if isinstance(value, BaseModel) else value
    folded = " ".join(example_reply.split()).casefold()
    given = " ".join(request.split()).casefold()
    for text in _strings(dumped):
        for sentence in _SENTENCE_END.split(text):
            words = " ".join(sentence.split()).casefold()
            if len(sentence.split()) >= COPY_MIN_WORDS and words in folded and words not in given:
                return sentence
    return None


def check_not_copied(value: Any, example_reply: str, request: str = "") -> None:
    """Raise :class:`ReplyInvalid` for a reply that copies the worked example (it is re-asked, never kept)."""
    copied = copied_from_example(value, example_reply, request)
    if copied is not None:
        raise ReplyInvalid(
            f"it copies the example reply ({copied[:80]!r}); the example only shows the format: answer about the "
            "input you were given"
        )


def without_copied_items(value: Any, example_reply: str, request: str = "") -> Any:
    """``value`` with the list items that copy the worked example dropped: an item holding a sentence of it
    (:func:`copied_from_example`) or equal to one of its items. Small models often add the example's
    entities and relations to their own; the rest of such a reply is still an answer about the input.
    Raises :class:`ReplyInvalid` (re-asked) when a copy sits outside a list, or when every item of the reply
    was a copy and nothing of its own is left."""
    if not example_reply or not isinstance(value, BaseModel):
        check_not_copied(value, example_reply, request)
        return value
    shown = _example_items(type(value), example_reply)
    kept: dict[str, list[Any]] = {}
    for name, items in value:
        if isinstance(items, list) and items:
            own = [i for i in items if not _copied_item(i, shown.get(name, ()), example_reply, request)]
            if len(own) < len(items):
                kept[name] = own
    if kept:
        value = value.model_copy(update=kept)
        if not any(isinstance(items, list) and items for _, items in value):
            raise ReplyInvalid(
                "every item of it copies the example reply; the example only shows the format: answer about the "
                "input you were given"
            )
    check_not_copied(value, example_reply, request)
    return value


def _example_items(model: type[BaseModel], example_reply: str) -> dict[str, list[Any]]:
    """The worked example's list items per field, dumped (nothing when the example does not parse)."""
    try:
        example = model.model_validate_json(example_reply)
    except ValidationError:
        return {}
    return {name: [_dumped(i) for i in items] for name, items in example if isinstance(items, list)}


def _dumped(item: Any) -> Any:
    return item.model_dump() if isinstance(item, BaseModel) else item


def _copied_item(item: Any, shown: Sequence[Any], example_reply: str, request: str) -> bool:
    """An object or a phrase of three words or more equal to one of the example's, or any item holding one
    of its sentences (a word or a number equal to the example's, such as a ranking's ``1``, is no copy)."""
    phrase = isinstance(item, str) and len(item.split()) >= COPY_MIN_PHRASE_WORDS
    whole = (isinstance(item, dict | BaseModel) or phrase) and _dumped(item) in shown
    return whole or copied_from_example(item, example_reply, request) is not None


def reask_messages(messages: list[Message], bad_reply: str, reask_text: str) -> list[Message]:
    """The conversation for the single re-ask: original request, the bad reply, the correction."""
    return [
        *messages,
        {"role": "assistant", "content": bad_reply[:MAX_ECHOED_REPLY_CHARS]},
        {"role": "user", "content": reask_text},
    ]
