"""Request counts and latencies per route, in the Prometheus text format.

Measured by a small ASGI middleware around the whole app, labelled by the route *template*
(``/v1/workspaces/{workspace}/query``) so the number of series stays bounded whatever clients send.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass, field

from starlette.types import ASGIApp, Message, Receive, Scope, Send

BUCKETS_MS = (1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000)


@dataclass
class _Series:
    count: int = 0
    total_ms: float = 0.0
    buckets: list[int] = field(default_factory=lambda: [0] * len(BUCKETS_MS))


class Metrics:
    """Thread-safe counters; :meth:`render` writes them out."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._series: dict[tuple[str, str, int], _Series] = defaultdict(_Series)
        self.started = time.time()

    def observe(self, method: str, route: str, status: int, ms: float) -> None:
        with self._lock:
            series = self._series[(method, route, status)]
            series.count += 1
            series.total_ms += ms
            for i, bound in enumerate(BUCKETS_MS):
                if ms <= bound:
                    series.buckets[i] += 1

    def render(self, gauges: dict[str, float]) -> str:
        lines = [
            "# HELP kgrag_http_requests_total Requests served, by method, route and status.",
            "# TYPE kgrag_http_requests_total counter",
        ]
        with self._lock:
            snapshot = {key: (s.count, s.total_ms, list(s.buckets)) for key, s in self._series.items()}
        for (method, route, status), (count, _, _) in sorted(snapshot.items()):
            lines.append(f'kgrag_http_requests_total{{method="{method}",route="{route}",status="{status}"}} {count}')
        lines += [
            "# HELP kgrag_http_request_ms Request latency in milliseconds.",
            "# TYPE kgrag_http_request_ms histogram",
        ]
        for (method, route, status), (count, total, buckets) in sorted(snapshot.items()):
            labels = f'method="{method}",route="{route}",status="{status}"'
            lines += [
                f'kgrag_http_request_ms_bucket{{{labels},le="{b}"}} {n}'
                for b, n in zip(BUCKETS_MS, buckets, strict=True)
            ]
            lines += [
                f'kgrag_http_request_ms_bucket{{{labels},le="+Inf"}} {count}',
                f"kgrag_http_request_ms_sum{{{labels}}} {total:.3f}",
                f"kgrag_http_request_ms_count{{{labels}}} {count}",
            ]
        lines.append(f"kgrag_uptime_seconds {time.time() - self.started:.1f}")
        lines += [f"{name} {value:g}" for name, value in sorted(gauges.items())]
        return "\n".join(lines) + "\n"


class MetricsMiddleware:
    """Times every HTTP request, gives it an id (``X-Request-Id``; 500 bodies cite it) and counts it."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = uuid.uuid4().hex[:12]
        scope.setdefault("state", {})["request_id"] = request_id
        status = 500
        started = time.perf_counter()

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", []), (b"x-request-id", request_id.encode())]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            self.metrics.observe(scope["method"], route_template(scope), status, (time.perf_counter() - started) * 1000)


def route_template(scope: Scope) -> str:
    """``/v1/workspaces/{workspace}/query`` for ``/v1/workspaces/team-a/query``: the matched path with its
    parameters put back as names, so metrics have one series per route, not per URL a client invents."""
    if scope.get("route") is None:
        return "unmatched"
    path: str = scope.get("path", "")
    params: dict[str, object] = scope.get("path_params", {})
    names = {str(value): name for name, value in params.items()}
    segments = ["{" + names[seg] + "}" if seg in names else seg for seg in path.split("/")]
    template = "/".join(segments)
    for value, name in names.items():
        if "/" in value:
            template = template.replace(value, "{" + name + "}")
    return template
