"""Pairwise reports: win/tie rates with intervals, relative win rate, position consistency, discard
rate and the judge disclosure; a box plot of per-trial rates and, over several comparisons, the
relative-win-rate heat map (row minus column)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kgrag.core.errors import KgragError
from kgrag.evaluation.plots import relative_heatmap, win_rate_boxes


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.1%}"


def _ci(result: dict[str, Any], key: str) -> str:
    ci = (result.get("ci") or {}).get(key)
    if not ci:
        return ""
    return f" [{ci[0]:+.2f}, {ci[1]:+.2f}]" if key == "relative" else f" [{ci[0]:.1%}, {ci[1]:.1%}]"


def render_pairwise(payload: dict[str, Any]) -> str:
    a, b, result = payload["a"], payload["b"], payload["result"]
    r = result.get("rates") or {}
    lines = [
        f"# Pairwise `{a}` (A) vs `{b}` (B): {payload['judge_name']}",
        "",
        f"Dataset `{payload.get('dataset', '?')}`, {payload.get('questions')} questions; "
        f"settings {json.dumps(payload.get('settings'))}.",
        f"Judge: {json.dumps(payload.get('judge'))}.",
        "",
        f"**Verdict: {result.get('verdict')}** ({int(100 * result.get('confidence', 0.95))}% CI, "
        "cluster bootstrap over questions).",
        "",
        "| | rate | CI |",
        "| --- | ---: | ---: |",
        f"| A wins | {_pct(r.get('win_a'))} | {_ci(result, 'win_a')} |",
        f"| B wins | {_pct(r.get('win_b'))} | {_ci(result, 'win_b')} |",
        f"| ties | {_pct(r.get('tie'))} | {_ci(result, 'tie')} |",
        f"| relative win rate (A − B) | {r.get('relative', 0):+.3f} | {_ci(result, 'relative')} |",
        "",
        f"Position consistency (AB alone agrees with BA alone): {_pct(result.get('position_consistency'))}. "
        f"Unmeasured judgements: {result.get('unmeasured', 0)} of "
        f"{result.get('unmeasured', 0) + result.get('decisions', 0)}.",
    ]
    if "alignment" in result:
        al = result["alignment"]
        lines.append(
            f"Length alignment: {'on' if al['enabled'] else 'off'}; discarded {al['discarded']} of "
            f"{al['pairs']} pairs ({_pct(al['discard_rate'])})."
        )
    if result.get("aspects"):
        lines += ["", "| aspect | A wins | B wins | ties |", "| --- | ---: | ---: | ---: |"]
        for aspect, ar in result["aspects"].items():
            ar = ar or {}
            lines.append(f"| {aspect} | {_pct(ar.get('win_a'))} | {_pct(ar.get('win_b'))} | {_pct(ar.get('tie'))} |")
    return "\n".join(lines) + "\n"


def _matrix(payloads: Sequence[dict[str, Any]]) -> tuple[list[str], list[list[float | None]]]:
    names = sorted({p["a"] for p in payloads} | {p["b"] for p in payloads})
    index = {n: i for i, n in enumerate(names)}
    matrix: list[list[float | None]] = [[None] * len(names) for _ in names]
    for p in payloads:
        rel = (p["result"].get("rates") or {}).get("relative")
        if rel is not None:
            matrix[index[p["a"]]][index[p["b"]]] = rel
            matrix[index[p["b"]]][index[p["a"]]] = -rel
    return names, matrix


def write_pairwise_report(payloads: Sequence[dict[str, Any]], out_dir: Path) -> dict[str, Path]:
    stem = "pairwise_" + "_".join(p["id"] for p in payloads)[:120]
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        md, js = out_dir / f"{stem}.md", out_dir / f"{stem}.json"
        md.write_text("\n".join(render_pairwise(p) for p in payloads), encoding="utf-8")
        js.write_text(json.dumps(list(payloads), indent=2), encoding="utf-8")
        paths = {"markdown": md, "json": js}
        for p in payloads:
            trials = p["result"].get("per_trial") or []
            if trials:
                box = out_dir / f"pairwise_{p['id']}_trials.png"
                rates = {
                    f"{p['a']} wins": [t["win_a"] for t in trials],
                    f"{p['b']} wins": [t["win_b"] for t in trials],
                    "ties": [t["tie"] for t in trials],
                }
                win_rate_boxes(rates, f"{p['a']} vs {p['b']}: rates over {len(trials)} trials", box)
                paths[f"boxplot_{p['id']}"] = box
        names, matrix = _matrix(payloads)
        heat = out_dir / f"{stem}_relative.png"
        relative_heatmap(names, matrix, heat)
        paths["heatmap"] = heat
    except OSError as exc:
        raise KgragError(f"{exc.filename or out_dir}: cannot write the pairwise report ({exc.strerror})") from exc
    return paths
