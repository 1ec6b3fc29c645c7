"""The LLM extractor: entities and relations per chunk, from one LLM call per unit of chunks.

Flow per batch of units (a batch is a few times ``llm.max_concurrency`` units, so results reach the
merger as they are ready instead of all at the end):

1. :func:`~kgrag.graph.extract.units.build_units` groups consecutive chunks of one document into units
   of up to ``graph.extractors.llm.unit_tokens`` tokens; the instructions are paid once per unit, not once per chunk.
2. ``extract_graph`` runs over the batch through :meth:`LLMClient.map_structured` (concurrency, retries,
   cache, repair and one re-ask quoting the validation error are the LLM layer's). A unit whose reply is
   still unusable gets one last, different try: a fresh request at ``RETRY_TEMPERATURE`` (the same
   request again would get the same reply from a deterministic server). A failing unit costs at most
   ``unit_calls`` calls (3) and is marked failed, reported and retried on the next run. A unit whose reply
   was cut at the token limit, or whose request cannot fit the model's window, is retried smaller instead
   (:mod:`~kgrag.graph.extract.split`: halves, then quarters, one call each); only what still cannot fit
   fails, alone, with its reason, and every other unit goes on.
3. Items are validated one by one (:mod:`~kgrag.graph.extract.parse`); bad items are dropped, not the unit.
4. Grounding: an entity whose name reads as a clause rather than a name (:mod:`~kgrag.graph.extract.clauses`),
   and a relation with such an end, is dropped and counted (``clause``); then an entity whose name the unit's
   text does not contain (:mod:`~kgrag.graph.extract.attribution`), and a relation with such an endpoint,
   is dropped and counted (``ungrounded``), never stored.
   Then the descriptions (:mod:`~kgrag.graph.extract.support`): a relation whose description is not drawn
   from the sentences holding its ends (or that copies a worked example's shape with a claim the text does
   not make) is dropped and counted (``unsupported``); an entity description that is empty or not drawn
   from the text is taken from the sentence that mentions the entity.
5. Gleaning (:mod:`~kgrag.graph.extract.glean`): a unit whose first pass looks incomplete gets one
   ``glean_graph`` call re-sending its sparse chunks with the names already found, asking only for what
   is missing. A failed glean keeps the first pass (valid data, only possibly not all of it) and is
   counted in the run's report.
6. Items are attributed to chunks (:mod:`~kgrag.graph.extract.attribution`).

Every call's ledger row is linked to its unit (:attr:`~kgrag.graph.extract.units.ExtractionUnit.key`) with
its role: the first pass, its re-ask, the retry, a half (or quarter) of a unit retried smaller, the
gleaning call and its own re-ask and retry. The estimate counts the calls a reply caused per first call
from these links (:mod:`kgrag.models.llm.reply_stats`).

A unit that still fails yields ``ChunkExtraction(error=...)`` for each of its chunks, which the merger
records and the next run retries. A run-stopping error (endpoint down after all retries, token budget
spent, bad key) ends the run: the current batch and every later unit yield error extractions with the
reason, so nothing is silently dropped, and finished calls are cached for the rerun.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kgrag.config import KgragConfig, LLMConfig
from kgrag.core.errors import BudgetExceededError, ModelError
from kgrag.core.llm_types import StructuredResult
from kgrag.core.llm_usage import FIRST_ROLE, GLEAN_ROLE, HALF_ROLE, RETRY_ROLE, CallLink, LedgerSummary
from kgrag.core.records import ChunkRecord
from kgrag.core.stages import EXTRACT, GLEAN, ledger_stage
from kgrag.documents import TokenCounter
from kgrag.graph.extract.attribution import ChunkLocator, attribute, failed, ground, unit_locator
from kgrag.graph.extract.clauses import refuse_clauses
from kgrag.graph.extract.example_shape import example_shapes
from kgrag.graph.extract.glean import FEW_ENTITIES, GleanPolicy
from kgrag.graph.extract.llm_stats import ExtractionStats
from kgrag.graph.extract.parse import (
    ExtractionReply,
    ParsedItems,
    dedupe_entities,
    dedupe_relations,
    parse_items,
    render_types,
    typed_reply,
)
from kgrag.graph.extract.settings import LlmExtractorSettings, llm_settings
from kgrag.graph.extract.split import MAX_SPLIT_DEPTH, merge_parts, split_unit
from kgrag.graph.extract.support import check_support
from kgrag.graph.extract.units import ExtractionUnit, build_units
from kgrag.graph.types import ChunkExtraction
from kgrag.models.llm.client import LLMClient
from kgrag.models.llm.reply_loop import LOOP_FINISH
from kgrag.models.llm.request_fit import is_size_failure
from kgrag.models.llm.tokens import TextTokenCounter

STAGE_EXTRACT = ledger_stage(EXTRACT)  # "index.extract"
STAGE_GLEAN = ledger_stage(EXTRACT, GLEAN)  # "index.glean"
EXTRACT_PROMPT = "extract_graph"
GLEAN_PROMPT = "glean_graph"
OUTPUT_TOKENS_PER_UNIT_TOKEN = 2
PROMPT_OVERHEAD_TOKENS = 600  # instructions + worked example + format line + found names, with headroom
RETRY_TEMPERATURE = 0.7  # the last try of a failing unit samples another reply instead of repeating one


@dataclass
class _UnitOutcome:
    unit: ExtractionUnit
    items: ParsedItems | None = None
    error: str | None = None
    glean_reason: str | None = None
    locator: ChunkLocator | None = None  # the unit's, shared by grounding, gleaning and attribution
    grounding: bool = True
    parts: list[_UnitOutcome] | None = None  # a unit retried smaller: the outcomes of its halves
    root: str = ""  # the key of the unit whose first pass this one is or follows (a half's: its whole unit's)

    def extractions(self) -> list[ChunkExtraction]:
        if self.parts is not None:
            return merge_parts(self.unit, [part.extractions() for part in self.parts])
        if self.items is None:
            return failed(self.unit, self.error or "extraction failed")
        # items were grounded when they arrived: the same locator finds them again from its memo
        return attribute(self.unit, self.items, locator=self.locator, grounding=self.grounding).extractions


class LLMExtractor:
    """Implements :class:`kgrag.graph.types.Extractor` with an :class:`LLMClient`."""

    def __init__(
        self,
        client: LLMClient,
        counter: TextTokenCounter,
        *,
        entity_types: Sequence[str],
        language: str = "English",
        unit_tokens: int = 1200,
        glean: GleanPolicy | None = None,
        batch_units: int = 16,
        unit_calls: int = 3,
        max_output_tokens: int | None = None,
        grounding: bool = True,
        grounding_similarity: int = 90,
    ) -> None:
        self.client = client
        self.counter = counter
        self.entity_types = list(entity_types)
        self.reply_model = typed_reply(tuple(self.entity_types))  # the type enum in the schema servers enforce
        self.language = language
        self.unit_tokens = unit_tokens
        self.glean = glean or GleanPolicy()
        self.batch_units = max(1, batch_units)
        self.unit_calls = max(1, unit_calls)
        self.grounding = grounding
        self.grounding_similarity = grounding_similarity
        self._params: dict[str, Any] = {"max_tokens": max_output_tokens} if max_output_tokens else {}
        self.stats = ExtractionStats()  # the last extract call's
        self.totals = ExtractionStats()  # every extract call's since the last take_totals, summed
        versions = f"{client.prompt(EXTRACT_PROMPT).version}+{client.prompt(GLEAN_PROMPT).version}"
        self.name = f"llm:{client.settings.model}:{EXTRACT_PROMPT}@{versions}"

    def extract(self, chunks: Sequence[ChunkRecord]) -> Iterator[ChunkExtraction]:
        """Per-chunk extractions in document order; every input chunk gets exactly one."""
        units = build_units(chunks, self.unit_tokens, self.counter)
        self.stats = ExtractionStats(units=len(units), chunks=sum(len(u.chunks) for u in units))
        try:
            for start in range(0, len(units), self.batch_units):
                batch = units[start : start + self.batch_units]
                try:
                    extractions = self._extract_batch(batch)
                except (ModelError, BudgetExceededError) as exc:
                    rest = units[start:]
                    self.stats.failed_units += len(rest)
                    reason = f"{type(exc).__name__}: {exc}"
                    yield from (extraction for unit in rest for extraction in failed(unit, reason))
                    return
                yield from extractions
        finally:
            self.totals.add(self.stats)

    def take_totals(self) -> ExtractionStats:
        """The counters of every ``extract`` call since the last take (the indexing report's); resets them."""
        totals, self.totals = self.totals, ExtractionStats()
        return totals

    def _extract_batch(self, batch: Sequence[ExtractionUnit]) -> list[ChunkExtraction]:
        links = [CallLink(unit.key, FIRST_ROLE) for unit in batch]
        results = self._call(EXTRACT_PROMPT, [self._variables(u.text) for u in batch], STAGE_EXTRACT, links)
        outcomes = [self._first_outcome(unit, result) for unit, result in zip(batch, results, strict=True)]
        self._retry_smaller(outcomes)
        self._glean([o for o in outcomes if o.glean_reason is not None])
        return [extraction for outcome in outcomes for extraction in outcome.extractions()]

    def _variables(self, text: str, found: str | None = None) -> dict[str, object]:
        variables: dict[str, object] = {
            "entity_types": render_types(self.entity_types),
            "language": self.language,
            "text": text,
        }
        if found is not None:
            variables["found"] = found
        return variables

    def _call(
        self, prompt: str, variables: Sequence[Mapping[str, object]], stage: str, links: Sequence[CallLink]
    ) -> list[StructuredResult[ExtractionReply]]:
        """``map_structured`` (a call and, with ``unit_calls`` >= 2, one re-ask quoting the error), then one
        fresh call at :data:`RETRY_TEMPERATURE` for the items that still failed (``unit_calls`` >= 3);
        ``links``: each item's first call's ledger link."""
        reask = self.unit_calls >= 2
        results = self.client.map_structured(
            prompt, variables, self.reply_model, stage=stage, reask=reask, loop_guard=True, links=links,
            **self._params,
        )  # fmt: skip
        if self.client.estimating or self.client.deferring:
            return results
        # a reply cut at the token limit (or a request too large) would fail again at any temperature: such a
        # unit is retried smaller instead (_retry_smaller)
        redo = [i for i, result in enumerate(results) if not result.ok and not is_size_failure(result.error)]
        if not redo or self.unit_calls < 3:
            return results
        if stage == STAGE_EXTRACT:
            self.stats.retried_units += len(redo)
        params = {**self._params, "temperature": RETRY_TEMPERATURE}
        again = self.client.map_structured(
            prompt,
            [variables[i] for i in redo],
            self.reply_model,
            stage=stage,
            reask=False,
            cache_as=self._params,  # the next run asks the first request again: it finds this reply
            loop_guard=True,
            links=[links[i].as_role(RETRY_ROLE) for i in redo],
            **params,
        )
        for index, result in zip(redo, again, strict=True):
            results[index] = result
        return results

    def _grounded(self, outcome: _UnitOutcome, items: ParsedItems) -> ParsedItems:
        if self.grounding:
            items, entities, relations = refuse_clauses(items)
            self.stats.clause_entities += entities
            self.stats.clause_relations += relations
        kept, entities, relations = ground(outcome.unit, items, grounding=self.grounding, locator=outcome.locator)
        self.stats.ungrounded_entities += entities
        self.stats.ungrounded_relations += relations
        if not self.grounding:
            return kept
        kept, counts = check_support(outcome.unit.text, kept, self._example_shapes())
        self.stats.unsupported_relations += counts.unsupported_relations
        self.stats.descriptions_filled += counts.descriptions_filled
        self.stats.descriptions_replaced += counts.descriptions_replaced
        return kept

    def _example_shapes(self) -> tuple[tuple[str, ...], ...]:
        """The shapes of the worked examples' descriptions, read from the prompts in use (memoised)."""
        replies = tuple(self.client.prompt(name).example_reply for name in (EXTRACT_PROMPT, GLEAN_PROMPT))
        return example_shapes(replies)

    def _retry_smaller(self, outcomes: list[_UnitOutcome], depth: int = 0) -> None:
        """Give every outcome that failed for its size (:func:`is_size_failure`) the outcomes of its unit's
        halves (:mod:`~kgrag.graph.extract.split`), one call each, halving again up to ``MAX_SPLIT_DEPTH``;
        a unit too small to split keeps its failure, with that said."""
        if self.client.estimating or self.client.deferring:
            return
        halves: list[tuple[_UnitOutcome, list[ExtractionUnit]]] = []
        for outcome in outcomes:
            if outcome.items is not None or not is_size_failure(outcome.error):
                continue
            parts = split_unit(outcome.unit, self.counter) if depth < MAX_SPLIT_DEPTH else None
            if parts is None:
                outcome.error = f"{outcome.error} (a unit of {outcome.unit.n_tokens} tokens, not split further)"
            else:
                halves.append((outcome, parts))
        if not halves:
            return
        units = [part for _, parts in halves for part in parts]
        links = [CallLink(outcome.root, HALF_ROLE) for outcome, parts in halves for _ in parts]
        results = self.client.map_structured(
            EXTRACT_PROMPT, [self._variables(u.text) for u in units], self.reply_model, stage=STAGE_EXTRACT,
            reask=False, loop_guard=True, links=links, **self._params,
        )  # fmt: skip
        done = [
            self._first_outcome(unit, result, glean=False, root=link.key)
            for unit, result, link in zip(units, results, links, strict=True)
        ]
        self._retry_smaller(done, depth + 1)
        self.stats.split_units += len(halves)
        self.stats.failed_units -= len(halves)  # each failure is now its halves' (counted as they came)
        start = 0
        for outcome, parts in halves:
            outcome.parts, start = done[start : start + len(parts)], start + len(parts)

    def _first_outcome(
        self,
        unit: ExtractionUnit,
        result: StructuredResult[ExtractionReply],
        *,
        glean: bool = True,
        root: str | None = None,
    ) -> _UnitOutcome:
        """``unit``'s outcome from its reply; ``root``: the key of the whole unit a half belongs to."""
        root = root or unit.key
        if self.client.estimating:  # nothing was sent: a stand-in graph from the text prices the later stages
            return self._stand_in_outcome(unit, result, glean=glean)
        if not result.ok or result.value is None:
            self.stats.failed_units += 1
            return _UnitOutcome(unit, error=f"LLM extraction failed: {result.error}", root=root)
        locator = unit_locator(unit, self.grounding_similarity)
        outcome = _UnitOutcome(unit, locator=locator, grounding=self.grounding, root=root)
        self.stats.loop_units += result.finish_reason == LOOP_FINISH
        items = self._grounded(outcome, parse_items(result.value, self.entity_types))
        self.stats.dropped_items += items.dropped
        outcome.items = items
        outcome.glean_reason = self.glean.reason(unit, result, items) if glean else None
        if outcome.glean_reason is not None:
            self.stats.glean_reasons[outcome.glean_reason] += 1
        return outcome

    def _stand_in_outcome(
        self, unit: ExtractionUnit, result: StructuredResult[ExtractionReply], *, glean: bool
    ) -> _UnitOutcome:
        """An estimate's outcome: the stand-in graph of the text at the model's measured shares. A unit the run
        will send gets the gleaning request it would send were its reply the stand-in (priced by the text it
        re-sends, :func:`kgrag.models.llm.estimate_glean.priced_gleaning`): with the shares measured, only if
        the run's own rule finds the stand-in at the fitted shares incomplete; else every such unit."""
        from kgrag.graph.extract.structural import structural_items

        items = structural_items(unit.text, *self.client.stand_in_shares)
        outcome = _UnitOutcome(unit, items=items, grounding=False, root=unit.key)
        if glean and self.glean.enabled and not result.usage.cached:
            scaled = self.client.stand_in_glean_shares  # None: decided on the stand-in graph itself
            first_pass = items if scaled is None else structural_items(unit.text, *scaled)
            outcome.glean_reason = self.glean.reason(unit, result, first_pass)
            if not self.client.stand_in_gleans:
                outcome.glean_reason = outcome.glean_reason or FEW_ENTITIES
        return outcome

    def _glean(self, outcomes: Sequence[_UnitOutcome]) -> None:
        pending = [(o, o.items, o.glean_reason) for o in outcomes if o.items is not None and o.glean_reason is not None]
        if not pending:
            return
        requests = [self.glean.request(o.unit, items, reason, o.locator) for o, items, reason in pending]
        links = [CallLink(o.root, GLEAN_ROLE) for o, _, _ in pending]
        variables = [self._variables(r.text, r.found) for r in requests]
        results = self._call(GLEAN_PROMPT, variables, STAGE_GLEAN, links)
        if self.client.estimating:  # priced, not sent: how many are gleaned is the estimate's prediction
            return
        self.stats.gleaned_units += len(pending)
        for (outcome, items, _), result in zip(pending, results, strict=True):
            if not result.ok or result.value is None:
                self.stats.glean_failures += 1
                continue
            extra = self._grounded(outcome, parse_items(result.value, self.entity_types))
            self.stats.dropped_items += extra.dropped
            outcome.items = ParsedItems(
                dedupe_entities([*items.entities, *extra.entities]),
                dedupe_relations([*items.relations, *extra.relations]),
                items.dropped + extra.dropped,
            )


def extraction_cost_ratio(
    ledger_summary: LedgerSummary,
    corpus_tokens: int,
    *,
    stages: Sequence[str] = (STAGE_EXTRACT, STAGE_GLEAN),
    billed: bool = False,
) -> float:
    """Prompt tokens spent on extraction per token of corpus text (first pass, gleaning and re-asks).

    ``billed=False`` counts every call, cached ones included, which measures the pipeline's cost
    independently of what happened to be cached; ``billed=True`` counts only what was paid in this
    summary's calls. Returns 0.0 for an empty corpus.
    """
    if corpus_tokens <= 0:
        return 0.0
    totals = [ledger_summary.by_stage[stage] for stage in stages if stage in ledger_summary.by_stage]
    spent = sum(t.billed_prompt_tokens if billed else t.prompt_tokens for t in totals)
    return spent / corpus_tokens


def create_llm_extractor(
    config: KgragConfig, client: LLMClient, own: LlmExtractorSettings | None = None
) -> LLMExtractor:
    """The extractor ``config`` describes, calling ``client``.

    The caller passes its own client (a workspace passes ``Components.llm()``) so that one cache, one
    ledger and one run id cover everything a command does; this function never builds one.
    """
    own = own or llm_settings(config)
    return LLMExtractor(
        client,
        TokenCounter.for_encoding(config.chunking.encoding),
        entity_types=config.graph.entity_types,
        language=config.graph.language,
        unit_tokens=own.unit_tokens,
        glean=GleanPolicy(enabled=own.gleaning),
        batch_units=4 * config.llm.max_concurrency,
        max_output_tokens=extraction_max_tokens(config.llm, own.unit_tokens),
        grounding=own.grounding,
        grounding_similarity=own.grounding_similarity,
    )


def extraction_max_tokens(llm: LLMConfig, unit_tokens: int) -> int:
    """``max_tokens`` for extraction calls: room for about two reply tokens per unit token.

    A complete extraction of dense text is often longer than the text (JSON is verbose), so the general
    ``llm.max_output_tokens`` (1024 by default) would cut many replies, and a cut reply is re-asked and
    then gleaned: three calls instead of one. Never below ``llm.max_output_tokens``; when
    ``llm.context_window`` is set, lowered so the request still fits it.
    """
    wanted = max(llm.max_output_tokens, OUTPUT_TOKENS_PER_UNIT_TOKEN * unit_tokens)
    if llm.context_window is not None:
        room = llm.context_window - unit_tokens - PROMPT_OVERHEAD_TOKENS
        wanted = max(llm.max_output_tokens, min(wanted, room))
    return wanted
