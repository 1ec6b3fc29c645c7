"""A light English stem for matching a question's words with a sentence's: enough to match
"owns"/"owned"/"owning", "policies"/"policy" and the common irregular past forms ("led" = "leads"),
without a model."""

from __future__ import annotations

# Irregular past forms documents state facts with ("is led by", "was written by"), mapped to the form a
# question asks with ("who leads", "who wrote"); ambiguous ones ("found", "left", "saw") are left out.
_IRREGULAR = {
    "led": "lead",
    "wrote": "write",
    "written": "write",
    "built": "build",
    "ran": "run",
    "held": "hold",
    "made": "make",
    "began": "begin",
    "begun": "begin",
    "chose": "choose",
    "chosen": "choose",
    "bought": "buy",
    "sold": "sell",
    "sent": "send",
    "paid": "pay",
    "took": "take",
    "taken": "take",
    "gave": "give",
    "given": "give",
    "grew": "grow",
    "grown": "grow",
    "broke": "break",
    "broken": "break",
    "kept": "keep",
    "met": "meet",
    "taught": "teach",
    "brought": "bring",
    "spent": "spend",
    "won": "win",
    "lost": "lose",
    "drew": "draw",
    "drawn": "draw",
}


def stem(word: str) -> str:
    """A light English stem, enough to match "owns"/"owned"/"owning", "policies"/"policy" and the common
    irregular past forms ("led" = "leads")."""
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 5 and word.endswith("ing"):
        return word[:-3]
    if len(word) > 4 and word.endswith("ed") and not word.endswith("eed"):
        return word[:-2]
    if len(word) > 3 and word.endswith(("sses", "xes", "zes", "shes", "ches")):  # "classes", not "raises"
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word
