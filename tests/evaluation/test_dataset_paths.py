"""``ws.eval`` takes the questions or the path of their file, as str or Path, with the same result."""

from __future__ import annotations

import pytest
from tests.conftest import SAMPLE_QUESTIONS

from kgrag import Workspace
from kgrag.core.errors import KgragError
from kgrag.evaluation import load_dataset


def test_retrieval_eval_accepts_str_and_path(sample_ws: Workspace) -> None:
    items = load_dataset(SAMPLE_QUESTIONS)
    expected = sample_ws.eval.retrieval(items, ["bm25"], 3).table()
    assert expected["bm25"]["All"] > 0
    assert sample_ws.eval.retrieval(str(SAMPLE_QUESTIONS), ["bm25"], 3).table() == expected
    assert sample_ws.eval.retrieval(SAMPLE_QUESTIONS, ["bm25"], 3).table() == expected
    assert len(load_dataset(str(SAMPLE_QUESTIONS))) == len(items)


def test_a_missing_dataset_path_is_a_user_error(sample_ws: Workspace) -> None:
    with pytest.raises(KgragError, match=r"no-such\.json: cannot read"):
        sample_ws.eval.retrieval("no-such.json", ["bm25"], 3)
