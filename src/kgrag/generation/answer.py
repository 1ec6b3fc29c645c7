"""LLM answers with citations: context under a budget, the ``answer`` prompt, citation checking.

The prompt asks for free text with ``[c:ID]`` markers after the statements they support (free text
rather than JSON because small local models keep prose intact far more often than JSON, and the markers
sit next to the claims they back). Citations are then checked against the context: an id the context
did not contain is dropped from the list and its marker removed from the text, so an answer can never
point at a passage the model did not see. When the context lacks the answer the model must reply with
:data:`IDK_SENTENCE`, which sets ``Answer.idk``.

Only called when an LLM is configured; ``extractive.py`` is the LLM-free path.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from kgrag.config import GenerationConfig
from kgrag.core.context import RetrievalResult
from kgrag.core.llm_types import ChatResult, Message, PromptRef
from kgrag.generation.attribution import Attributor, SupportPassage
from kgrag.generation.context import ContextBlock, build_context
from kgrag.generation.types import Answer, AnswerUsage
from kgrag.models.llm.client import LLMClient

IDK_SENTENCE = "I don't know based on the provided context."
ANSWER_PROMPT = "answer"
LENGTH_PROMPT = "answer_length"
_BRACKET = re.compile(r"\s?\[([^\[\]\n]{1,400})\]")
_SPLIT = re.compile(r"[,;\s]+")
_LABELLED = re.compile(r"^(c|entity|relation|path|report):", re.IGNORECASE)


def _normalise(text: str) -> str:
    return " ".join(text.replace("\u2019", "'").replace("\u2018", "'").lower().split())


def is_idk(text: str) -> bool:
    """True when the reply contains the fixed "I don't know" sentence (quotes and case normalised)."""
    return _normalise(IDK_SENTENCE).rstrip(".") in _normalise(text)


def extract_citations(text: str, citable: frozenset[str]) -> tuple[str, list[str], list[str]]:
    """``(text, kept, invented)``: markers rewritten as ``[c:ID]`` for ids in ``citable``; markers of
    other ids removed. Brackets that hold no citation-like token (``[sic]``) are left alone."""
    kept: list[str] = []
    invented: list[str] = []

    def rewrite(match: re.Match[str]) -> str:
        tokens = [t for t in _SPLIT.split(match.group(1)) if t]
        if not any(_LABELLED.match(t) or t in citable for t in tokens):
            return match.group(0)
        valid = []
        for token in tokens:
            cid = token[2:] if token.lower().startswith("c:") else token
            if cid in citable:
                valid.append(cid)
            elif _LABELLED.match(token):
                invented.append(token)
        kept.extend(valid)
        lead = " " if match.group(0).startswith(" ") and valid else ""
        return lead + "".join(f"[c:{cid}]" for cid in dict.fromkeys(valid))

    cleaned = _BRACKET.sub(rewrite, text).strip()
    return cleaned, list(dict.fromkeys(kept)), list(dict.fromkeys(invented))


def context_shares(cfg: GenerationConfig) -> dict[str, float]:
    """The configured budget shares by context group."""
    return {"passages": cfg.passages_share, "graph": cfg.graph_share, "communities": cfg.communities_share}


def _usage(chat: ChatResult | None, block: ContextBlock, invented: list[str]) -> AnswerUsage:
    usage: AnswerUsage = {
        "context_tokens": block.tokens,
        "context_items": len(block.item_ids),
        "dropped_items": block.dropped,
        "invented_citations": invented,
    }
    if chat is not None:
        u = chat.usage
        usage.update(
            {
                "prompt_tokens": u.prompt_tokens,
                "completion_tokens": u.completion_tokens,
                "cost_usd": u.cost_usd,
                "cached": u.cached,
                "attempts": u.attempts,
                "latency_ms": round(u.latency_ms, 1),
                "token_source": u.source,
            }
        )
    return usage


def cost_line(chat: ChatResult) -> str:
    """One line for the CLI: tokens, money, cache and latency of the answer call."""
    u = chat.usage
    if chat.estimated:
        return f"estimate: ~{u.prompt_tokens} prompt + ~{u.completion_tokens} completion tokens, ~${u.cost_usd:.6f}"
    where = "cached" if u.cached else f"{u.attempts} attempt{'s' if u.attempts != 1 else ''}"
    return (
        f"LLM: {u.prompt_tokens} prompt + {u.completion_tokens} completion tokens, ${u.cost_usd:.6f}, "
        f"{where}, {u.latency_ms / 1000:.2f} s"
    )


ANSWER_TEMPLATE_MARGIN = 32  # message framing the template count does not see


def _fitting_budget(client: LLMClient, question: str, wanted: int, extra: int = 0) -> int:
    """``wanted`` lowered to what the client's window leaves for context. The workspace already fits
    ``generation.context_tokens`` to the window when it builds the client, but a query context may hold
    the configuration from before that, and only here is the question's own length known."""
    window = client.runner.context_window
    if window is None:
        return wanted
    fixed = client.template_tokens(ANSWER_PROMPT) + client.count_tokens(IDK_SENTENCE) + client.count_tokens(question)
    fixed += extra  # a length line added to the request (``target_words``)
    room = window - client.settings.max_output_tokens - fixed - ANSWER_TEMPLATE_MARGIN
    return max(1, min(wanted, room))


