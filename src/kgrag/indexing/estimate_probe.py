"""``kgrag index --estimate --probe``: real extractions of two sample units before the estimate.

An estimate before any call knows nothing about the model: how long its replies are, how often they are
rejected, cut at the token limit or retried smaller, how much of the text's names it returns. The probe
extracts two units of the corpus for real (formed exactly as indexing forms them, so their replies are
cached and the real run pays nothing more for them), through the workspace's own client, so their calls
land in the ledger; the estimate that follows is calibrated from them
(:func:`~kgrag.indexing.estimate_assumptions.calibrate_assumptions`). The two units are those at the
first and third quartile of the distinct names they hold (among the units of eight documents spread over
the corpus's files): a reply grows with the names of its unit, or not, and the mean of two replies that
bracket the typical unit is less at the mercy of one unit's names than a single reply. When their costs
differ widely it extracts more (:mod:`kgrag.indexing.estimate_probe_size`).
When the pipeline denoises with the LLM, a few merge confirmations and one reflection batch follow
(:mod:`kgrag.indexing.estimate_probe_denoise`); when it writes LLM community reports, one report
(:mod:`kgrag.indexing.estimate_probe_report`).
Nothing is written but the ledger rows, the cached replies, the shares measured and the probed units'
mean distinct names (meta: the estimate scales the measured reply size to each unit's names from it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from kgrag.core.errors import KgragError
from kgrag.core.records import ChunkRecord
from kgrag.core.registry import Registry

if TYPE_CHECKING:
    from kgrag.config import KgragConfig
    from kgrag.core.registries import Registries
    from kgrag.documents.loaders import Loader
    from kgrag.graph.extract.llm import LLMExtractor
    from kgrag.graph.extract.units import ExtractionUnit
    from kgrag.graph.types import ChunkExtraction
    from kgrag.indexing.ingest import ChunkPlan
    from kgrag.indexing.registries import IndexRegistries
    from kgrag.models.llm import LLMClient
    from kgrag.store import Store


class ProbeParts(Protocol):
    """The workspace's parts the probe uses (the config is read after the client fitted it)."""

    @property
    def config(self) -> KgragConfig: ...

    @property
    def store(self) -> Store: ...

    def chunk_plan(self) -> tuple[ChunkPlan, list[str]]: ...

    def llm_for_extraction(self) -> LLMClient | None: ...

    @property
    def index_registries(self) -> IndexRegistries: ...

    @property
    def registries(self) -> Registries: ...


PROBE_DOCUMENTS = 8  # the sample units are chosen among the units of this many documents


def _record_shares(parts: ProbeParts, units: Sequence[tuple[str, Sequence[ChunkExtraction]]]) -> None:
    """Store how many names and relations the model returned for the probe's units (text, extractions)
    per item of the estimate's stand-in graph of the same texts (:mod:`kgrag.indexing.estimate_shares`)."""
    from kgrag.indexing.estimate_assumptions import META_SHARES
    from kgrag.indexing.estimate_shares import UnitSample, measure_shares

    samples = []
    for text, extractions in units:
        if any(x.error for x in extractions):
            return
        names = frozenset(e.name.casefold() for x in extractions for e in x.entities)
        pairs = (sorted((r.source.casefold(), r.target.casefold())) for x in extractions for r in x.relations)
        described = (
            [e.description for x in extractions for e in x.entities],
            [r.description for x in extractions for r in x.relations],
        )
        entities = [(e.name, e.type, e.description) for x in extractions for e in x.entities]
        related = frozenset((first, second) for first, second in pairs)
        samples.append(UnitSample(text, names, related, described, entities))
    from kgrag.indexing.estimate_communities import community_counter
    from kgrag.indexing.estimate_merges import group_counter

    count = community_counter(parts.config.communities, parts.registries)
    shares = measure_shares(samples, count, group_counter(parts.config.denoise, parts.registries))
    if shares is not None:
        with parts.store.transaction():
            parts.store.meta.set(META_SHARES, shares.stored())


def _record_described(parts: ProbeParts, units: Sequence[tuple[str, Sequence[ChunkExtraction]]]) -> None:
    """Store the model's names and description lengths on the probe's units (text, extractions), for the
    estimate's summaries (:mod:`kgrag.indexing.estimate_descriptions`)."""
    from kgrag.indexing.estimate_descriptions import probe_described, record_probe

    record_probe(parts.store, probe_described(units))


