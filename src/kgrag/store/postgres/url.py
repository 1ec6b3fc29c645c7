"""Parsing ``store.url`` for the PostgreSQL backend: the connection string, the workspace's schema, and a
form of the URL that is safe to print.

Several workspaces may share one database, so each keeps its tables in a schema of its own. The schema
is the URL's ``schema`` query parameter when given (``postgresql://u@h/db?schema=team_a``), else
``kgrag_<workspace directory name>``: stable when the directory is moved, readable in ``psql``, and
distinct for the usual case of differently named workspaces. ``schema`` is kgrag's parameter, not
libpq's, so it is removed before connecting; every other parameter (``sslmode``, ``connect_timeout``…)
goes to libpq unchanged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from kgrag.core.errors import ConfigError

SCHEMES = ("postgresql", "postgres")
_IDENTIFIER = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
_FIX = "set store.url to postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?schema=NAME]"


@dataclass(frozen=True)
class PgTarget:
    """Where a workspace lives on a server: libpq's connection string and the schema name."""

    conninfo: str
    schema: str

    @property
    def display(self) -> str:
        """The URL without its password, for messages and logs."""
        return redact(self.conninfo)


_QUERY_PASSWORD = re.compile(r"(?i)((?:^|&)password=)[^&]*")


def redact(url: str) -> str:
    """``url`` with any password replaced by ``***``: the one in the user part, and a ``password=``
    parameter (libpq takes either)."""
    parts = urlsplit(url)
    query = _QUERY_PASSWORD.sub(r"\1***", parts.query)
    netloc = parts.netloc if parts.password is None else parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    if netloc == parts.netloc and query == parts.query:
        return url
    return urlunsplit(parts._replace(netloc=netloc, query=query))


def default_schema(workspace: Path) -> str:
    """``kgrag_`` + the workspace directory's name, lower-cased, non-identifier characters as ``_``."""
    name = re.sub(r"[^a-z0-9_]+", "_", workspace.resolve().name.lower()).strip("_") or "workspace"
    return f"kgrag_{name}"[:63]


def parse_target(url: str | None, workspace: Path) -> PgTarget:
    """Split ``url`` into the libpq connection string and the schema; a malformed URL or schema name is a
    :class:`ConfigError` naming ``store.url``."""
    if not url:
        raise ConfigError(f"store.url is empty but store.backend is postgresql; {_FIX}")
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES or not parts.netloc:
        raise ConfigError(f"store.url {redact(url)!r} is not a PostgreSQL URL; {_FIX}")
    try:
        parts.port  # noqa: B018 - raises on a non-numeric port
    except ValueError as exc:
        raise ConfigError(f"store.url {redact(url)!r}: {exc}; {_FIX}") from exc
    query = parse_qsl(parts.query, keep_blank_values=True)
    schemas = [value for key, value in query if key == "schema"]
    schema = schemas[-1] if schemas else default_schema(workspace)
    if not _IDENTIFIER.match(schema):
        raise ConfigError(
            f"store.url: schema {schema!r} is not a plain lower-case identifier (letters, digits, _; at most 63); "
            "choose another ?schema=NAME"
        )
    rest = urlencode([(k, v) for k, v in query if k != "schema"])
    return PgTarget(urlunsplit(parts._replace(query=rest)), schema)
