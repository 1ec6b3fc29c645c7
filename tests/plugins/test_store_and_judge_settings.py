"""A plug-in store backend and a plug-in judge get their own settings tables too: ``[store.<name>]``
reaches the backend's factory through its ``StoreConfig``, ``[evaluation.judges.<name>]`` reaches the
judge through its ``JudgeSetup``; both are validated and documented like any entry's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field

from kgrag import Workspace
from kgrag.config import StoreConfig, configuration_markdown, load_config
from kgrag.core.errors import ConfigError
from kgrag.evaluation.session import judge_setup
from kgrag.store.sqlite.store import SQLiteStore


class FileStoreSettings(BaseModel):
    """`file-store`: SQLite under a file name of its own."""

    model_config = ConfigDict(extra="forbid")
    file_name: str = Field("file-store.sqlite3", description="Database file in the workspace directory.")


def open_file_store(config: StoreConfig, workspace: Path) -> SQLiteStore:
    return SQLiteStore(workspace / config.settings("file-store", FileStoreSettings).file_name)


open_file_store.settings_model = FileStoreSettings  # type: ignore[attr-defined]


class StrictSettings(BaseModel):
    """`strict`: how hard the toy judge grades."""

    model_config = ConfigDict(extra="forbid")
    strictness: int = Field(1, ge=1, le=3, description="1 lenient … 3 strict.")


class StrictJudge:
    name = "strict"
    paper = "none"
    settings_model = StrictSettings
    prompts: tuple[str, ...] = ()
    scale = (1.0, 3.0)

    def score(self, sample: Any, setup: Any) -> dict[str, Any]:
        return {"strictness": setup.settings_for(self.name, StrictSettings).strictness}


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    dist = tmp_path / "site" / "toy_entries-0.1.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-entries\nVersion: 0.1\n", encoding="utf-8")
    points = (
        f"[kgrag.stores]\nfile-store = {__name__}:open_file_store\n\n[kgrag.judges]\nstrict = {__name__}:StrictJudge\n"
    )
    (dist / "entry_points.txt").write_text(points, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    yield


def test_a_store_backend_reads_its_own_table(installed: None, tmp_path: Path) -> None:
    ws_dir = tmp_path / "ws"
    ws_dir.mkdir()
    toml = '[embedding]\nprovider = "fake"\n\n[store]\nbackend = "file-store"\n\n'
    toml += '[store.file-store]\nfile_name = "mine.db"\n'
    (ws_dir / "kgrag.toml").write_text(toml, encoding="utf-8")
    with Workspace.open(ws_dir) as ws:
        ws.store.meta.set("probe", "1")
    assert (ws_dir / "mine.db").exists() and not (ws_dir / "kgrag.sqlite3").exists()
    (ws_dir / "kgrag.toml").write_text(toml.replace('"mine.db"', "3"), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"store\.file-store\.file_name: expected str, got 3"):
        load_config(ws_dir)


def test_a_judge_reads_its_own_table(installed: None, tmp_path: Path) -> None:
    (tmp_path / "kgrag.toml").write_text(
        '[llm]\nprovider = "scripted"\n\n[evaluation.judges.strict]\nstrictness = 3\n', encoding="utf-8"
    )
    setup = judge_setup(load_config(tmp_path), lambda model: object())  # type: ignore[arg-type,return-value]
    assert setup is not None and StrictJudge().score(None, setup) == {"strictness": 3}
    assert StrictJudge().score(None, setup.with_seed(7)) == {"strictness": 3}
    (tmp_path / "kgrag.toml").write_text("[evaluation.judges.strict]\nstrictness = 5\n", encoding="utf-8")
    with pytest.raises(
        ConfigError, match=r"evaluation\.judges\.strict\.strictness: Input should be less than or equal to 3"
    ):
        load_config(tmp_path)


def test_both_are_documented(installed: None) -> None:
    doc = configuration_markdown()
    assert "### `[store.file-store]` (plugin:toy-entries)" in doc and "| `file_name` |" in doc
    assert "### `[evaluation.judges.strict]` (plugin:toy-entries)" in doc and "| `strictness` | `1` |" in doc
