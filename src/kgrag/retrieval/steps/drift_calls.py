"""The parts of a DRIFT query that touch the LLM: the prompt-token ledger that decides, before each call,
whether it may be sent, and how the primer and follow-up prompts are filled to fit what is left.

Every prompt is counted as it will be sent (its rendered messages, with the layer's offline counter and
its per-message overhead) before the call. A call is sent only when the tokens already spent,
its own prompt and the reduce call that must follow (its instructions, the question and every intermediate
answer so far plus the one this call may add) stay within the budget, so the reduce always fits.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pydantic import JsonValue

from kgrag.core.context import ContextItem
from kgrag.core.llm_types import Message
from kgrag.models.llm import LLMClient
from kgrag.models.llm.structured import ReplyInvalid, parse_reply
from kgrag.models.llm.tokens import MESSAGE_OVERHEAD_TOKENS, REPLY_PRIMING_TOKENS
from kgrag.prompts import Prompt
from kgrag.prompts.schemas import DriftReply
from kgrag.retrieval.pipeline_settings import DriftSettings

PRIMER_PROMPT = "drift_primer"
FOLLOW_UP_PROMPT = "drift_follow_up"
REDUCE_PROMPT = "drift_reduce"
STAGE_PRIMER = "query.drift.primer"
STAGE_FOLLOW_UP = "query.drift.follow_up"
STAGE_REDUCE = "query.drift.reduce"
PRIMER_QUESTION = "first overview, from community reports"
"""What the primer's intermediate answer answered, as the reduce prompt lists it."""
SAFETY = 0.97  # providers' tokenisers differ a little from the offline counter
MAX_SOURCES = 3  # source passages named after a graph fact
_REPORT_LABELS = re.compile(r"\[\s*(R\d+(?:\s*[,;]\s*R\d+)*)\s*\]")

Counter = Callable[[str], int]


def message_tokens(messages: Sequence[Message], count: Counter) -> int:
    """Prompt tokens of ``messages`` as the LLM layer counts a request (content, per-message overhead and
    reply priming: :func:`~kgrag.models.llm.tokens.count_message_tokens`)."""
    return REPLY_PRIMING_TOKENS + sum(count(m["content"]) + MESSAGE_OVERHEAD_TOKENS for m in messages)


def partial_line(label: str, question: str, answer: str) -> str:
    """One intermediate answer as the reduce prompt lists it (also what the ledger reserves for it)."""
    return f"[{label}] ({' '.join(question.split())}) {' '.join(answer.split())}"


def reduce_messages(prompt: Prompt, question: str, lines: Sequence[str], max_words: int) -> list[Message]:
    return prompt.render({"question": question, "partials": "\n".join(lines), "max_words": max_words})


@dataclass
class DriftLedger:
    """Prompt tokens spent so far against the budget, and what the reduce call will need."""

    limit: int
    reduce_base: int
    spent: int = 0
    completion: int = 0
    calls: int = 0
    partials: int = 0
    skipped_for_budget: int = 0

    def room(self, next_partial: int) -> int:
        """Prompt tokens the next call may use when it may add an intermediate answer of ``next_partial``."""
        return self.limit - self.spent - self.reduce_base - self.partials - next_partial

    def book(self, prompt_tokens: int, completion_tokens: int) -> None:
        self.spent += prompt_tokens
        self.completion += completion_tokens
        self.calls += 1

    def to_params(self) -> dict[str, JsonValue]:
        return {
            "limit": self.limit,
            "spent": self.spent,
            "llm_calls": self.calls,
            "completion_tokens": self.completion,
            "skipped_for_budget": self.skipped_for_budget,
        }


def new_ledger(llm: LLMClient, question: str, settings: DriftSettings) -> DriftLedger:
    empty = reduce_messages(llm.prompt(REDUCE_PROMPT), question, [], reduce_words(settings))
    return DriftLedger(int(settings.max_prompt_tokens * SAFETY), message_tokens(empty, llm.count_tokens))


def reduce_words(settings: DriftSettings) -> int:
    return max(20, int(settings.answer_tokens * 0.75))


def cut_to_tokens(text: str, limit: int, count: Counter) -> str:
    """``text`` cut at a word boundary to at most ``limit`` tokens."""
    words = text.split()
    if count(" ".join(words)) <= limit:
        return " ".join(words)
    low, high = 0, len(words)
    while low < high:  # the most words whose text still fits
        mid = (low + high + 1) // 2
        if count(" ".join(words[:mid])) <= limit:
            low = mid
        else:
            high = mid - 1
    return " ".join(words[:low])


def report_line(index: int, item: ContextItem) -> str:
    return f"[R{index + 1}] " + " ".join(item.text.split())


def context_line(item: ContextItem) -> str:
    """A passage as ``[c:ID] text``; a graph fact as a bullet naming its source passages."""
    body = " ".join(item.text.split())
    if item.kind == "chunk":
        return f"[c:{item.id}] {body}"
    sources = " ".join(f"[c:{cid}]" for cid in item.chunk_ids[:MAX_SOURCES])
    return f"- {body} (sources: {sources})" if sources else f"- {body}"


def reports_to_passages(text: str, reports: Sequence[ContextItem], per_report: int = 2) -> str:
    """Report labels (``[R2]``, ``[R1, R3]``) replaced by ``[c:ID]`` labels of each report's first source
    passages, so every intermediate answer cites passages, as final answers do."""

    def rewrite(match: re.Match[str]) -> str:
        ids: dict[str, None] = {}
        for label in re.findall(r"R(\d+)", match.group(1)):
            index = int(label) - 1
            if 0 <= index < len(reports):
                ids.update(dict.fromkeys(reports[index].chunk_ids[:per_report]))
        return "".join(f"[c:{cid}]" for cid in ids)

    return _REPORT_LABELS.sub(rewrite, text)


@dataclass
class Fitted:
    """A prompt filled to fit: its messages, their token count and how many lines it holds."""

    messages: list[Message] = field(default_factory=list)
    tokens: int = 0
    lines: int = 0


def fit_lines(
    render: Callable[[Sequence[str]], list[Message]], lines: Sequence[str], room: int, count: Counter
) -> Fitted:
    """The longest prefix of ``lines`` (at least one) whose rendered prompt is at most ``room`` tokens;
    an empty :class:`Fitted` when not even one line fits."""
    base = message_tokens(render([]), count)
    total, taken = base, 0
    for line in lines:
        cost = count(line) + 1
        if total + cost > room:
            break
        total += cost
        taken += 1
    while taken:  # the estimate above sums lines; the rendered prompt is what counts
        messages = render(lines[:taken])
        tokens = message_tokens(messages, count)
        if tokens <= room:
            return Fitted(messages, tokens, taken)
        taken -= 1
    return Fitted()


def ask(
    llm: LLMClient, messages: list[Message], prompt: Prompt, stage: str, settings: DriftSettings
) -> tuple[DriftReply | None, int]:
    """Send one primer or follow-up call: the parsed reply (None when invalid; no re-ask, which the budget
    has no room for) and its completion tokens."""
    reply = llm.chat(messages, stage=stage, prompt=prompt.ref, max_tokens=settings.reply_tokens)
    try:
        value, _ = parse_reply(reply.text, reply.finish_reason, DriftReply)
    except ReplyInvalid:
        return None, reply.usage.completion_tokens
    return value, reply.usage.completion_tokens
