"""The parts of prompt tuning on their own: language guess, stratified sample, kgrag.toml edit, TOML strings."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from kgrag.config import load_config
from kgrag.core.errors import ConfigError
from kgrag.graph.tune.config_edit import set_section_values
from kgrag.graph.tune.language import detect_language
from kgrag.graph.tune.propose import clean_types, short_text
from kgrag.graph.tune.sample import SourceText, stratified_sample
from kgrag.prompts.overrides import next_version, toml_string


def _words(text: str) -> int:
    return len(text.split())


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("The on-call engineer pages the team lead when the alert has been open for more than an hour.", "English"),
        ("Die Bereitschaft ruft den Teamleiter an, wenn der Alarm seit mehr als einer Stunde offen ist und sich "
         "niemand gemeldet hat.", "German"),
        ("L'ingénieur d'astreinte appelle le chef de l'équipe quand l'alerte est ouverte depuis plus d'une heure "
         "et que personne ne répond.", "French"),
        ("El ingeniero de guardia llama al jefe del equipo cuando la alerta lleva más de una hora abierta y "
         "nadie responde.", "Spanish"),
        ("def main():\n    x = load(path)\n    return x[0] + y", None),
        ("def main(path, y):\n    rows = load_rows(path)\n    total = sum(row.value for row in rows if row.y)\n"
         "    print(total, y)\n    return total", None),
    ],
)  # fmt: skip
def test_language_from_function_words(text: str, language: str | None) -> None:
    assert detect_language([text]).language == language


def test_sample_is_seeded_stratified_and_within_budget() -> None:
    big = SourceText("big.md", "\n\n".join(f"Paragraph {i} of the big manual about pumps." for i in range(400)))
    small = [SourceText(f"note-{i}.md", f"Short note {i} about valve {i}.") for i in range(5)]
    sample = stratified_sample([big, *small], 60, _words, seed=3, passage_tokens=10)
    assert sum(p.tokens for p in sample) <= 60 + 10
    assert {p.source for p in sample} == {"big.md", *(s.name for s in small)}  # every document, not mostly big
    assert sample == stratified_sample([*small, big], 60, _words, seed=3, passage_tokens=10)
    assert sample != stratified_sample([big, *small], 60, _words, seed=4, passage_tokens=10)


def test_config_edit_replaces_a_multi_line_array_and_keeps_the_rest(tmp_path: Path) -> None:
    toml = tmp_path / "kgrag.toml"
    toml.write_text(
        '# my workspace\n[graph]\n# the types\nentity_types = [\n  "person",  # people\n  "org",\n]\n'
        'extractor = "llm"\n\n[llm]\nprovider = "none"\n',
        encoding="utf-8",
    )
    set_section_values(toml, "graph", {"entity_types": ["pump", "valve", "concept"], "language": "German"}, "tuned")
    text = toml.read_text(encoding="utf-8")
    assert text.startswith("# my workspace\n[graph]\n") and "# the types" in text
    parsed = tomllib.loads(text)
    assert parsed["graph"] == {"entity_types": ["pump", "valve", "concept"], "language": "German", "extractor": "llm"}
    assert parsed["llm"] == {"provider": "none"}
    config = load_config(tmp_path)
    assert config.graph.entity_types == ["pump", "valve", "concept"] and config.graph.language == "German"


def test_config_edit_adds_a_missing_section_and_refuses_what_it_cannot_set(tmp_path: Path) -> None:
    toml = tmp_path / "kgrag.toml"
    toml.write_text('[llm]\nprovider = "none"\n', encoding="utf-8")
    set_section_values(toml, "graph", {"language": "French"}, "tuned")
    assert tomllib.loads(toml.read_text(encoding="utf-8"))["graph"]["language"] == "French"
    toml.write_text('graph.language = "Dutch"\n', encoding="utf-8")  # a dotted key the line edit cannot see
    before = toml.read_text(encoding="utf-8")
    with pytest.raises(ConfigError, match=r"kgrag\.toml"):
        set_section_values(toml, "graph", {"language": "French"}, "tuned")
    assert toml.read_text(encoding="utf-8") == before  # nothing half-written


@pytest.mark.parametrize(
    "text",
    ["plain", "two\nlines", "quotes \" and ''' and $money", "ends with a quote'", "tab\tand del\x7f", 'a "b"\nc\''],
)
def test_toml_strings_read_back_as_written(text: str) -> None:
    assert tomllib.loads(f"value = {toml_string(text)}")["value"] == text


def test_versions_bump_per_base(tmp_path: Path) -> None:
    target = tmp_path / "extract_graph.toml"
    assert next_version("3", target) == "3+tuned.1"
    shipped = (Path(__file__).resolve().parents[2] / "src" / "kgrag" / "prompts" / "extract_graph.toml").read_text()
    target.write_text(shipped.replace('version = "3"', 'version = "3+tuned.4"'), encoding="utf-8")
    assert next_version("3", target) == "3+tuned.5"
    assert next_version("4", target) == "4+tuned.1"  # kgrag shipped a new base prompt: counting restarts


def test_model_types_are_cleaned_and_model_text_is_cut() -> None:
    assert clean_types(["Person", "person", "ORG_UNIT", "<b>x</b>", "1st", "", "concept", "a b c d"], 5) == [
        "person",
        "org unit",
        "concept",
    ]
    assert len(clean_types([f"type{chr(97 + i)}" for i in range(20)], 6)) == 6
    assert short_text("One two three. Four five six. Seven.", words=4) == "One two three."


def test_quoting_the_input_is_not_copying_an_example_drawn_from_the_same_corpus() -> None:
    from kgrag.models.llm.structured import copied_from_example

    example = '{"entities": [{"name": "Apps", "description": "The Apps team in Lisbon is led by Lucas Moreau."}]}'
    reply = {"entities": [{"name": "Apps", "description": "The Apps team in Lisbon is led by Lucas Moreau."}]}
    unit = "Text:\nHeron is owned by the Apps team. The Apps team in Lisbon is led by Lucas Moreau."
    assert copied_from_example(reply, example, unit) is None  # the unit says it: a quote
    assert copied_from_example(reply, example, "Text:\nKestrel ships firmware to pumps in Bergen.") is not None
    assert copied_from_example(reply, example) is not None
