"""A second held-out reply distribution for ``bench_estimate_servers.py``: a small local instruction model.

Written without reading the estimate's code or its results, from kgrag's prompts, reply schemas and the
scripted fake server only. It answers the way a 1–3B instruction model served by llama.cpp does: terse,
uneven and sometimes repetitive, with rules unlike those of the other scripted servers:

* extraction takes the first few capitalised names of the unit in reading order (a sentence-initial word
  is taken with the lower-case words that follow it up to a function word, so ``Basal cell skin cancer``
  and ``Treatment`` both count), two to six of them whatever the unit's length, plus one to three long
  lower-case nouns from its first sentences; types are guessed from the name's shape and are often generic
  or wrong (a two-word name is a person, an acronym an organization, now and then a type the list does not
  have); each description copies the clause of the first sentence that names it, or says ``X is a type``;
  an entity is now and then listed twice;
* relations are few (none to four a unit, two on average), between names that follow each other in a
  sentence, with a handful of stock labels; one unit in six has a relation to a name that is not in the
  unit (a name of the prompt's worked example when one is shown, else a made-up short form); keywords are
  often left out and the strength is nearly always 8;
* about 8% of first extraction replies are invalid: the JSON stops before its closing brackets, or a
  sentence of prose comes before it; a few of those instead repeat their last relation until ``max_tokens``;
  a re-ask is answered with a shorter valid reply (one in seven fails again);
* gleaning returns empty lists for about a third of units, repeats one to three names it was told were
  found (with fresh descriptions) for about two in five, and gives one or two new names otherwise;
* summaries are one or two formulaic sentences built from the first notes (``X is ...``), far under the
  word limit, now and then with a sentence said twice; community reports have a stock title, a two-sentence
  summary naming the first items and one to three findings whatever is asked, refs sometimes not labels
  (one first report in twenty-five has a sentence before its JSON);
* merge confirmations say yes to names that share a word and to a third of the rest, keep entity 1,
  and give a short reason as the description (``merge`` written as ``"yes"``/``"no"`` now and then); about
  15% are answered in prose without the JSON (the re-ask is answered in JSON five times in six);
* reflection scores every relation 0.7–1.0 with a stock reason, but one reply in eight scores on a 1–10
  scale, in one in seven a tenth of the items get 1.5 or -1 (out of the schema's range), and one in ten
  stops after half the items;
* a reply longer than the request's ``max_tokens`` (cl100k tokens) is cut there, as llama.cpp stops
  generating. The responder returns text only: ``FakeOpenAIServer`` reports ``finish_reason`` ``stop`` for
  it unless the server is made with ``behaviour="llama-cpp-python"`` and a ``context_window``, where it
  reports ``length`` itself for a reply over ``max_tokens`` whitespace words.

Deterministic: every draw is seeded by a hash of the request's messages and temperature, never by arrival
order.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from scripted_requests import ScriptedRequest, cl100k, cut_at_max_tokens, prompt_kind  # a sibling module of this script

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'’-]*")
_STOP = frozenset(
    "a an the this that these those it its they them their there here what how why when where who which whose "
    "if then than so as and or but nor not no yes is are was were be been being am do does did has have had "
    "can could may might must should will would of in on at by for with from to into about after before over "
    "under during while also only very more most less many much some any all each every other such you your "
    "we our he she his her i my me us one two three keep learn read find ask talk see get because although "
    "whereas between since unless though however often usually other others see".split()
)
_NOUN_ENDINGS = ("ed", "ing", "ly", "al", "ous", "ive", "ic", "ful", "able", "ible")
_NOUN_STOP = frozenset(
    "because however usually several different without another although important something sometimes "
    "including between through whether especially further likely people called during within before".split()
)
_LABELS = ("is related to", "has", "causes", "is a type of", "treats", "includes")
_REASONS = ("The relation is correct.", "Both entities are mentioned in the text.", "This is a valid relation.",
            "The relation makes sense.")  # fmt: skip
_EXAMPLE_NAMES = ("Velloran Tide", "Port Quassel", "Ostrimar Yards")


def _rng(*parts: str) -> random.Random:
    digest = hashlib.blake2b("\x1e".join(parts).encode("utf-8"), digest_size=8).digest()
    return random.Random(int.from_bytes(digest, "big"))


def _cut(text: str, words: int) -> str:
    cut = " ".join(text.split()[: max(1, words)]).rstrip(",;:–-— ")
    return cut if cut.endswith((".", "?", "!")) else cut + "."


# ---- what a small model picks out of a unit -------------------------------------------------------


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if len(s.split()) > 2]


def _used_as_noun(word: str, text: str) -> bool:
    """Whether ``text`` also writes ``word`` after an article or a possessive, as a noun."""
    return re.search(rf"\b(?:the|a|an|of|your|their|this|for)\s+{re.escape(word.casefold())}\b", text) is not None


def _names_in(sentence: str, text: str) -> list[str]:
    """Capitalised runs in reading order; a sentence-initial word keeps its following content words, and
    alone is kept only when ``text`` uses it as a noun elsewhere (``Treatment`` is, ``Create`` is not)."""
    words = list(_WORD.finditer(sentence))
    names: list[str] = []
    i = 0
    while i < len(words):
        word = words[i].group(0)
        if not word[0].isupper() or word.casefold() in _STOP:
            i += 1
            continue
        j = i + 1
        initial = i == 0
        while j < len(words) and j - i < 4 and sentence[words[j - 1].end() : words[j].start()] == " ":
            nxt = words[j].group(0)
            if nxt.casefold() in _STOP or not (nxt[0].isupper() or (initial and len(nxt) > 2)):
                break
            if initial and nxt.casefold().endswith(("ly", "ed", "es")) and not nxt[0].isupper():
                break
            j += 1
        if not (initial and j == i + 1 and len(word) > 1 and word[1:].islower()) or _used_as_noun(word, text):
            names.append(sentence[words[i].start() : words[j - 1].end()])
        i = j
    return names


def _nouns_in(sentence: str) -> list[str]:
    return [w for w in re.findall(r"\b[a-z]{7,}\b", sentence) if w not in _NOUN_STOP and not w.endswith(_NOUN_ENDINGS)]


def _picks(sentences: Sequence[str], rng: random.Random) -> list[str]:
    """The first two to six names of the unit and one to three early common nouns, in reading order."""
    text = " ".join(sentences)
    names = list(dict.fromkeys(n for s in sentences for n in _names_in(s, text)))[: rng.randint(2, 6)]
    nouns = [n for s in sentences[:4] for n in _nouns_in(s) if n.casefold() not in {x.casefold() for x in names}]
    return [*names, *list(dict.fromkeys(nouns))[: rng.randint(1, 3)]]


def _type(name: str, types: Sequence[str], rng: random.Random) -> str:
    draw = rng.random()
    if draw < 0.08:
        return rng.choice(("disease", "medical term", "Thing"))  # not in the list
    if draw < 0.45 or name.islower():
        return "concept"
    if name.isupper() and len(name) > 1:
        guess = "organization"
    elif len(name.split()) == 2:
        guess = "person"
    else:
        guess = types[0] if types else "concept"
    return guess if not types or guess in types else types[0]


def _clause(sentences: Sequence[str], name: str) -> str:
    """The clause of the first sentence that names ``name``, as the text says it."""
    sentence = next((s for s in sentences if name.casefold() in s.casefold()), "")
    for clause in re.split(r"[,;:()]| and | which | but ", sentence):
        if name.casefold() in clause.casefold() and len(clause.split()) >= 3:
            return _cut(clause.strip(), 22)
    return _cut(sentence, 16) if sentence else f"{name}."


def _entity(name: str, sentences: Sequence[str], types: Sequence[str], seed: str) -> dict[str, str]:
    rng = _rng(seed, name)
    kind = _type(name, types, rng)
    description = f"{name} is a {kind}." if rng.random() < 0.15 else _clause(sentences, name)
    return {"name": name, "type": kind, "description": description}


def _short_form(name: str, example: bool, rng: random.Random) -> str:
    """A name that is not in the unit: an example's name, or the name cut short and pluralised."""
    if example:
        return rng.choice(_EXAMPLE_NAMES)
    words = name.split()
    return (words[-1] if len(words) > 1 else name) + "s"


