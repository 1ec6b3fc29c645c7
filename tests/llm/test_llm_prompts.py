"""Prompt files: shipped prompts load, overrides win, export never clobbers, bad files are clear."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgrag.core.errors import ConfigError
from kgrag.prompts import export_prompts, list_prompts, load_prompt


def test_shipped_prompts_are_complete() -> None:
    names = {p.name for p in list_prompts()}
    assert {"answer", "structured_output"} <= names
    for prompt in list_prompts():
        assert prompt.version and prompt.description and prompt.user
    answer = load_prompt("answer")
    assert answer.variables == {"context", "question", "idk_sentence"}
    assert answer.json_schema() is None


def test_render_fills_placeholders_and_keeps_braces() -> None:
    messages = load_prompt("structured_output").render({"schema": '{"type": "object"}', "error": "bad"})
    assert messages[0]["role"] == "system" and '{"type": "object"}' in messages[0]["content"]
    assert messages[1]["content"].startswith("That reply could not be used: bad")


def test_missing_variable_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"\$context.*question"):
        load_prompt("answer").render({"question": "q", "idk_sentence": "x"})


def test_override_directory_wins_and_export_keeps_edits(tmp_path: Path) -> None:
    written = export_prompts(tmp_path)
    assert {p.name for p in written} >= {"answer.toml", "structured_output.toml"}
    edited = tmp_path / "answer.toml"
    edited.write_text(edited.read_text().replace('version = "1"', 'version = "1-mine"'))
    assert load_prompt("answer", tmp_path).version == "1-mine"
    assert load_prompt("answer").version == "1"
    assert export_prompts(tmp_path) == []
    assert load_prompt("answer", tmp_path).version == "1-mine"
    assert len(export_prompts(tmp_path, overwrite=True)) == len(written)


def test_extra_prompt_in_override_dir_is_listed(prompts_dir: Path) -> None:
    assert "square" in {p.name for p in list_prompts(prompts_dir)}


def test_output_schema_as_model_name_or_table(tmp_path: Path) -> None:
    base = 'version = "1"\ndescription = "d"\nsystem = ""\nuser = "$x"\n'
    (tmp_path / "m.toml").write_text('name = "m"\noutput_schema = "kgrag.config.ChunkingConfig"\n' + base)
    (tmp_path / "t.toml").write_text('name = "t"\n' + base + '[output_schema]\ntype = "object"\n')
    model_prompt = load_prompt("m", tmp_path)
    assert model_prompt.schema_model() is not None
    assert "size_tokens" in (model_prompt.json_schema() or {}).get("properties", {})
    assert load_prompt("t", tmp_path).json_schema() == {"type": "object"}
    assert load_prompt("t", tmp_path).render({"x": "hi"}) == [{"role": "user", "content": "hi"}]


@pytest.mark.parametrize(
    "schema",
    ["extraction_reply", "kgrag.graph.extract_parse.ExtractionReply", "kgrag.graph.extract.parse.ExtractionReply"],
)
def test_schema_by_short_name_or_legacy_dotted_path(tmp_path: Path, schema: str) -> None:
    """Prompt files exported before schemas had short names keep working after the module moved."""
    from kgrag.graph.extract.parse import ExtractionReply

    base = 'version = "1"\ndescription = "d"\nsystem = ""\nuser = "$x"\n'
    (tmp_path / "e.toml").write_text(f'name = "e"\noutput_schema = "{schema}"\n' + base)
    assert load_prompt("e", tmp_path).schema_model() is ExtractionReply


def test_shipped_prompts_use_short_schema_names() -> None:
    from kgrag.core.builtins import KINDS

    schemas = {p.output_schema for p in list_prompts()}
    assert schemas <= {"text", *KINDS["prompt_schema"].builtins} and "extraction_reply" in schemas
    for prompt in list_prompts():  # every named schema resolves to a pydantic model
        assert prompt.output_schema == "text" or prompt.schema_model() is not None
    assert all(isinstance(s, str) and "." not in s for s in schemas)


def test_unknown_schema_names_the_registered_ones(tmp_path: Path) -> None:
    base = 'version = "1"\ndescription = "d"\nsystem = ""\nuser = "$x"\n'
    (tmp_path / "u.toml").write_text('name = "u"\noutput_schema = "no_such_schema"\n' + base)
    with pytest.raises(ConfigError, match="extraction_reply"):
        load_prompt("u", tmp_path).schema_model()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("name = [", "not valid TOML"),
        ('name = "broken"\nversion = "1"', "missing description"),
        ('name = "other"\nversion="1"\ndescription=""\noutput_schema="text"\nsystem=""\nuser=""', "name is"),
        ('name = "broken"\nversion="1"\ndescription=""\noutput_schema="text"\nsystem="$ 1"\nuser=""', "placeholder"),
    ],
)
def test_bad_prompt_files_are_config_errors(tmp_path: Path, content: str, message: str) -> None:
    (tmp_path / "broken.toml").write_text(content)
    with pytest.raises(ConfigError, match=message):
        load_prompt("broken", tmp_path)


def test_unknown_prompt_names_the_shipped_ones() -> None:
    with pytest.raises(ConfigError, match="answer"):
        load_prompt("nope")
    with pytest.raises(ConfigError, match="lower-case"):
        load_prompt("../etc/passwd")
