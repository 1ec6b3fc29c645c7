"""Hierarchical communities of the knowledge graph, their reports, and the index retrieval searches.

Between ``graph`` and ``retrieval`` in the layering: it reads the stored graph, partitions it with a
registered community builder (``KINDS["community_builder"]``), stores the hierarchy, writes one report per
community (LLM or extractive) and embeds the reports; ``retrieval`` searches them (``community``,
``global``). See ``docs/communities.md``.
"""
