"""Open WebUI chatting with kgrag, end to end, in a real browser: `kgrag serve` over the sample corpus
with an API key, Open WebUI (from PyPI, in a virtual environment of its own) connected to kgrag's
OpenAI-compatible `/v1`, and Debian's chromium driven by Playwright selecting the kgrag model, asking a
question and waiting for the cited answer; the page is saved as a screenshot.

    .venv/bin/python bench/bench_open_webui.py [--venv .owui-venv] [--install]
        [--question "Who owns Kestrel?"] [--model kgrag/sample] [--out docs/results/open-webui-kgrag.png]

`--install` (or a venv without Open WebUI) creates the venv with python3.11 and runs
`VENV/bin/python -m pip install open-webui torch==2.13.0` (torch pinned to the CPU wheel so pip does not
pull a CUDA build). The workspace uses kgrag's defaults (local ONNX embedder, no LLM: answers are
kgrag's extractive answers) with graph extraction off; `--workspace DIR` serves an existing one instead.
Open WebUI runs offline (no auth, no Ollama, no update checks, no title/tag/follow-up generation) with
its data in a temporary folder. Both servers listen on free 127.0.0.1 ports and are stopped by PID at
the end, also on failure. Exit 0 when the answer with its `Sources:` list appeared in the page.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "examples" / "sample" / "docs"
KEY = "owui-bench-key-0123456789abcdef"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# What the workspace's kgrag.toml sets on top of kgrag's defaults.
WORKSPACE_TOML = {"graph.extractor": '"none"'}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def install_open_webui(venv: Path) -> None:
    """A venv of its own with Open WebUI and the CPU build of torch (never kgrag's .venv)."""
    if not (venv / "bin" / "python").exists():
        subprocess.run(["python3.11", "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "open-webui", "torch==2.13.0"]
    print("+", " ".join(pip), flush=True)
    subprocess.run(pip, check=True)


def build_workspace(path: Path) -> Path:
    """The sample corpus indexed with kgrag's default embedder and no graph extraction."""
    from kgrag import Workspace
    from kgrag.testing.workspace_toml import write_workspace_toml

    Workspace.init(path).close()
    write_workspace_toml(path, WORKSPACE_TOML)
    with Workspace.open(path) as ws:
        ws.index([SAMPLE])
    return path


@contextmanager
def process(
    command: list[str], env: dict[str, str], log: Path, cwd: Path | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    """``command`` in a session of its own (in ``cwd``, no standard input), output to ``log``; its process
    group is stopped by PID after."""
    print("+", " ".join(command), flush=True)
    with log.open("wb") as out:
        proc = subprocess.Popen(
            command, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    try:
        yield proc
    finally:
        stop(proc)


def stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the group this script started (its pid is the group id), SIGKILL after 30 s."""
    if proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)


def wait_until_up(url: str, proc: subprocess.Popen[bytes], log: Path, timeout_s: float) -> None:
    """Poll ``url`` until it answers 200; a process that exits first fails with the end of its log."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"{url}: the server exited ({proc.returncode}):\n{log.read_text()[-3000:]}")
        try:
            if httpx.get(url, timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(1)
    raise SystemExit(f"{url} did not come up in {timeout_s:.0f} s; see {log}")


def kgrag_serve(stack: ExitStack, workspace: Path, tmp: Path) -> str:
    """`kgrag serve` with an API key on a free loopback port; returns its /v1 URL."""
    keys = tmp / "keys.txt"
    keys.write_text(f"{KEY}\n", encoding="utf-8")
    port = free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "HF_HUB_OFFLINE": "1"}
    command = [sys.executable, "-m", "kgrag.cli", "serve", "-w", f"sample={workspace}", "--api-key-file",
               str(keys), "--host", "127.0.0.1", "--port", str(port)]  # fmt: skip
    log = tmp / "kgrag.log"
    proc = stack.enter_context(process(command, env, log))
    wait_until_up(f"http://127.0.0.1:{port}/v1/health", proc, log, 600)
    return f"http://127.0.0.1:{port}/v1"


def open_webui_env(base_url: str, data_dir: Path, port: int) -> dict[str, str]:
    """Open WebUI's settings (names as its open_webui/env.py and config.py read them): offline, no login,
    kgrag as its only OpenAI connection, nothing generated behind the user's back (titles, tags,
    follow-ups and query rewrites would be sent to the kgrag model and answered from the corpus)."""
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
    return {
        **keep,
        "DATA_DIR": str(data_dir),
        "WEBUI_AUTH": "False",
        "WEBUI_SECRET_KEY": "owui-bench-secret-0123456789abcdef0123",
        "OFFLINE_MODE": "true",
        "HF_HUB_OFFLINE": "1",
        "ENABLE_OLLAMA_API": "False",
        "ENABLE_OPENAI_API": "True",
        "OPENAI_API_BASE_URL": base_url,
        "OPENAI_API_KEY": KEY,
        "CORS_ALLOW_ORIGIN": f"http://127.0.0.1:{port}",
        "ENABLE_VERSION_UPDATE_CHECK": "False",
        "ENABLE_COMMUNITY_SHARING": "False",
        "ENABLE_TITLE_GENERATION": "False",
        "ENABLE_TAGS_GENERATION": "False",
        "ENABLE_FOLLOW_UP_GENERATION": "False",
        "ENABLE_AUTOCOMPLETE_GENERATION": "False",
        "ENABLE_RETRIEVAL_QUERY_GENERATION": "False",
        "ENABLE_SEARCH_QUERY_GENERATION": "False",
        "BYPASS_EMBEDDING_AND_RETRIEVAL": "True",
        "RAG_EMBEDDING_MODEL": "",  # kgrag retrieves; Open WebUI's own document search stays unloaded
        "RAG_EMBEDDING_MODEL_AUTO_UPDATE": "False",
    }


def open_webui(stack: ExitStack, venv: Path, base_url: str, tmp: Path) -> str:
    """`open-webui serve` on a free loopback port; returns its URL once /health answers."""
    port = free_port()
    env = open_webui_env(base_url, tmp / "owui-data", port)
    (tmp / "owui-data").mkdir()
    command = [str(venv / "bin" / "open-webui"), "serve", "--host", "127.0.0.1", "--port", str(port)]
    log = tmp / "open-webui.log"
    proc = stack.enter_context(process(command, env, log))
    wait_until_up(f"http://127.0.0.1:{port}/health", proc, log, 900)
    return f"http://127.0.0.1:{port}"


def select_model(page: Any, model: str) -> None:
    """Pick ``model`` in Open WebUI's model selector, searching the list kgrag's /v1/models gave it."""
    page.locator("#model-selector-model-button").click()
    page.locator("#model-search-input").fill(model)
    page.locator(f"button[role='option'][data-value='{model}']").click()
    selected = page.locator("#model-selector-model-button")
    selected.filter(has_text=model).wait_for(timeout=30_000)


def dismiss_changelog(page: Any) -> None:
    """The "What's new" dialog a first visit shows, closed when it is there."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    button = page.get_by_role("button", name="Okay, Let's Go!")
    try:
        button.wait_for(timeout=15_000)
    except PlaywrightTimeout:  # no dialog this time
        return
    button.click()


def ask(page: Any, url: str, model: str, question: str, out: Path) -> str:
    """Open the chat, select the model, ask, wait for the cited answer; screenshot to ``out``."""
    page.goto(url, wait_until="load", timeout=300_000)
    page.wait_for_selector("#chat-input", timeout=300_000)
    dismiss_changelog(page)
    select_model(page, model)
    page.locator("#chat-input").click()
    page.keyboard.type(question)
    page.keyboard.press("Enter")
    answer = page.locator("#response-content-container").last
    answer.wait_for(timeout=300_000)
    page.wait_for_function(
        "() => [...document.querySelectorAll('#response-content-container')].some("
        "(el) => el.innerText.includes('Sources:'))",
        timeout=300_000,
    )
    page.wait_for_timeout(1500)  # the stream's last chunk and the message toolbar settle
    out.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(out))
    text: str = answer.inner_text()
    return text


def drive(url: str, model: str, question: str, out: Path, tmp: Path) -> str:
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("Debian chromium is not installed: run `sh scripts/install-chromium.sh` as root")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            try:
                return ask(page, url, model, question, out)
            except Exception:
                page.screenshot(path=str(tmp / "failure.png"))
                print(f"the page at the failure: {tmp / 'failure.png'}", file=sys.stderr)
                raise
        finally:
            browser.close()


@contextmanager
def scratch_dir(prefix: str, *, keep: bool = False) -> Iterator[Path]:
    """A temporary folder for a bench's logs and data: removed afterwards, unless ``keep`` or the bench
    failed (then its logs say why, and the path is printed)."""
    tmp = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield tmp
    except BaseException:
        keep = True
        raise
    finally:
        if keep:
            print(f"logs and data kept in {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--venv", type=Path, default=REPO / ".owui-venv", help="Open WebUI's own venv")
    parser.add_argument("--install", action="store_true", help="pip install Open WebUI into --venv first")
    parser.add_argument("--workspace", type=Path, help="serve this workspace instead of building one")
    parser.add_argument("--model", default="kgrag/sample", help="the model to select in Open WebUI")
    parser.add_argument("--question", default="Who owns Kestrel?")
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "results" / "open-webui-kgrag.png")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (logs, data)")
    args = parser.parse_args(argv)
    if args.install or not (args.venv / "bin" / "open-webui").exists():
        install_open_webui(args.venv)
    with scratch_dir("kgrag-owui-", keep=args.keep) as tmp, ExitStack() as stack:
        workspace = args.workspace or build_workspace(tmp / "ws")
        base_url = kgrag_serve(stack, workspace, tmp)
        url = open_webui(stack, args.venv, base_url, tmp)
        answer = drive(url, args.model, args.question, args.out, tmp)
    print(f"answer shown by Open WebUI:\n{answer}\nscreenshot: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
