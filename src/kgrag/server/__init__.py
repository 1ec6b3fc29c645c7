"""The HTTP server: a FastAPI app over the workspace sub-APIs (``kgrag serve``).

It sits beside ``cli`` at the top of the layers: it imports ``workspace`` and below, and nothing imports
it. Modules: ``app`` (factory), ``routes_*`` (one per resource), ``deps``/``security`` (keys, scopes,
rate limits, body limits), ``guard`` (Host and cross-site checks), ``protocol`` (uvicorn settings, header
deadline), ``jobs`` (background indexing), ``uploads`` (generated names, zip limits), ``errors`` (JSON
errors), ``metrics``, ``page`` (the web page and /docs).
"""

from kgrag.server.app import create_app
from kgrag.server.protocol import uvicorn_options
from kgrag.server.security import KeyRing, check_bind, is_loopback

__all__ = ["KeyRing", "check_bind", "create_app", "is_loopback", "uvicorn_options"]
