"""Messages in the canvas's words: what the kernel says in Python terms ("connect to call=1",
"add_input()") is said to someone drawing in terms of what they see (menu entries, buttons)."""

from __future__ import annotations

import re

_RULES = [
    (re.compile(r"connect to call=(\d+)"), r"choose 'Call again (shared weights)' in the box's menu and connect to call \1"),
    (re.compile(r"\(call=(\d+) adds a new call\)"), r"('Call again (shared weights)' in the box's menu adds call \1)"),
    (re.compile(r"add one with add_input\(\)"), "drag an Input from the palette"),
    (re.compile(r"Stop it \(canvas\.stop\(\)\)"), "Press Stop"),
    (re.compile(r"call set_data\(x, y\) first"), "give it data from Python first: canvas.set_data(x, y)"),
]


def canvas_words(message: str) -> str:
    for pattern, words in _RULES:
        message = pattern.sub(words, message)
    return message
