"""Names that look alike but denote different things: identifiers, versions and numbers.

On technical text the LLM-free graph is full of names such as ``copystat`` and ``copymode``,
``stacklevel=1`` and ``stacklevel=2``, ``Python 3.11`` and ``Python 3.12``, ``Type 1 diabetes`` and
``Type 2 diabetes``. Embeddings (and fuzzy string similarity) put each pair next to each other, yet one
is never the other: a digit, an operator or one word part apart is the whole point of the name. So a pair
where either name is code-like — it holds a digit, ``_``, ``=``, brackets, a dot inside a word, ``::``,
``/`` or an inner capital (``copyMode``) — or where both are single lower-case words (``copystat`` and
``copymode``; ``metformin`` and ``glipizide``) is merged only when the two spell the same identifier:
equal up to case, spaces, quotes, a trailing call ``()`` or argument list, a plural ``s``, or a
qualifying prefix (``shutil.copystat`` is ``copystat``).
"""

from __future__ import annotations

import re

_CODE_MARK = re.compile(r"[\d_=()\[\]{}<>/\\|@#$%^&*~`]|\w\.\w|::|[a-z][A-Z]")
_SINGLE_LOWER_WORD = re.compile(r"[a-z][a-z'’-]+")
_CALL = re.compile(r"\(.*\)$")
_QUALIFIER = re.compile(r"^(?:[a-z_]\w*(?:\.|::))+(?=[a-z_])")


def code_like(name: str) -> bool:
    """Whether ``name`` is an identifier, a version, a number or holds one."""
    return bool(_CODE_MARK.search(name.strip()))


def identifier_key(name: str) -> str:
    """``name`` reduced to what identifies it: case, spaces, quotes, a trailing call and a possessive
    dropped (``"`Copystat()`"`` → ``copystat``)."""
    text = name.strip().strip("`'\"“”‘’").casefold()
    text = _CALL.sub("", text).removesuffix("'s").removesuffix("’s")
    return "".join(text.split())


def same_identifier(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` spell the same identifier (also when one is the other qualified by a module
    or class, ``shutil.copystat``, or adds a plural ``s``; ``os.path`` and ``sys.path`` are two)."""
    ka, kb = identifier_key(a), identifier_key(b)
    if ka == kb or ka + "s" == kb or kb + "s" == ka or ka + "es" == kb or kb + "es" == ka:
        return True
    return _QUALIFIER.sub("", ka) == kb or _QUALIFIER.sub("", kb) == ka


def distinct_identifiers(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` must not be merged on similarity alone: either is code-like, or both are
    single lower-case words, and they do not spell the same identifier."""
    guarded = code_like(a) or code_like(b) or bool(_SINGLE_LOWER_WORD.fullmatch(a) and _SINGLE_LOWER_WORD.fullmatch(b))
    return guarded and not same_identifier(a, b)
