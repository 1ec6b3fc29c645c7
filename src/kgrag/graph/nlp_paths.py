"""Relation labels from dependency paths: "Maria leads the Platform team" → ``lead``,
"the team reports to the CTO" → ``report_to``, "Platform is led by Maria" → ``lead_by``.

The path between two entity heads runs up the parse tree to their lowest common ancestor and down
again. A path through a verb states something about the pair; the verb nearest the second entity on
the way down is the one governing it (in "reports to the CTO and runs Shale", ``run`` links the team
to Shale, not ``report``). A particle of that verb ("set up") or the preposition on the path that hangs
off the verb ("report *to*") completes the label. Paths without a verb, or longer than a few edges, say
too little and give no label: the pair then only counts as co-occurring.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

MAX_PATH_EDGES = 5
_PREPOSITION_DEPS = frozenset({"prep", "agent", "dative"})


def _chain(token: Token) -> list[Token]:
    """The token and its ancestors up to the sentence root."""
    chain = [token]
    while chain[-1].head.i != chain[-1].i and len(chain) < 64:
        chain.append(chain[-1].head)
    return chain


def dependency_path(first: Token, second: Token) -> tuple[list[Token], list[Token]] | None:
    """(up, down): ``first`` … lowest common ancestor, and the ancestor's side down to ``second``
    (ancestor excluded, ``second`` last); ``None`` when they share no ancestor."""
    up_chain = _chain(first)
    down_chain = _chain(second)
    down_index = {t.i: n for n, t in enumerate(down_chain)}
    for n, token in enumerate(up_chain):
        if token.i in down_index:
            return up_chain[: n + 1], list(reversed(down_chain[: down_index[token.i]]))
    return None


def _pick_verb(up: list[Token], down: list[Token]) -> Token | None:
    """The verb nearest ``second`` on the way down, else the highest verb on the way up."""
    inner_up, inner_down = (up[1:], down[:-1]) if down else (up[1:-1], [])
    verbs_down = [t for t in inner_down if t.pos_ == "VERB"]
    if verbs_down:
        return verbs_down[-1]
    verbs_up = [t for t in inner_up if t.pos_ == "VERB"]
    return verbs_up[-1] if verbs_up else None


def path_label(doc: Doc, first: int, second: int) -> str | None:
    """Label of the dependency path between tokens ``first`` and ``second`` (see module doc)."""
    path = dependency_path(doc[first], doc[second])
    if path is None:
        return None
    up, down = path
    if len(up) - 1 + len(down) > MAX_PATH_EDGES:
        return None
    verb = _pick_verb(up, down)
    if verb is None:
        return None
    parts = [verb.lemma_.lower()]
    parts.extend(child.lower_ for child in verb.children if child.dep_ == "prt")
    on_path = {t.i for t in up} | {t.i for t in down}
    parts.extend(child.lower_ for child in verb.children
                 if child.dep_ in _PREPOSITION_DEPS and child.i in on_path)
    label = "_".join(p for p in parts if p.isalpha())
    return label or None
