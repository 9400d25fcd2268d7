"""A static SVG picture of a drawing, read off `Graph.state()`: boxes where the canvas puts them,
edges from output port to input slot. It travels in the widget's output beside the live view, so
a saved notebook still shows the model where no kernel runs (GitHub, nbviewer, nbconvert HTML).

The geometry follows the front end's (js/src/geometry.ts): a box is 180 wide and 46 + 16 per call
tall unless the state gives its size. Every user string is escaped: names come from the browser.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from xml.sax.saxutils import escape, quoteattr

BOX_WIDTH = 180
HEADER = 40
CALL_ROW = 16
MARGIN = 20
MAX_TEXT = 40  # characters of a name or class shown on a box

_FAMILY_COLOURS = {  # the box's left stripe: the palette group, as on the canvas's legend
    "input": "#5c6bc0", "core": "#26a69a", "convolutional": "#42a5f5", "pooling": "#7e57c2",
    "normalization": "#ffa726", "regularization": "#8d6e63", "recurrent": "#ec407a",
    "attention": "#ab47bc", "merging": "#66bb6a", "reshaping": "#78909c", "activations": "#ef5350",
    "preprocessing": "#bdbdbd", "model": "#29b6f6",
}


def box_size(layer: dict) -> tuple[float, float]:
    inner = layer.get("inner")
    if layer.get("expanded") and inner:
        return float(inner["width"]), float(inner["height"])
    if "w" in layer and "h" in layer:  # the kernel decided the size
        return float(layer["w"]), float(layer["h"])
    return float(BOX_WIDTH), float(HEADER + CALL_ROW * max(1, len(layer["calls"])) + 6)


def _slot_count(layer: dict, filled: int) -> int:
    s = layer["slots"]
    if layer["is_input"] or s["kind"] == "none":
        return 0
    if s["kind"] == "list":
        most = s["max"] if s["max"] is not None else filled + 1
        return min(most, max(s["min"], filled + 1))
    if s["kind"] == "args":
        return s["max"] if s["max"] is not None else len(s["names"])
    return 1


def _ports(layer: dict, into: Counter) -> tuple[dict, dict]:
    """World positions of a box's input slots {(call, slot): (x, y)} and output ports
    {(node, tensor): (x, y)}, spread along its top and bottom edges as the canvas does.
    into: edges per (layer, call), counted once for the whole picture."""
    w, h = box_size(layer)
    x, y = layer["x"], layer["y"]
    calls = max(1, len(layer["calls"]))
    slots = []
    if not layer["is_input"]:
        for k in range(calls):
            filled = into[(layer["name"], k)]
            slots += [(k, s) for s in range(_slot_count(layer, filled))]
    outs = [(n, t) for n in range(calls) for t in range(layer["n_outputs"])]
    inputs = {key: (x + w * (i + 1) / (len(slots) + 1), y) for i, key in enumerate(slots)}
    outputs = {key: (x + w * (i + 1) / (len(outs) + 1), y + h) for i, key in enumerate(outs)}
    return inputs, outputs


def _text(value: str) -> str:
    value = str(value)
    return escape(value if len(value) <= MAX_TEXT else value[: MAX_TEXT - 1] + "…")


def svg(state: dict) -> str:
    """The drawing in `state` (from `Graph.state()`) as one standalone SVG document."""
    layers = state["layers"]
    edges = state["edges"]
    if not layers:
        return ('<svg xmlns="http://www.w3.org/2000/svg" width="240" height="40" role="img" '
                'aria-label="empty kerascanvas drawing"><text x="10" y="24" font-family="sans-serif" '
                'font-size="12" fill="#777">empty drawing</text></svg>')
    sizes = {layer["name"]: box_size(layer) for layer in layers}
    left = min(layer["x"] for layer in layers) - MARGIN
    top = min(layer["y"] for layer in layers) - MARGIN
    right = max(layer["x"] + sizes[layer["name"]][0] for layer in layers) + MARGIN + 40  # room for detours
    bottom = max(layer["y"] + sizes[layer["name"]][1] for layer in layers) + MARGIN
    width, height = right - left, bottom - top
    title = state.get("name", "model")
    out = [(f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{left:.0f} {top:.0f} {width:.0f} '
           f'{height:.0f}" width="{min(width, 900):.0f}" role="img" '
           f'aria-label={quoteattr(f"kerascanvas drawing of {title}")} font-family="sans-serif">'),
           f"<title>{_text(title)}</title>",
           (f'<rect x="{left:.0f}" y="{top:.0f}" width="{width:.0f}" height="{height:.0f}" '
           'fill="#fafafa"/>')]
    into = Counter((e["dst"][0], e["dst"][1]) for e in edges)  # one pass: O(layers + edges)
    ports = {layer["name"]: _ports(layer, into) for layer in layers}
    # by top: an edge looks only at the boxes whose top lies between its ends
    boxes = sorted(((layer["x"], layer["y"], *sizes[layer["name"]]) for layer in layers),
                   key=lambda box: box[1])
    tops = [box[1] for box in boxes]
    detours = 0
    for e in edges:
        (src, n, t), (dst, k, s) = e["src"], e["dst"]
        a = ports.get(src, ({}, {}))[1].get((n, t))
        b = ports.get(dst, ({}, {}))[0].get((k, s))
        if a is None or b is None:
            continue
        below = boxes[bisect_right(tops, a[1]):bisect_right(tops, b[1])]
        path, detoured = _route(a, b, below, detours)
        detours += detoured
        out.append(f'<path d="{path}" fill="none" stroke="#777" stroke-width="1.6"/>')
    for layer in layers:
        w, h = sizes[layer["name"]]
        x, y = layer["x"], layer["y"]
        colour = _FAMILY_COLOURS.get(layer.get("group", ""), "#9e9e9e")
        dashed = ' stroke-dasharray="5 3"' if any(not c["built"] for c in layer["calls"]) else ""
        stroke = "#d32f2f" if layer["problems"] else "#666"
        out.append(f'<g transform="translate({x:.1f},{y:.1f})">'
                   f'<rect width="{w:.0f}" height="{h:.0f}" rx="6" fill="#fff" stroke="{stroke}"'
                   f' stroke-width="1.2"{dashed}/>'
                   f'<rect width="5" height="{h:.0f}" fill="{colour}"/>'
                   f'<text x="10" y="16" font-size="12" font-weight="bold" fill="#222">'
                   f'{_text(layer["name"])}</text>'
                   f'<text x="10" y="32" font-size="10" fill="#555">{_text(layer["class_name"])}</text>')
        for k, call in enumerate(layer["calls"]):
            shapes = call.get("output_shapes")
            shown = ", ".join(_shape_text(s) for s in shapes) if shapes else "pending"
            out.append(f'<text x="10" y="{52 + k * CALL_ROW}" font-size="10" fill="#555">'
                       f'{_text(f"call {k} → {shown}")}</text>')
        out.append("</g>")
    out.append("</svg>")
    return "".join(out)


def _route(a, b, boxes, detours: int) -> tuple[str, bool]:
    """A curve from port a down to slot b; when boxes stand between them (a skip connection),
    a path that goes round their right side instead of behind them, each detour a little
    further out so that parallel ones stay apart."""
    lo, hi = min(a[0], b[0]) - 6, max(a[0], b[0]) + 6  # (boxes: those whose top is in between)
    between = [bx for bx in boxes if bx[1] > a[1] and bx[1] + bx[3] < b[1]
               and bx[0] < hi and bx[0] + bx[2] > lo]
    if not between:
        dy = max(30.0, abs(b[1] - a[1]) / 2)
        return (f"M{a[0]:.1f},{a[1]:.1f} C{a[0]:.1f},{a[1] + dy:.1f} {b[0]:.1f},{b[1] - dy:.1f} "
                f"{b[0]:.1f},{b[1]:.1f}"), False
    x = max(bx[0] + bx[2] for bx in between) + 14 + 8 * (detours % 4)
    y1, y2 = a[1] + 14, b[1] - 14
    return (f"M{a[0]:.1f},{a[1]:.1f} Q{a[0]:.1f},{y1:.1f} {(a[0] + x) / 2:.1f},{y1:.1f} "
            f"L{x - 8:.1f},{y1:.1f} Q{x:.1f},{y1:.1f} {x:.1f},{y1 + 8:.1f} L{x:.1f},{y2 - 8:.1f} "
            f"Q{x:.1f},{y2:.1f} {x - 8:.1f},{y2:.1f} L{(b[0] + x) / 2:.1f},{y2:.1f} "
            f"Q{b[0]:.1f},{y2:.1f} {b[0]:.1f},{b[1]:.1f}"), True


def _shape_text(shape) -> str:
    return "(" + ", ".join("None" if d is None else str(d) for d in shape) + ")"
