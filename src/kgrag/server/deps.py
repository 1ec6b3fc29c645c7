"""Request dependencies: who is calling (API key), whether they may (rate limit, workspace scope), and
which workspace the request names.

Every ``/v1`` route except ``/v1/health`` depends on :func:`caller`; every workspace route on
:func:`hosted_workspace`, which is the only way a handler reaches a workspace, so a handler cannot use
a workspace the key is not allowed to use.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Path, Request

from kgrag.server.errors import ApiError
from kgrag.server.security import ApiKey
from kgrag.server.state import WORKSPACE_NAME, HostedWorkspace, server_state


@dataclass(frozen=True)
class Caller:
    """The key a request came with (None on a keyless loopback server)."""

    key: ApiKey | None

    def may_use(self, workspace: str) -> bool:
        return self.key is None or self.key.workspaces is None or workspace in self.key.workspaces


def _presented_key(request: Request) -> str | None:
    auth = request.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip() or None
    return request.headers.get("x-api-key") or None


def _failure_bucket(address: str, secret: str | None) -> str:
    """Failed keys are throttled per client address *and* presented key: a client repeating a wrong (or no)
    key is told to wait, while another key from the same address (a proxy's other clients) is still
    checked. Guessing stays hopeless because keys are at least 16 characters."""
    presented = hashlib.sha256(secret.encode("utf-8")).hexdigest()[:16] if secret else "none"
    return f"{address} {presented}"


def _authenticate(request: Request, address: str) -> ApiKey:
    """The key the request presents; an address that keeps presenting the same wrong key is told to wait
    (429) without that key being checked again."""
    state = server_state(request)
    secret = _presented_key(request)
    bucket = _failure_bucket(address, secret)
    wait = state.auth_failures.acquire(bucket, spend=False)
    if wait > 0:
        raise ApiError(
            429,
            "rate_limited",
            f"this API key failed too often from this address; retry in {wait:.0f} s",
            {"Retry-After": str(math.ceil(wait))},
        )
    key = state.keys.find(secret) if secret else None
    if key is None:
        state.auth_failures.acquire(bucket)
        message = "an API key is required" if secret is None else "invalid API key"
        raise ApiError(401, "unauthorized", f"{message} (Authorization: Bearer KEY)", {"WWW-Authenticate": "Bearer"})
    return key


def caller(request: Request) -> Caller:
    """Authenticate (when the server has keys) and charge the caller's token bucket."""
    state = server_state(request)
    address = request.client.host if request.client else "unknown"
    key = _authenticate(request, address) if state.keys else None
    client = key.label if key else address
    wait = state.limiter.acquire(client)
    if wait > 0:
        raise ApiError(
            429, "rate_limited", f"rate limit reached; retry in {wait:.1f} s", {"Retry-After": str(math.ceil(wait))}
        )
    return Caller(key)


CallerDep = Annotated[Caller, Depends(caller)]


def hosted_workspace(
    request: Request,
    who: CallerDep,
    workspace: Annotated[str, Path(pattern=WORKSPACE_NAME, description="Workspace name (see GET /v1/workspaces).")],
) -> HostedWorkspace:
    """The workspace the path names, if it exists and the caller's key may use it."""
    hosted = server_state(request).workspaces.get(workspace)
    if hosted is None:
        raise ApiError(404, "not_found", f"no workspace named {workspace!r}")
    if not who.may_use(workspace):
        raise ApiError(403, "forbidden", f"this API key may not use workspace {workspace!r}")
    return hosted


WorkspaceDep = Annotated[HostedWorkspace, Depends(hosted_workspace)]
