"""Prompt tokens per query with an LLM answer, for every pipeline, on GraphRAG-Bench Medical questions.

    .venv/bin/python bench/bench_prompt_tokens.py --workspace DIR [--n 50] [--pipelines a,b] [--copy]

The LLM is kgrag's test OpenAI-compatible server (:class:`kgrag.testing.FakeOpenAIServer`) on a free
127.0.0.1 port, answering at once: free-text calls with a one-line answer citing the first passage id in
the prompt, structured calls (``llm.json_mode = json_schema``) with a minimal reply valid for the schema
they send, so query-side steps (query expansion, HyDE, keywords, router, listwise rerank, global map)
take their LLM path. The server sends no usage block, so the ledger holds kgrag's own token count of
what was sent (``usage_source = counted``). Per pipeline: the mean prompt tokens per query of the answer
call, of the query-side calls, and in total, with the mean context tokens handed over; read from the
usage ledger as the difference before and after the pipeline's questions. Skips when the dataset is
absent.
"""

from __future__ import annotations

import json
import re
import shutil
from collections import defaultdict
from typing import Any

from bench_query_overhead import medical_setup
from kgrag import Workspace
from kgrag.testing import FakeOpenAIServer

ANSWER_STAGE = "query.generate"
_CITE = re.compile(r"\[([A-Za-z0-9_:-]{6,})\]")


def _minimal(schema: dict[str, Any], defs: dict[str, Any], words: list[str]) -> Any:
    """The smallest plausible value of a JSON schema: enums take their first value, strings and lists
    the question's words, integers 1..5 (listwise ranks)."""
    if "$ref" in schema:
        return _minimal(defs[schema["$ref"].split("/")[-1]], defs, words)
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type") or next((s.get("type") for s in schema.get("anyOf", []) if s.get("type")), "string")
    if kind == "object":
        return {k: _minimal(v, defs, words) for k, v in schema.get("properties", {}).items()}
    if kind == "array":
        item = schema.get("items", {})
        return [1, 2, 3, 4, 5] if item.get("type") == "integer" else [" ".join(words[i : i + 3]) for i in (0, 3, 6)]
    if kind in ("integer", "number"):
        return 1
    if kind == "boolean":
        return True
    return " ".join(words[:40])


def responder(request: dict[str, Any]) -> str:
    """An instant reply: schema-valid JSON for structured calls, a cited one-liner for answers."""
    messages = request.get("messages", [])
    user = next((m.get("content", "") for m in reversed(messages) if m.get("role") == "user"), "")
    words = re.findall(r"[A-Za-z]{4,}", user)[-60:] or ["answer"]
    fmt = request.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        schema = fmt["json_schema"]["schema"]
        return json.dumps(_minimal(schema, schema.get("$defs", {}), words))
    cited = _CITE.search(user)
    return f"Based on the context, {' '.join(words[:12])}." + (f" [{cited.group(1)}]" if cited else "")


def _stage_tokens(ws: Workspace) -> dict[str, int]:
    return {stage: totals.prompt_tokens for stage, totals in ws.usage.summary().by_stage.items()}


def run(ws: Workspace, pipeline: str, questions: list[str]) -> dict[str, float]:
    before = _stage_tokens(ws)
    context = 0
    for question in questions:
        response = ws.query(question, pipeline)
        context += sum(ws.components.query_context.count_tokens(i.text) for i in response.result.items)
    after = _stage_tokens(ws)
    spent: dict[str, int] = defaultdict(int)
    for stage, tokens in after.items():
        spent[stage] = tokens - before.get(stage, 0)
    n = len(questions)
    answer = spent.pop(ANSWER_STAGE, 0) / n
    query_side = sum(spent.values()) / n
    return {"answer": answer, "query_side": query_side, "total": answer + query_side, "context": context / n}


def main() -> int:
    setup = medical_setup(__doc__.splitlines()[0], n=50, seed=2)
    if setup is None:
        return 0
    args, path, questions = setup
    print(f"{len(questions)} Medical questions per pipeline; instant OpenAI-compatible test server; counted tokens")
    print("| pipeline | answer prompt | query-side prompts | total prompt | context items (tokens) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    with FakeOpenAIServer(responder, include_usage=False) as server:
        own = {"openai": {"base_url": server.base_url}}
        llm = {"provider": "openai", "providers": own, "model": "bench", "json_mode": "json_schema"}
        with Workspace.open(path, llm=llm) as ws:
            for pipeline in args.pipelines.split(","):
                row = run(ws, pipeline, questions)
                print(
                    f"| {pipeline} | {row['answer']:,.0f} | {row['query_side']:,.0f} | {row['total']:,.0f} "
                    f"| {row['context']:,.0f} |",
                    flush=True,
                )
    if args.copy:
        shutil.rmtree(path.parent, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
