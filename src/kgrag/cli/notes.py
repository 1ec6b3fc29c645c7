"""Progress notes for commands without progress bars: one line each on stderr, at once.

Kept apart from :mod:`kgrag.cli.progress` (rich's progress bars) so commands that only need notes do not
load rich's bar machinery at start-up.
"""

from __future__ import annotations

import sys

from kgrag.core.progress import SilentProgress


class StderrNotes(SilentProgress):
    """For commands without progress bars (or with ``--json`` output): no bars, each note one line on
    stderr at once, e.g. that the command waits for a running ``kgrag index``."""

    def note(self, message: str) -> None:
        print(f"! {message}", file=sys.stderr, flush=True)
