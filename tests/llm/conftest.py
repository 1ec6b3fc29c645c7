"""Fixtures of the LLM-layer tests: a `square` prompt, a fast config factory, a squares responder.

The squares task gives every structured call a checkable answer: item n must come back as
``{"n": n, "square": n*n}``, so a test can tell a correct result from a wrongly accepted one.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from kgrag.config import LLMConfig

SQUARE_PROMPT = """name = "square"
version = "{version}"
description = "Test prompt: compute the square of a number."
output_schema = "text"
system = "You compute squares."
user = "Compute item $n now."
"""


class Square(BaseModel):
    n: int
    square: int


def item_number(request: dict[str, Any]) -> int:
    """The number in the first user message (a re-ask appends messages after it)."""
    first_user = next(m["content"] for m in request["messages"] if m["role"] == "user")
    return int(first_user.split("item ")[1].split()[0])


def _square_reply(request: dict[str, Any]) -> str:
    n = item_number(request)
    return json.dumps({"n": n, "square": n * n})


def write_square_prompt(directory: Path, version: str = "1") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "square.toml"
    path.write_text(SQUARE_PROMPT.format(version=version), encoding="utf-8")
    return path


def _fast_config(base_url: str = "http://127.0.0.1:9/v1", **overrides: Any) -> LLMConfig:
    values: dict[str, Any] = {
        "provider": "openai",
        "providers": {"openai": {"base_url": base_url}},
        "model": "fake-model",
        "timeout_s": 0.2,
        "max_retries": 8,
        "backoff_base_s": 0.002,
        "backoff_max_s": 0.02,
        "max_concurrency": 8,
    }
    values.update(overrides)
    return LLMConfig(**values)


@pytest.fixture
def prompts_dir(tmp_path: Path) -> Path:
    """A prompt override directory holding the `square` test prompt (version 1)."""
    directory = tmp_path / "prompts"
    write_square_prompt(directory)
    return directory


@pytest.fixture
def write_prompt() -> Callable[[Path, str], Path]:
    """Write the `square` prompt with a given version into a directory."""
    return write_square_prompt


@pytest.fixture
def fast_cfg() -> Callable[..., LLMConfig]:
    """An `openai` config factory with 2 ms backoff and a 0.2 s timeout, so fault tests stay fast."""
    return _fast_config


@pytest.fixture
def square_model() -> type[Square]:
    return Square


@pytest.fixture
def square_reply() -> Callable[[dict[str, Any]], str]:
    """Server responder answering the `square` prompt correctly."""
    return _square_reply
