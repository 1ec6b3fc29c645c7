"""Human-readable renderings of workspace data for the CLI (``--json`` prints the data itself).

Kept apart from the command definitions so that each command stays "parse, call, print", and so that the
wording of a status line is written once.
"""

from __future__ import annotations

from typing import Any

from rich.table import Table


def _count(value: int, noun: str) -> str:
    return f"{value:,} {noun}"


def _size(n_bytes: int) -> str:
    size = float(n_bytes)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n_bytes} B"  # unreachable; keeps the type checker sure of a return


def _documents(counts: dict[str, int]) -> str:
    if not counts:
        return "none yet (run `kgrag index PATH`)"
    parts = " · ".join(f"{n:,} {status}" for status, n in sorted(counts.items()))
    return f"{sum(counts.values()):,} ({parts})"


def _embedding(info: dict[str, Any]) -> str:
    recorded = info.get("model")
    line = f"{recorded}" + (f" · {info['dimension']} dims" if info.get("dimension") else "")
    line += f" · window {info['window']}" if info.get("window") else ""
    configured = info.get("configured")
    if configured and configured != recorded:
        verdict = info.get("agreement")
        if verdict:
            check = f"min probe cosine {float(verdict['min']):.4f}, needed ≥ {verdict['threshold']}"
            state = "agrees" if float(verdict["min"]) >= float(verdict["threshold"]) else "DOES NOT agree"
            line += f"\nqueried with {configured}: {state} ({check})"
        else:
            line += f"\nqueried with {configured}: agreement is checked when the model first loads"
    return line


def _graph(info: dict[str, int]) -> str:
    if not info.get("entities"):
        failed = info.get("chunks_failed", 0)
        if not failed:
            return "empty"
        return f"empty · {failed:,} chunk{'s' if failed != 1 else ''} failed extraction (`kgrag index` retries them)"
    line = f"{_count(info['entities'], 'entities')} · {_count(info.get('relations', 0), 'relations')}"
    if "chunks_extracted" in info:
        line += f" · {info['chunks_extracted']:,} chunks extracted ({info.get('chunks_failed', 0):,} failed)"
    return line


def _llm(info: dict[str, Any]) -> str:
    provider = info.get("provider", "none")
    line = provider + (f" · {info['model']}" if info.get("model") else "")
    if info.get("calls"):
        line += (
            f" · {info['calls']:,} calls ({info['cache_hit_rate']:.0%} from cache) · "
            f"{info['prompt_tokens']:,} prompt + {info['completion_tokens']:,} completion tokens · "
            f"${info['cost_usd']:.4f}"
        )
    if info.get("cache_entries"):
        line += f" · {info['cache_entries']:,} cached replies"
    if server := info.get("server"):
        window = f"window {server['context_window']:,}" if server.get("context_window") else "window not announced"
        refused = f" (refused: {', '.join(server['rejected'])})" if server.get("rejected") else ""
        line += f"\nllm server: {server['kind']} · JSON mode {server['json_mode']}{refused} · {window}"
    if info.get("pending_batches"):
        count = len(info["pending_batches"])
        line += f" · {count} batch{'es' if count > 1 else ''} pending (`kgrag index --batch` resumes)"
    return line


def status_table(info: dict[str, Any]) -> Table:
    """``kgrag status`` as a two-column table of sentences, not Python dicts."""
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    table.add_row("workspace", str(info["workspace"]))
    table.add_row("documents", _documents(info.get("documents") or {}))
    table.add_row("chunks", f"{info.get('chunks', 0):,}")
    table.add_row("vectors", f"{info.get('vectors', 0):,} (embedding cache: texts indexed now and earlier)")
    table.add_row("database", _size(int(info.get("database_bytes") or 0)))
    table.add_row("embedding", _embedding(info.get("embedding") or {}))
    table.add_row("graph", _graph(info.get("graph") or {}))
    table.add_row("llm", _llm(info.get("llm") or {}))
    known = {
        *("workspace", "documents", "chunks", "vectors", "database_bytes", "embedding", "graph", "llm", "failed"),
        "unfinished",  # printed under the table
    }
    for key, value in info.items():  # anything a newer workspace adds still shows
        if key not in known:
            table.add_row(key, str(value))
    return table
