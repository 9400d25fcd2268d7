"""A comparison as the canvas and the standalone view draw it: one drawing with its changes
marked (`view`): every box of drawing b that was added, renamed, changed or holds other weights,
with its differences as text; every layer removed as a ghost, placed beside the drawing level with
where its neighbours stand; the edges only in b; a one-line summary. Every string in it is plain
text the front end renders as text (names come from models: untrusted)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..geometry import boxes
from .compare import Comparison

MARKS_SENT = 5000  # at most this many marked boxes and ghosts go to the browser
TEXT_SENT = 80  # characters of a config value a difference shows
GHOST_GAP = 80.0  # between the drawing and its strip of ghosts
GHOST_SPACING = 16.0  # between two ghosts in the strip


def shown(value: Any) -> str:
    """A config value as the text a difference shows (bounded)."""
    text = repr(value)
    return text if len(text) <= TEXT_SENT else text[:TEXT_SENT - 1] + "…"


def summary(c: Comparison) -> str:
    """"3 added, 1 removed, ..." (the parts that are not zero), or "no differences"."""
    retrained = sum(1 for n, v in c.weights.items() if v > 0)
    rewired = len(c.rewired.only_in_a) + len(c.rewired.only_in_b)
    parts = [(len(c.added), "added"), (len(c.removed), "removed"), (len(c.renamed), "renamed"),
             (len(c.changed), "changed"), (rewired, "edges rewired"),
             (retrained, "with other weights")]
    said = ", ".join(f"{n} {what}" for n, what in parts if n)
    return said or "no differences"


def view(c: Comparison, other, graph, label: str) -> dict:
    """The browser's view of comparison `c` (other -> graph, a Graph): see the module's
    docstring. label: the words that name `other`."""
    was = {b: a for a, b in c.renamed}
    marks: dict[str, dict] = {}

    def mark(name: str, kind: str) -> dict:
        return marks.setdefault(name, {"kind": kind, "was": was.get(name), "differences": [],
                                       "weights": None})

    for name in c.added:
        mark(name, "added")
    for name in was:
        mark(name, "renamed")
    for name, diff in c.changed.items():
        entry = mark(name, "changed")
        entry["kind"] = "added" if entry["kind"] == "added" else "changed"
        entry["differences"] = [[str(k), shown(a), shown(b)] for k, (a, b) in diff.items()]
    for name, norm in c.weights.items():
        if norm > 0:
            entry = mark(name, "weights")
            entry["weights"] = float(f"{norm:.4g}")
    ordered = [n for n in graph.specs if n in marks][:MARKS_SENT]
    rewired = [_edge_key(s, d) for s, d in c.rewired.only_in_b]
    return {"against": label, "summary": summary(c),
            "marks": {n: marks[n] for n in ordered},
            "ghosts": ghosts(c, other, graph)[:MARKS_SENT],
            "rewired": rewired[:MARKS_SENT],
            "removed_edges": [_edge_key(s, d) for s, d in c.rewired.only_in_a][:MARKS_SENT],
            "weights_kept": c.weights_kept}


def ghosts(c: Comparison, other, graph) -> list[dict]:
    """Each layer removed, as a box beside the drawing (right of it when it flows down, below
    it when it flows right), level with the boxes it was wired to that are still drawn, else
    with the drawing's start; ghosts never overlap each other nor the drawing."""
    if not c.removed:
        return []
    positions, sizes = graph.positions, graph.box_sizes
    down = graph.direction != "right"
    to_b = {a: a for a in other.specs if a in graph.specs}
    to_b.update(dict(c.renamed))
    near: dict[str, list[str]] = {n: [] for n in c.removed}
    into: Counter = Counter()
    for (src, _n, _t), (dst, call, _s) in other.edges:
        into[(dst, call)] += 1
        for here, there in ((src, dst), (dst, src)):
            if here in near and to_b.get(there) in positions:
                near[here].append(to_b[there])
    drawn = [(positions[n], sizes.get(n, (160.0, 60.0))) for n in positions]
    far = max((p[0 if down else 1] + s[0 if down else 1] for p, s in drawn), default=0.0)
    start = min((p[1 if down else 0] for p, _ in drawn), default=0.0)
    out, taken = [], start
    wanted = []
    for name in c.removed:
        spec = other.specs[name]
        w, h = boxes.box_size(spec, [into[(name, k)] for k in range(spec.calls)],
                              direction=graph.direction)
        level = [positions[n][1 if down else 0] for n in near[name]]
        wanted.append((sum(level) / len(level) if level else start, name, spec, w, h))
    for at, name, spec, w, h in sorted(wanted, key=lambda t: t[0]):
        along = max(at, taken)
        x, y = (far + GHOST_GAP, along) if down else (along, far + GHOST_GAP)
        taken = along + (h if down else w) + GHOST_SPACING
        out.append({"name": name, "class_name": spec.class_name, "x": x, "y": y, "w": w, "h": h,
                    "near": sorted(set(near[name]))[:8]})
    return out


def _edge_key(src, dst) -> str:
    """An edge's key as the front end makes it (js/src/mirror: src layer:node:tensor > dst)."""
    return f"{src[0]}:{src[1]}:{src[2]}>{dst[0]}:{dst[1]}:{dst[2]}"
