"""Services the project promises (PostgreSQL, Chromium, Ray): skipped locally with the reason when missing,
but a failure where ``KGRAG_REQUIRE_SERVICES=1`` (``.ci/run`` sets it), so CI cannot pass while a backend
went untested. And the scale of test timeouts on a loaded machine.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import NoReturn

import pytest

REQUIRE_ENV = "KGRAG_REQUIRE_SERVICES"
SCALE_ENV = "KGRAG_TIMEOUT_SCALE"


def services_required() -> bool:
    return os.environ.get(REQUIRE_ENV, "").strip().lower() in ("1", "true", "yes")


def unavailable(service: str, reason: str) -> NoReturn:
    """Skip (locally) or fail (``KGRAG_REQUIRE_SERVICES=1``) because ``service`` cannot be used here."""
    if services_required():
        pytest.fail(f"{service} is required ({REQUIRE_ENV}=1) but unavailable: {reason}", pytrace=False)
    pytest.skip(f"{service} unavailable: {reason}", allow_module_level=True)  # also from a module's imports


def import_service(module: str, service: str, reason: str) -> ModuleType:
    """``pytest.importorskip`` that fails instead of skipping where services are required."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        unavailable(service, f"{reason} ({exc})")


def timeout_scale() -> float:
    """How much longer than on an idle machine waits may take: ``KGRAG_TIMEOUT_SCALE`` when set, else the
    load per CPU (at least 1), so a suite run beside other work does not time out for being slow."""
    configured = os.environ.get(SCALE_ENV)
    if configured:
        return max(1.0, float(configured))
    try:
        load = os.getloadavg()[0]
    except OSError:  # pragma: no cover - not available on this platform
        return 1.0
    return max(1.0, load / (os.cpu_count() or 1))


def scaled(seconds: float) -> float:
    """``seconds`` times :func:`timeout_scale`."""
    return seconds * timeout_scale()
