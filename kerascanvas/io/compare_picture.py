"""A Comparison (compare.py) as a picture: an SVG listing of what changed, each kind of change
marked by its colour and sign (+ added, - removed, ~ renamed, * changed, edges, weights).

A listing, not the two drawings side by side: the drawings themselves are picture.py's and the
canvas's to draw. Every string is escaped as XML text (names and config values are the user's).
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from .compare_text import to_text

LINE = 18  # px per line
CHAR = 7.2  # px per character of the monospace font at 12 px
MARGIN = 12
COLOURS = {"+": "#1a7f37", "-": "#cf222e", "~": "#9a6700", "*": "#0969da"}  # GitHub's diff hues
MAX_LINES = 2000  # a longer listing is cut, and says so


def to_svg(comparison, width: int = 110) -> str:
    """The comparison's text (compare_text.to_text at `width` characters) as an SVG picture."""
    lines = to_text(comparison, width).split("\n")
    if len(lines) > MAX_LINES:
        cut = len(lines) - MAX_LINES
        lines = lines[:MAX_LINES] + [f"… {cut} more lines (print the comparison to read them)"]
    w = MARGIN * 2 + CHAR * max(len(line) for line in lines)
    h = MARGIN * 2 + LINE * len(lines)
    rows = []
    for i, line in enumerate(lines):
        mark = _mark(line, i)
        y = MARGIN + LINE * (i + 1) - 5
        colour = COLOURS.get(mark, "#1f2328")
        weight = ' font-weight="bold"' if i == 0 else ""
        if mark in COLOURS and not line.startswith("    "):  # a layer's line: a band behind it
            rows.append(f'<rect x="{MARGIN - 4}" y="{y - 13}" width="{w - 2 * MARGIN + 8:.0f}" '
                        f'height="{LINE}" fill="{colour}" fill-opacity="0.08"/>')
        rows.append(f'<text x="{MARGIN}" y="{y}" fill="{colour}"{weight} xml:space="preserve">'
                    f"{escape(line)}</text>")
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0f}" height="{h:.0f}" '
            f'viewBox="0 0 {w:.0f} {h:.0f}" font-family="ui-monospace, Menlo, Consolas, '
            f'monospace" font-size="12"><rect width="100%" height="100%" fill="#ffffff"/>'
            + "".join(rows) + "</svg>")


def _mark(line: str, i: int) -> str:
    """The sign a line starts with: its layer's change, or an edge's side ("- " / "+ ")."""
    if i == 0:
        return ""
    stripped = line.lstrip()
    return stripped[:1] if stripped[:2] in ("+ ", "- ", "~ ", "* ") else ""
