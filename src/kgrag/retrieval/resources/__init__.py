"""The built-in query-time resources, a module per concern, each a
:class:`~kgrag.retrieval.query_context.QueryResource` registered by name in ``KINDS["query_resource"]``
(see docs/architecture.md, "Query-time resources")."""