def _record_names(parts: ProbeParts, units: Sequence[ExtractionUnit]) -> None:
    """Store the mean distinct names of the probe's units: what the measured reply size is scaled from
    (:mod:`kgrag.models.llm.estimate_reply`)."""
    from kgrag.indexing.estimate_assumptions import META_PROBE_NAMES
    from kgrag.models.llm.estimate import distinct_names

    mean = sum(len(distinct_names(unit.text)) for unit in units) / len(units)
    with parts.store.transaction():
        parts.store.meta.set(META_PROBE_NAMES, f"{mean:.2f}")


def _candidate_units(
    parts: ProbeParts, loaders: Registry[Loader], paths: Sequence[Path]
) -> tuple[list[ExtractionUnit], int]:
    """The units of :data:`PROBE_DOCUMENTS` documents spread evenly over the corpus's files in name order
    (so a corpus whose later files differ from its first ones is sampled across), formed as indexing forms
    them, and the corpus's units as many per document as those (what the probe's size limit is a share of)."""
    from kgrag.documents import chunk_text
    from kgrag.documents.discovery import discover
    from kgrag.documents.loaders import load_path
    from kgrag.documents.records import content_hash
    from kgrag.graph.extract.settings import llm_settings
    from kgrag.graph.extract.units import build_units

    config = parts.config
    plan, _ = parts.chunk_plan()
    units: list[ExtractionUnit] = []
    found = discover(list(paths), config.documents.include, config.documents.exclude)
    for path in spread_files(found, PROBE_DOCUMENTS):
        try:
            loaded = load_path(path, config.documents, loaders)
        except KgragError:
            continue  # the estimate names unreadable files; the probe only needs one readable one
        for number, document in enumerate(loaded):
            records = [
                ChunkRecord(f"probe{number}:{c.ord}", f"probe{number}:{path}", c.ord, c.char_start, c.char_end,
                            c.text, c.n_tokens, content_hash(c.text))
                for c in chunk_text(document.text, plan.counter, plan.size, plan.overlap)
            ]  # fmt: skip
            units.extend(build_units(records, llm_settings(config).unit_tokens, plan.counter))
    read = min(len(found), PROBE_DOCUMENTS)
    return units, round(len(units) * len(found) / read) if read else 0


