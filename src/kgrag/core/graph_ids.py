"""Stable graph identifiers, shared by every store backend and the graph layer.

Ids are hashes of the normalised entity key (and of the unordered id pair for relations), so the same
name gives the same id in every workspace and every run: a resumed extraction cannot create a second
copy of an entity, and exports from two workspaces line up.
"""

from __future__ import annotations

import hashlib


def entity_id_for_key(key: str) -> str:
    """Entity id of a normalised key (see :func:`kgrag.graph.normalize.entity_key`)."""
    return "e" + hashlib.sha1(key.encode("utf-8")).hexdigest()[:16]


def relation_id_for_pair(entity_a: str, entity_b: str) -> str:
    """Relation id of an unordered entity-id pair: (a, b) and (b, a) give the same id."""
    low, high = sorted((entity_a, entity_b))
    return "r" + hashlib.sha1(f"{low}|{high}".encode()).hexdigest()[:16]
