"""Graph denoising (deg-rag): entity resolution (blocking → matching → grouping → merging or linking) and
triple reflection (LLM or provenance scores), planned first, applied in transactions, undone exactly.

Layering: between ``graph`` and ``retrieval``; it imports ``core``, ``config``, ``store``, ``models`` and
``graph`` only, and nothing below imports it.
"""
