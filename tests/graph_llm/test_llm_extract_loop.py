"""Over real HTTP, a local server: a looping extraction reply is stopped mid-stream and its items kept."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from kgrag.config import LLMConfig
from kgrag.models.llm import create_llm_client
from kgrag.testing import FakeOpenAIServer
from kgrag.testing.extraction_responder import ExtractionResponder
from kgrag.testing.wire import ChatBody

LOCAL = "llama-cpp-python"
COPIES = 8  # the looping reply repeats its last list this many times


def _looping(responder: ExtractionResponder) -> Any:
    """The responder's replies, their relations (or entities, when there are none) repeated as a loop."""

    def reply(body: ChatBody) -> str:
        text = responder.for_server(body)
        try:
            value = json.loads(text)
        except ValueError:
            return text  # not an extraction reply
        if not isinstance(value, dict) or "entities" not in value:
            return text
        looped = "relations" if value.get("relations") else "entities"
        value[looped] = value[looped] * COPIES
        return json.dumps(value)

    return reply


def _run(
    kit: Any, server: FakeOpenAIServer, chunks: list[Any], record: Path | None = None, json_mode: str = "json_object"
) -> tuple[Any, Any]:
    config = LLMConfig(
        provider="openai",
        providers={"openai": {"base_url": server.base_url}},
        model="m",
        max_concurrency=2,
        json_mode=json_mode,
        record_file=record,
    )
    client = create_llm_client(config, counter=kit.counter)
    provider = client.runner.provider
    getattr(provider, "inner", provider).probe()  # as a workspace does: the server is a local one
    extractor = kit.make_extractor(client)
    return extractor, kit.comparable(extractor.extract(chunks))


def test_a_looping_reply_is_stopped_early_its_items_kept_and_nothing_asked_again(kit: Any) -> None:
    chunks = kit.sample_chunks(limit=1)
    clean_responder = ExtractionResponder()
    with FakeOpenAIServer(clean_responder.for_server, behaviour=LOCAL, stream_delay_s=0.001) as server:
        clean_extractor, clean = _run(kit, server, chunks)
    clean_summary = clean_extractor.client.summary().total
    assert clean_summary.loop_calls == 0  # a legitimate reply is read whole

    responder = ExtractionResponder()
    with FakeOpenAIServer(_looping(responder), behaviour=LOCAL, stream_delay_s=0.001) as server:
        extractor, looped = _run(kit, server, chunks)
        units = extractor.stats.units
        deadline = time.monotonic() + 10
        while server.stats.streams_aborted < units and time.monotonic() < deadline:
            time.sleep(0.01)  # the server notices a closed connection at its next write
        aborted, requests = server.stats.streams_aborted, server.stats.chat_requests
    summary = extractor.client.summary().total
    assert looped == clean  # the same entities and relations: the copies dropped, nothing lost
    assert extractor.stats.loop_units == units == summary.loop_calls
    assert aborted == units  # every looping reply was hung up on
    assert requests == units  # no re-ask, no smaller retry, no gleaning of a looped reply
    assert responder.calls["extract-reask"] == 0 and extractor.stats.split_units == 0
    assert 0 < summary.completion_tokens < COPIES * clean_summary.completion_tokens / 2  # charged what was read
    assert "replies stopped in a repetition loop" in extractor.client.summary().lines()[-1]


def _hung_up(server: FakeOpenAIServer, streams: int) -> int:
    deadline = time.monotonic() + 10
    while server.stats.streams_aborted < streams and time.monotonic() < deadline:
        time.sleep(0.01)  # the server notices a closed connection at its next write
    return server.stats.streams_aborted


def test_the_first_call_is_loop_stopped_while_the_json_mode_is_learnt(kit: Any) -> None:
    """``json_mode = "auto"`` on a server that refuses ``json_schema`` (as llama-cpp-python does) and loops
    on ``json_object``: the first call, sent while the mode is learnt, is streamed and stopped at its loop
    like every later one, the refused mode is sent once (concurrent workers wait for the verdict), and the
    mode the server took is kept."""
    chunks = kit.sample_chunks(limit=2)
    responder = ExtractionResponder()
    with FakeOpenAIServer(_looping(responder), behaviour=LOCAL, stream_delay_s=0.001) as server:
        extractor, _ = _run(kit, server, chunks, json_mode="auto")
        units = extractor.stats.units
        aborted = _hung_up(server, units)
        rejected, requests = dict(server.stats.format_rejections), server.stats.chat_requests
    provider = extractor.client.runner.provider
    assert units >= 2
    assert aborted == units  # the first call too: read only up to its loop
    assert rejected == {"json_schema": 1} and requests == units + 1  # one refusal, then one request per unit
    assert provider.profile.accepted == "json_object_schema" and provider.profile.rejected == ["json_schema"]
    assert extractor.stats.loop_units == units == extractor.client.summary().total.loop_calls


def test_a_whole_looping_reply_cut_at_max_tokens_is_cut_at_the_loop_without_a_re_ask(kit: Any) -> None:
    """A provider that does not stream (here the scripted one) pays the reply, but not its follow-ups."""
    from kgrag.models.llm.scripted import ScriptedProvider, ScriptRule

    responder = ExtractionResponder()
    looping = _looping(responder)
    rule = ScriptRule(".", lambda request: looping({"messages": list(request.messages)}), finish_reason="length")
    client = create_llm_client(LLMConfig(provider="scripted"), provider=ScriptedProvider([rule]), counter=kit.counter)
    chunks = kit.sample_chunks(limit=1)
    extractor = kit.make_extractor(client)
    looped = kit.comparable(extractor.extract(chunks))
    _, clean = kit.run_extraction(chunks, ExtractionResponder())
    assert looped == kit.comparable(clean)
    assert extractor.stats.loop_units == extractor.stats.units == client.summary().total.loop_calls
    assert client.summary().total.calls == extractor.stats.units  # no re-ask, no split, no gleaning


def test_recording_a_run_keeps_the_loop_guard_and_its_replay_gives_the_same_graph(kit: Any, tmp_path: Path) -> None:
    """`llm.record_file` (what `make llm-check` records real replies with) streams guarded calls as well,
    records a stopped reply as the call came back, and replays it offline to the same graph."""
    from kgrag.models.llm.scripted import ScriptedProvider

    chunks = kit.sample_chunks(limit=1)
    record = tmp_path / "replies.jsonl"
    with FakeOpenAIServer(_looping(ExtractionResponder()), behaviour=LOCAL, stream_delay_s=0.001) as server:
        extractor, looped = _run(kit, server, chunks, record)
        deadline = time.monotonic() + 10
        while server.stats.streams_aborted < extractor.stats.units and time.monotonic() < deadline:
            time.sleep(0.01)
        assert server.stats.streams_aborted == extractor.stats.units  # hung up on while recording
    rows = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]
    assert [row["finish_reason"] for row in rows] == ["loop"] * extractor.stats.units
    replayed = create_llm_client(
        LLMConfig(provider="scripted", model="m", json_mode="json_object"),
        provider=ScriptedProvider.from_file(record),
        counter=kit.counter,
    )
    again = kit.make_extractor(replayed)
    assert kit.comparable(again.extract(chunks)) == looped
    assert again.stats.loop_units == extractor.stats.units
