"""Worked examples in the shipped prompts: every prompt with a structured output schema carries one, its
reply is a valid answer (it parses, validates against the prompt's schema and passes through the real
structured client), it is shown at the end of the system message (a request stays one system and one
user turn, which re-asks, replays and estimates rely on), it fills only
placeholders the user template has, and none of its names or sentences occur in the demo corpus, so an
example copied by a model can never pass for an answer about that corpus."""

from __future__ import annotations

import json
import re
import string
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from kgrag.config import LLMConfig
from kgrag.models.llm import ScriptedProvider, ScriptRule, create_llm_client
from kgrag.models.llm.structured import copied_from_example
from kgrag.prompts import list_prompts
from kgrag.prompts.loader import TEXT_OUTPUT, Prompt

SAMPLE_CORPUS = Path(__file__).resolve().parents[2] / "examples" / "sample"

# Structured prompts whose worked examples have not landed yet. This set MUST be empty before a release:
# a small model shown only the schema tends to echo the schema back instead of answering.
PENDING_EXAMPLES: frozenset[str] = frozenset()

STRUCTURED = [p for p in list_prompts() if p.output_schema != TEXT_OUTPUT]
WITH_EXAMPLE = [p for p in STRUCTURED if p.has_example]
_WORD = re.compile(r"[^\W\d_]\w*")


def _name(prompt: Prompt) -> str:
    return prompt.name


def _real_variables(prompt: Prompt) -> dict[str, str]:
    """Recognisable stand-ins for the values a real call passes."""
    return {key: f"<real {key}>" for key in prompt.variables}


@cache
def _corpus() -> str:
    files = sorted(p for p in SAMPLE_CORPUS.rglob("*") if p.is_file())
    assert files, f"{SAMPLE_CORPUS} holds no files"
    return "\n".join(p.read_text(encoding="utf-8") for p in files)


@cache
def _corpus_names() -> frozenset[str]:
    """Lower-cased words the corpus writes capitalised at least five times as often as in lower case:
    its people, places, products and tools (a stray lower-case use in a path or address does not hide
    a name), not ordinary words that merely start sentences."""
    words = _WORD.findall(_corpus())
    lower = Counter(w for w in words if w == w.lower())
    capital = Counter(w.lower() for w in words if w[0].isupper())
    return frozenset(w for w, n in capital.items() if n >= 5 * lower[w])


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _collisions(example_text: str, reply: Any) -> list[str]:
    """Corpus names the example uses, and reply strings (three words or more) the corpus contains."""
    names = _corpus_names()
    found = sorted({w for w in _WORD.findall(example_text) if w[0].isupper() and w.lower() in names})
    corpus = " ".join(_corpus().lower().split())
    found += [s for s in _strings(reply) if len(s.split()) >= 3 and " ".join(s.lower().split()) in corpus]
    return found


def test_pending_examples_names_real_prompts_that_still_lack_one() -> None:
    structured = {p.name: p for p in STRUCTURED}
    unknown = PENDING_EXAMPLES - set(structured)
    assert not unknown, f"PENDING_EXAMPLES names no shipped structured prompt: {sorted(unknown)}"
    landed = sorted(n for n in PENDING_EXAMPLES if structured[n].has_example)
    assert not landed, f"remove {landed} from PENDING_EXAMPLES: they have an [example] now"


@pytest.mark.parametrize("prompt", STRUCTURED, ids=_name)
def test_structured_prompt_has_an_example(prompt: Prompt) -> None:
    if prompt.name in PENDING_EXAMPLES:
        pytest.skip(f"{prompt.name}: example pending (PENDING_EXAMPLES must be empty before release)")
    assert prompt.has_example, f"{prompt.source}: structured prompt without an [example] table"


@pytest.mark.parametrize("prompt", WITH_EXAMPLE, ids=_name)
def test_example_reply_validates_against_the_schema(prompt: Prompt) -> None:
    model = prompt.schema_model()
    assert model is not None, f"{prompt.name}: shipped prompts name a registered pydantic schema"
    model.model_validate(json.loads(prompt.example_reply))


@pytest.mark.parametrize("prompt", WITH_EXAMPLE, ids=_name)
def test_example_follows_the_instructions_and_precedes_the_real_request(prompt: Prompt) -> None:
    real = _real_variables(prompt)
    messages = prompt.render(real)
    assert [m["role"] for m in messages] == ["system", "user"]
    system, request = (m["content"] for m in messages)
    instructions = prompt.render_part("system", real)
    shown = prompt.render_part("user", {**real, **prompt.example_variables})
    assert system.startswith(instructions) and system.endswith(prompt.example_reply)
    assert shown in system[len(instructions) :]
    assert request == prompt.render_part("user", real) and shown != request
    for key in prompt.example_variables:
        assert real[key] not in shown and real[key] in request


