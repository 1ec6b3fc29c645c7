"""Test doubles that ship with kgrag so users can test their own pipelines offline: one fake per backend
protocol, all importable from here.

- :class:`FakeOpenAIServer`: a real HTTP server speaking the OpenAI chat/embeddings API on 127.0.0.1,
  with fault injection and server-side counters (the LLM and embedding providers over HTTP);
  :class:`FakeBatchServer` adds the Batch API (``/v1/files``, ``/v1/batches``) with delayed completion,
  failed lines, expiry and refused batches.
- :class:`ScriptedProvider` (the ``LLMProvider`` protocol) and :class:`RecordingProvider` (replays replies
  recorded from a real server); :class:`FakeEmbedder` (the ``Embedder`` protocol): deterministic vectors.
- :class:`InMemoryResponseCache` and :class:`InMemoryLedger` (the LLM cache and ledger protocols of the
  store); ``SQLiteStore(":memory:")`` is the fake of the whole store.
- :class:`RecordingStage` (the indexing ``Stage`` protocol): records that, and on what, it ran.
- :func:`fake_gazetteer` and :func:`fake_first_names` (the ``PlaceNames`` and ``FirstNames`` protocols of
  LLM-free question generation): a few places and first names instead of GeoNames and faker.

The model fakes live beside their protocols because workspaces can pick them by name
(``embedding.provider = "fake"``, ``llm.provider = "scripted"``); this module is where tests find them.
"""

from kgrag.models.embeddings import FakeEmbedder
from kgrag.models.llm.recording import RecordingProvider
from kgrag.models.llm.scripted import ScriptedProvider
from kgrag.store.memory import InMemoryLedger, InMemoryResponseCache
from kgrag.testing.fake_batch_server import BatchPlan, BatchServerStats, FakeBatchServer
from kgrag.testing.fake_faults import ALL_FAULTS, FaultKind, FaultPlan, ServerStats
from kgrag.testing.fake_lookups import fake_first_names, fake_gazetteer
from kgrag.testing.fake_openai_server import FakeOpenAIServer, echo_responder, fake_openai_server
from kgrag.testing.fake_stage import RecordingStage

__all__ = [
    "ALL_FAULTS",
    "BatchPlan",
    "BatchServerStats",
    "FakeBatchServer",
    "FakeEmbedder",
    "FakeOpenAIServer",
    "FaultKind",
    "FaultPlan",
    "InMemoryLedger",
    "InMemoryResponseCache",
    "RecordingProvider",
    "RecordingStage",
    "ScriptedProvider",
    "ServerStats",
    "echo_responder",
    "fake_first_names",
    "fake_gazetteer",
    "fake_openai_server",
]
