"""The web app: static files served by the same process, no build step; and ``/docs``.

``/`` is ``static/index.html``; ``/static/*`` its style and ES modules (``static/js``). ``/vendor/vis-network/*``
is vis-network's standalone build (the graph explorer's canvas renderer) as the ``pyvis`` package installs it:
third-party code comes from a package manager, never from the repository or a CDN, so the app works offline.
Without ``pyvis`` the explorer says how to get it. The page holds no secret: it asks for
the API key when the server answers 401 and keeps it in the tab's ``sessionStorage`` only. Its script sends
``X-Kgrag-Request`` with every call, which the cross-site guard (:mod:`kgrag.server.guard`) asks of writes.

``/docs`` is Swagger UI from the ``swagger-ui-bundle`` package's files, served by this process (no CDN:
the server works offline and the browser fetches nothing from elsewhere), started by a script file of
kgrag's own under the same strict Content-Security-Policy as the page, reading the schema in the OpenAPI
3.0 dialect that Swagger UI 4 renders (:mod:`kgrag.server.openapi30`); without that package ``/docs``
says how to get it and where the schema is.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles

from kgrag.server.openapi30 import downgrade

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
DOCS_INIT = "/docs/init.js"
DOCS_SCHEMA = "/docs/openapi-3.0.json"
KGRAG_DOCS_ASSETS = Path(__file__).parent / "docs_assets"
DOCS_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>kgrag API</title>
<link rel="stylesheet" href="{assets}/swagger-ui.css">
<link rel="icon" type="image/png" href="{assets}/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="{assets}/swagger-ui-bundle.js"></script>
<script src="{init}"></script>
</body>
</html>
"""
DOCS_HEADERS = {
    **SECURITY_HEADERS,
    # Swagger UI sets element styles from script (allowed) and draws its icons as data: SVG images
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
}


def _swagger_ui_path() -> Path | None:
    try:
        from swagger_ui_bundle import swagger_ui_path
    except ImportError:
        return None
    return Path(str(swagger_ui_path))


def mount_docs(app: FastAPI) -> None:
    """Swagger UI at ``/docs`` from local files (the app is built with ``docs_url=None``): the bundle's
    script and style from the ``swagger-ui-bundle`` package under ``/docs-assets``, and the initializer
    as a file of kgrag's own (the page's CSP allows no inline script)."""
    assets = _swagger_ui_path()
    if assets is not None:
        app.mount(DOCS_ASSETS, StaticFiles(directory=assets), name="docs-assets")

    @app.get(DOCS_SCHEMA, include_in_schema=False)
    def docs_schema() -> JSONResponse:
        return JSONResponse(downgrade(app.openapi()))

    @app.get(DOCS_INIT, include_in_schema=False)
    def docs_init() -> FileResponse:
        return FileResponse(
            KGRAG_DOCS_ASSETS / "swagger-init.js", media_type="text/javascript", headers=SECURITY_HEADERS
        )

    @app.get("/docs", include_in_schema=False)
    def docs() -> Response:
        if assets is None:
            return PlainTextResponse(
                "Swagger UI needs the swagger-ui-bundle package (pip install 'kgrag[server]'); "
                "the OpenAPI schema itself is at /openapi.json.\n",
                status_code=404,
            )
        return HTMLResponse(DOCS_PAGE.format(assets=DOCS_ASSETS, init=DOCS_INIT), headers=DOCS_HEADERS)
