"""Connecting to a Ray cluster by address: a quick check before ``ray.init``, and why a connection failed.

Two things go wrong when ``kgrag index --engine ray --ray-address HOST:PORT`` meets Ray 2.60, measured on
a one-CPU head started with ``ray start --head`` (``tests/indexing/test_ray_address.py``):

* Nothing listening at the address (a typo, a stopped head): ``ray.init`` retries for minutes (for a
  closed port it was still retrying after 5 minutes here). A TCP connect to the address Ray will dial
  answers in milliseconds, so the run fails at once, naming the address. On Linux Ray dials a loopback host
  (``127.0.0.1``, ``localhost``) as this machine's outward address; a head that listens on loopback only
  (started with ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``) is then unreachable, and the message says so.
* A cluster with token authentication (``ray start`` enables it by default): Ray sends a token to an
  explicitly named address only when asked to (``RAY_AUTH_MODE=token``), and its final error ("Failed to
  connect to Ray cluster at …") hides that cause; :func:`connection_failure` names it and the fix.
"""

from __future__ import annotations

import ipaddress
import socket

_REACH_TIMEOUT_S = 5.0  # a reachable head answers a TCP connect in milliseconds, even across a data centre
_LOCAL_ADDRESSES = frozenset({"auto", "local"})  # Ray finds these itself; nothing to check
_TOKEN_HINT = (
    "the cluster uses token authentication: give kgrag its token with RAY_AUTH_MODE=token and RAY_AUTH_TOKEN "
    "(or RAY_AUTH_TOKEN_PATH, or the file ~/.ray/auth_token) — Ray sends a token to an explicit address only "
    "when told to"
)
_LOOPBACK_HINT = (
    "; Ray dialled {dialled} for {host} (on Linux it replaces a loopback host by this machine's address): "
    "a head listening on loopback only needs RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 in the environment of "
    "`kgrag index` too"
)


def split_address(address: str) -> tuple[str, int] | None:
    """``(host, port)`` of ``HOST:PORT`` or ``ray://HOST:PORT``; None for ``auto``/``local`` and anything
    without a numeric port (left for Ray to judge)."""
    rest = address.strip().removeprefix("ray://")
    if rest in _LOCAL_ADDRESSES or ":" not in rest:
        return None
    host, _, port = rest.rpartition(":")
    if not port.isdigit() or not host:
        return None
    return host.strip("[]"), int(port)


def _dialled_host(address: str, host: str) -> str:
    """The host Ray will connect to for ``address``: its own canonical form (a loopback host becomes this
    machine's address on Linux). Ray's helper is internal, so any failure falls back to ``host``."""
    if address.startswith("ray://"):
        return host  # Ray Client dials the address as given
    try:
        from ray._private.services import canonicalize_bootstrap_address

        canonical = canonicalize_bootstrap_address(address)
    except Exception:  # an internal API that may change; the check is only a convenience
        return host
    parsed = split_address(canonical) if canonical else None
    return parsed[0] if parsed else host


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _accepts(host: str, port: int) -> OSError | None:
    """None when something accepts a TCP connection at ``host:port``, else why not."""
    try:
        socket.create_connection((host, port), timeout=_REACH_TIMEOUT_S).close()
    except OSError as exc:
        return exc
    return None


def unreachable_reason(address: str) -> str | None:
    """Why nothing will answer at ``address`` (a sentence fragment), or None when something listens there
    (or the address is one Ray resolves itself)."""
    parsed = split_address(address)
    if parsed is None:
        return None
    host, port = parsed
    dialled = _dialled_host(address, host)
    failure = _accepts(dialled, port)
    if failure is None:
        return None
    reason = f"nothing accepts connections at {dialled}:{port} ({failure.strerror or failure})"
    if dialled != host and _is_loopback(host) and _accepts(host, port) is None:
        reason += _LOOPBACK_HINT.format(dialled=dialled, host=host)
    return reason


def connection_failure(exc: BaseException) -> str:
    """What ``ray.init`` failed on: its message, the innermost cause's first line, and the fix when the
    cause is a missing or wrong authentication token."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or current.__context__
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if len(chain) > 1:
        text += f" ({_gist(chain[-1])})"
    if any(type(e).__name__ == "AuthenticationError" or "InvalidAuthToken" in str(e) for e in chain):
        text += f"; {_TOKEN_HINT}"
    return text


def _gist(exc: BaseException) -> str:
    """The first sentence of what ``exc`` says, after its type. Ray embeds whole tracebacks in some
    messages; their last line (``module.Error: what``) is then the gist."""
    message = str(exc)
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    if not lines:
        return type(exc).__name__
    if "Traceback (most recent call last)" in message:
        return lines[-1].split(". ")[0]
    return f"{type(exc).__name__}: {lines[0].split('. ')[0]}"