CUT_NOTE = "[answer cut off at llm.max_output_tokens; raise it for a complete answer]"


def _asker(
    client: LLMClient, variables: dict[str, str], stage: str, target_words: int | None
) -> Callable[[], ChatResult]:
    """The answer call; with ``target_words``, the ``answer`` request with the ``answer_length`` line added
    to its user turn (both prompt versions join the cache key)."""
    if target_words is None:
        return lambda: client.chat_prompt(ANSWER_PROMPT, variables, stage=stage)
    answer, length = client.prompt(ANSWER_PROMPT), client.prompt(LENGTH_PROMPT)
    messages: list[Message] = answer.render(variables)
    extra = length.render_part("user", {"target_words": target_words})
    messages[-1] = {"role": "user", "content": f"{messages[-1]['content']}\n\n{extra}"}
    ref = PromptRef(f"{answer.name}+{length.name}", f"{answer.version}+{length.version}")
    return lambda: client.chat(messages, stage=stage, prompt=ref)


def generate_answer(
    client: LLMClient,
    question: str,
    result: RetrievalResult,
    cfg: GenerationConfig,
    *,
    stage: str = "query.generate",
    target_words: int | None = None,
    attributor: Attributor | None = None,
) -> Answer:
    """Answer ``question`` from ``result``'s items with citations checked against the context.

    The context budget is ``cfg.context_tokens``, lowered when the model's window (configured or learnt from
    the server) could not hold it with the prompt, the question and the reply. ``target_words`` asks for an
    answer of about that many words from the same context (pairwise evaluation's length alignment).
    With ``attributor``, every sentence the model did not cite is attributed to the context passage that
    supports it, or marked unsupported (:mod:`kgrag.generation.attribution`).
    """
    extra = 0 if target_words is None else client.template_tokens(LENGTH_PROMPT) + 8
    budget = _fitting_budget(client, question, cfg.context_tokens, extra)
    block = build_context(result.items, budget, context_shares(cfg), client.count_tokens)
    if not block.item_ids:
        return Answer(
            IDK_SENTENCE,
            [],
            "llm",
            idk=True,
            cost_line="no context retrieved: no LLM call",
            usage=_usage(None, block, []),
        )
    variables = {"question": question.strip(), "context": block.text, "idk_sentence": IDK_SENTENCE}
    ask = _asker(client, variables, stage, target_words)
    chat = ask()
    cut = chat.finish_reason == "length" or not chat.text.strip()  # a half or an empty answer
    if cut and not chat.estimated:  # ask once more (neither is ever cached)
        chat = ask()
    if chat.estimated:
        return Answer("", [], "llm", cost_line=cost_line(chat), usage=_usage(chat, block, []))
    text, citations, invented = extract_citations(chat.text, block.citable)
    idk = is_idk(text)
    answer = Answer(text, [] if idk else citations, "llm", idk=idk, usage=_usage(chat, block, invented))
    if attributor is not None and not idk:
        attribute(answer, result, block, attributor)
    if chat.finish_reason == "length":
        answer.text = f"{text.rstrip()} {CUT_NOTE}"
    answer.cost_line = cost_line(chat)
    return answer


def attribute(answer: Answer, result: RetrievalResult, block: ContextBlock, attributor: Attributor) -> None:
    """Fill ``answer.sentences`` and add the passages attributed to sentences the model left uncited to
    ``answer.citations`` (and ``answer.attributed``); only passages the context held are candidates."""
    shown = set(block.item_ids)
    passages = [SupportPassage(i.id, i.text) for i in result.items if i.kind == "chunk" and i.id in shown and i.text]
    answer.sentences = attributor.support(answer.text, passages)
    added = [cid for s in answer.sentences if s.status == "attributed" for cid in s.passages]
    answer.attributed = [cid for cid in dict.fromkeys(added) if cid not in answer.citations]
    answer.citations = [*answer.citations, *answer.attributed]
