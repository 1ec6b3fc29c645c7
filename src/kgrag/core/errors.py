"""Error types that the CLI and server turn into clear messages instead of tracebacks.

`KgragError` and its subclasses are *user* errors: bad input, bad config, a workspace that does not
match the configured models. Their message must say what is wrong and what to do about it. Any other
exception is a bug and surfaces as an internal error with a pointer to ``--debug``.
"""

from __future__ import annotations


class KgragError(Exception):
    """A problem the user can fix; the message names the file/field and the remedy."""


class ConfigError(KgragError):
    """A config value is missing, malformed or out of range."""


class WorkspaceError(KgragError):
    """The workspace is missing, locked, or was built with different models."""


class StoreUnavailableError(WorkspaceError):
    """The workspace's database server cannot be reached now (down, restarting, a lost connection): nothing
    is wrong with the request, and the same request succeeds once the server is back."""


class DocumentError(KgragError):
    """A single document cannot be read; indexing reports it and skips the file. ``title`` is the title the
    file gives itself (its front matter's) when reading got that far, so that the failure is listed by it."""

    def __init__(self, message: str, title: str = "") -> None:
        super().__init__(message)
        self.title = title


class ModelError(KgragError):
    """A model (embedder, LLM, reranker) cannot be loaded or called."""


class BudgetExceededError(KgragError):
    """A token budget would be exceeded; work stops cleanly and stays resumable."""


class StreamCancelled(KgragError):
    """The reader of a streamed answer went away (a closed connection, Ctrl-C): the LLM request stops."""
