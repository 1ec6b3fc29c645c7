"""How a ``global`` query spends its prompt-token budget, computed before any call is sent.

One plan serves both halves of the pipeline: the retrieval step uses it to choose how many reports
(best first) the map calls can read, and the answer strategy uses it to batch them. The budget
(``max_prompt_tokens`` of ``[retrieval.pipelines.global]``) covers every prompt token of the query: a reserve for the
reduce call (its instructions, the question and up to :data:`REDUCE_POINT_TOKENS` of points) is set
aside first, and map batches are added while their rendered prompts still fit what is left.
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
    """Report indices per map batch, and the prompt tokens each batch and the reduce reserve take."""

    batches: tuple[tuple[int, ...], ...]
    batch_tokens: tuple[int, ...]
    reduce_reserve: int
    budget: int

    @property
    def reports(self) -> int:
        return sum(len(b) for b in self.batches)


def reduce_reserve(question: str, config: GlobalSettings, count: Counter, prompt: Prompt) -> int:
    empty = reduce_messages(prompt, question, [], config.answer_tokens)
    return message_tokens(empty, count) + REDUCE_POINT_TOKENS


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
    batch would no longer fit the budget. The prompts are the workspace's (its overrides, its schemas):
    the ones the map and reduce calls will send."""
    budget = int(config.max_prompt_tokens * SAFETY)
    reserve = reduce_reserve(question, config, count, reduce_prompt)
    overhead = message_tokens(map_messages(map_prompt, question, []), count)
    left = budget - reserve
    batches: list[list[int]] = []
    sizes: list[int] = []
    for index, text in enumerate(texts):
        cost = count(report_line(f"R{index + 1}", text)) + 1
        if batches and sizes[-1] - overhead + cost <= config.batch_tokens and cost <= left:
            batches[-1].append(index)
            sizes[-1] += cost
            left -= cost
        elif overhead + cost <= left:
            batches.append([index])
            sizes.append(overhead + cost)
            left -= overhead + cost
        else:
            break
    return GlobalPlan(tuple(tuple(b) for b in batches), tuple(sizes), reserve, budget)