@pytest.mark.parametrize("prompt", WITH_EXAMPLE, ids=_name)
def test_example_fills_only_placeholders_of_the_user_template(prompt: Prompt) -> None:
    placeholders = set(string.Template(prompt.user).get_identifiers())
    assert prompt.example_variables, f"{prompt.name}: the example shows none of its own input"
    extra = set(prompt.example_variables) - placeholders
    assert not extra, f"{prompt.name}: [example] variables {sorted(extra)} are not placeholders of its user template"


@pytest.mark.parametrize("prompt", WITH_EXAMPLE, ids=_name)
def test_example_shares_no_name_or_sentence_with_the_sample_corpus(prompt: Prompt) -> None:
    assert _collisions(prompt.example_block(), json.loads(prompt.example_reply)) == []


def test_collision_check_catches_corpus_names_and_copied_sentences() -> None:
    sentence = next(line.strip() for line in _corpus().splitlines() if len(line.split()) >= 8)
    reply = {"reasoning": "r", "questions": [{"question": "What is it?", "answer": sentence}]}
    found = _collisions("Entity: Kestrel (PRODUCT). Owned by a team in Bergen.", reply)
    assert {"Kestrel", "Bergen", sentence} <= set(found)
    assert _collisions("Entity: Velloran Tide (PLACE). The mill on the river.", {"reasoning": "fine"}) == []


@pytest.mark.parametrize("prompt", [p for p in WITH_EXAMPLE if p.schema_model() is not None], ids=_name)
def test_structured_client_sends_the_example_and_never_keeps_a_copy_of_it(prompt: Prompt) -> None:
    """Through the real client: the example and the format line join the system message and the request is
    the user turn. A model that answers with the example itself (small models do) is re-asked and, copying
    again, fails: a copied sentence is never kept as an answer about the input."""
    provider = ScriptedProvider([ScriptRule(".", prompt.example_reply)])
    client = create_llm_client(LLMConfig(provider="scripted", model="m"), provider=provider)
    result = client.structured(prompt.name, _real_variables(prompt), stage="test")
    sent = provider.requests[0].messages
    assert [m["role"] for m in sent] == ["system", "user"]
    assert prompt.example_reply in sent[0]["content"] and "<real" in sent[1]["content"]
    assert '"type"' not in sent[0]["content"].split(prompt.example_reply)[-1]  # no schema dump after it
    model = prompt.schema_model()
    assert model is not None
    if copied_from_example(model.model_validate_json(prompt.example_reply), prompt.example_reply) is None:
        assert result.ok and not result.repaired and not result.reasked and len(provider.requests) == 1
    else:
        assert not result.ok and "copies the example reply" in (result.error or "")
        assert len(provider.requests) == 2  # one re-ask, then given up


def test_a_reply_that_adds_the_examples_items_to_its_own_keeps_its_own() -> None:
    """A 0.5B model answered about a code-review guide with one entity of its own plus the example's
    entities and relations: the copies are dropped and the rest kept, with no re-ask (rejecting the whole
    reply cost a re-ask that came back as the example verbatim)."""
    from kgrag.prompts import load_prompt

    prompt = load_prompt("extract_graph")
    example = json.loads(prompt.example_reply)
    own = {"name": "Emergency CL", "type": "concept", "description": "A small change that fixes an emergency."}
    mixed = {"entities": [own, *example["entities"]], "relations": example["relations"]}
    provider = ScriptedProvider([ScriptRule(".", json.dumps(mixed))])
    client = create_llm_client(LLMConfig(provider="scripted", model="m"), provider=provider)
    result = client.structured(prompt.name, _real_variables(prompt), stage="test")
    assert result.ok and not result.reasked and len(provider.requests) == 1
    assert result.value is not None
    assert [e["name"] for e in result.value.entities] == ["Emergency CL"] and result.value.relations == []


def test_a_prompt_exported_before_examples_still_loads_and_gets_the_schema(tmp_path: Path) -> None:
    """A user's edited copy from before worked examples existed (no [example] table) keeps working: the
    structured call then shows the JSON schema, as it did."""
    from kgrag.prompts import load_prompt

    shipped = load_prompt("query_expansion")
    old = "\n".join(
        [
            'name = "query_expansion"',
            'version = "1-mine"',
            'description = "my copy"',
            'output_schema = "query_rewrites"',
            f"system = {json.dumps(shipped.system)}",
            f"user = {json.dumps(shipped.user)}",
        ]
    )
    (tmp_path / "query_expansion.toml").write_text(old + "\n", encoding="utf-8")
    prompt = load_prompt("query_expansion", tmp_path)
    assert not prompt.has_example and prompt.version == "1-mine"
    provider = ScriptedProvider([ScriptRule(".", '{"rewrites": ["a b", "c d", "e f"]}')])
    config = LLMConfig(provider="scripted", model="m", prompts_dir=tmp_path)
    client = create_llm_client(config, provider=provider)
    result = client.structured("query_expansion", {"question": "q?"}, stage="test")
    assert result.ok and '"rewrites"' in provider.requests[0].messages[0]["content"]  # the schema is shown
