"""Every error leaves the server as JSON with a message: ``{"error": {"status", "code", "message"}}``.

User errors (:class:`KgragError`) are 4xx with kgrag's own one-line message, exactly what the CLI would
print; a workspace whose database server cannot be reached is a 503 with the store's message (the
request is fine and succeeds once the server is back); validation errors name the field; anything
unexpected is a 500 whose body says only that and the request id to look up in the server log, never a
traceback (tracebacks leak paths and code to clients).
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from kgrag.core.errors import BudgetExceededError, KgragError, ModelError, StoreUnavailableError
from kgrag.server.jobs import JobConflict

log = logging.getLogger("kgrag.server")


class ApiError(Exception):
    """An error a route raises on purpose, with the HTTP status and a stable machine-readable code."""

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers


def error_response(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": {"status": status, "code": code, "message": message}}, status, headers=headers)


def _kgrag_status(exc: KgragError) -> tuple[int, str]:
    if isinstance(exc, JobConflict):
        return 409, "conflict"
    if isinstance(exc, BudgetExceededError):
        return 402, "budget_exceeded"
    if isinstance(exc, ModelError):
        return 502, "model_error"
    if isinstance(exc, StoreUnavailableError):
        return 503, "store_unavailable"
    return 400, "bad_request"


def _invalid_json(err: dict[str, Any]) -> str:
    """A body that is not JSON: where parsing stopped and why (its ``loc`` is ``("body", offset)``)."""
    loc = err.get("loc", ())
    where = f" at character {loc[-1]}" if len(loc) > 1 else ""
    reason = str(err.get("ctx", {}).get("error", "")).strip()
    return f"request body: not valid JSON{where}" + (f" ({reason})" if reason else "")


def _validation_message(exc: RequestValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        if err.get("type") == "json_invalid":
            parts.append(_invalid_json(err))
            continue
        where = ".".join(str(p) for p in err.get("loc", ()) if p != "body") or "request"
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    return "; ".join(parts) or "invalid request"


def _scrubbed(request: Request, message: str) -> str:
    """``message`` without server paths (kgrag's messages name files by path, as the CLI wants)."""
    state = getattr(request.app.state, "kgrag", None)
    return message if state is None else str(state.scrubber().text(message))


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers on ``app`` (per app: nothing global)."""

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.status, exc.code, _scrubbed(request, exc.message), exc.headers)

    @app.exception_handler(KgragError)
    async def _kgrag_error(request: Request, exc: KgragError) -> JSONResponse:
        status, code = _kgrag_status(exc)
        return error_response(status, code, _scrubbed(request, str(exc)))

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return error_response(422, "invalid_request", _validation_message(exc))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed", 413: "too_large"}.get(exc.status_code, "http_error")
        headers = dict(exc.headers) if exc.headers else None
        return error_response(exc.status_code, code, str(exc.detail), headers)

    @app.exception_handler(Exception)
    async def _internal(request: Request, exc: Exception) -> JSONResponse:
        request_id = getattr(request.state, "request_id", "-")
        log.exception("internal error in %s %s (request %s)", request.method, request.url.path, request_id)
        message = f"internal error; see the server log for request {request_id}"
        return error_response(500, "internal_error", message, {"X-Request-Id": request_id})
