"""Messages in the canvas's words: what the kernel says in Python terms ("connect to call=1",
"add_input()", "canvas.stop()") is said to someone drawing in terms of what they see: menu
entries, buttons, the palette. The Python API keeps its own wording (its exceptions name the calls
that fix them); everything that reaches the canvas (refused intents, the problems list, the
training status) goes through `canvas_words` first.

Keras's own sentences after "Keras refused ...:" are left as Keras wrote them.
"""

from __future__ import annotations

import re

MENU_CALL_AGAIN = "'Call again (shared weights)' in the box's menu"

_RULES = [
    (re.compile(r"connect to call=(\d+)"), rf"choose {MENU_CALL_AGAIN} and connect to call \1"),
    (re.compile(r"\(call=(\d+) adds a new call\)"), rf"({MENU_CALL_AGAIN} adds call \1)"),
    (re.compile(r"; slot=None appends\."), "; drop the wire on the box's free slot to add it at the end."),
    (re.compile(r"add one with add_input\(\)"), "drag an Input from the palette"),
    (re.compile(r"Stop it \(canvas\.stop\(\)\)"), "Press Stop"),
    (re.compile(r"call set_data\(x, y\) first"),
     "give the canvas data from a notebook cell first (its set_data method)"),
    (re.compile(r"Use rename\(\) to change a layer's name\."),
     "Change the name in the name field (or Rename in the box's menu)."),
    (re.compile(r"Keras refused Input\(shape=(\(.*?\)), dtype='?(\w+)'?\)"),
     r"Keras refused an Input of shape \1 and dtype \2"),
    (re.compile(r"This canvas has no file yet: Save as\.\.\. names one \(in the notebook's folder\), "
                r"or make it with kc\.Canvas\(path=\.\.\.\)\."),
     "This canvas has no file yet: Save as… names one (in the notebook's folder)."),
    (re.compile(r"This canvas has no file: Load\.\.\. names one, or make it with "
                r"kc\.Canvas\(path=\.\.\.\)\."),
     "This canvas has no file yet: Load… names one (in the notebook's folder)."),
    (re.compile(r"\(raise it from Python with kerascanvas\.limits\.allow\((\w+)=\.\.\.\) if you mean it\)"),
     r"(a notebook cell can raise this limit, \1, with kerascanvas.limits.allow if you mean it)"),
    (re.compile(r"kerascanvas\.(?:catalog|ops)\.names\(\) lists them"), "the palette lists them"),
    (re.compile(r"\(kerascanvas\.ops\.names\(\)\)"), "(the palette lists them)"),
    (re.compile(r"There is no edge \('(.+?)', (\d+), (\d+)\) -> \('(.+?)', (\d+), (\d+)\)\."),
     r"There is no edge from \1 to \4 call \5 slot \6."),
    (re.compile(r"The graph is locked:"), "The drawing is locked:"),
    (re.compile(r"\.; "), "; "),  # problems joined with "; " that end in "."
]


def canvas_words(message: str) -> str:
    for pattern, words in _RULES:
        message = pattern.sub(words, message)
    return message

