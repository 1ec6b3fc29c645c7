"""The corpus and the stand-in model for bench_lightrag_webui.py: generated one-line clinic notes, and a
responder for kgrag's fake OpenAI-compatible server that answers LightRAG's extraction requests in the
row format LightRAG parses (one record a line, fields joined by its tuple delimiter, a completion marker
last), reading the entities off the note itself. No LLM is involved: the graph is exactly what the notes
say, so both apps are measured over a known graph.

A note names a patient, a clinician, a condition and a drug of its own and one of a dozen clinics, so
1,201 notes make a graph of about 4,800 entities and 6,000 relations (near the Medical workspace kgrag's
figures were measured on) whose hubs are the clinics, about 200 relations each.
"""

from __future__ import annotations

import json
import re
from typing import Any

FIELD = "<|#|>"  # LightRAG's tuple delimiter (lightrag/prompt.py, DEFAULT_TUPLE_DELIMITER)
DONE = "<|COMPLETE|>"  # and its completion delimiter
FIRST = ("Ada", "Bram", "Cleo", "Dov", "Esme", "Finn", "Gia", "Hugo", "Ines", "Jonah", "Kira", "Lior",
         "Mara", "Nico", "Oona", "Pavel", "Quinn", "Rosa", "Soren", "Tova")  # fmt: skip
LAST = ("Abbott", "Bianchi", "Castro", "Dahl", "Eriksen", "Fischer", "Garcia", "Haas", "Ivanova", "Jansen",
        "Kowalski", "Larsen", "Moreau", "Novak", "Okafor", "Petrov", "Quist", "Rossi", "Sato", "Tanaka",
        "Ulrich", "Vega", "Weber", "Xu", "Yilmaz", "Zeller")  # fmt: skip
CLINICS = ("Riverside", "Northgate", "Elm Street", "Harbour", "Hillcrest", "Lakeside", "Old Town",
           "Parkview", "Southbank", "Westfield", "Meadow Lane", "Stonebridge")  # fmt: skip
SYLLABLES = ("ar", "bel", "cor", "dun", "ex", "fal", "gor", "hix", "ild", "jor", "kan", "lum", "mor",
             "nel", "ost", "pra", "quor", "rin", "sul", "tor", "ul", "ven", "wix", "yar", "zol")  # fmt: skip
NOTE = re.compile(
    r"Clinic note (?P<n>\d+): (?P<patient>Patient [A-Za-z]+ [A-Za-z]+ \d+) saw"
    r" (?P<doctor>Dr\. [A-Za-z]+ [A-Za-z]+) at the (?P<clinic>[A-Za-z ]+ Clinic) about"
    r" (?P<condition>[A-Za-z]+ syndrome); (?P<drug>[A-Za-z]+) was prescribed\."
)


def _word(i: int) -> str:
    a, b, c = SYLLABLES[i % 25], SYLLABLES[(i // 25) % 25], SYLLABLES[(i // 625) % 25]
    return (c + a + b).capitalize()


def note(i: int) -> str:
    """Note ``i``: its own patient, clinician (for i < 1,200), condition and drug; one of 12 clinics."""
    patient = f"Patient {FIRST[i % 20]} {LAST[(i // 20) % 26]} {i}"
    j = (i * 7) % 1200
    doctor = f"Dr. {FIRST[j % 20]} {LAST[(j // 20) % 26]}{'' if j < 520 else _word(j)[:3].lower()}"
    clinic = f"{CLINICS[i % 12]} Clinic"
    condition = f"{_word(3 * i + 1)} syndrome"
    drug = _word(10_000 + 11 * i)
    return f"Clinic note {i}: {patient} saw {doctor} at the {clinic} about {condition}; {drug} was prescribed."


def notes(count: int) -> list[str]:
    return [note(i) for i in range(count)]


def extraction_rows(text: str) -> str:
    """LightRAG's extraction answer for ``text``: one entity row per name, one relation row per link."""
    rows = []
    for found in NOTE.finditer(text):
        names = found.groupdict()
        kinds = {"patient": "person", "doctor": "person", "clinic": "organization", "condition": "concept",
                 "drug": "artifact"}  # fmt: skip
        for key, kind in kinds.items():
            rows.append(FIELD.join(("entity", names[key], kind, f"{names[key]}, named in clinic note {names['n']}.")))
        for a, b, what in (("patient", "doctor", "seen by"), ("patient", "clinic", "visited"),
                           ("patient", "condition", "diagnosed with"), ("condition", "drug", "treated with"),
                           ("doctor", "clinic", "works at")):  # fmt: skip
            rows.append(FIELD.join(("relation", names[a], names[b], what, f"{names[a]} {what} {names[b]}.")))
    return "\n".join([*rows, DONE])


def _fenced(prompt: str, after: str) -> str | None:
    start = prompt.find(after)
    if start < 0:
        return None
    block = re.search(r"```\n?(.*?)```", prompt[start:], re.DOTALL)
    return block.group(1) if block else None


def _descriptions(listed: str) -> list[str]:
    found = []
    for line in listed.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            found.append(line.strip())
            continue
        found.extend(str(v) for v in (item.values() if isinstance(item, dict) else [item]))
    return [d for d in found if d]


def responder(request: dict[str, Any]) -> str:
    """What the stand-in model answers: extraction rows for an input text, nothing more on a second pass,
    a merged description when LightRAG asks for a summary, a query's keywords and its answer read off the
    request (lightrag_answer.py)."""
    from lightrag_answer import query_reply

    reply = query_reply(request)
    if reply is not None:
        return reply
    messages = request.get("messages", [])
    prompt = str(messages[-1].get("content", "")) if messages else ""
    text = _fenced(prompt, "---Input Text---")
    if text is not None:
        return extraction_rows(text)
    listed = _fenced(prompt, "Description List")
    if listed is not None:
        return " ".join(_descriptions(listed))[:600]
    return DONE  # the second extraction pass: nothing was missed
