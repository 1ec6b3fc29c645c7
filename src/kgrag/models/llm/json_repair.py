"""Lenient JSON parsing for model output.

Models wrap JSON in code fences, add prose around it, leave trailing commas, use Python quoting and
literals, forget a comma between items, or stop mid-array when they hit ``max_tokens``. :func:`repair_json`
fixes those cases and says which fixes it applied. It raises only :class:`JSONRepairError` (a
``ValueError``), whatever the input, which a fuzz test checks.

Truncation policy: a value cut off by the end of the text (a half string, a half number, a nested
object missing its closing brace) is dropped, never completed, and open brackets are closed after the
last complete array element or top-level member. Guessing the rest would invent data; dropping it loses
only what the model never finished saying.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

_FENCE = re.compile(r"```[a-zA-Z0-9_-]*[ \t]*\n?(.*?)(?:```|\Z)", re.DOTALL)
_NUMBER = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_LITERALS = {
    "true": "true",
    "false": "false",
    "null": "null",
    "True": "true",
    "False": "false",
    "None": "null",
    "NaN": "NaN",
    "Infinity": "Infinity",
    "-Infinity": "-Infinity",
}
_DELIMS = frozenset(" \t\r\n,:[]{}\"'")
_CLOSER = {"{": "}", "[": "]"}
_ESCAPES = frozenset('"\\/bfnrtu')
_HEX = frozenset("0123456789abcdefABCDEF")


class JSONRepairError(ValueError):
    """The text holds no JSON value that can be recovered."""


@dataclass(frozen=True)
class Repaired:
    """The parsed value and the fixes applied (empty when the text was valid JSON)."""

    value: Any
    fixes: tuple[str, ...]

    @property
    def repaired(self) -> bool:
        return bool(self.fixes)


def _loads(text: str) -> Any:
    try:
        return json.loads(text, strict=False)
    except (ValueError, RecursionError) as exc:
        raise JSONRepairError(str(exc)[:200]) from None


def _raw_decode(text: str, start: int) -> Any:
    try:
        return json.JSONDecoder(strict=False).raw_decode(text, start)[0]
    except (ValueError, RecursionError):
        return _NOTHING


_NOTHING = object()


class _Truncated(Exception):
    """The text ended inside a token; the scanner rolls back to the last complete value."""


class _Scanner:
    """Re-emits the text from one bracket as strict JSON, tracking where a cut would still be valid."""

    def __init__(self, text: str, start: int) -> None:
        self.text = text
        self.i = start
        self.out: list[str] = []
        self.stack: list[str] = []
        self.key_mode: list[bool] = []
        self.after_value = False
        self.safe: int | None = None  # output length after the last value a cut may keep
        self.fixes: set[str] = set()
        self.complete = False

    def run(self) -> str:
        handlers = {
            '"': self._string,
            "'": self._string,
            "{": self._open,
            "[": self._open,
            "}": self._close,
            "]": self._close,
            ",": self._comma,
            ":": self._colon,
        }
        try:
            while self.i < len(self.text) and not self.complete:
                ch = self.text[self.i]
                if ch.isspace():
                    self.i += 1
                else:
                    handlers.get(ch, self._bare)()
        except _Truncated:
            pass
        return self._finish()

    def _in_key_position(self) -> bool:
        return bool(self.stack) and self.stack[-1] == "{" and self.key_mode[-1]

    def _begin_token(self) -> None:
        if self.after_value and self.stack:
            self.out.append(",")
            self.fixes.add("inserted missing comma")
            if self.stack[-1] == "{":
                self.key_mode[-1] = True
        self.after_value = False

    def _value_done(self) -> None:
        if not self.stack:
            self.complete = True
            return
        self.after_value = True
        if self.stack[-1] == "[" or len(self.stack) == 1:  # a nested object cut short is dropped whole
            self.safe = len(self.out)

    def _open(self) -> None:
        self._begin_token()
        ch = self.text[self.i]
        self.out.append(ch)
        self.stack.append(ch)
        self.key_mode.append(True)
        self.i += 1
        if len(self.stack) == 1:  # a nested container cut short is dropped whole, never kept half-empty
            self.safe = len(self.out)

    def _close(self) -> None:
        ch = self.text[self.i]
        self.i += 1
        if not self.stack or _CLOSER[self.stack[-1]] != ch:
            self.fixes.add("dropped stray bracket")
            return
        if self.out and self.out[-1] == ",":
            self.out.pop()
            self.fixes.add("removed trailing comma")
        self.out.append(ch)
        self.stack.pop()
        self.key_mode.pop()
        self._value_done()

    def _comma(self) -> None:
        self.i += 1
        if not self.stack or not self.after_value:
            self.fixes.add("dropped stray comma")
            return
        self.out.append(",")
        self.after_value = False
        if self.stack[-1] == "{":
            self.key_mode[-1] = True

    def _colon(self) -> None:
        self.i += 1
        self.out.append(":")
        if self.stack and self.stack[-1] == "{":
            self.key_mode[-1] = False

    def _string(self) -> None:
        self._begin_token()
        is_key = self._in_key_position()
        quote = self.text[self.i]
        if quote == "'":
            self.fixes.add("converted single quotes")
        pieces = ['"']
        j = self.i + 1
        while True:
            if j >= len(self.text):
                raise _Truncated
            ch = self.text[j]
            if ch == quote:
                break
            if ch == "\\":
                pieces.append(self._escape(j))
                j += 2
                continue
            pieces.append('\\"' if ch == '"' else ch)
            j += 1
        pieces.append('"')
        self.out.append("".join(pieces))
        self.i = j + 1
        if not is_key:
            self._value_done()

    def _escape(self, j: int) -> str:
        if j + 1 >= len(self.text):
            raise _Truncated
        nxt = self.text[j + 1]
        if nxt == "u" and not (len(self.text) >= j + 6 and set(self.text[j + 2 : j + 6]) <= _HEX):
            return "\\\\u"
        if nxt in _ESCAPES:
            return "\\" + nxt
        return "'" if nxt == "'" else "\\\\" + nxt

    def _bare(self) -> None:
        self._begin_token()
        is_key = self._in_key_position()
        j = self.i
        while j < len(self.text) and self.text[j] not in _DELIMS:
            j += 1
        if j >= len(self.text) and self.stack:
            raise _Truncated  # a word or number cut by the end of the text may be incomplete
        token = self.text[self.i : j]
        self.i = j
        if token in _LITERALS and not is_key:
            self.out.append(_LITERALS[token])
        elif _NUMBER.fullmatch(token) and not is_key:
            self.out.append(token)
        elif self.stack and self.stack[-1] == "[":
            raise JSONRepairError(f"bare word {token[:20]!r} in an array")
        else:
            self.out.append(json.dumps(token))
            self.fixes.add("quoted bare word")
        if not is_key:
            self._value_done()

    def _finish(self) -> str:
        if self.complete:
            return "".join(self.out)
        if self.safe is None:
            raise JSONRepairError("no complete JSON value before the text ended")
        self.fixes.add("closed truncated output")
        kept = self.out[: self.safe]
        if kept and kept[-1] == ",":
            kept.pop()
        stack: list[str] = []
        for piece in kept:  # brackets are single pieces; strings are whole pieces, so this is exact
            if piece in _CLOSER:
                stack.append(piece)
            elif piece in ("}", "]"):
                stack.pop()
        return "".join(kept) + "".join(_CLOSER[b] for b in reversed(stack))


def _candidates(text: str) -> list[str]:
    """The text itself, then the inside of each code fence (an unclosed fence runs to the end)."""
    out = [text]
    out.extend(m.group(1) for m in _FENCE.finditer(text))
    return out


def _starts(text: str, expect: str | None) -> list[int]:
    brackets = expect if expect else "{["
    return sorted(p for p in (text.find(b) for b in brackets) if p >= 0)


def repair_json(text: str, expect: str | None = None) -> Repaired:
    """Parse ``text`` as JSON, repairing common model breakage; raise :class:`JSONRepairError` if hopeless.

    ``expect`` (``"{"`` or ``"["``) says which top-level container the caller wants, so a bracket in
    surrounding prose (``see [1]``) is not mistaken for the answer.
    """
    stripped = text.strip()
    if not stripped:
        raise JSONRepairError("empty reply")
    last_error = "no JSON object or array found"
    candidates = [c.strip() for c in _candidates(stripped)]
    # Every candidate is tried as it is before any is scanned for brackets: a fenced reply whose value
    # contains a bracket inside a string ("```json\n\"{\"\n```") must not be "repaired" from that bracket.
    for candidate in candidates:
        try:
            return Repaired(_loads(candidate), () if candidate == stripped else ("removed code fence",))
        except JSONRepairError:
            pass
    for candidate in candidates:
        for start in _starts(candidate, expect):
            value = _raw_decode(candidate, start)
            if value is not _NOTHING:
                return Repaired(value, ("ignored text around JSON",))
            scanner = _Scanner(candidate, start)
            try:
                return Repaired(_loads(scanner.run()), tuple(sorted(scanner.fixes)))
            except JSONRepairError as exc:
                last_error = str(exc)
    raise JSONRepairError(last_error)
