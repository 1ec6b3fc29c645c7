"""`kgrag serve`: the HTTP API and web page over one or more workspaces.

FastAPI, uvicorn and the workspaces load inside the command, so `kgrag --help` stays fast and a plain
install without the `server` extra still runs every other command.
"""

from __future__ import annotations

import os
import re
import socket
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from kgrag.cli.errors import guarded_session
from kgrag.cli.options import DebugOpt, new_console
from kgrag.core.errors import KgragError

if TYPE_CHECKING:
    from kgrag.server import KeyRing
    from kgrag.workspace import Workspace

KEYS_ENV = "KGRAG_API_KEYS"

WorkspacesOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--workspace",
        "-w",
        help="Workspace to host, as PATH or NAME=PATH; repeat for several (default: $KGRAG_WORKSPACE or the "
        "current directory). The name is what URLs use.",
    ),
]


def _parse_workspaces(specs: list[str]) -> list[tuple[str, Path]]:
    parsed = []
    for spec in specs or [os.environ.get("KGRAG_WORKSPACE") or "."]:
        name, sep, path = spec.partition("=")
        directory = Path(path if sep else spec).expanduser()
        if not sep:
            name = re.sub(r"[^A-Za-z0-9_-]+", "-", directory.resolve().name).strip("-") or "default"
        parsed.append((name, directory))
    return parsed


def _keys(key_file: Path | None) -> KeyRing:
    """Keys from the file, else from ``$KGRAG_API_KEYS`` (comma-separated), read now, not at import."""
    from kgrag.server import KeyRing

    if key_file is not None:
        return KeyRing.from_file(key_file)
    return KeyRing.parse(os.environ.get(KEYS_ENV, "").split(","), KEYS_ENV)


def _open_all(stack: ExitStack, specs: list[tuple[str, Path]]) -> dict[str, Workspace]:
    from kgrag.workspace import Workspace

    opened: dict[str, Workspace] = {}
    for name, directory in specs:
        if name in opened:
            raise KgragError(f"two workspaces are named {name!r}; name them with NAME=PATH")
        opened[name] = stack.enter_context(Workspace.open(directory))
    return opened


def _check_listen(host: str, port: int) -> None:
    """Fail with one line now, rather than uvicorn's log line and exit status 3 after the banner, when
    ``host:port`` cannot be bound (taken, not this machine's address, a name that does not resolve)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, kind, proto, _, address = infos[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does
            probe.bind(address)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise KgragError(f"cannot listen on {host}:{port} ({reason}); choose another --port or --host") from exc


@guarded_session
def serve(
    workspace: WorkspacesOpt = None,
    host: Annotated[str | None, typer.Option("--host", help="Bind address (default: server.host, 127.0.0.1).")] = None,
    port: Annotated[int | None, typer.Option("--port", help="Port (default: server.port, 8765).")] = None,
    api_key_file: Annotated[
        Path | None,
        typer.Option(
            "--api-key-file", help=f"File of API keys, one per line, optionally 'KEY ws1,ws2' (or ${KEYS_ENV})."
        ),
    ] = None,
    debug: DebugOpt = False,
) -> None:
    """Serve the HTTP API (/v1, OpenAPI at /docs) and the web page (/) until interrupted."""
    import uvicorn

    from kgrag.server import check_bind, create_app, uvicorn_options
    from kgrag.server.warm import warm_graph_views

    if port is not None and not 0 <= port <= 65535:
        raise KgragError(f"--port {port}: a TCP port is 0-65535 (0 = any free port)")
    specs = _parse_workspaces(workspace or [])
    keys = _keys(api_key_file)
    with ExitStack() as stack:
        opened = _open_all(stack, specs)
        limits = next(iter(opened.values())).config.server  # the first workspace's [server] section
        bind_host = host or limits.host
        check_bind(bind_host, keys)
        limits = limits.model_copy(update={"host": bind_host})  # the Host check knows the bound name
        app = create_app(opened, limits, keys)
        bind_port = limits.port if port is None else port
        _check_listen(bind_host, bind_port)
        warm_graph_views(app.state.kgrag.workspaces.values())  # the web app's first graph paint
        new_console().print(
            f"serving {', '.join(opened)} on http://{bind_host}:{bind_port} "
            f"({'API key required' if keys else 'no API key: loopback only'})"
        )
        uvicorn.run(app, host=bind_host, port=bind_port, log_level="warning", **uvicorn_options(limits))
