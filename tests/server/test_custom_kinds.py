"""A loader and a reranker registered on one workspace are what every path of that workspace uses:
indexing, prompt tuning's sampling, an upload through the server, and a query. Each of these once fell
back to a registry of the built-ins alone, where the workspace's entries silently did not exist."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from tests.server.conftest import SERVED_TOML, WRITE
from tests.server.test_api_documents import wait

from kgrag import Workspace
from kgrag.config import CONFIG_FILE_NAME
from kgrag.core.context import ContextItem
from kgrag.core.registries import Registries
from kgrag.documents.records import LoadedDocument
from kgrag.server import create_app
from kgrag.workspace import kinds

GUIDE = "Guide\n=====\nKestrel stores its telemetry in Shale, a columnar archive run by Team Harrier.\n"


def _load_adoc(path: Path, data: bytes, cfg: Any) -> list[LoadedDocument]:
    """AsciiDoc, read as its text without the title underline (the title is the first line)."""
    text = data.decode("utf-8").replace("=====\n", "")
    return [LoadedDocument.from_text(str(path.resolve()), text.splitlines()[0], text, {"format": "adoc"})]


class Recording:
    """Keeps the incoming order, and notes each query it reranked."""

    def __init__(self, seen: list[str]) -> None:
        self.seen = seen

    def rerank(self, query: str, items: Sequence[ContextItem], k: int) -> list[ContextItem]:
        self.seen.append(query)
        return list(items)[:k]


def test_a_workspace_loader_and_reranker_are_used_by_index_tuning_upload_and_query(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.adoc").write_text(GUIDE, encoding="utf-8")
    seen: list[str] = []
    registries = Registries()
    kinds.loaders(registries).register(".adoc", _load_adoc)
    kinds.rerankers(registries).register("recording", lambda settings, resources: Recording(seen))
    ws_dir = tmp_path / "ws"
    ws_dir.mkdir()
    toml = SERVED_TOML + '\n[documents]\ninclude = ["*.adoc", "*.md"]\n\n[rerank]\nprovider = "recording"\n'
    (ws_dir / CONFIG_FILE_NAME).write_text(toml, encoding="utf-8")
    with Workspace.open(ws_dir, registries=registries) as ws:
        report = ws.index([docs])  # index
        assert report.documents_new == 1 and not report.problems

        sampled, skipped = ws.prompt_tune.sources([docs])  # prompt tuning's sample of the corpus
        assert not skipped and [s.text.splitlines()[0] for s in sampled] == ["Guide"]

        with TestClient(base_url="http://127.0.0.1", app=create_app({"w": ws})) as c:  # an upload
            created = c.post(
                "/v1/workspaces/w/documents",
                files=[("files", ("notes.adoc", io.BytesIO(b"Notes\n=====\nShale keeps ninety days.\n")))],
                headers=WRITE,
            )
            assert created.status_code == 201, created.text
            assert [f["status"] for f in created.json()["files"]] == ["accepted"]
            job = wait(c, created.json()["job_id"])
            assert [f["status"] for f in job["result"]["files"]] == ["indexed"]
        assert sorted(d.title for d in ws.store.documents.list()) == ["Guide", "Notes"]

        result = ws.retrieve("Where does Kestrel store telemetry?", pipeline="rerank", k=2)  # a query
        assert seen == ["Where does Kestrel store telemetry?"] and result.items
