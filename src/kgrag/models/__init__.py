"""Model interfaces: embedders, chat LLMs and rerankers, each behind a small Protocol with a fake."""
