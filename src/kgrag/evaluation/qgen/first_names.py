"""Whether a lone capitalised word is a person's first name, so that a question about "Marcelo" asks "who"
rather than "what".

Posts, announcements and interviews name people by their first name once they have been introduced
("Tyler's Getting Started guide", "StackBlitz hired Ari"), and spaCy's small English model labels such a
word a person, an organisation or nothing at all. Asked "what", the question reads wrong. A list of first
names decides instead: the first names of every locale of the ``faker`` package that are written in Latin
letters (accents folded; romanized Japanese and Chinese names too). A product can share a first name ("Hugo",
"Hera", "Ruby"), so the name must also be one the corpus never writes in lower case ("hugo server", "pip
install hera") and does not label a place in most of its mentions
(:func:`kgrag.evaluation.qgen.answers.trusted_label`).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from typing import Protocol

from kgrag.documents.words import folded

_NAME_FIELDS = ("first_names", "first_romanized_names")
"""Prefixes of the provider fields that list first names (by gender, region or religion too:
``first_names_female``, ``first_names_male_hinduism``; romanized Japanese and Chinese names)."""


class FirstNames(Protocol):
    """A list of first names: whether a word is one."""

    def holds(self, word: str) -> bool: ...


class NameList:
    """First names looked up without case or accents."""

    def __init__(self, names: Iterable[str]) -> None:
        self._names = frozenset(folded(name) for name in names)

    def holds(self, word: str) -> bool:
        return folded(word) in self._names


def _latin(name: str) -> bool:
    plain = folded(name)
    return plain.isascii() and plain.replace("-", "").replace("'", "").isalpha()


def faker_first_names() -> NameList | None:
    """The first names of every ``faker`` locale written in Latin letters, or ``None`` where ``faker`` is not
    installed (lone first names are then asked "what", as before)."""
    try:
        person = importlib.import_module("faker.providers.person")
    except ImportError:
        return None
    names: set[str] = set()
    for module in pkgutil.iter_modules(person.__path__):
        provider = getattr(importlib.import_module(f"{person.__name__}.{module.name}"), "Provider", None)
        fields = vars(provider) if provider is not None else {}
        for field, listed in fields.items():
            if field.startswith(_NAME_FIELDS) and isinstance(listed, dict | tuple | list | frozenset | set):
                names.update(name for name in listed if isinstance(name, str) and _latin(name))
    return NameList(names)
