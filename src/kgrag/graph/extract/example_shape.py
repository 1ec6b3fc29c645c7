"""Descriptions that copy the worked example's shape with the text's own names.

A small model shown "Port Quassel: The port where Velloran Tide is based." writes "Rodman: The port where
Naval Observatory is located." about a text that names Rodman and the Naval Observatory in one sentence
(a wife visiting her people in Rodman while her husband joins the observatory in Washington). The names
are the text's, so the absent-names rule passes it, and half its content words are names the sentence
holds, so the content-word check passes it too; the claim ("port", "located") is the example's.

The **shape** of a description is its lower-case word sequence with every name masked: the names the
caller gives (the item's own, the example's), then any run of capitalised words after the first word (a
description's first word is capitalised whatever it is): "the port where <name> is based". A
description is **shaped like the example** when its shape is at least :data:`MIN_SHAPE_SIMILARITY`
similar (difflib's ratio over words) to the shape of one of the example's descriptions of at least
:data:`MIN_SHAPE_WORDS` words. The examples are read from the prompt
files (the extraction and gleaning prompts' worked replies), never written here, so a tuned or
overridden prompt brings its own. What such a description must then show is in
:mod:`~kgrag.graph.extract.support`.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

MIN_SHAPE_SIMILARITY = 0.65  # "the city where <name> is located" against "the port where <name> is based": 0.67
MIN_SHAPE_WORDS = 4  # shorter example descriptions ("Based in <name>") are everyone's wording
NAME = "<name>"
_TOKEN = re.compile(r"[^\W_][\w'’-]*|[,;:()\[\].!?]")
_TITLE = re.compile(r"^[A-Z][a-z]{0,2}$")  # "Mr", "Dr", "J": the period after it does not end the name


@dataclass(frozen=True)
class Shape:
    """A description's masked words, and the names masked in it (as written)."""

    words: tuple[str, ...]
    names: tuple[str, ...]


def shape(description: str, names: Iterable[str] = ()) -> Shape:
    """``description``'s shape (see the module docstring) and the names it masked."""
    text, found = description, []
    for name in sorted({n for n in names if n.strip()}, key=len, reverse=True):
        pattern = re.compile(r"(?<!\w)" + re.escape(name) + r"(?!\w)", re.IGNORECASE)
        if pattern.search(text):
            found.append(name)
            text = pattern.sub("\0", text)
    words: list[str] = []
    run: list[str] = []  # the capitalised words of the name being read; "" for a masked given name
    for number, piece in enumerate(text.split("\0")):
        if number:
            run.append("")
        for token in _TOKEN.findall(piece):
            if not token[0].isalnum():  # punctuation ends a name, but not the period of "Mr." or "J."
                if not (token == "." and run and _TITLE.match(run[-1])):
                    _close(run, words, found)
                continue
            if token[0].isupper() and (words or run):  # a capitalised first word is how a sentence starts
                run.append(token)
                continue
            _close(run, words, found)
            words.append(token.casefold())
    _close(run, words, found)
    return Shape(tuple(words), tuple(found))


def _close(run: list[str], words: list[str], found: list[str]) -> None:
    if run:
        written = " ".join(t for t in run if t)
        if written and written not in found:
            found.append(written)
        words.append(NAME)
        run.clear()


def similarity(a: Sequence[str], b: Sequence[str]) -> float:
    return SequenceMatcher(None, a, b, autojunk=False).ratio()


@functools.lru_cache(maxsize=8)
def example_shapes(example_replies: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """The shapes of the descriptions in ``example_replies`` (worked replies of the extraction prompts, JSON
    text; one that does not parse gives none), each at least :data:`MIN_SHAPE_WORDS` words long."""
    shapes: list[tuple[str, ...]] = []
    for reply in example_replies:
        try:
            value = json.loads(reply) if reply.strip() else {}
        except json.JSONDecodeError:
            continue
        entities = [e for e in value.get("entities", []) if isinstance(e, dict)] if isinstance(value, dict) else []
        relations = [r for r in value.get("relations", []) if isinstance(r, dict)] if isinstance(value, dict) else []
        names = [str(e.get("name", "")) for e in entities]
        names += [str(r.get(end, "")) for r in relations for end in ("source", "target")]
        for item in (*entities, *relations):
            words = shape(str(item.get("description", "")), names).words
            if len(words) >= MIN_SHAPE_WORDS and words not in shapes:
                shapes.append(words)
    return tuple(shapes)


def shaped_like(description: Shape, shapes: Sequence[tuple[str, ...]]) -> bool:
    """Whether ``description`` is shaped like one of ``shapes`` (:data:`MIN_SHAPE_SIMILARITY`)."""
    return any(similarity(description.words, s) >= MIN_SHAPE_SIMILARITY for s in shapes)
