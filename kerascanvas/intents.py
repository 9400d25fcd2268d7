"""The intents the browser may send, from one description (intents.json) that the front end's
types are made from too (js/src/protocol.ts imports it): a kind outside it, or an intent
without a field it requires, is refused before any handler reads it. Each handler still checks
its fields' types and ranges."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

DESCRIPTION = Path(__file__).with_name("intents.json")


@cache
def kinds() -> dict[str, dict[str, dict[str, str]]]:
    """{kind: {"required": {field: type}, "optional": {field: type}}}."""
    return json.loads(DESCRIPTION.read_text(encoding="utf-8"))["kinds"]


def check(message: dict[str, Any]) -> str:
    """The intent's kind, when the description knows it and every required field is there;
    ValueError saying what is wrong otherwise."""
    kind = message.get("kind")
    if not isinstance(kind, str) or kind not in kinds():
        raise ValueError(f"Unknown intent kind {kind!r:.80}.")
    missing = [f for f in kinds()[kind]["required"] if f not in message]
    if missing:
        raise ValueError(f"A {kind!r} intent needs {', '.join(map(repr, missing))}.")
    return kind
