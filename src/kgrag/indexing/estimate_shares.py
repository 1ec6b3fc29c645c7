"""How much of the estimate's stand-in graph a model keeps: measured on the units it really extracted.

An estimate builds its graph from the text itself (:mod:`kgrag.graph.extract.structural`: every
capitalised name an entity, neighbouring names related). A real model returns fewer names, and its own
relations, some of which grounding drops; communities, merge candidates and reflection batches follow
that graph, not the stand-in's. So the stand-in keeps only the shares a model was seen to return:

* the names the model returned per stand-in name of the same unit, and
* the relations it returned per relation of the stand-in cut down to that share of names,

summed over the measured units. The stand-in's entities and relations carry no description (so that no
description summary is counted twice), while the denoising prompts quote each one; so the mean length of
the model's descriptions (as those prompts cut them) is measured too, and the estimate adds it to each
quoted line (:class:`~kgrag.models.llm.estimate_assumed.EstimateAssumptions` ``entity_description`` and
``relation_description``). Two sources measure them: the ``--probe`` unit
(:mod:`kgrag.indexing.estimate_probe`), and, in a workspace that has already indexed with the model, the
stored graph itself (:func:`graph_shares`: each extracted unit as :mod:`kgrag.indexing.estimate_stored`
reads it, against its entity and relation mentions). The larger sample is used.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kgrag.indexing.estimate_communities import CommunityCounter
    from kgrag.indexing.estimate_merges import GroupCounter
    from kgrag.indexing.estimate_stored import StoredGraph


@dataclass(frozen=True)
class UnitSample:
    """One extracted unit: its text, and the distinct names (keys) and relation pairs the model returned."""

    text: str
    names: frozenset[str]
    relations: frozenset[tuple[str, str]]
    descriptions: tuple[Sequence[str], Sequence[str]] = ((), ())  # the entities' and the relations'
    entities: Sequence[tuple[str, str, str]] = ()  # name, type, description (estimate_merges)


@dataclass(frozen=True)
class Shares:
    """Stand-in names and relations the model keeps, measured on ``units`` units."""

    names: float
    relations: float
    units: int
    entity_description: float = 0.0  # mean tokens of an entity description as a prompt quotes it (0: none)
    relation_description: float = 0.0
    communities: float = 1.0  # the model's reportable communities per stand-in one (estimate_communities)
    merges: float = 1.0  # the model's resolution groups per stand-in one (estimate_merges)

    def stored(self) -> str:
        described = f" {self.entity_description:.1f} {self.relation_description:.1f} {self.communities:.4f}"
        return f"{self.names:.4f} {self.relations:.4f} {self.units}" + described + f" {self.merges:.4f}"

    @classmethod
    def parse(cls, value: str | None) -> Shares | None:
        """A stored value (``names relations [units]``; a value without a unit count is one unit's)."""
        fields = (value or "").split()
        try:
            names, relations = float(fields[0]), float(fields[1])
            units = int(fields[2]) if len(fields) > 2 else 1
            described = (float(fields[3]), float(fields[4])) if len(fields) > 4 else (0.0, 0.0)
            communities = float(fields[5]) if len(fields) > 5 else 1.0
            merges = float(fields[6]) if len(fields) > 6 else 1.0
        except (IndexError, ValueError):
            return None
        return cls(names, relations, units, *described, communities, merges)


def measure_shares(
    samples: Iterable[UnitSample], communities: CommunityCounter | None = None, merges: GroupCounter | None = None
) -> Shares | None:
    """The shares over ``samples`` (None when their text holds no stand-in name); with ``communities``, the
    ratio of reportable communities too (:mod:`kgrag.indexing.estimate_communities`); with ``merges``, the
    ratio of resolution groups (:mod:`kgrag.indexing.estimate_merges`)."""
    from kgrag.graph.extract.structural import structural_items
    from kgrag.indexing.estimate_communities import community_ratio
    from kgrag.indexing.estimate_merges import merge_ratio

    samples = list(samples)
    stand_in = sum(len(structural_items(s.text).entities) for s in samples)
    if not stand_in:
        return None
    name_share = min(1.0, sum(len(s.names) for s in samples) / stand_in)
    kept = sum(len(structural_items(s.text, name_share).relations) for s in samples)
    returned = sum(len(s.relations) for s in samples)
    relation_share = returned / kept if kept else 1.0  # above 1: the model relates more than neighbours
    ratio = community_ratio(samples, name_share, relation_share, communities) if communities is not None else 1.0
    groups = merge_ratio(samples, name_share, relation_share, merges) if merges is not None else 1.0
    return Shares(name_share, relation_share, len(samples), *_description_tokens(samples), ratio, groups)


def _description_tokens(samples: Sequence[UnitSample]) -> tuple[float, float]:
    """Mean tokens of the samples' entity and relation descriptions, cut as the confirmation and
    reflection prompts cut them."""
    from kgrag.denoise.confirm import MAX_DESCRIPTION_CHARS as ENTITY_CHARS
    from kgrag.denoise.reflect_llm import MAX_DESCRIPTION_CHARS as RELATION_CHARS
    from kgrag.models.llm.tokens import default_token_counter

    counter = default_token_counter()
    means = []
    for side, limit in ((0, ENTITY_CHARS), (1, RELATION_CHARS)):
        texts = [" ".join(text.split())[:limit] for s in samples for text in s.descriptions[side]]
        means.append(sum(counter.count(text) for text in texts) / len(texts) if texts else 0.0)
    return means[0], means[1]


def graph_shares(
    stored: StoredGraph, communities: CommunityCounter | None = None, merges: GroupCounter | None = None
) -> Shares | None:
    """The shares the workspace's stored graph shows (None without an extracted unit): each of its extracted
    units' entity and relation mentions against the stand-in graph of the unit's text."""
    names: dict[str, set[str]] = defaultdict(set)
    described: dict[str, tuple[list[str], list[str]]] = defaultdict(lambda: ([], []))
    entities: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for chunk_id, mentions in stored.entities.items():
        for entity in mentions:
            names[chunk_id].add(entity.entity_key)
            described[chunk_id][0].append(entity.description)
            entities[chunk_id].append((entity.surface, entity.type, entity.description))
    pairs: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for chunk_id, relation_mentions in stored.relations.items():
        for relation in relation_mentions:
            first, second = sorted((relation.source_key, relation.target_key))
            pairs[chunk_id].add((first, second))
            described[chunk_id][1].append(relation.description)
    samples = [_sample(unit.text, unit.chunk_ids, names, pairs, described, entities) for unit in stored.units]
    return measure_shares(samples, communities, merges) if samples else None


def _sample(
    text: str,
    ids: Sequence[str],
    names: dict[str, set[str]],
    pairs: dict[str, set[tuple[str, str]]],
    described: dict[str, tuple[list[str], list[str]]],
    entities: dict[str, list[tuple[str, str, str]]],
) -> UnitSample:
    """The unit of ``text`` made of chunks ``ids``, with what the stored graph holds for those chunks."""
    return UnitSample(
        text,
        frozenset(key for i in ids for key in names.get(i, ())),
        frozenset(pair for i in ids for pair in pairs.get(i, ())),
        (
            [d for i in ids for d in described.get(i, ([], []))[0]],
            [d for i in ids for d in described.get(i, ([], []))[1]],
        ),
        [e for i in ids for e in entities.get(i, ())],
    )
