"""One size for a box, decided here: the layout places boxes of this size and the front end
draws them at it (the state carries "w" and "h"; js/src/geometry.ts only falls back to the same
rule when they are absent).

A box is a header (name, class) over one row per call; it widens when its ports would crowd
(ports are spread evenly along the top and bottom edges); an expanded nested model is as big as
its laid-out inside. Pure Python: no Keras import.
"""

from __future__ import annotations

from collections.abc import Mapping

WIDTH = 180.0
HEADER = 40.0
CALL_ROW = 16.0
FOOT = 6.0
PORT_SPACING = 18.0  # at least this far apart, so each port stays easy to hit


def in_ports(slots, is_input: bool, filled: int) -> int:
    """Input ports one call shows: a list slot offers one free port to append to."""
    if is_input or slots.kind == "none":
        return 0
    if slots.kind == "list":
        wanted = max(slots.min, filled + 1)
        return wanted if slots.max is None else min(slots.max, wanted)
    if slots.kind == "args":
        return slots.max if slots.max is not None else len(slots.names)
    return 1


def box_size(spec, filled: list[int], inner: Mapping | None = None) -> tuple[float, float]:
    """(width, height) of a layer's box. filled: how many edges enter each call; inner: the
    inner view of an expanded nested model (kerascanvas/inner.py), or None."""
    if inner is not None:
        return (float(inner["width"]), float(inner["height"]))
    calls = max(1, spec.calls)
    ins = sum(in_ports(spec.slots, spec.is_input, filled[k] if k < len(filled) else 0)
              for k in range(calls))
    outs = calls * spec.n_outputs
    width = max(WIDTH, PORT_SPACING * (max(ins, outs) + 1))
    return (width, HEADER + CALL_ROW * calls + FOOT)
