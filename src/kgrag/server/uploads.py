"""Uploaded files land in ``<workspace>/uploads`` under names the server makes up.

The user's file name never becomes a path: only a sanitised stem (letters, digits, ``-``, ``_``) is kept
after a random prefix, so ``../../etc/passwd`` or ``C:\\x`` can only ever produce ``<hex>-passwd.txt``
inside the uploads directory (cf. https://github.com/HKUDS/LightRAG/issues/1692). Sizes are counted while
copying, not trusted from headers.
A ``.zip`` is extracted (or rejected, per ``server.archives``) with limits on files, bytes and the
compression ratio, all or nothing; other archive formats are refused
(cf. https://github.com/HKUDS/LightRAG/issues/3615).
"""

from __future__ import annotations

import json
import re
import stat
import threading
import uuid
import zipfile
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import BinaryIO, Protocol

from kgrag.config import ServerConfig
from kgrag.server.errors import ApiError

UPLOADS_DIR = "uploads"
NAMES_FILE = "upload-names.json"
COPY_BLOCK = 64 * 1024
RATIO_ALLOWANCE = 1024 * 1024  # archives smaller than this once extracted are never "bombs"
_SUFFIX = re.compile(r"\.[a-z0-9]{1,8}")
REFUSED_ARCHIVES = frozenset({".tar", ".gz", ".tgz", ".bz2", ".xz", ".zst", ".7z", ".rar", ".lz", ".lzma"})


class Readable(Protocol):
    """What uploads are copied from: an uploaded file, or one member of a zip being decompressed."""

    def read(self, size: int = -1, /) -> bytes: ...


@dataclass(frozen=True)
class StoredFile:
    """One file written: the name the client gave, the generated name, and its size."""

    original: str
    stored: str
    bytes: int


@dataclass
class UploadOutcome:
    """Files written and entries skipped (with why) across one request."""

    files: list[StoredFile] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    refused: list[dict[str, str]] = field(default_factory=list)

    def refused_line(self) -> str:
        """One line naming every refused file with why (the answer when nothing was accepted)."""
        return "; ".join(f"{item['name']}: {item['reason']}" for item in self.refused)


def uploads_dir(workspace: Path) -> Path:
    return workspace / UPLOADS_DIR


def _base_name(name: str) -> str:
    """The last component of a client-side name, whichever separator the client's system uses."""
    return PurePosixPath(name.replace("\\", "/")).name


def generated_name(original: str) -> str:
    """``<16 hex>-<safe stem><suffix>``: unique, and with nothing of the client's name that could be a path."""
    base = _base_name(original)
    suffix = PurePosixPath(base).suffix.lower()
    stem = re.sub(r"[^A-Za-z0-9_-]+", "-", base[: len(base) - len(suffix)] if suffix else base).strip("-")[:48]
    kept_suffix = suffix if _SUFFIX.fullmatch(suffix) else ""
    return f"{uuid.uuid4().hex[:16]}-{stem or 'file'}{kept_suffix}"


def display_name(stored: str) -> str:
    """A stored upload's name without its random prefix (what is left of the client's name)."""
    prefix, sep, rest = stored.partition("-")
    return rest if sep and len(prefix) == 16 and all(c in "0123456789abcdef" for c in prefix) and rest else stored


