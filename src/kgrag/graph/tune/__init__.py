"""Prompt tuning for a corpus (``kgrag prompts tune``): sample the documents, propose entity types, a domain
note and the output language, and write worked examples drawn from the corpus as workspace prompt overrides.

See docs/llm.md, "Tuning prompts for a corpus".
"""
