"""Getting a Ray to run on, and giving it back: the only place the Ray engine imports ``ray``.

Three cases, decided when the run starts (never at import: ``ray`` is an optional extra and heavy):

* Ray is already initialised in this process (a notebook, a test session, a Ray job): use it, leave it up.
* ``indexing.engines.ray.address`` is set: connect to that cluster for the run, disconnect afterwards. The
  driver's kgrag package is shipped to the workers (``runtime_env.py_modules``) so they run the same
  code; its dependencies (numpy, spaCy, onnxruntime…) must be installed on the cluster. An address where
  nothing listens fails at once, and a failed connection says why (:mod:`.ray_address`).
* Otherwise: start a local Ray with ``indexing.engines.ray.num_cpus`` CPUs on 127.0.0.1, no dashboard, usage
  statistics off, logs in a temporary directory, and stop it afterwards. Its workers import kgrag from
  the same directory as this process. The temporary directory goes with it when the run ends well; when the
  run fails it stays, and the progress notes say where, since its logs are what explains the failure.
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

from kgrag.core.errors import ConfigError, KgragError
from kgrag.core.progress import Progress
from kgrag.indexing.engines.ray_address import connection_failure, unreachable_reason
from kgrag.indexing.engines.ray_settings import RayEngineSettings

INSTALL_HINT = "pip install 'kgrag[ray]'"
USAGE_STATS = "RAY_USAGE_STATS_ENABLED"
USAGE_OFF = {USAGE_STATS: "0", "RAY_DATA_USAGE_DISABLED": "1"}
"""Ray's usage statistics, and Ray Data's own collection of them, off."""


def import_ray() -> ModuleType:
    """``ray`` (with Ray Data), or a :class:`KgragError` telling the user how to get it."""
    try:
        import ray
        import ray.data
    except ImportError as exc:
        raise KgragError(
            f"indexing.engine = ray needs Ray, which is not installed ({exc.name or exc}); run `{INSTALL_HINT}` "
            "or use --engine local"
        ) from exc
    return ray


def kgrag_source_dir() -> Path:
    """The directory this process imports kgrag from (so local workers import the very same files)."""
    import kgrag

    return Path(kgrag.__file__).resolve().parents[1]


def _local_init_args(config: RayEngineSettings, temp_dir: Path) -> dict[str, object]:
    source = str(kgrag_source_dir())
    inherited = os.environ.get("PYTHONPATH", "")
    path = os.pathsep.join([source, *[p for p in inherited.split(os.pathsep) if p and p != source]])
    return {
        "num_cpus": config.num_cpus,
        "include_dashboard": False,
        "_node_ip_address": "127.0.0.1",
        "_temp_dir": str(temp_dir),
        "log_to_driver": False,
        "logging_level": "WARNING",
        "runtime_env": {"env_vars": {"PYTHONPATH": path, USAGE_STATS: "0"}},
    }


def _cluster_init_args(address: str) -> dict[str, object]:
    import kgrag

    return {
        "address": address,
        "log_to_driver": False,
        "logging_level": "WARNING",
        "runtime_env": {"py_modules": [kgrag]},
    }


@contextmanager
def _usage_stats_off() -> Iterator[None]:
    """Ray's usage statistics off in this process while the block runs (the head processes Ray starts
    inherit it), then the environment as before.

    Off for the whole session, not only while ``ray.init`` runs: with statistics on in the driver, every
    Ray Data run starts a daemon thread that polls Prometheus on localhost:9090 for as long as the
    process lives and logs each refused connection with its traceback. Formatting those tracebacks calls
    ``ast.parse``, which on CPython 3.11.7 races an ``ast.parse`` in the main thread and fails it with
    ``SystemError: AST constructor recursion depth mismatch`` (cpython#106905): seen in the test suite
    after the Ray tests."""
    previous = {name: os.environ.get(name) for name in USAGE_OFF}
    os.environ.update(USAGE_OFF)
    try:
        yield
    finally:
        for name, value in previous.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _check_reachable(address: str, where: str) -> None:
    """Fail at once when nothing listens at ``address`` (``ray.init`` would retry for minutes)."""
    reason = unreachable_reason(address)
    if reason is not None:
        raise ConfigError(
            f"indexing.engines.ray.address (--ray-address): cannot reach {where}: {reason}; check the address and that "
            "the cluster's head runs (`ray start --head --port=PORT` prints the address to use)"
        )


@contextmanager
def ray_session(config: RayEngineSettings, progress: Progress) -> Iterator[ModuleType]:
    """``ray``, initialised for the duration of the block as described in the module docstring."""
    ray = import_ray()
    if ray.is_initialized():
        yield ray
        return
    temp_dir: Path | None = None
    if config.address:
        args = _cluster_init_args(config.address)
        where = f"the Ray cluster at {config.address}"
        _check_reachable(config.address, where)
    else:
        temp_dir = Path(tempfile.mkdtemp(prefix="kgrag-ray-"))
        args = _local_init_args(config, temp_dir)
        where = f"a local Ray ({config.num_cpus} CPUs)"
    progress.note(f"indexing engine ray: starting {where}")
    ended_well = False
    with _usage_stats_off():
        try:
            try:
                with _own_signal_handlers():
                    ray.init(**args)
            except (ConnectionError, ValueError, RuntimeError) as exc:
                field = (
                    "indexing.engines.ray.address (--ray-address)"
                    if config.address
                    else "indexing.engines.ray.num_cpus"
                )
                raise ConfigError(f"{field}: could not start or reach {where}: {connection_failure(exc)}") from exc
            try:
                yield ray
                ended_well = True
            finally:
                ray.shutdown()
        finally:
            _leave_temp_dir(temp_dir, ended_well, progress)


_KEPT_SIGNALS = ("SIGTERM", "SIGHUP", "SIGINT")


@contextmanager
def _own_signal_handlers() -> Iterator[None]:
    """Put back the caller's handlers of SIGTERM, SIGHUP and SIGINT after the block. ``ray.init`` installs a
    SIGTERM handler of its own in the driver, which aborts the process with a native stack dump (exit 134)
    where the command's own handler ends it with one line and 128 + the signal number, its work resumable."""
    numbers = [getattr(signal, name) for name in _KEPT_SIGNALS if hasattr(signal, name)]
    main = threading.current_thread() is threading.main_thread()  # only the main thread may set handlers
    saved = {number: signal.getsignal(number) for number in numbers} if main else {}
    try:
        yield
    finally:
        for number, handler in saved.items():
            if handler is not None and signal.getsignal(number) is not handler:
                signal.signal(number, handler)


def _leave_temp_dir(temp_dir: Path | None, ended_well: bool, progress: Progress) -> None:
    """Remove a local Ray's temporary directory after a run that ended well; after a failure keep it and
    say where it is (Ray's logs there are what explains the failure)."""
    if temp_dir is None:
        return
    if ended_well:
        shutil.rmtree(temp_dir, ignore_errors=True)
    elif temp_dir.exists():
        progress.note(f"indexing engine ray: the local Ray's logs are kept in {temp_dir}")
