"""A box's size and port layout, decided here and nowhere else: the layout places boxes of this
size, and the state carries both ("w", "h" and "ports" in each box's view row), so the front end
(js/src/mirror/geometry.ts) and the saved picture draw boxes and ports where the kernel says.

A box is a header (name, class) over one row per call; it widens when its ports would crowd
(ports are spread evenly along the top and bottom edges) and when the names written by them would
(six named slots of a KerasHub TransformerDecoder, a merge of eight: the front end writes them in
two staggered rows, js/src/scene/portlabels.ts, so two neighbours' names need room for one between
them); an expanded nested model is as big as its laid-out inside. Pure Python: no Keras import.
"""

from __future__ import annotations

from collections.abc import Mapping

WIDTH = 180.0
HEADER = 40.0
CALL_ROW = 16.0
FOOT = 6.0
PORT_SPACING = 18.0  # at least this far apart, so each port stays easy to hit
PORT_CHAR = 5.0  # px a character of a port's name (js/src/scene/portlabels.ts CHAR_WIDTH)
PORT_NAME_ROOM = 24  # characters a port's name is given room for; a longer one is cut ("…")
PORT_NAME_GAP = 6.0  # px kept between two names on one row


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


def box_size(spec, filled: list[int], inner: Mapping | None = None,
             direction: str = "down") -> tuple[float, float]:
    """(width, height) of a layer's box. filled: how many edges enter each call; inner: the
    inner view of an expanded nested model (kerascanvas/io/inner.py), or None. direction
    "right": ports go down the left and right edges, so many of them make the box taller (their
    names are written outside it, beside the ports)."""
    if inner is not None:
        return (float(inner["width"]), float(inner["height"]))
    calls = max(1, spec.calls)
    ins = sum(in_ports(spec.slots, spec.is_input, filled[k] if k < len(filled) else 0)
              for k in range(calls))
    outs = calls * spec.n_outputs
    if direction == "right":
        return (WIDTH, max(HEADER + CALL_ROW * calls + FOOT, PORT_SPACING * (max(ins, outs) + 1)))
    width = max(WIDTH, PORT_SPACING * (max(ins, outs) + 1),
                _name_room(ins, _longest_in_name(spec, ins)),
                _name_room(outs, _longest_out_name(spec)))
    return (width, HEADER + CALL_ROW * calls + FOOT)


def _name_room(ports: int, chars: int) -> float:
    """The width that lets `ports` names of up to `chars` characters (two rows, alternating)
    be read: two neighbours on one row are two port spacings apart."""
    if ports < 2 or chars == 0:
        return 0.0
    spacing = (min(chars, PORT_NAME_ROOM) * PORT_CHAR + PORT_NAME_GAP) / 2
    return spacing * (ports + 1)


def _call_suffix(spec) -> int:
    return len(f" · call {spec.calls - 1}") if spec.calls > 1 else 0


def _longest_in_name(spec, ins: int) -> int:
    """Characters of the longest slot name written by the top edge (portlabels.ts portName)."""
    slots = spec.slots
    if slots.kind == "args":
        longest = max((len(n) for n in slots.names), default=len("argument 0"))
    elif slots.kind == "list":
        longest = len(f"{slots.names[0] if slots.names else 'inputs'}[{max(0, ins - 1)}]")
    else:
        return len("call 0") if spec.calls > 1 else 0
    return longest + _call_suffix(spec)


def _longest_out_name(spec) -> int:
    """Characters of the longest output name written under the bottom edge."""
    if spec.n_outputs <= 1:
        return len("call 0") if spec.calls > 1 else 0
    if spec.calls > 1:
        return len("0.0")  # a shared multi-output box writes "node_index.tensor_index"
    return len(f"output {spec.n_outputs - 1}")


def layout() -> dict:
    """How boxes are laid out, for the front end (the state's "box"): the size of a new layer's
    box (one call, one slot: room is made for one this big where a layer is inserted, before
    the kernel has placed it), the header's height and each call's row height."""
    return {"w": WIDTH, "h": HEADER + CALL_ROW + FOOT, "header": HEADER, "call_row": CALL_ROW}


def port_layout(spec, filled: list[int], size: tuple[float, float], direction: str = "down") -> dict:
    """Where a box of `size` shows its ports, relative to its top left corner: input slots spread
    evenly along the top edge, call by call ([call, slot, x, y]), but a later call's (one or two
    slots) on the left (slot 0) and right (slot 1) sides at its row; output ports along the bottom
    edge ([node_index, tensor_index, x, y]). Direction "right": input slots down the left edge
    and outputs down the right edge, in the same order. The state sends this (its view row's
    "ports"); the front end draws and hit-tests ports there."""
    w, h = size
    calls = max(1, spec.calls)
    ins = [(k, s) for k in range(calls)
           for s in range(in_ports(spec.slots, spec.is_input, filled[k] if k < len(filled) else 0))]
    outs = [(n, t) for n in range(calls) for t in range(spec.n_outputs)]
    if direction == "right":
        return {"in": [[k, s, 0.0, _spread(i, len(ins), h)] for i, (k, s) in enumerate(ins)],
                "out": [[n, t, w, _spread(i, len(outs), h)] for i, (n, t) in enumerate(outs)]}
    # a later call's slots (at most two: one a side) sit on the box's sides at that call's row,
    # so a wire into them (its own output fed back, d(d(x))) comes in from beside the box
    # instead of looping over it to the top edge
    side = {(k, s): [k, s, w * s, HEADER + CALL_ROW * (k + 0.5)] for k, s in ins
            if k > 0 and sum(1 for c, _ in ins if c == k) <= 2}
    top = [ks for ks in ins if ks not in side]
    placed = {ks: [*ks, _spread(i, len(top), w), 0.0] for i, ks in enumerate(top)}
    return {"in": [side.get(ks) or placed[ks] for ks in ins],
            "out": [[n, t, _spread(i, len(outs), w), h] for i, (n, t) in enumerate(outs)]}


def _spread(i: int, n: int, width: float) -> float:
    return width * (i + 1) / (n + 1)


# ----- read off a state's layer (what `Graph.state()` gives): for pictures drawn without Keras ----

def state_box(layer: Mapping) -> tuple[float, float]:
    """(width, height) of a layer of a state (its "w" and "h", which the kernel decided)."""
    return float(layer["w"]), float(layer["h"])


def state_ports(layer: Mapping) -> tuple[dict, dict]:
    """World positions of a state layer's input slots {(call, slot): (x, y)} and output ports
    {(node_index, tensor_index): (x, y)}, from the port layout the state carries: where the
    canvas draws them (kerascanvas/io/picture.py can call this instead of its own copy)."""
    x, y, ports = layer["x"], layer["y"], layer["ports"]
    return ({(k, s): (x + px, y + py) for k, s, px, py in ports["in"]},
            {(n, t): (x + px, y + py) for n, t, px, py in ports["out"]})
