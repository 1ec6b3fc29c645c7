"""The built-in retrieval recipes, one per file; each is registered once, by name, in
``KINDS["pipeline"]`` of :mod:`kgrag.core.builtins`. A recipe is ``factory(name, config) -> Pipeline``
and reads its own ``[retrieval.pipelines.<name>]`` table through the config helpers."""
