"""The intents the browser may send, from one description (intents.json) that the front end's
types and checks are made from too (js/src/mirror/protocol.ts imports it): a kind outside it, an intent
without a field it requires, or a field of another type than it says, is refused before any
handler reads it. The handlers still check ranges and sizes (an index 0..9999, a name's length)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

DESCRIPTION = Path(__file__).with_name("intents.json")

# The JSON forms a type is made of ("is"), each with what a value must be to have it.
FORMS = {
    "text": lambda v: isinstance(v, str),
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "bool": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "list": lambda v: isinstance(v, list),
    "tuple": lambda v: isinstance(v, list),
}


@cache
def _description() -> dict[str, Any]:
    return json.loads(DESCRIPTION.read_text(encoding="utf-8"))


def kinds() -> dict[str, dict[str, dict[str, str]]]:
    """{kind: {"required": {field: type}, "optional": {field: type}}}; a type ending in "?"
    takes null too."""
    return _description()["kinds"]


def types() -> dict[str, dict[str, Any]]:
    """{type: {"is": form, "of": items' type (list) or {item: type} (tuple), "means": words}}."""
    return _description()["types"]


def check(message: dict[str, Any]) -> str:
    """The intent's kind, when the description knows it, every required field is there and
    every field it describes has its type; ValueError saying what is wrong otherwise."""
    kind = message.get("kind")
    if not isinstance(kind, str) or kind not in kinds():
        raise ValueError(f"Unknown intent kind {kind!r:.80}.")
    fields = kinds()[kind]
    missing = [f for f in fields["required"] if f not in message]
    if missing:
        raise ValueError(f"A {kind!r} intent needs {', '.join(map(repr, missing))}.")
    for group in ("required", "optional"):
        for field, type_name in fields[group].items():
            if field in message:
                problem = mistyped(message[field], type_name, repr(field))
                if problem is not None:
                    raise ValueError(f"{kind}: {problem}")
    return kind


INT_LIMIT = 2**63  # what an int in a message may reach: JSON has no bound, Python ints none, and
# a 400-digit one overflows the first float(), math or numpy call that takes it


def in_range(value: Any) -> bool:
    """Whether a number from outside (a message, a file) is one Python, NumPy and Keras can
    take: an int within int64, or any float (JSON floats are doubles already)."""
    return not isinstance(value, int) or isinstance(value, bool) or -INT_LIMIT <= value < INT_LIMIT


def mistyped(value: Any, type_name: str, where: str) -> str | None:
    """Why `value` (found at `where`, e.g. "'dst'") is not of type `type_name`, or None."""
    nullable = type_name.endswith("?")
    if nullable:
        if value is None:
            return None
        type_name = type_name[:-1]
    spec = types()[type_name]
    form, of = spec["is"], spec.get("of")
    fits = FORMS[form](value) and (form != "tuple" or len(value) == len(of))
    if not fits:
        return f"{where} must be {spec['means']}{' or null' if nullable else ''}, got {value!r:.80}."
    if form in ("int", "number") and not in_range(value):
        return f"{where} is out of range: a number of {len(str(abs(value)))} digits."
    if form == "tuple":
        for item, (item_name, item_type) in zip(value, of.items(), strict=True):
            problem = mistyped(item, item_type, f"{item_name!r} of {where}")
            if problem is not None:
                return problem
    elif form == "list":
        for i, item in enumerate(value):
            problem = mistyped(item, of, f"item {i} of {where}")
            if problem is not None:
                return problem
    return None