def _relations(sentences: Sequence[str], names: Sequence[str], seed: str, example: bool) -> list[dict[str, Any]]:
    rng = _rng(seed, "relations")
    wanted = rng.choice((0, 1, 2, 2, 3, 3, 4))
    out: list[dict[str, Any]] = []
    for sentence in sentences:
        folded = sentence.casefold()
        present = sorted((folded.find(n.casefold()), n) for n in names if n.casefold() in folded)
        for (_, source), (_, target) in itertools.pairwise(present):
            if len(out) < wanted and source.casefold() != target.casefold():
                out.append(_relation(source, target, sentence, rng))
    if out and rng.random() < 1 / 6:
        out.append(_relation(names[0], _short_form(names[-1], example, rng), sentences[0], rng))
    return out


def _relation(source: str, target: str, sentence: str, rng: random.Random) -> dict[str, Any]:
    relation: dict[str, Any] = {"source": source, "target": target, "label": rng.choice(_LABELS),
                                "description": _cut(sentence, 20)}  # fmt: skip
    if rng.random() < 0.4:
        relation["keywords"] = [source.split()[-1].casefold()]
    if rng.random() < 0.9:
        relation["strength"] = 8 if rng.random() < 0.8 else rng.choice((7, 9, 10))
    return relation


def _graph(text: str, types: Sequence[str], seed: str, example: bool, shorter: bool) -> dict[str, Any]:
    sentences = _sentences(text)
    rng = _rng(seed, "picks")
    names = _picks(sentences, rng)
    if shorter:
        names = names[: max(2, len(names) * 2 // 3)]
    entities = [_entity(n, sentences, types, seed) for n in names]
    if entities and rng.random() < 0.25:
        entities.append(dict(entities[-1]))  # listed twice
    relations = _relations(sentences, names, seed, example) if names else []
    return {"entities": entities, "relations": relations}


# ---- replies per kind of request ----------------------------------------------------------------


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def _unclosed(reply: str, rng: random.Random) -> str:
    """The JSON stopped early: somewhere in its last third, without the closing brackets."""
    return reply[: rng.randint(len(reply) * 2 // 3, max(len(reply) * 2 // 3, len(reply) - 3))]


def _looping(graph: dict[str, Any], max_tokens: int) -> str:
    """The last relation (or entity) said again and again: the reply runs on past ``max_tokens``."""
    items = graph["relations"] or graph["entities"] or [{"name": "cancer", "type": "concept"}]
    head = _json(graph)[:-2]
    repeat = ", " + _json(items[-1])
    count = max(1, max_tokens // max(1, cl100k().count(repeat)) + 2)
    return head + repeat * count


def _extract(request: Request) -> str:
    text = request.first.removeprefix("Text:\n")
    graph = _graph(text, request.types, request.first, request.example, shorter=request.again)
    reply = _json(graph)
    rng = request.rng("faults")
    draw = rng.random()
    if request.again:
        return _unclosed(reply, rng) if draw < 1 / 7 else reply
    if draw < 0.045:
        return _unclosed(reply, rng)
    if draw < 0.07:
        return rng.choice(("Here are the entities and relations:\n", "Sure, here is the JSON.\n")) + reply
    if draw < 0.08:
        return _looping(graph, request.max_tokens or 2048)
    return reply


def _glean(request: Request) -> str:
    found_line, _, text = request.first.partition("\n")
    text = text.removeprefix("Text:\n")
    found = [n.strip() for n in found_line.removeprefix("Found:").split(";") if n.strip()]
    rng = request.rng("glean")
    draw = rng.random()
    sentences = _sentences(text)
    if draw < 0.35 or not sentences:
        return _json({"entities": [], "relations": []})
    if draw < 0.75 and found:
        again = found[: rng.randint(1, 3)]
        entities = [_entity(n, sentences, request.types, request.first + "glean") for n in again]
        return _json({"entities": entities, "relations": []})
    known = {n.casefold() for n in found}
    fresh = [n for s in sentences for n in _names_in(s, text) if n.casefold() not in known]
    fresh = list(dict.fromkeys(fresh))[: rng.randint(1, 2)]
    entities = [_entity(n, sentences, request.types, request.first) for n in fresh]
    relations = _relations(sentences, [*fresh, *found[:2]], request.first + "glean", request.example)[:1]
    return _json({"entities": entities, "relations": relations})


def _summary(request: Request) -> str:
    head, _, notes = request.first.partition("\nNotes:\n")
    name = head.split(":", 1)[-1].strip()
    lines = [line.removeprefix("- ").strip() for line in notes.splitlines() if line.strip()]
    limit = int(m.group(1)) if (m := re.search(r"at most (\d+) words", request.system)) else 60
    rng = request.rng("summary")
    first = lines[0] if lines else name
    if not first.casefold().startswith(name.casefold()):
        first = f"{name} is {first[:1].lower()}{first[1:]}"
    sentences = [_cut(first, rng.randint(10, 22))]
    if len(lines) > 1 and rng.random() < 0.6:
        sentences.append("It " + _cut(lines[1], rng.randint(8, 14)).lower())
    if rng.random() < 0.1:
        sentences.append(sentences[0])  # said twice
    return _cut(" ".join(sentences), limit)


_MATERIAL = re.compile(r"^\[([ERC]\d+)\] (.+)$", re.MULTILINE)


def _report(request: Request) -> str:
    items = _MATERIAL.findall(request.first)
    rng = request.rng("report")
    names = list(dict.fromkeys(text.split(" (", 1)[0].split(" — ", 1)[0].strip() for _, text in items[:3]))
    names = names or ["These entities"]
    title = f"{names[0]} and related entities" if rng.random() < 0.7 else f"Community of {names[0]}"
    first_text = items[0][1].split(": ", 1)[-1] if items else names[0]
    summary = f"This community is about {', '.join(names)}. " + _cut(first_text, rng.randint(8, 16))
    findings = []
    for label, text in items[: rng.randint(1, 3)]:
        name = text.split(" (", 1)[0].split(" — ", 1)[0].strip()
        refs = [label] if rng.random() < 0.8 else [name]
        findings.append({"summary": f"{name} is important in this community.",
                         "explanation": _cut(text.split(": ", 1)[-1], rng.randint(6, 12)), "refs": refs})  # fmt: skip
    reply = _json({"title": title, "summary": summary, "findings": findings, "rating": rng.choice((5, 6, 7, 7, 8))})
    return ("Here is the report:\n" + reply) if rng.random() < 0.04 and not request.again else reply


def _merge(request: Request) -> str:
    entries = re.findall(r"^(\d+)\. (.+?) \((.*?)\):", request.first, re.MULTILINE)
    names = [name for _, name, _ in entries] or ["the entities"]
    rng = request.rng("merge")
    words = [{w.casefold().rstrip("s") for w in n.split()} for n in names]
    shared = len(words) > 1 and bool(set.intersection(*words))
    same = shared or rng.random() < 0.35
    if rng.random() < (1 / 6 if request.again else 0.15):
        verdict = "Yes, they" if same else "No, they do not"
        return f"{verdict} refer to the same thing. {names[0]} and {names[-1]} {'are the same' if same else 'differ'}."
    reason = f"Both refer to {names[0]}." if same else f"{names[0]} and {names[-1]} are different."
    merge: bool | str = same if rng.random() < 0.7 else ("yes" if same else "no")
    keep = 1 if rng.random() < 0.85 else len(names)
    return _json({"merge": merge, "keep": keep, "description": reason})


def _reflect(request: Request) -> str:
    ids = [int(n) for n in re.findall(r"^(\d+)\. ", request.first, re.MULTILINE)]
    rng = request.rng("reflect")
    ten_scale = rng.random() < 1 / 8
    stray = 0.1 if rng.random() < 0.15 else 0.0  # a few items of a reply scored out of range
    if rng.random() < 0.1:
        ids = ids[: max(1, len(ids) // 2)]
    scores = []
    for number in ids:
        score: float = rng.choice((0.7, 0.8, 0.8, 0.9, 0.9, 1.0))
        if ten_scale:
            score = round(score * 10)
        elif rng.random() < stray:
            score = rng.choice((1.5, -1))
        scores.append({"id": number, "score": score, "reason": rng.choice(_REASONS)})
    return _json({"scores": scores})


def _other(request: Request) -> str:
    return "I'm not sure what you mean. Could you give more details?"


# ---- the responder ---------------------------------------------------------------------------------


class Request(ScriptedRequest):
    """A :class:`ScriptedRequest`, and whether the prompt's worked example is shown."""

    def __init__(self, body: Mapping[str, Any]) -> None:
        super().__init__(body)
        self.example = any(name in self.system for name in _EXAMPLE_NAMES)

    def rng(self, purpose: str) -> random.Random:
        return _rng(purpose, self.seed)


_ANSWERS: dict[str, Callable[[Request], str]] = {
    "extract": _extract,
    "glean": _glean,
    "summarize": _summary,
    "report": _report,
    "merge": _merge,
    "reflect": _reflect,
}


def heldout2_server(body: dict[str, Any]) -> str:
    """Answers one chat request as the small local model described in the module docstring."""
    request = Request(body)
    answer = _ANSWERS.get(prompt_kind(request.system), _other)
    return cut_at_max_tokens(answer(request), request.max_tokens)
