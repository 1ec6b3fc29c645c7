"""The ``[server]`` section of kgrag.toml: how `kgrag serve` binds and what it accepts.

API keys are deliberately not a field here: a key in a config file ends up in backups and version
control. They come from ``--api-key-file`` or the ``KGRAG_API_KEYS`` environment variable, read when the
server starts.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from kgrag.config.base import Section

MIB = 1024 * 1024


class ServerConfig(Section):
    """Binding, upload limits and rate limits of the HTTP server (`kgrag serve`)."""

    host: str = Field(
        "127.0.0.1",
        description="Bind address. Anything but a loopback address requires an API key (the server refuses "
        "to start without one).",
    )
    port: int = Field(8765, ge=0, le=65535, description="TCP port (0 = any free port).")
    max_file_bytes: int = Field(
        25 * MIB, ge=1, description="Largest single uploaded file, and largest file extracted from an archive."
    )
    max_request_bytes: int = Field(
        100 * MIB, ge=1, description="Largest request body; larger requests are refused with 413 before parsing."
    )
    archives: Literal["extract", "reject"] = Field(
        "extract",
        description="Uploaded `.zip` archives: `extract` their supported files (under the limits below) or "
        "`reject` them. Other archive formats are always rejected.",
    )
    max_archive_bytes: int = Field(
        200 * MIB, ge=1, description="Most bytes extracted from one archive; past it the upload is refused."
    )
    max_archive_ratio: float = Field(
        50.0, gt=1, description="Highest uncompressed/compressed size ratio of an archive (zip bombs exceed it)."
    )
    max_archive_files: int = Field(1000, ge=1, description="Most files extracted from one archive.")
    rate_limit_per_minute: int = Field(
        600, ge=0, description="Requests per minute per API key (per client address without keys); 0 = off."
    )
    rate_limit_burst: int = Field(60, ge=1, description="Requests a key may send at once before the rate applies.")
    max_compare_pipelines: int = Field(8, ge=1, description="Most pipelines one compare request may name.")
    max_question_chars: int = Field(4000, ge=1, description="Longest question accepted.")
    allowed_hosts: list[str] = Field(
        default_factory=list,
        description="Host names the server answers to besides 127.0.0.1, localhost, [::1] and `host` (requests "
        "naming any other `Host` are refused, which stops DNS rebinding); `*` accepts any. A wildcard bind "
        "(0.0.0.0, ::) without this list accepts any name (such a server needs API keys anyway).",
    )
    failed_auth_per_minute: int = Field(
        10,
        ge=1,
        description="Times a client address may send the same wrong (or no) API key per minute (10 at once) "
        "before that key gets 429 for a while; other keys from the address are still checked.",
    )
    header_timeout_s: float = Field(
        10.0, gt=0, description="Seconds a connection may take to send a request's headers before it is closed."
    )
    body_timeout_s: float = Field(
        60.0,
        gt=0,
        description="Seconds a request's whole body may take to arrive once its headers are complete; past it "
        "the connection is closed (slow-body clients). Raise it for large uploads over slow links.",
    )
    max_connections: int = Field(
        256, ge=1, description="Open connections and requests at once; past it new ones get 503 at once."
    )
