"""Strings that enter the drawing (names, config strings) must be valid Unicode text.

A lone surrogate ("x\\ud800" is valid JSON) cannot be encoded as UTF-8: once inside a name, every
later state push fails to encode and the browser freezes on an old state. Control characters in
names break the code export and the display; U+FFFE and U+FFFF are valid JSON that no XML
document can hold (the static SVG). All are refused where strings enter: the Graph's
edits (Python and browser alike) and the widget's message checks.
"""

from __future__ import annotations

import re
from typing import Any

from .errors import EditError

# C0 and C1 control characters, and U+FFFE / U+FFFF: valid JSON, but no XML document (the
# static SVG of a saved notebook) may hold them
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\ufffe\uffff]")
_CONTROL_IN_VALUES = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffe\uffff]")  # tab, CR, LF


def check_text(value: str, what: str, allow_whitespace: bool = False) -> str:
    """`value` if it is valid Unicode text without control characters; else EditError naming
    what was wrong and where. allow_whitespace lets tabs and line breaks in (config values)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as e:
        raise EditError(f"{what} holds a lone surrogate (U+{ord(value[e.start]):04X}) at position "
                        f"{e.start}: text must be valid Unicode; got {value!r:.80}.") from None
    found = (_CONTROL_IN_VALUES if allow_whitespace else _CONTROL).search(value)
    if found:
        kind = "the non-character" if found.group() in "\ufffe\uffff" else "the control character"
        raise EditError(f"{what} holds {kind} U+{ord(found.group()):04X} at position "
                        f"{found.start()}; got {value!r:.80}.")
    return value


def check_strings(value: Any, what: str, depth: int = 0) -> None:
    """Every string (keys included) in a config value, at any depth."""
    if depth > 50:
        raise EditError(f"{what} is nested too deeply.")
    if isinstance(value, str):
        check_text(value, what, allow_whitespace=True)
    elif isinstance(value, dict):
        for k, v in value.items():
            if isinstance(k, str):
                check_text(k, f"{what} (a key)")
            check_strings(v, what, depth + 1)
    elif isinstance(value, (list, tuple)):
        for v in value:
            check_strings(v, what, depth + 1)