class UploadNames:
    """Stored name → the name the client uploaded, kept in a small JSON file beside the uploads directory
    (not inside it: the indexer reads every file there). Unknown or unreadable entries fall back to the
    stored name without its random prefix."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._names: dict[str, str] | None = None

    def _load(self) -> dict[str, str]:
        if self._names is None:
            try:
                data = json.loads(self.path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                data = {}
            self._names = {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}
        return self._names

    def add(self, names: dict[str, str]) -> None:
        if not names:
            return
        with self._lock:
            merged = {**self._load(), **names}
            temporary = self.path.with_name(f".{self.path.name}.{uuid.uuid4().hex[:8]}")
            try:
                temporary.write_text(json.dumps(merged, ensure_ascii=False), encoding="utf-8")
                temporary.replace(self.path)
            except OSError:
                temporary.unlink(missing_ok=True)  # names are a nicety: listings fall back to stored names
            self._names = merged

    def get(self, stored: str) -> str:
        with self._lock:
            known = self._load().get(stored)
        return _base_name(known) if known else display_name(stored)


class Uploads:
    """Writes uploads of one workspace under the server's limits."""

    def __init__(self, directory: Path, limits: ServerConfig, suffixes: Iterable[str]) -> None:
        self.directory = directory
        self.limits = limits
        self.suffixes = frozenset(suffixes)
        self.names = UploadNames(directory.parent / NAMES_FILE)

    def accept(self, original: str, source: BinaryIO, outcome: UploadOutcome) -> None:
        """Store one uploaded file (or the supported files of a zip) and record it in ``outcome``; a file
        of a type the server does not take is recorded as refused, with why."""
        base = _base_name(original)
        suffix = PurePosixPath(base).suffix.lower()
        if suffix == ".zip":
            if self.limits.archives == "reject":
                outcome.refused.append({"name": base, "reason": "archives are not accepted on this server"})
                return
            self._extract(original, source, outcome)
        elif suffix in REFUSED_ARCHIVES:
            outcome.refused.append({"name": base, "reason": "only .zip archives are accepted"})
        elif suffix in self.suffixes:
            outcome.files.append(self._write(base, source, self.limits.max_file_bytes))
        else:
            accepted = ", ".join(sorted(self.suffixes))
            outcome.refused.append({"name": base, "reason": f"unsupported file type; accepted: {accepted}, .zip"})

    def remember(self, files: Iterable[StoredFile]) -> None:
        """Keep the names the client gave to ``files``, so listings show them instead of stored names."""
        self.names.add({f.stored: f.original for f in files})

    def shown_name(self, stored: str) -> str:
        """What a client is shown for the stored file name ``stored`` (any other name is returned as is)."""
        return self.names.get(stored)

    def _write(self, original: str, source: Readable, limit: int) -> StoredFile:
        self.directory.mkdir(parents=True, exist_ok=True)
        name = generated_name(original)
        target = self.directory / name
        written = 0
        try:
            with target.open("xb") as out:
                while block := source.read(COPY_BLOCK):
                    written += len(block)
                    if written > limit:
                        raise ApiError(413, "too_large", f"{original}: over the per-file limit of {limit} bytes")
                    out.write(block)
        except BaseException:
            target.unlink(missing_ok=True)
            raise
        return StoredFile(original, name, written)

    def _extract(self, original: str, source: BinaryIO, outcome: UploadOutcome) -> None:
        """All supported members or nothing: a limit hit half-way removes what this archive wrote."""
        try:
            archive = zipfile.ZipFile(source)
        except (zipfile.BadZipFile, OSError, ValueError) as exc:
            raise ApiError(400, "bad_archive", f"{_base_name(original)}: not a readable zip ({exc})") from exc
        written: list[StoredFile] = []
        try:
            with archive:
                self._extract_members(archive, _base_name(original), written, outcome)
        except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError) as exc:
            for item in written:
                (self.directory / item.stored).unlink(missing_ok=True)
            raise ApiError(400, "bad_archive", f"{_base_name(original)}: damaged or unsupported zip ({exc})") from exc
        except BaseException:
            for item in written:
                (self.directory / item.stored).unlink(missing_ok=True)
            raise
        outcome.files.extend(written)

    def _extract_members(
        self, archive: zipfile.ZipFile, name: str, written: list[StoredFile], outcome: UploadOutcome
    ) -> None:
        members = archive.infolist()
        if len(members) > self.limits.max_archive_files:
            raise ApiError(413, "too_large", f"{name}: more than {self.limits.max_archive_files} entries")
        compressed = max(1, sum(m.compress_size for m in members))
        total = 0
        for member in members:
            reason = self._skip_reason(member)
            if reason:
                if not member.is_dir():
                    outcome.skipped.append({"name": f"{name}:{member.filename}", "reason": reason})
                continue
            budget = min(self.limits.max_file_bytes, self.limits.max_archive_bytes - total)
            with archive.open(member) as stream:
                item = self._write(f"{member.filename}", _Bounded(stream, budget, name), budget)
            written.append(item)
            total += item.bytes
            if total > RATIO_ALLOWANCE and total > self.limits.max_archive_ratio * compressed:
                raise ApiError(
                    413, "too_large", f"{name}: compression ratio over {self.limits.max_archive_ratio:g} (zip bomb?)"
                )

    def _skip_reason(self, member: zipfile.ZipInfo) -> str:
        if member.is_dir():
            return "directory"
        if stat.S_ISLNK(member.external_attr >> 16):
            return "symbolic link"
        if member.flag_bits & 0x1:
            return "encrypted"
        if PurePosixPath(_base_name(member.filename)).suffix.lower() not in self.suffixes:
            return "unsupported file type (nested archives are not extracted)"
        return ""


class _Bounded:
    """A read-only stream that fails as soon as more than ``limit`` bytes come out of it: the size in a
    zip's header is the archive's claim, the bytes that decompress are the truth."""

    def __init__(self, stream: Readable, limit: int, archive: str) -> None:
        self._stream = stream
        self._limit = limit
        self._archive = archive
        self._seen = 0

    def read(self, size: int = -1) -> bytes:
        block = self._stream.read(min(size, self._limit + 1 - self._seen) if size > 0 else self._limit + 1)
        self._seen += len(block)
        if self._seen > self._limit:
            raise ApiError(413, "too_large", f"{self._archive}: an entry is over the size limits")
        return block