def spread_files(items: Sequence[Path], count: int) -> list[Path]:
    """``count`` of ``items`` evenly spaced in their order (each the middle of its share), all when fewer."""
    if len(items) <= count:
        return list(items)
    return [items[(2 * i + 1) * len(items) // (2 * count)] for i in range(count)]


def chosen_units(units: Sequence[ExtractionUnit]) -> list[ExtractionUnit]:
    """The units the probe extracts: those at the first and third quartile of the distinct names they
    hold (one when there are fewer than four units: the median one)."""
    return _quartiles(ranked_units(units))


def _quartiles(ranked: Sequence[ExtractionUnit]) -> list[ExtractionUnit]:
    """Of units ranked by :func:`ranked_units`, those :func:`chosen_units` picks."""
    if len(ranked) < 4:
        return list(ranked[len(ranked) // 2 :][:1])
    return [ranked[len(ranked) // 4], ranked[(3 * len(ranked)) // 4]]


def ranked_units(units: Sequence[ExtractionUnit]) -> list[ExtractionUnit]:
    """``units`` by the distinct names they hold (then by size): the order the probe picks units in."""
    from kgrag.models.llm.estimate import distinct_names

    return sorted(units, key=lambda unit: (len(distinct_names(unit.text)), unit.n_tokens))


def probe_extraction(parts: ProbeParts, loaders: Registry[Loader], paths: Sequence[Path]) -> list[str]:
    """Extract the sample units (of ``paths``, read with the workspace's ``loaders``) for real with
    ``parts``' client, then the denoising calls the pipeline would make; the lines saying what it did."""
    from kgrag.communities.detect import COMMUNITY_BUILDERS
    from kgrag.graph.extract.llm import create_llm_extractor
    from kgrag.indexing.estimate_failures import record_probe_failures
    from kgrag.indexing.estimate_probe_denoise import probe_denoise
    from kgrag.indexing.estimate_probe_report import probe_report
    from kgrag.indexing.runner import pipeline_names

    client = parts.llm_for_extraction()  # first: it fits the config (unit size) to the server's window
    if client is None or parts.config.graph.extractor not in ("llm", "auto"):
        return ["probe: nothing to probe (no LLM graph extraction is configured)"]
    candidates, corpus_units = _candidate_units(parts, loaders, paths)
    ranked = ranked_units(candidates)  # read and ranked once: the widening reuses it
    units = _quartiles(ranked)
    if not units:
        return ["probe: no readable text to probe"]
    extractor: LLMExtractor = create_llm_extractor(parts.config, client)
    probed = _Probed()
    for unit in units:
        probed.extract(unit, (extractor, client))
    units = _widened(ranked, (extractor, client), units, probed)
    units = _sized(ranked, corpus_units, (extractor, client), units, probed)
    done = probed.done
    record_probe_failures(parts.store, [extractions for _, extractions in done], client.run_id)
    _record_shares(parts, done)
    _record_described(parts, done)
    _record_names(parts, units)
    stages = pipeline_names(parts.config.indexing.pipeline, parts.index_registries)
    extracted = [x for _, extractions in done for x in extractions]
    notes = probe_denoise(parts.config, client, stages, extracted)
    notes += probe_report(parts.config, client, stages, extracted, parts.registries.get(COMMUNITY_BUILDERS))
    return [_spent_line(client, units, done, probed.split), *notes]


@dataclass
class _Probed:
    """What the probe extracted: each unit's text and extractions, its completion, the halves it was split into."""

    done: list[tuple[str, Sequence[ChunkExtraction]]] = field(default_factory=list)
    costs: list[float] = field(default_factory=list)
    split: int = 0

    def extract(self, unit: ExtractionUnit, extracting: tuple[LLMExtractor, LLMClient]) -> None:
        """Extract ``unit`` for real and keep what it gave and cost."""
        from kgrag.indexing.estimate_probe_size import unit_cost

        extractor, client = extracting
        before = _extract_completion(client)
        self.done.append((unit.text, list(extractor.extract(unit.chunks))))
        self.costs.append(unit_cost(before, _extract_completion(client)))
        self.split += extractor.stats.split_units


def _extract_completion(client: LLMClient) -> int:
    from kgrag.indexing.estimate_probe_size import EXTRACT_STAGE

    spent = client.summary().by_stage.get(EXTRACT_STAGE)
    return spent.billed_completion_tokens if spent is not None else 0


def _widened(
    ranked: Sequence[ExtractionUnit], extracting: tuple[LLMExtractor, LLMClient], units: list[ExtractionUnit],
    probed: _Probed,
) -> list[ExtractionUnit]:  # fmt: skip
    """The probed units, with :func:`~kgrag.indexing.estimate_failures.more_units` of the ``ranked``
    candidates extracted too when the first units' replies faulted."""
    from kgrag.indexing.estimate_failures import faulted, more_units

    if faulted(extracting[1], len(units), [extractions for _, extractions in probed.done]):
        for unit in more_units(ranked, units):
            probed.extract(unit, extracting)
            units = [*units, unit]
    return units


def _sized(
    ranked: Sequence[ExtractionUnit], corpus_units: int, extracting: tuple[LLMExtractor, LLMClient],
    units: list[ExtractionUnit], probed: _Probed,
) -> list[ExtractionUnit]:  # fmt: skip
    """The probed units, with more of the ``ranked`` candidates extracted while what a unit costs is unsure
    (:mod:`kgrag.indexing.estimate_probe_size`), within the corpus's limit."""
    from kgrag.indexing.estimate_probe_size import cost_known, spread, unit_limit

    limit = unit_limit(corpus_units)
    for unit in spread(ranked, units):
        if len(units) >= limit or cost_known(probed.costs):
            break
        probed.extract(unit, extracting)
        units = [*units, unit]
    return units


def _spent_line(
    client: LLMClient, units: Sequence[ExtractionUnit], done: Sequence[tuple[str, Sequence[ChunkExtraction]]],
    split: int,
) -> str:  # fmt: skip
    spent = client.summary().total
    tokens = "+".join(str(unit.n_tokens) for unit in units)
    failed = any(x.error for _, extractions in done for x in extractions)
    outcome = ("failed" if failed else "extracted") + (f", retried as {split} smaller halves" if split else "")
    count = "one unit" if len(units) == 1 else f"{len(units)} units"
    return (
        f"probe: {count} of {tokens} tokens sent for real ({outcome}): {spent.calls} calls, "
        f"{spent.billed_prompt_tokens} prompt + {spent.billed_completion_tokens} completion tokens paid now "
        "(cached: the run reuses them)"
    )
