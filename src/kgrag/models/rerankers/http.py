"""A reranker served over HTTP: ``POST <url>/rerank`` in the Cohere/Jina or the TEI request shape.

Cohere and Jina take ``{"model", "query", "documents", "top_n"}`` and answer ``{"results": [{"index",
"relevance_score"}]}``; Hugging Face text-embeddings-inference takes ``{"query", "texts"}`` and answers
``[{"index", "score"}]``. Both answers are accepted whatever shape was sent, since gateways mix them.
Candidates the service leaves out keep their incoming order after the scored ones.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import httpx
from pydantic import JsonValue

from kgrag.core.context import ContextItem
from kgrag.core.errors import ConfigError, ModelError
from kgrag.models.rerankers.base import RerankResources, reorder
from kgrag.models.rerankers.settings import HttpSettings


def rerank_url(base: str) -> str:
    """``base`` with ``/rerank`` appended unless it already ends with it."""
    base = base.rstrip("/")
    return base if base.endswith("/rerank") else base + "/rerank"


def parse_scores(payload: Any, n: int) -> list[float]:
    """Scores by candidate index from either answer shape; unscored candidates get -inf (kept last)."""
    rows = payload.get("results", payload.get("data")) if isinstance(payload, dict) else payload
    if not isinstance(rows, list):
        raise ModelError(f"reranker reply has no result list: {str(payload)[:200]}")
    scores = [float("-inf")] * n
    for row in rows:
        try:
            index = int(row["index"])
            score = float(row.get("relevance_score", row.get("score")))
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelError(f"reranker reply row is not {{index, relevance_score|score}}: {row!r}") from exc
        if 0 <= index < n:
            scores[index] = score
    return scores


class HTTPReranker:
    """One request per query; transport errors and non-2xx answers raise :class:`ModelError`."""

    def __init__(self, url: str, *, model: str = "", shape: str = "cohere", api_key: str | None = None,
                 timeout_s: float = 30.0) -> None:  # fmt: skip
        self.url = rerank_url(url)
        self.model = model
        self.shape = shape
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(timeout=timeout_s, headers=headers)

    def _body(self, query: str, texts: list[str], k: int) -> dict[str, JsonValue]:
        if self.shape == "tei":
            return {"query": query, "texts": [*texts]}
        body: dict[str, JsonValue] = {"query": query, "documents": [*texts], "top_n": len(texts)}
        if self.model:
            body["model"] = self.model
        return body

    def rerank(self, query: str, items: Sequence[ContextItem], k: int) -> list[ContextItem]:
        if not items:
            return []
        try:
            response = self._client.post(self.url, json=self._body(query, [i.text for i in items], k))
        except httpx.HTTPError as exc:
            raise ModelError(f"reranker at {self.url} unreachable: {exc}") from exc
        if response.status_code >= 400:
            raise ModelError(f"reranker at {self.url} answered {response.status_code}: {response.text[:200]}")
        try:
            payload = response.json()
        except ValueError as exc:
            raise ModelError(f"reranker at {self.url} answered non-JSON: {response.text[:200]}") from exc
        return reorder(items, parse_scores(payload, len(items)), k)

    def close(self) -> None:
        self._client.close()


def http_reranker(settings: HttpSettings, resources: RerankResources) -> HTTPReranker:
    if not settings.url:
        raise ConfigError("rerank.provider = 'http' needs rerank.http.url (e.g. http://localhost:8080)")
    key = os.environ.get(settings.api_key_env) or None
    return HTTPReranker(
        settings.url, model=settings.model, shape=settings.api_shape, api_key=key, timeout_s=settings.timeout_s
    )
