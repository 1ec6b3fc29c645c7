"""How a ``global`` query spends its prompt-token budget, computed before any call is sent.

One plan serves both halves of the pipeline: the retrieval step uses it to choose how many reports
(best first) the map calls can read, and the answer strategy uses it to batch them. The budget
(``max_prompt_tokens`` of ``[retrieval.pipelines.global]``) covers every prompt token of the query: a reserve for the
reduce call (its instructions and the question) is set aside first, and map batches are added while
their rendered prompts, and the points they can bring back, still fit what is left. The points are
reserved per batch: a map reply is capped at :data:`MAP_REPLY_TOKENS`, so one batch cannot bring more
than that to the reduce call, and the reduce call carries at most :data:`REDUCE_POINT_TOKENS` in all.
A small budget therefore reads reports instead of holding room for points no batch could return.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kgrag.core.llm_types import Message
from kgrag.prompts import Prompt
from kgrag.retrieval.pipeline_settings import GlobalSettings

MAP_PROMPT = "global_map"
REDUCE_PROMPT = "global_reduce"
REDUCE_POINT_TOKENS = 1200
MAP_REPLY_TOKENS = 500  # ``max_tokens`` of a map call: the most points one batch can bring back
MESSAGE_OVERHEAD = 4  # chat formatting tokens per message, on top of the text
SAFETY = 0.97  # providers' tokenisers differ a little from the offline counter

Counter = Callable[[str], int]


def message_tokens(messages: Sequence[Message], count: Counter) -> int:
    return sum(count(m["content"]) + MESSAGE_OVERHEAD for m in messages)


def report_line(label: str, text: str) -> str:
    return f"[{label}] " + " ".join(text.split())


def map_messages(prompt: Prompt, question: str, lines: Sequence[str]) -> list[Message]:
    return prompt.render({"question": question, "reports": "\n".join(lines)})


def reduce_messages(prompt: Prompt, question: str, points: Sequence[str], max_words: int) -> list[Message]:
    return prompt.render({"question": question, "points": "\n".join(points), "max_words": max_words})


@dataclass(frozen=True)
class GlobalPlan:
    """Report indices per map batch, the prompt tokens each batch and the reduce reserve take, and how
    many of the reserve's tokens the reduce call may fill with points."""

    batches: tuple[tuple[int, ...], ...]
    batch_tokens: tuple[int, ...]
    reduce_reserve: int
    budget: int
    point_tokens: int = REDUCE_POINT_TOKENS

    @property
    def reports(self) -> int:
        return sum(len(b) for b in self.batches)


def reduce_instructions(question: str, config: GlobalSettings, count: Counter, prompt: Prompt) -> int:
    """Prompt tokens of the reduce call before any point is added."""
    return message_tokens(reduce_messages(prompt, question, [], config.answer_tokens), count)


def point_reserve(batches: int) -> int:
    """Tokens of points the reduce call may carry after ``batches`` map calls."""
    return min(REDUCE_POINT_TOKENS, MAP_REPLY_TOKENS * batches)


def plan_batches(
    question: str,
    texts: Sequence[str],
    config: GlobalSettings,
    count: Counter,
    map_prompt: Prompt,
    reduce_prompt: Prompt,
) -> GlobalPlan:
    """Greedy, in rank order: a report joins the current batch while the batch stays under
    ``batch_tokens`` of reports, else opens a new one; planning stops at the first report whose
    batch would no longer fit the budget. A new batch also reserves the points it can bring back
    (:func:`point_reserve`). The prompts are the workspace's (its overrides, its schemas): the ones the
    map and reduce calls will send."""
    budget = int(config.max_prompt_tokens * SAFETY)
    instructions = reduce_instructions(question, config, count, reduce_prompt)
    overhead = message_tokens(map_messages(map_prompt, question, []), count)
    left = budget - instructions
    batches: list[list[int]] = []
    sizes: list[int] = []
    for index, text in enumerate(texts):
        cost = count(report_line(f"R{index + 1}", text)) + 1
        opening = overhead + cost + point_reserve(len(batches) + 1) - point_reserve(len(batches))
        if batches and sizes[-1] - overhead + cost <= config.batch_tokens and cost <= left:
            batches[-1].append(index)
            sizes[-1] += cost
            left -= cost
        elif opening <= left:
            batches.append([index])
            sizes.append(overhead + cost)
            left -= opening
        else:
            break
    points = point_reserve(len(batches))
    return GlobalPlan(tuple(tuple(b) for b in batches), tuple(sizes), instructions + points, budget, points)
