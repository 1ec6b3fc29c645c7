#!/bin/sh
# Install Debian's chromium for the browser tests (tests/server/test_browser.py). Playwright's Python
# package drives it through `executable_path`; no `playwright install` download is needed.
# Idempotent; never fails the caller: without apt (or root) the browser tests skip with a reason.
set -u
if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-chromium: apt-get not available; browser tests will be skipped" >&2
    exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        SUDO="sudo -n"
    else
        echo "install-chromium: not root and no passwordless sudo; browser tests will be skipped" >&2
        exit 0
    fi
fi
$SUDO apt-get update -qq >/dev/null 2>&1 || true
if ! DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null 2>&1; then
    echo "install-chromium: apt-get install chromium failed; browser tests will be skipped" >&2
fi
exit 0
