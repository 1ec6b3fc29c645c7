"""The LLM client every stage uses. Build it with :func:`kgrag.models.llm.create_llm_client`.

API (all methods are thread-safe)::

    client.available                      # False for llm.provider = none: take the LLM-free path
    client.chat(messages, stage="query.rewrite", prompt=None, **params) -> ChatResult
    client.chat_prompt("answer", {"question": ...}, stage="query.generate", **params) -> ChatResult
    client.structured("extract", {"text": ...}, Model, stage="index.extract", **params) -> StructuredResult
    client.map_structured("extract", [vars, ...], Model, stage="index.extract") -> [StructuredResult, ...]
    client.ledger.summary(run_id) / client.summary()   # calls, tokens, retries, cache hits, cost
    client.estimate()                     # in estimate mode: calls/tokens/money that would be spent

``params`` are OpenAI request fields (``temperature``, ``max_tokens``, ``seed``...) overriding the config.
``stage`` names the pipeline step in the ledger, dotted (``index.extract``, ``query.generate``).

Failure contract: an item whose reply cannot be validated after one re-ask comes back as a
``StructuredResult`` with ``value=None`` and ``error`` set; a run-stopping problem raises
(:class:`~kgrag.core.errors.BudgetExceededError`, :class:`~kgrag.models.llm.base.LLMUnavailableError` when
retries are exhausted, :class:`~kgrag.core.errors.ModelError` for a bad key/model/window). A structured
request that cannot fit the context window even fitted (:mod:`~kgrag.models.llm.request_fit`) fails
alone, as an item with its reason; a re-ask of a reply cut at the token limit quotes only the error. Accepted replies
are cached as they arrive, so a stopped run resumes on rerun without paying twice.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, JsonValue

from kgrag.core.llm_types import ChatRequest, ChatResult, Message, PromptRef, StreamSink, StructuredResult, Usage
from kgrag.core.llm_usage import REASK_ROLE, CallLink, LedgerSummary
from kgrag.core.registry import Registry
from kgrag.models.llm.base import UsageLedger
from kgrag.models.llm.calls import CallRunner, Outcome
from kgrag.models.llm.estimate import Estimate, EstimatingProvider
from kgrag.models.llm.request_fit import CUT_REPLY, RequestTooLargeError, is_size_failure
from kgrag.models.llm.structured import (
    compact_schema,
    parse_reply,
    reask_messages,
    response_format,
    with_instruction,
    without_copied_items,
)

if TYPE_CHECKING:
    from kgrag.models.llm.batch_collect import BatchCollector
    from kgrag.prompts.loader import Prompt

M = TypeVar("M", bound=BaseModel)
STRUCTURED_PROMPT = "structured_output"
EXAMPLE_PROMPT = "structured_example"  # the wrapper for prompts that show a worked example instead of a schema


@dataclass(frozen=True)
class ClientSettings:
    """Request defaults of one client (from ``LLMConfig``)."""

    model: str
    temperature: float = 0.0
    max_output_tokens: int = 1024
    json_mode: str = "off"
    prompts_dir: Path | None = None
    # the ``prompt_schema`` registry prompt files resolve ``output_schema`` in (a workspace's; None: built-ins
    # and plug-ins)
    prompt_schemas: Registry[type[BaseModel]] | None = None
    # False: prompts drop their invented worked examples (a model that follows the schema alone;
    # kgrag.models.llm.examples_probe decides); examples drawn from the user's documents stay
    examples: bool = True


def _combine(first: Usage, second: Usage) -> Usage:
    return Usage(
        first.prompt_tokens + second.prompt_tokens,
        first.completion_tokens + second.completion_tokens,
        second.source,
        first.cost_usd + second.cost_usd,
        first.latency_ms + second.latency_ms,
        first.attempts + second.attempts,
        first.cached and second.cached,
    )


def _inline(schema: dict[str, JsonValue] | None) -> tuple[dict[str, JsonValue] | None, str]:
    return schema, compact_schema(schema or {})


class LLMClient:
    """Chat, structured and batched calls with caching, limits, retries, budget and a usage ledger."""

    def __init__(self, runner: CallRunner, settings: ClientSettings) -> None:
        self.runner = runner
        self.settings = settings
        self._prompts: dict[str, Prompt] = {}
        self._schemas: dict[type[BaseModel], tuple[dict[str, JsonValue], str]] = {}
        self._template_tokens: dict[str, int] = {}
        self._lock = threading.Lock()
        self._sink: StreamSink | None = None
        self._streamed_stages: frozenset[str] | None = None

    def streaming(self, sink: StreamSink, stages: Iterable[str] | None = None) -> LLMClient:
        """This client with the replies of its :meth:`chat` calls of ``stages`` (None: every stage) streamed
        to ``sink``; structured calls never are (their JSON means nothing to a reader until it is whole),
        nor are the intermediate calls of other stages (a map step's replies). Caches, limits, budget and
        ledger are shared."""
        view = copy.copy(self)
        view._sink = sink
        view._streamed_stages = frozenset(stages) if stages is not None else None
        return view

    @property
    def available(self) -> bool:
        return self.runner.provider.available

    @property
    def estimating(self) -> bool:
        return self.runner.estimating

    @property
    def stand_in_shares(self) -> tuple[float, float]:
        """In estimate mode, the shares of the stand-in graph's names and relations the model is expected to
        return (:class:`~kgrag.models.llm.estimate_assumed.EstimateAssumptions`); (1, 1) otherwise."""
        provider = self.runner.provider
        if isinstance(provider, EstimatingProvider):
            return provider.assumptions.name_share, provider.assumptions.relation_share
        return 1.0, 1.0

    @property
    def stand_in_glean_shares(self) -> tuple[float, float] | None:
        """The shares of the stand-in first pass the gleaning decision is made on when they differ from
        :attr:`stand_in_shares` (scaled to the run's gleaned units, :mod:`kgrag.indexing.estimate_glean_fit`);
        None when the decision is made on the stand-in graph itself."""
        provider = self.runner.provider
        scale = provider.assumptions.glean_scale if isinstance(provider, EstimatingProvider) else 1.0
        if scale == 1.0:
            return None
        names, relations = self.stand_in_shares
        return names * scale, relations * scale

    @property
    def stand_in_gleans(self) -> bool:
        """In estimate mode with the stand-in's shares measured: whether a unit is gleaned is decided on its
        stand-in first pass, as the run decides it on the real one (else every unit's gleaning request is
        priced and the gleaning rate predicts how many are sent)."""
        provider = self.runner.provider
        return isinstance(provider, EstimatingProvider) and provider.assumptions.glean_by_stand_in

    @property
    def deferring(self) -> bool:
        """True in a batch collect round: a reply that is not cached is deferred, not fetched (callers skip
        their own retries of such items; see :mod:`kgrag.models.llm.batch_collect`)."""
        return self.runner.collector is not None

    @contextmanager
    def collecting(self, collector: BatchCollector) -> Iterator[None]:
        """During the block this client is in a batch collect round: a miss goes to ``collector``."""
        before, self.runner.collector = self.runner.collector, collector
        try:
            yield
        finally:
            self.runner.collector = before

    def checkpoint(self) -> None:
        """Say that the requests after this point are built from the replies of those before it. In a batch
        collect round that deferred some of them, the round ends here; otherwise this does nothing."""
        if self.runner.collector is not None:
            self.runner.collector.checkpoint()

    @property
    def run_id(self) -> str:
        return self.runner.run_id

    @property
    def ledger(self) -> UsageLedger:
        return self.runner.ledger

    def _schema(self, model: type[BaseModel]) -> tuple[dict[str, JsonValue], str]:
        """JSON schema of ``model`` and its compact text, built once per client (pydantic takes ~0.4 ms)."""
        with self._lock:
            if model not in self._schemas:
                schema = model.model_json_schema()
                self._schemas[model] = (schema, compact_schema(schema))
            return self._schemas[model]

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` with the layer's offline counter (cl100k_base), for context budgets."""
        return self.runner.counter().count(text)

    def template_tokens(self, name: str) -> int:
        """Tokens of the prompt ``name``'s templates (system + user, placeholders unfilled), counted once per
        client: what every request of that prompt pays before its variables."""
        with self._lock:
            known = self._template_tokens.get(name)
        if known is None:
            prompt = self.prompt(name)
            known = self.count_tokens(prompt.system) + self.count_tokens(prompt.user)
            with self._lock:
                self._template_tokens[name] = known
        return known

    def prompt(self, name: str) -> Prompt:
        """The prompt ``name`` (override directory first), loaded once per client."""
        from kgrag.prompts.loader import load_prompt  # prompts import the LLM types; load on first use

        with self._lock:
            if name not in self._prompts:
                loaded = load_prompt(name, self.settings.prompts_dir, self.settings.prompt_schemas)
                if not self.settings.examples and loaded.example_invented:
                    loaded = replace(loaded, example_variables={}, example_reply="")
                self._prompts[name] = loaded
            return self._prompts[name]

    def use_examples(self, examples: bool) -> None:
        """Show prompts' invented worked examples (True) or not, from now on; loaded prompts are dropped."""
        with self._lock:
            self.settings = replace(self.settings, examples=examples)
            self._prompts.clear()
            self._template_tokens.clear()

    def use_prompts_dir(self, directory: Path | None) -> None:
        """Load prompts from ``directory`` from now on (overrides were just written): loaded ones are dropped."""
        with self._lock:
            self.settings = replace(self.settings, prompts_dir=directory)
            self._prompts.clear()
            self._template_tokens.clear()

    def _request(self, messages: Sequence[Message], prompt: PromptRef | None, params: Mapping[str, Any]) -> ChatRequest:
        merged: dict[str, JsonValue] = {
            "temperature": self.settings.temperature,
            "max_tokens": self.settings.max_output_tokens,
        }
        merged.update({k: v for k, v in params.items() if v is not None})
        return ChatRequest(tuple(messages), self.settings.model, merged, prompt)

    def chat(
        self, messages: Sequence[Message], *, stage: str, prompt: PromptRef | None = None, **params: Any
    ) -> ChatResult:
        """Send ``messages`` and return the reply text (cached when non-empty)."""
        wanted = self._streamed_stages is None or stage in self._streamed_stages
        outcome = self.runner.run(self._request(messages, prompt, params), stage, sink=self._sink if wanted else None)
        return ChatResult(
            outcome.response.text,
            outcome.usage,
            outcome.response.finish_reason,
            outcome.key,
            outcome.estimated,
        )

    def chat_prompt(
        self, prompt: str | Prompt, variables: Mapping[str, object], *, stage: str, **params: Any
    ) -> ChatResult:
        """Render a prompt file and :meth:`chat` with it (its version joins the cache key)."""
        resolved = self.prompt(prompt) if isinstance(prompt, str) else prompt
        return self.chat(resolved.render(variables), stage=stage, prompt=resolved.ref, **params)

    def structured(
        self,
        prompt: str | Prompt,
        variables: Mapping[str, object],
        schema_model: type[M] | None = None,
        *,
        stage: str,
        reask: bool = True,
        cache_as: Mapping[str, Any] | None = None,
        loop_guard: bool = False,
        link: CallLink | None = None,
        **params: Any,
    ) -> StructuredResult[M]:
        """Ask for JSON matching ``schema_model`` (default: the prompt's ``output_schema`` model), repair,
        validate, re-ask once with the error (unless ``reask`` is False: the caller has its own next try);
        see the module docstring for the failure contract. ``cache_as``: the parameters of the request this
        one retries differently (another temperature); an accepted reply is cached for that request too,
        so the next run finds it under the request it makes. ``loop_guard``: a reply that falls into a
        repetition loop is cut there (:mod:`.reply_loop`; for lists of items). ``link``: the unit the call
        serves and its role, for the ledger row (its re-ask's row: the same unit, as a re-ask)."""
        resolved = self.prompt(prompt) if isinstance(prompt, str) else prompt
        model = schema_model or resolved.schema_model()
        schema, schema_text = self._schema(model) if model is not None else _inline(resolved.json_schema())
        wrapper = self.prompt(EXAMPLE_PROMPT if resolved.has_example else STRUCTURED_PROMPT)
        instruction = wrapper.render_part("system", {"schema": schema_text})
        messages = with_instruction(resolved.render(variables), instruction)
        fmt = response_format(self.settings.json_mode, resolved.name, schema)
        request = self._request(messages, resolved.ref, {"response_format": fmt, **params})
        example = resolved.example_reply
        given = str(messages[-1]["content"])  # the user turn: what the reply may quote

        def parse(text: str, finish: str | None) -> tuple[Any, bool]:
            value, repaired = parse_reply(text, finish, model)
            return without_copied_items(value, example, given), repaired

        try:
            first = self.runner.run(request, stage, parse, loop_guard=loop_guard, link=link)
        except RequestTooLargeError as exc:  # this item alone cannot be sent; the others go on
            return StructuredResult(None, str(exc), Usage(), "")
        if cache_as is not None and first.error is None and not first.estimated and not first.usage.cached:
            original = self._request(messages, resolved.ref, {"response_format": fmt, **cache_as})
            self.runner.store(original.cache_key(self.runner.provider.name), original, first.response, first.usage)
        if first.estimated or first.error is None or not reask:
            return self._result(first, first.usage, reasked=False)
        quoted = CUT_REPLY if is_size_failure(first.error) else first.response.text  # a half reply helps no one
        conversation = tuple(reask_messages(messages, quoted, wrapper.render_part("user", {"error": first.error})))
        retry = ChatRequest(conversation, request.model, request.params, request.prompt)
        try:
            again = link.as_role(REASK_ROLE) if link is not None else None
            second = self.runner.run(retry, stage, parse, loop_guard=loop_guard, link=again)
        except RequestTooLargeError as exc:
            error = f"invalid reply, and its re-ask {exc} (first reply: {first.error})"
            return StructuredResult(None, error, first.usage, first.response.text)
        usage = _combine(first.usage, second.usage)
        if second.error is None:
            self.runner.store(first.key, request, second.response, second.usage)
            return self._result(second, usage, reasked=True)
        error = f"invalid reply after one re-ask: {second.error} (first reply: {first.error})"
        return StructuredResult(None, error, usage, second.response.text, reasked=True)

    @staticmethod
    def _result(outcome: Outcome, usage: Usage, *, reasked: bool) -> StructuredResult[Any]:
        response = outcome.response
        return StructuredResult(
            outcome.value, outcome.error, usage, response.text, outcome.repaired, reasked, response.finish_reason
        )

    def map_structured(
        self,
        prompt: str | Prompt,
        variables_list: Sequence[Mapping[str, object]],
        schema_model: type[M] | None = None,
        *,
        stage: str,
        reask: bool = True,
        cache_as: Mapping[str, Any] | None = None,
        loop_guard: bool = False,
        links: Sequence[CallLink | None] | None = None,
        **params: Any,
    ) -> list[StructuredResult[M]]:
        """:meth:`structured` over many items, up to ``llm.max_concurrency`` at once, results in input order
        (``links``: each item's ledger link, in the same order).

        A run-stopping error cancels the items not yet started and is re-raised; items already accepted
        are in the cache.
        """
        resolved = self.prompt(prompt) if isinstance(prompt, str) else prompt
        self.prompt(EXAMPLE_PROMPT if resolved.has_example else STRUCTURED_PROMPT)
        workers = min(self.runner.limits.max_concurrency, len(variables_list))
        linked = list(links) if links is not None else [None] * len(variables_list)
        if len(linked) != len(variables_list):
            raise ValueError(f"{len(linked)} links for {len(variables_list)} items")

        def one(variables: Mapping[str, object], link: CallLink | None) -> StructuredResult[M]:
            return self.structured(
                resolved, variables, schema_model, stage=stage, reask=reask, cache_as=cache_as,
                loop_guard=loop_guard, link=link, **params,
            )  # fmt: skip

        if workers <= 1:
            return [one(v, link) for v, link in zip(variables_list, linked, strict=True)]
        results: list[StructuredResult[M] | None] = [None] * len(variables_list)
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="kgrag-llm") as pool:
            items = enumerate(zip(variables_list, linked, strict=True))
            futures = {pool.submit(one, v, link): index for index, (v, link) in items}
            try:
                for future in as_completed(futures):
                    results[futures[future]] = future.result()
            except BaseException:
                pool.shutdown(wait=True, cancel_futures=True)
                raise
        return [r for r in results if r is not None]

    def summary(self) -> LedgerSummary:
        """This run's ledger summary, priced with the configured prices."""
        return self.runner.ledger.summary(self.run_id, self.runner.prices)

    def estimate(self) -> Estimate | None:
        """What the calls made so far would cost; None unless the client is in estimate mode."""
        provider = self.runner.provider
        return provider.report(self.runner.prices) if isinstance(provider, EstimatingProvider) else None

    def close(self) -> None:
        self.runner.provider.close()
