"""Relation labels from dependency paths: "Maria leads the Platform team" → ``lead``,
"the team reports to the CTO" → ``report_to``, "Platform is led by Maria" → ``lead_by``.

The path between two entity heads runs up the parse tree to their lowest common ancestor and down
again. When the first entity is the subject of that ancestor, and the ancestor is a verb or the way
down passes one, the sentence states something about the pair; the verb nearest the second entity
governs it (in "reports to the CTO and runs Shale", ``run`` links the team to Shale, not ``report``).
A particle of that verb ("set up") or the preposition hanging off it on the way down ("report *to*")
completes the label. Paths without such a verb, or longer than a few edges, say too little and give no
label: the pair then only co-occurs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spacy.tokens import Doc

MAX_PATH_EDGES = 4
_PREPOSITION_DEPS = frozenset({"prep", "agent", "dative"})
_SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass", "csubj", "csubjpass"})


@dataclass(frozen=True)
class ParseView:
    """The parse of one doc as plain lists: spaCy token attribute access is slow when repeated for
    every entity pair, so it is read once per token."""

    heads: list[int]
    pos: list[str]
    deps: list[str]
    lemmas: list[str]
    lowers: list[str]

    @classmethod
    def of(cls, doc: Doc) -> ParseView:
        tokens = list(doc)
        return cls(
            [t.head.i for t in tokens],
            [t.pos_ for t in tokens],
            [t.dep_ for t in tokens],
            [t.lemma_ for t in tokens],
            [t.lower_ for t in tokens],
        )

    def chain(self, token: int) -> list[int]:
        """The token and its ancestors up to the sentence root."""
        chain = [token]
        while self.heads[chain[-1]] != chain[-1] and len(chain) < 64:
            chain.append(self.heads[chain[-1]])
        return chain


def dependency_path(view: ParseView, first: int, second: int) -> tuple[list[int], list[int]] | None:
    """(up, down): ``first`` … lowest common ancestor, and the ancestor's side down to ``second``
    (ancestor excluded, ``second`` last); ``None`` when they share no ancestor."""
    up_chain = view.chain(first)
    down_chain = view.chain(second)
    down_index = {t: n for n, t in enumerate(down_chain)}
    for n, token in enumerate(up_chain):
        if token in down_index:
            return up_chain[: n + 1], list(reversed(down_chain[: down_index[token]]))
    return None


def _pick_verb(view: ParseView, up: list[int], down: list[int]) -> int | None:
    """The verb nearest ``second`` on the way down (a conjoined verb governs its own object), else the
    common ancestor itself when it is a verb. ``first`` must be the subject of that clause: in "Maria
    leads the team at Brightwater" the team and Brightwater are both objects and get no verb label."""
    if not down or len(up) < 2:
        return None  # one entity is an ancestor of the other: a noun-phrase link, not a statement
    if view.deps[up[-2]] not in _SUBJECT_DEPS:
        return None
    verbs_down = [t for t in down[:-1] if view.pos[t] == "VERB"]
    if verbs_down:
        return verbs_down[-1]
    return up[-1] if view.pos[up[-1]] == "VERB" else None


def path_label(view: ParseView, first: int, second: int) -> str | None:
    """Label of the dependency path between tokens ``first`` and ``second`` (see module doc)."""
    path = dependency_path(view, first, second)
    if path is None:
        return None
    up, down = path
    if len(up) - 1 + len(down) > MAX_PATH_EDGES:
        return None
    verb = _pick_verb(view, up, down)
    if verb is None:
        return None
    parts = [view.lemmas[verb].lower()]
    parts.extend(
        view.lowers[t] for t, head in enumerate(view.heads) if head == verb and t != verb and view.deps[t] == "prt"
    )
    parts.extend([view.lowers[t] for t in down if view.heads[t] == verb and view.deps[t] in _PREPOSITION_DEPS][:1])
    label = "_".join(p for p in parts if p.isalpha())
    return label or None
