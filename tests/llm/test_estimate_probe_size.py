"""How many units ``--estimate --probe`` extracts (:mod:`kgrag.indexing.estimate_probe_size`): two when
their replies agree, more (spread over the ranking by names, within a share of the corpus) while what a
unit costs is unsure."""

from __future__ import annotations

import json
import os
import zlib
from collections.abc import Callable
from pathlib import Path

from tests.conftest import SAMPLE_DOCS

from kgrag import Workspace
from kgrag.indexing.estimate_probe_size import MAX_UNITS, cost_known, spread, unit_limit
from kgrag.testing import FakeOpenAIServer
from kgrag.testing.estimate_check import KEY_ENV, write_workspace
from kgrag.testing.extraction_responder import request_kind
from kgrag.testing.fake_openai_server import ChatBody


def test_units_are_added_at_the_median_then_the_eighths_outermost_first() -> None:
    ranked = [f"u{n}" for n in range(8)]
    assert spread(ranked, []) == ["u4", "u2", "u6", "u1", "u7", "u3", "u5", "u0"]
    assert spread(ranked, ["u2", "u6"]) == ["u4", "u1", "u7", "u3", "u5", "u0"]  # after the quartiles
    assert sorted(spread(ranked[:3], [])) == ranked[:3] and spread([], []) == []


def test_the_cost_is_known_once_its_interval_is_within_half_the_mean() -> None:
    assert cost_known([100.0, 110.0])  # 90% t interval ±30% of the mean
    assert not cost_known([102.0, 418.0])  # two replies four times apart
    assert not cost_known([300.0])  # one reply: no spread measured
    assert cost_known([0.0, 0.0])  # nothing replied: nothing to learn
    assert cost_known([250.0, 250.0, 250.0])


def test_the_limit_is_a_quarter_of_the_corpus_at_most_eight() -> None:
    assert unit_limit(3) == 0 and unit_limit(7) == 1  # small corpora: probed as before
    assert unit_limit(12) == 3 and unit_limit(1000) == MAX_UNITS


def _reply(sizes: dict[str, int], varied: bool) -> Callable[[ChatBody], str]:
    """A server whose extraction reply lists the unit's first words as entities: two (``varied`` False) or
    2–13 by the unit's text (a model whose reply sizes differ from unit to unit)."""

    def reply(body: ChatBody) -> str:
        kind, text = request_kind(body.get("messages", []))
        if kind != "extract":
            return json.dumps({"entities": [], "relations": []})
        words = list(dict.fromkeys(text.split("Text:", 1)[-1].split()))
        count = 2 + zlib.crc32(text.encode()) % 12 if varied else 2
        sizes[text] = count
        entities = [{"name": w, "type": "concept", "description": f"The text names {w}."} for w in words[:count]]
        return json.dumps({"entities": entities, "relations": []})

    return reply


def _probed(tmp_path: Path, varied: bool) -> int:
    os.environ.setdefault(KEY_ENV, "sk-estimate-check")
    sizes: dict[str, int] = {}
    with (
        FakeOpenAIServer(_reply(sizes, varied)) as server,
        Workspace.open(write_workspace(tmp_path / "ws", server.base_url)) as ws,
    ):
        ws.estimate_index([SAMPLE_DOCS], probe=True)
    return len(sizes)


def test_the_probe_extracts_more_units_only_while_their_replies_disagree(tmp_path: Path) -> None:
    alike, differing = _probed(tmp_path / "alike", False), _probed(tmp_path / "differing", True)
    corpus = len(list(SAMPLE_DOCS.iterdir()))
    assert alike == 2  # two replies of one size: the cost is known
    assert 2 < differing <= unit_limit(corpus)  # a unit's share of the corpus's units, at most
