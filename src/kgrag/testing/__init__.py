"""Test doubles that ship with kgrag so users can test their own pipelines offline.

:class:`FakeOpenAIServer` is a real HTTP server speaking the OpenAI chat/embeddings API on 127.0.0.1,
with fault injection and server-side counters; :class:`FakeBatchServer` adds the Batch API (``/v1/files``,
``/v1/batches``) with delayed completion, failed lines, expiry and refused batches.
"""

from kgrag.testing.fake_batch_server import BatchPlan, BatchServerStats, FakeBatchServer
from kgrag.testing.fake_openai_server import (
    ALL_FAULTS,
    FakeOpenAIServer,
    FaultKind,
    FaultPlan,
    ServerStats,
    echo_responder,
    fake_openai_server,
)

__all__ = [
    "ALL_FAULTS",
    "BatchPlan",
    "BatchServerStats",
    "FakeBatchServer",
    "FakeOpenAIServer",
    "FaultKind",
    "FaultPlan",
    "ServerStats",
    "echo_responder",
    "fake_openai_server",
]
