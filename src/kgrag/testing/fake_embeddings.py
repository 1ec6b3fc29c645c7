"""The fake OpenAI server's ``/v1/embeddings`` answer: deterministic hash vectors, usage in words."""

from __future__ import annotations

from typing import Any


def embeddings_reply(body: dict[str, Any]) -> dict[str, Any]:
    from kgrag.models.embeddings import FakeEmbedder
    from kgrag.testing.fake_openai_server import word_count

    texts = body.get("input", [])
    texts = [texts] if isinstance(texts, str) else [str(t) for t in texts]
    dimension = int(body.get("dimensions") or 64)
    vectors: Any = FakeEmbedder(dimension=dimension).embed(texts) if texts else []
    data = [{"object": "embedding", "index": i, "embedding": [float(x) for x in v]} for i, v in enumerate(vectors)]
    tokens = sum(word_count(t) for t in texts)
    return {"object": "list", "data": data, "model": body.get("model", "fake"),
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens}}  # fmt: skip
