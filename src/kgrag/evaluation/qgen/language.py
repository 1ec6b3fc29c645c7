"""Whether a sentence is English prose: not filler text ("lorem ipsum"), not another language.

The English parser makes nothing of another language, and a question cut from a translated page ("what helfen
Bezüge darauf zu finden …?", a contributor cheat sheet in German, Indonesian or French beside its English
original) reads as garbled English. Two signs, each from word lists: another language's function words common in
the sentence, or a sentence of :data:`MIN_WORDS` words or more with none of English's commonest function words
(:data:`ENGLISH`) and at least one of another language's.
"""

from __future__ import annotations

from typing import Any

MIN_WORDS = 8
_FILLER = frozenset(
    "lorem ipsum dolor sit amet consectetur adipiscing elit sed eiusmod tempor incididunt ut labore dolore magna "
    "aliqua enim minim veniam quis nostrud exercitation ullamco laboris nisi aliquip ea commodo consequat duis aute "
    "irure reprehenderit voluptate velit esse cillum eu fugiat nulla pariatur excepteur sint occaecat cupidatat "
    "proident sunt culpa qui officia deserunt mollit anim laborum pellentesque nec sem rhoncus gravida orci mollis "
    "proin aliquam vivamus nunc vehicula sagittis condimentum cras facilisis bibendum feugiat nullam tempus tellus "
    "sollicitudin eros sapien ullamcorper rutrum leo vestibulum ante primis faucibus luctus ultrices posuere cubilia "
    "curae donec neque auctor vitae mauris morbi tristique senectus netus malesuada fames turpis egestas maecenas "
    "integer etiam phasellus fusce suspendisse aenean curabitur praesent quisque vel lacus massa purus risus odio "
    "justo metus arcu lectus libero ligula augue diam erat felis mi urna".split()
)
"""Words of the Latin filler text ("lorem ipsum …") that pages demonstrating layout are written in; Latin
words that are English too ("in", "a", "id", "est") are left out, so that English prose never counts."""
_FOREIGN = frozenset(
    # German
    "der das und ist nicht sich auch auf für ein eine einen einem einer dem den zu von wird werden wenn dass sie wir "
    "ihr kann können muss müssen über bei oder als aus nach noch nur wie sind diese dieser dieses wurde durch zum zur "
    "vom beim kein keine welche welcher damit dann sowie jedoch "
    # French
    "le la les et une dans pas que qui sur avec sont cette ces leur nous vous ils elle mais où être "
    # Dutch
    "het een niet voor zijn wordt worden ook naar bij uit deze maar heeft hebben geen "
    # Spanish, Italian, Portuguese
    "el los las una por para su sus lo como más pero esta está il della che sono uma não "
    # Latin (the filler some site themes write their sample posts in, beyond "lorem ipsum")
    "aut nec neque atque hinc nos ipsa ipse quae quod quam sunt erat tibi mihi sua suo suis tamen enim nunc illa "
    "ille haec huc ubi quoque "
    # more German, French, Spanish and Italian
    "darauf anderer wurden stattdessen eines mehrere kleine cette votre vos avant esto quienes otros otras "
    "questi questa questo gli anche viene possono nel nella delle degli alla "
    # Spanish and Portuguese pronouns and verbs a page addresses its reader with
    "nuestra nuestro nuestros nosotros tienes puedes tiene tienen puede pueden cómo también cuando porque donde "
    "você isso pelo pela muito "
    # Indonesian
    "yang untuk dengan itu tersebut kamu sebuah akan dari pada atau tidak bisa adalah ketika jika sudah juga "
    "dalam".split()
)
"""Function words of other languages that are neither English words nor names a technical text
writes in lower case ("die", "an", "also", "dies", "door", "van"; "mit", "du", "del", "aux", "des", "est", "es",
"di", "dat", the Latin "et", "est", "non", "sed", "per", "ad", "hoc", "sine", "iam", the Romance "come", "pour",
the German "falls" and the Indonesian "ini", "dan" are left out): a sentence
where they are common is not English, and the English parser makes nothing of it (a page translated for one
country, strings of a JSON example, a site theme's sample post)."""
ENGLISH = frozenset(
    "the of and to is for that on with as be by it this are or you your can from not will have has was which when "
    "if we they should must into its their these those then than also more all any each only were been does do how "
    "what who our".split()
)
"""English's commonest function words, leaving out those other languages write too ("a", "an", "in", "die"): an
English sentence of :data:`MIN_WORDS` words with none of them is rare, and one that also holds another
language's function word is that language."""


def not_english(sent: Any) -> str | None:
    """Why a parsed sentence is not English prose (Latin filler, another language), or None."""
    words = [t.lower_ for t in sent if t.is_alpha]
    if len(words) >= 5 and sum(w in _FILLER for w in words) >= len(words) / 2:
        return "filler text (lorem ipsum)"
    foreign = sum(w in _FOREIGN for w in words)
    if foreign >= 2 and foreign >= len(words) / 5:
        return "not English (another language's function words)"
    if foreign and len(words) >= MIN_WORDS and not any(w in ENGLISH for w in words):
        return "not English (another language's function words)"
    return None
