#!/bin/sh
# Install Debian's chromium for the browser tests (tests/server/test_browser.py). Playwright's Python
# package drives it through `executable_path`; no `playwright install` download is needed.
# Idempotent. Another apt or dpkg run (unattended upgrades, a second install) holds the package locks:
# `apt-get install` waits up to 5 minutes for dpkg's lock (DPkg::Lock::Timeout); `apt-get update` does not
# wait for the package lists' lock, so it is retried every 5 s for up to 5 minutes; and a failed install
# is retried (4 attempts, 15 s apart).
# Locally it never fails the caller: without apt (or root) the browser test skips with a reason. With
# KGRAG_REQUIRE_SERVICES=1 (set by .ci/run) a chromium that cannot be installed fails here, at once.
set -u
REQUIRED="${KGRAG_REQUIRE_SERVICES:-}"
ATTEMPTS=4
LOCK_WAIT_S=300

have_chromium() {
    command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1
}

give_up() {
    if [ "$REQUIRED" = "1" ]; then
        echo "install-chromium: $1; KGRAG_REQUIRE_SERVICES=1, so this is an error" >&2
        exit 1
    fi
    echo "install-chromium: $1; browser tests will be skipped" >&2
    exit 0
}

if have_chromium; then
    exit 0
fi
command -v apt-get >/dev/null 2>&1 || give_up "apt-get not available"
SUDO=""
if [ "$(id -u)" != "0" ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        SUDO="sudo -n"
    else
        give_up "not root and no passwordless sudo"
    fi
fi
LOCK="-o DPkg::Lock::Timeout=$LOCK_WAIT_S"

update_lists() {
    waited=0
    # shellcheck disable=SC2086 # $SUDO and $LOCK are word lists
    until $SUDO apt-get $LOCK update -qq >/dev/null 2>&1; do
        [ "$waited" -ge "$LOCK_WAIT_S" ] && return 1
        sleep 5
        waited=$((waited + 5))
    done
}

attempt=1
while [ "$attempt" -le "$ATTEMPTS" ]; do
    update_lists || echo "install-chromium: apt-get update kept failing; trying the lists there are" >&2
    # shellcheck disable=SC2086 # $SUDO and $LOCK are word lists
    if DEBIAN_FRONTEND=noninteractive $SUDO apt-get $LOCK install -y -qq chromium >/dev/null 2>&1 && have_chromium; then
        exit 0
    fi
    echo "install-chromium: attempt $attempt of $ATTEMPTS failed (apt busy or unreachable)" >&2
    attempt=$((attempt + 1))
    [ "$attempt" -le "$ATTEMPTS" ] && sleep 15
done
give_up "apt-get install chromium failed $ATTEMPTS times"
