"""What a graph import did and what it had to bend, in numbers and in words.

Imports never silently drop or invent data: every skipped mention, re-homed item or renamed key is
counted here and spelled out by :meth:`ImportReport.notes`, which the CLI prints.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass
class ImportReport:
    """Counts of one import. ``nodes``/``edges`` are the entities/relations now loaded from the source."""

    source: str = ""
    chunks_file: str = ""
    nodes: int = 0
    edges: int = 0
    documents: int = 0
    chunks: int = 0
    chunks_rewritten: int = 0
    dangling_source_ids: int = 0
    skipped_mentions: int = 0
    placeholder_entities: int = 0
    placeholder_relations: int = 0
    node_description_mismatches: int = 0
    edge_description_mismatches: int = 0
    key_collisions: int = 0
    implicit_nodes: int = 0
    self_loops_skipped: int = 0
    parallel_edges_merged: int = 0

    def to_dict(self) -> dict[str, int | list[str]]:
        """Every count, and ``notes``: a sentence per non-zero irregularity."""
        return {**asdict(self), "notes": self.notes()}

    def summary(self) -> str:
        return (
            f"imported {self.nodes:,} entities and {self.edges:,} relations; {self.documents:,} documents, "
            f"{self.chunks:,} chunks ({self.chunks_rewritten:,} written)"
        )

    def notes(self) -> list[str]:
        """One sentence per non-zero irregularity."""
        lines: list[tuple[int, str]] = [
            (
                self.dangling_source_ids,
                f"{self.dangling_source_ids} source chunk ids were not in the chunk file; "
                f"their {self.skipped_mentions} mentions were skipped",
            ),
            (
                self.placeholder_entities + self.placeholder_relations,
                f"{self.placeholder_entities} entities and {self.placeholder_relations} relations had no known "
                "source chunk and are kept on a placeholder chunk",
            ),
            (
                self.node_description_mismatches + self.edge_description_mismatches,
                f"{self.node_description_mismatches} nodes and {self.edge_description_mismatches} edges had "
                "description and source counts that differ; all their descriptions were attached to every "
                "source chunk",
            ),
            (
                self.key_collisions,
                f"{self.key_collisions} nodes share a normalised name with another node and got "
                "a '#n' key suffix to stay distinct",
            ),
            (
                self.implicit_nodes,
                f"{self.implicit_nodes} edge endpoints were not declared as nodes and were created without description",
            ),
            (self.self_loops_skipped, f"{self.self_loops_skipped} self-loop edges were skipped"),
            (self.parallel_edges_merged, f"{self.parallel_edges_merged} parallel edges were merged into one relation"),
        ]
        return [text for count, text in lines if count]
