"""The fake OpenAI server's ``/v1/embeddings`` answer: deterministic hash vectors, usage in words."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kgrag.testing.wire import ChatBody, Embedding, EmbeddingsReply


def embeddings_reply(body: ChatBody) -> EmbeddingsReply:
    from kgrag.models.embeddings import FakeEmbedder
    from kgrag.testing.fake_openai_server import word_count

    given = body.get("input", [])
    texts = [given] if isinstance(given, str) else [str(t) for t in given]
    dimension = int(body.get("dimensions") or 64)
    vectors: Any = FakeEmbedder(dimension=dimension).embed(texts) if texts else []
    data: list[Embedding] = [
        {"object": "embedding", "index": i, "embedding": [float(x) for x in v]} for i, v in enumerate(vectors)
    ]
    tokens = sum(word_count(t) for t in texts)
    return {"object": "list", "data": data, "model": body.get("model", "fake"),
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens}}  # fmt: skip
