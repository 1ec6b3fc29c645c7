"""The model's own entities and description lengths, measured for the estimate's summary prediction.

Description summaries follow the entities a model takes and the descriptions it writes
(:mod:`kgrag.models.llm.estimate_summaries`), neither of which the estimate's stand-in graph has. Two
sources measure them, as for the stand-in's shares (:mod:`kgrag.indexing.estimate_shares`):

* the ``--probe`` units (:func:`record_probe`): the names the model extracted there, with the tokens of
  their descriptions (the run reuses those replies, so they are merged in the run for sure);
* the workspace's stored graph (:func:`stored_described`): every stored entity with the tokens of its
  distinct mention descriptions (the run merges new ones into them), and, on its extracted units
  (:mod:`kgrag.indexing.estimate_stored`), the mean description length and the share of units naming an
  entity in their text that the model extracted it from.

Both are used together while the probe is the newest extraction; the mean length and the share come from
whichever measured more units.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from kgrag.models.llm.estimate_summaries import DescribedName, DescribedNames, TextIndex

if TYPE_CHECKING:
    from kgrag.graph.types import ChunkExtraction
    from kgrag.indexing.estimate_stored import StoredGraph
    from kgrag.store.base import Store

META_PROBE_DESCRIBED = "estimate.probe_described"  # JSON: the probe's DescribedNames


def _tokens(texts: Iterable[str]) -> int:
    """Tokens of distinct descriptions merged (one a line), what the summary limit is checked on."""
    from kgrag.models.llm.tokens import default_token_counter

    joined = "\n".join(dict.fromkeys(t.strip() for t in texts if t and t.strip()))
    return default_token_counter().count(joined) if joined else 0


def summary_prompt_tokens(prompts_dir: Path | None) -> int | None:
    """Tokens of the summary prompt without its descriptions (None: it cannot be read)."""
    from kgrag.core.errors import KgragError
    from kgrag.graph.build.summarize_llm import SUMMARIZE_PROMPT
    from kgrag.models.llm.tokens import count_message_tokens, default_token_counter
    from kgrag.prompts.loader import load_prompt

    try:
        prompt = load_prompt(SUMMARIZE_PROMPT, prompts_dir)
        messages = prompt.render({"kind": "entity", "name": "", "max_words": 0, "descriptions": ""})
    except (KgragError, OSError, KeyError, ValueError):
        return None
    return count_message_tokens(default_token_counter(), messages)


def _measured(
    units: Sequence[tuple[str, frozenset[str]]], descriptions: Mapping[str, list[str]],
    surfaces: Mapping[str, set[str]], *, touched: bool,
) -> DescribedNames:  # fmt: skip
    """The names of ``descriptions`` (casefolded key → descriptions written), each with its surfaces, its
    description tokens and its extraction share over ``units`` (text, keys extracted there); ``touched``:
    the run surely merges them (the probe's units, which the run reuses)."""
    named = {key: tuple(sorted(surfaces[key])) for key in descriptions}
    naming = units_naming(units, named)  # searched once: both shares read it
    share = extraction_share(units, named, naming)
    each = name_shares(units, named, share, naming)
    names = tuple(DescribedName(named[key], _tokens(texts), touched, each[key]) for key, texts in descriptions.items())
    mean = _mean_tokens([t for texts in descriptions.values() for t in texts])
    return DescribedNames(names, mean, share, len(units))


def _mean_tokens(texts: Sequence[str]) -> float:
    from kgrag.models.llm.tokens import default_token_counter

    counter = default_token_counter()
    kept = [t.strip() for t in texts if t and t.strip()]
    return sum(counter.count(t) for t in kept) / len(kept) if kept else 0.0


Naming = Mapping[str, list[frozenset[str]]]  # entity key → the extracted keys of each unit naming it


def units_naming(units: Sequence[tuple[str, frozenset[str]]], surfaces: Mapping[str, Sequence[str]]) -> Naming:
    """Per entity key (``surfaces`` by key), the extracted keys of each of ``units`` (text, extracted keys)
    whose text names it."""
    index = TextIndex([text for text, _ in units])
    return {key: [units[n][1] for n in index.naming(names)] for key, names in surfaces.items()}


def extraction_share(
    units: Sequence[tuple[str, frozenset[str]]], surfaces: Mapping[str, Sequence[str]], naming: Naming | None = None
) -> float:
    """Of the (unit, name) pairs where a unit's text names an entity (``surfaces`` by key) that
    the model extracted from another of ``units`` (text, extracted keys), the share where it extracted it
    from this one too (1 when no entity was named in two units); ``naming``: :func:`units_naming`, if known."""
    trials = hits = 0
    for key, naming_it in (naming if naming is not None else units_naming(units, surfaces)).items():
        extracted = sum(key in keys for keys in naming_it)
        for keys in naming_it:
            if extracted - (key in keys) > 0:  # extracted elsewhere: this unit is a fair trial
                trials += 1
                hits += key in keys
    return hits / trials if trials else 1.0


def name_shares(
    units: Sequence[tuple[str, frozenset[str]]], surfaces: Mapping[str, Sequence[str]], pooled: float,
    naming: Naming | None = None,
) -> dict[str, float]:  # fmt: skip
    """Per entity key, the share of ``units`` naming it that the model extracts it from: of the units
    naming it, those but the first it was extracted from (the one that made it an entity we know), with
    ``pooled`` (:func:`extraction_share`) standing for that first one; ``pooled`` when no unit extracted it.
    ``naming``: :func:`units_naming`, if known."""
    shares = {}
    for key, naming_it in (naming if naming is not None else units_naming(units, surfaces)).items():
        extracted = sum(key in keys for keys in naming_it)
        shares[key] = (extracted - 1 + pooled) / len(naming_it) if extracted else pooled
    return shares


def probe_described(units: Sequence[tuple[str, Sequence[ChunkExtraction]]]) -> DescribedNames | None:
    """What the probe's units (text, extractions) show (None without an entity)."""
    descriptions: dict[str, list[str]] = defaultdict(list)
    surfaces: dict[str, set[str]] = defaultdict(set)
    samples = []
    for text, extractions in units:
        keys = frozenset(e.name.casefold() for x in extractions for e in x.entities)
        for x in extractions:
            for entity in x.entities:
                descriptions[entity.name.casefold()].append(entity.description)
                surfaces[entity.name.casefold()].add(entity.name.strip())
        samples.append((text, keys))
    if not descriptions:
        return None
    return _measured(samples, descriptions, surfaces, touched=True)


def record_probe(store: Store, described: DescribedNames | None) -> None:
    """Store the probe's measure for the estimate that follows (removed when there is none)."""
    value = "" if described is None else json.dumps(
        {
            "names": [[list(n.surfaces), n.known_tokens, n.hit] for n in described.names],
            "mention_tokens": described.mention_tokens,
            "hit": described.hit,
            "units": described.units,
        }
    )  # fmt: skip
    with store.transaction():
        store.meta.set(META_PROBE_DESCRIBED, value)


def _probe(store: Store) -> DescribedNames | None:
    """The last probe's measure, while no run has extracted since it."""
    from kgrag.indexing.estimate_failures import probe_is_current

    value = store.meta.get(META_PROBE_DESCRIBED)
    if not value or not probe_is_current(store):
        return None
    try:
        data = json.loads(value)
        names = tuple(DescribedName(tuple(s), int(t), True, h) for s, t, h in data["names"])
        return DescribedNames(names, float(data["mention_tokens"]), float(data["hit"]), int(data["units"]))
    except (ValueError, KeyError, TypeError):
        return None


def stored_described(stored: StoredGraph) -> DescribedNames | None:
    """What the workspace's stored graph shows: every stored entity's descriptions and surfaces, measured
    on the extracted units :func:`~kgrag.indexing.estimate_stored.read_stored_graph` read."""
    descriptions: dict[str, list[str]] = defaultdict(list)
    surfaces: dict[str, set[str]] = defaultdict(set)
    by_chunk: dict[str, set[str]] = defaultdict(set)
    for chunk_id, mentions in stored.entities.items():
        for mention in mentions:
            descriptions[mention.entity_key].append(mention.description)
            surfaces[mention.entity_key].add(mention.surface.strip())
            by_chunk[chunk_id].add(mention.entity_key)
    units = [
        (unit.text, frozenset(key for chunk_id in unit.chunk_ids for key in by_chunk.get(chunk_id, ())))
        for unit in stored.units
    ]
    return _measured(units, descriptions, surfaces, touched=False) if descriptions else None


def described_for(store: Store, graph: StoredGraph | None) -> DescribedNames | None:
    """The stored graph's entities (``graph``, as read once for the estimate) with the current probe's added
    (the probe's descriptions join a stored entity that shares a name); the length and share of whichever
    measured more units."""
    probed, stored = _probe(store), (stored_described(graph) if graph is not None else None)
    if probed is None or stored is None:
        return probed or stored
    index = {surface.casefold(): n for n, name in enumerate(stored.names) for surface in name.surfaces}
    names = list(stored.names)
    for name in probed.names:
        at = next((index[s.casefold()] for s in name.surfaces if s.casefold() in index), None)
        if at is None:
            names.append(name)
        else:
            known = names[at].known_tokens + name.known_tokens
            names[at] = DescribedName(names[at].surfaces, known, True, names[at].hit)
    source = probed if probed.units > stored.units else stored
    return DescribedNames(tuple(names), source.mention_tokens, source.hit, source.units)
