"""Warming a served workspace's graph view in the background, so the web app's first graph paint does
not wait for igraph's import (seconds on a busy machine), the graph index load and the layout.

``kgrag serve`` starts it once the app is up; requests are answered meanwhile (one that asks for the same
view waits for the warm-up's result instead of computing it twice: the overview cache holds a lock).
A failure only means the first request computes the view itself, so it is logged, never raised.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable

from kgrag.server.state import HostedWorkspace

log = logging.getLogger(__name__)


def _warm(hosted: Iterable[HostedWorkspace]) -> None:
    from kgrag.graph.overview import OverviewQuery

    for one in hosted:
        try:
            if one.ws.graph.counts().get("entities"):
                one.ws.graph.overview(OverviewQuery())  # the view the app opens with
        except Exception:  # a warm-up must never take the server down
            log.warning("could not prepare the graph view of workspace %s", one.name, exc_info=True)


def warm_graph_views(hosted: Iterable[HostedWorkspace]) -> threading.Thread:
    """Compute each workspace's default graph overview in a daemon thread; returns the thread."""
    thread = threading.Thread(target=_warm, args=(list(hosted),), name="kgrag-warm-graph", daemon=True)
    thread.start()
    return thread
