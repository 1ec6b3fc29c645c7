"""The web app: static files served by the same process, no build step; and ``/docs``.

``/`` is ``static/index.html``; ``/static/*`` its style and ES modules (``static/js``). ``/vendor/vis-network/*``
is vis-network's standalone build (the graph explorer's canvas renderer) as the ``pyvis`` package installs it:
third-party code comes from a package manager, never from the repository or a CDN, so the app works offline.
Without ``pyvis`` the explorer says how to get it. The page holds no secret: it asks for
the API key when the server answers 401 and keeps it in the tab's ``sessionStorage`` only. Its script sends
``X-Kgrag-Request`` with every call, which the cross-site guard (:mod:`kgrag.server.guard`) asks of writes.

``/docs`` is Swagger UI from the ``swagger-ui-bundle`` package's files, served by this process (no CDN:
the server works offline and the browser fetches nothing from elsewhere); without that package ``/docs``
says how to get it and where the schema is.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles

STATIC = Path(__file__).parent / "static"
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "connect-src 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


VIS_NETWORK_VERSION = "9.1.2"


def vis_network_dir() -> Path | None:
    """The directory holding ``vis-network.min.js`` and ``vis-network.css`` in the installed ``pyvis``
    (found without importing it: its ``__init__`` loads IPython and networkx), or None without it."""
    spec = importlib.util.find_spec("pyvis")
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        found = Path(root) / "lib" / f"vis-{VIS_NETWORK_VERSION}"
        if (found / "vis-network.min.js").is_file():
            return found
    return None


def mount_page(app: FastAPI) -> None:
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    vendor = vis_network_dir()
    if vendor is not None:
        app.mount("/vendor/vis-network", StaticFiles(directory=vendor), name="vis-network")

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers=SECURITY_HEADERS)


DOCS_ASSETS = "/docs-assets"


def mount_docs(app: FastAPI) -> None:
    """Swagger UI at ``/docs`` from local files (the app is built with ``docs_url=None``)."""
    try:
        from swagger_ui_bundle import swagger_ui_path
    except ImportError:
        swagger_ui_path = None
    if swagger_ui_path is not None:
        app.mount(DOCS_ASSETS, StaticFiles(directory=Path(str(swagger_ui_path))), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    def docs() -> Response:
        if swagger_ui_path is None:
            return PlainTextResponse(
                "Swagger UI needs the swagger-ui-bundle package (pip install 'kgrag[server]'); "
                "the OpenAPI schema itself is at /openapi.json.\n",
                status_code=404,
            )
        page: HTMLResponse = get_swagger_ui_html(
            openapi_url="/openapi.json",
            title="kgrag API",
            swagger_js_url=f"{DOCS_ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{DOCS_ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{DOCS_ASSETS}/favicon-32x32.png",
        )
        return page
