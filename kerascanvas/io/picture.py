"""A static SVG picture of a drawing, read off `Graph.state()`, drawn as the canvas draws it: boxes
where the canvas puts them at the size the kernel gave them (kerascanvas/geometry/boxes.py), ports where
the state says, family colours, the texts of js/src/scene/boxes.ts (name; class, activation,
parameters, depth; one "node k → shape" row per call), folded runs as one stacked "×N" box with
the wires into and out of the run on it, expanded nested models with their inside. It travels
in the notebook beside the live view (kerascanvas/canvas/picture_output.py), so a saved notebook shows
the model where no kernel runs (GitHub, nbviewer, nbconvert HTML).

Its size is bounded: a drawing taller than a column is cut between rows of boxes into columns
side by side, as many as fit a page's width at full scale, so ResNet50 stays readable at the
width of a page; a wire from one column to another leaves its column at the bottom and enters
the next at the top, each end labelled with the box at its other end. A drawing that flows left
to right (the state's direction "right") is cut the same way turned a quarter: between its
columns of boxes into bands a page wide, one under another, its wires leaving a band on the
right and entering the next on the left. Every user string is escaped text: names come from the
browser.
"""

from __future__ import annotations

import itertools
import math
import re
from bisect import bisect_right
from types import SimpleNamespace
from xml.sax.saxutils import escape, quoteattr

from ..geometry import boxes
from ..geometry import folds as fold_rules

MARGIN = 20.0
PAGE_WIDTH = 1100.0  # the widest picture shown at full scale (a notebook page's width)
COLUMN_HEIGHT = 1600.0  # a column is at least this tall before the drawing wraps to another
MAX_HEIGHT = 4000.0  # no column is taller: the boxes below are left out, and a line says so
COLUMN_GAP = 40.0
DETOUR_ROOM = 40.0  # right of the boxes, for wires that go round them
STUB = 24.0  # how far a wire to another column runs before its label
BAND_END = 110.0  # a band's room at each end for a wire's label (turned: labels run along wires)

# js/src/scene/families.ts: (catalog groups, hue); tests/test_static_view.py checks they agree
FAMILIES = [(("input",), 210), (("core", "activations"), 265), (("convolutional",), 25),
            (("pooling",), 175), (("normalization",), 330), (("regularization",), 55),
            (("merging",), 130), (("recurrent", "attention"), 0), (("reshaping",), 95),
            (("preprocessing",), 300), (("model", "nested"), 230)]
MODEL_HUE = 230


def family_hue(layer: dict) -> int | None:
    """The hue of a box's family (js/src/scene/families.ts `family`), None for none."""
    if layer.get("is_input"):
        return FAMILIES[0][1]
    if layer.get("inner_layers") is not None:
        return MODEL_HUE
    group = (layer.get("group") or "").lower()
    return next((hue for groups, hue in FAMILIES
                 if any(group == g or group.startswith(g) for g in groups)), None)


def box_size(layer: dict) -> tuple[float, float]:
    """The box's size as the kernel decided it (the state's "w" and "h")."""
    if "w" in layer and "h" in layer:
        return float(layer["w"]), float(layer["h"])
    inner = layer.get("inner")  # a state made before boxes.py sized every box
    if layer.get("expanded") and inner:
        return float(inner["width"]), float(inner["height"])
    return boxes.WIDTH, boxes.HEADER + boxes.CALL_ROW * max(1, len(layer["calls"])) + boxes.FOOT


def ports(layer: dict, filled: dict) -> tuple[dict, dict]:
    """World positions of a box's input slots {(call, slot): (x, y)} and output ports
    {(node, tensor): (x, y)}: the port layout the state carries when it carries one, else
    boxes.py's rule (ports spread evenly along the top and bottom edges)."""
    if "ports" in layer:
        return boxes.state_ports(layer)
    w, h = box_size(layer)
    x, y = layer["x"], layer["y"]
    calls = max(1, len(layer["calls"]))
    slots = SimpleNamespace(**layer["slots"])
    ins = [(k, s) for k in range(calls)
           for s in range(boxes.in_ports(slots, layer["is_input"], filled.get((layer["name"], k), 0)))]
    outs = [(n, t) for n in range(calls) for t in range(layer["n_outputs"])]
    return ({key: (x + w * (i + 1) / (len(ins) + 1), y) for i, key in enumerate(ins)},
            {key: (x + w * (i + 1) / (len(outs) + 1), y + h) for i, key in enumerate(outs)})


def _fit(value, width: float, char_width: float) -> str:
    """Text cut to what fits `width` (js/src/mirror/geometry.ts fitText's rule, without squeezing)."""
    value = str(value)
    room = max(1, int(width / char_width * 1.15))
    return escape(value if len(value) <= room else value[: room - 1] + "…")


def _shape_text(shape) -> str:
    if shape is None:
        return "?"
    inside = ", ".join("None" if d is None else str(d) for d in shape)
    return f"({inside},)" if len(shape) == 1 else f"({inside})"


def _params_text(n: int) -> str:
    if n >= 1e6:
        return f"{n / 1e6:.2f}M"
    if n >= 1e4:
        return f"{n / 1e3:.1f}k"
    return str(n)


def _call_text(layer: dict, k: int) -> str:
    call = layer["calls"][k]
    if not call["built"]:
        return f"call {k}: pending" + (f" ({call['missing']})" if call.get("missing") else "")
    return f"node {k} → " + " ".join(_shape_text(s) for s in call.get("output_shapes") or [])


def _activation(config: dict) -> str | None:
    """The activation a box's subtitle names: a name ("relu"), a serialized activation
    ({"config": {"name": ...}}) or a registered function ({"config": "keras_hub>gelu_approximate"},
    shown without its package); anything else is not named."""
    a = config.get("activation") if isinstance(config, dict) else None
    if isinstance(a, dict):
        inner = a.get("config")
        a = inner.get("name") if isinstance(inner, dict) else inner
    if isinstance(a, str) and ">" in a:
        a = a.rsplit(">", 1)[1]
    return a if isinstance(a, str) and a and a != "linear" else None


def _class_line(layer: dict) -> str:
    parts = [layer["class_name"]]
    act = _activation(layer.get("config") or {})
    if act:
        parts.append(act)
    if layer.get("inner_layers") is not None:
        parts.append(f"{layer['inner_layers']} layers")
    if layer.get("params") is not None:
        parts.append(f"{_params_text(layer['params'])} params")
    if layer.get("depth") is not None:
        parts.append(f"depth {layer['depth']}")
    return " · ".join(parts)


def _colours(hue: int | None) -> tuple[str, str]:
    """(box fill, family band) as js/src/canvas/style.ts colours them (light theme)."""
    h = 210 if hue is None else hue
    return f"hsl({h},60%,97%)", f"hsl({h},62%,52%)"


def _band(w: float, colour: str) -> str:
    return f'<path d="M0.6,6 a6,6 0 0 1 6,-5.4 h{w - 13.2:.1f} a6,6 0 0 1 6,5.4 z" fill="{colour}"/>'


def _box(layer: dict, w: float, h: float) -> str:
    fill, band = _colours(family_hue(layer))
    if layer.get("fold"):
        return _folded_box(layer, w, h, fill, band)
    pending = any(not c["built"] for c in layer["calls"])
    stroke = "#d32f2f" if layer["problems"] else "#888"
    dashed = ' stroke-dasharray="5 3"' if pending else ""
    out = [(f'<rect width="{w:.1f}" height="{h:.1f}" rx="6" fill="{fill}" stroke="{stroke}" '
           f'stroke-width="1.2"{dashed}/>'), _band(w, band),
           (f'<text x="8" y="19" font-size="12" font-weight="bold" fill="#222">'
           f'{_fit(layer["name"], w - 16, 7.2)}</text>'),
           f'<text x="8" y="34" font-size="10" fill="#555">{_fit(_class_line(layer), w - 16, 5.6)}</text>']
    if layer.get("expanded") and layer.get("inner"):
        out.append(_inside(layer["inner"]))
    else:
        for k in range(len(layer["calls"])):
            colour = "#555" if layer["calls"][k]["built"] else "#999"
            out.append(f'<text x="8" y="{52 + k * boxes.CALL_ROW:.0f}" font-size="10" fill="{colour}">'
                       f'{_fit(_call_text(layer, k), w - 16, 5.6)}</text>')
    if layer["problems"]:
        out.append(f'<g transform="translate({w - 12:.1f},12)"><circle r="7" fill="#d32f2f"/>'
                   '<text y="4" text-anchor="middle" font-size="11" fill="#fff">!</text></g>'
                   f'<title>{escape(chr(10).join(map(str, layer["problems"])))}</title>')
    return "".join(out)


def _folded_box(layer: dict, w: float, h: float, fill: str, band: str) -> str:
    """A folded run (js/src/mirror/folds.ts drawFolded): two cards behind the front one, the title,
    the "×N" count, the copies and the block's classes."""
    s = fold_rules.STACK
    f = layer["fold"]
    cw, ch = w - s, h - s
    card = f'width="{cw:.1f}" height="{ch:.1f}" rx="6" fill="{fill}" stroke="#888" stroke-width="1.2"'
    count = f"×{f['copies']}"
    copies = f"{f['copies']} blocks of {f['layers']} layers, to {f['last']}"
    return (f'<rect x="{s}" y="{s}" {card} stroke-opacity="0.7"/>'
            f'<rect x="{s / 2}" y="{s / 2}" {card} stroke-opacity="0.7"/><rect {card}/>'
            + _band(cw, band)
            + f'<text x="8" y="19" font-size="12" font-weight="bold" fill="#222">'
            f'{_fit(layer["name"], cw - 16 - (12 + len(count) * 8), 7.2)}</text>'
            f'<text x="{cw - 10:.1f}" y="20" text-anchor="end" font-size="14" font-weight="bold" '
            f'fill="{band}">{escape(count)}</text>'
            f'<text x="8" y="35" font-size="10" fill="#555">{_fit(copies, cw - 16, 5.6)}</text>'
            f'<text x="8" y="52" font-size="10" fill="#555">{_fit(f["classes"], cw - 16, 5.6)}</text>')


def _inside(inner: dict) -> str:
    """An expanded nested model's own graph inside its box (js/src/scene/boxes.ts drawInside)."""
    at = {b["name"]: b for b in inner["layers"]}
    out = []
    for src, dst in inner["edges"]:
        a, b = at.get(src), at.get(dst)
        if a is None or b is None:
            continue
        px, py, qx, qy = a["x"] + a["w"] / 2, a["y"] + a["h"], b["x"] + b["w"] / 2, b["y"]
        dy = (qy - py) / 2
        out.append(f'<path d="M{px:.1f},{py:.1f} C{px:.1f},{py + dy:.1f} {qx:.1f},{qy - dy:.1f} '
                   f'{qx:.1f},{qy:.1f}" fill="none" stroke="#999" stroke-width="1.2"/>')
    for b in inner["layers"]:
        _fill, band = _colours(MODEL_HUE if b.get("nested") else None)
        out.append(f'<g transform="translate({b["x"]:.1f},{b["y"]:.1f})">'
                   f'<rect width="{b["w"]:.1f}" height="{b["h"]:.1f}" rx="4" fill="#fff" '
                   f'stroke="{band if b.get("output") else "#aaa"}"/>'
                   f'<text x="6" y="14" font-size="10" font-weight="bold" fill="#222">'
                   f'{_fit(b["name"], b["w"] - 12, 6.0)}</text>'
                   f'<text x="6" y="28" font-size="9" fill="#555">'
                   f'{_fit(b["class_name"] + " " + _shape_text(b.get("shape")), b["w"] - 12, 5.0)}'
                   f'</text></g>')
    return "".join(out)


def drawn(state: dict) -> tuple[list[dict], list[tuple]]:
    """The boxes drawn (all but the layers folded runs hide) and the wires drawn, as
    ((src, node, tensor), (dst, call, slot)): those into or out of a folded run attach to its
    box's first port, once per distinct source and slot; wires inside a run are left out
    (js/src/mirror/folds.ts drawnEdges)."""
    layers = state["layers"]
    folded = {layer["name"] for layer in layers if layer.get("fold")}
    hidden = {layer["name"]: layer["run"] for layer in layers
              if layer.get("run") in folded and layer["run"] != layer["name"]}
    wires, seen = [], set()
    for e in state["edges"]:
        src, dst = tuple(e["src"]), tuple(e["dst"])
        if src[0] in hidden:
            src = (hidden[src[0]], 0, 0)
        if dst[0] in hidden:
            dst = (hidden[dst[0]], 0, 0)
        if src[0] == dst[0] and (e["src"][0] in hidden or e["dst"][0] in hidden):
            continue  # inside the run
        if (src, dst) not in seen:
            seen.add((src, dst))
            wires.append((src, dst))
    return [layer for layer in layers if layer["name"] not in hidden], wires


def _column_width(shown: list[dict], sizes: dict) -> tuple[float, float]:
    """(left edge, width) of one column: every box with a margin, and room for detours."""
    left = min(layer["x"] for layer in shown) - MARGIN
    right = max(layer["x"] + sizes[layer["name"]][0] for layer in shown) + MARGIN + DETOUR_ROOM
    return left, right - left


def _span(shown: list[dict], sizes: dict, turned: bool) -> tuple[int, float, float]:
    """(how many columns the picture may have, the length each is cut to, the longest one may
    be): columns side by side as many as fit PAGE_WIDTH, cut to COLUMN_HEIGHT, none over
    MAX_HEIGHT; turned (bands one under another), bands a page wide, as many as fit MAX_HEIGHT."""
    across = _column_width(shown, sizes)[1] + COLUMN_GAP
    if turned:
        length = PAGE_WIDTH - 2 * MARGIN - 2 * BAND_END
        return max(1, int((MAX_HEIGHT + COLUMN_GAP) // across)), length, length
    return max(1, int((PAGE_WIDTH + COLUMN_GAP) // across)), COLUMN_HEIGHT, MAX_HEIGHT


def _bounded(shown: list[dict], sizes: dict, turned: bool = False) -> tuple[list[dict], int]:
    """The boxes that fit the picture's bounded size (`_span`), and how many are left out
    below (or right of) them."""
    top = min(layer["y"] for layer in shown)
    fit, _, longest = _span(shown, sizes, turned)
    limit = top + fit * longest
    kept = [layer for layer in shown if layer["y"] + sizes[layer["name"]][1] <= limit]
    return kept, len(shown) - len(kept)


def _columns(shown: list[dict], sizes: dict, turned: bool = False) -> list[tuple[float, float]]:
    """[top, bottom) of each column: the drawing cut between rows of boxes (never through a
    box) into as many columns as `_span` allows, each about its length."""
    top = min(layer["y"] for layer in shown)
    bottom = max(layer["y"] + sizes[layer["name"]][1] for layer in shown)
    fit, length, _ = _span(shown, sizes, turned)
    whole = turned and bottom - top <= PAGE_WIDTH - 2 * MARGIN  # one band, no ends needed
    count = 1 if whole else min(fit, max(1, math.ceil((bottom - top) / length)))
    if count == 1:
        return [(top, bottom)]
    spans = sorted((layer["y"], layer["y"] + sizes[layer["name"]][1]) for layer in shown)
    cuts, reach = [], top  # a cut is a y no box spans: between rows
    for y0, y1 in spans:
        if y0 > reach:
            cuts.append((reach + y0) / 2)
        reach = max(reach, y1)
    edges, start = [top], top
    if turned:  # bands at most a page wide: cut at the last cut before one would be wider
        last = None
        for cut in [*cuts, bottom]:
            if cut - start > length and last is not None and len(edges) < fit:
                edges.append(last)
                start = last
            last = cut
        return list(itertools.pairwise([*edges, bottom]))
    target = (bottom - top) / count
    for cut in cuts:
        if len(edges) < count and cut - start >= target:
            edges.append(cut)
            start = cut
    edges.append(bottom)
    return list(itertools.pairwise(edges))


def _turned(layers: list[dict], sizes: dict) -> tuple[list[dict], dict]:
    """Boxes mirrored over the diagonal (x and y swapped, and width and height): a drawing that
    flows right is cut into bands as the top-to-bottom drawing it mirrors is cut into columns."""
    return ([{**layer, "x": layer["y"], "y": layer["x"]} for layer in layers],
            {n: (h, w) for n, (w, h) in sizes.items()})


def _turn_path(d: str) -> str:
    """An SVG path mirrored as `_turned` mirrors boxes: each "x,y" pair of it swapped."""
    return _PAIR.sub(r"\2,\1", d)


_PAIR = re.compile(r"(-?[\d.]+),(-?[\d.]+)")


def svg(state: dict) -> str:
    """The drawing in `state` (from `Graph.state()`) as one standalone SVG document."""
    if state.get("direction") == "right":
        return _svg(state, turned=True)
    return _svg(state, turned=False)


def _svg(state: dict, turned: bool) -> str:
    """svg(): where `turned`, the layout (columns, routes) is worked out on the drawing mirrored
    over its diagonal, and each place and path mirrored back as it is written."""
    shown, wires = drawn(state)
    if not shown:
        return ('<svg xmlns="http://www.w3.org/2000/svg" class="kerascanvas-picture" width="240" '
                'height="40" role="img" aria-label="empty kerascanvas drawing"><text x="10" y="24" '
                'font-family="sans-serif" font-size="12" fill="#777">empty drawing</text></svg>')
    sizes = {layer["name"]: box_size(layer) for layer in shown}
    real = {layer["name"]: layer for layer in shown}
    flip = (lambda p: (p[1], p[0])) if turned else (lambda p: p)
    if turned:
        shown, sizes = _turned(shown, sizes)
    shown, left_out = _bounded(shown, sizes, turned)
    filled: dict = {}
    for e in state["edges"]:
        key = (e["dst"][0], e["dst"][1])
        filled[key] = filled.get(key, 0) + 1
    columns = _columns(shown, sizes, turned)
    column_of = {layer["name"]: next(i for i, (_, b) in enumerate(columns) if layer["y"] < b
                                     or i == len(columns) - 1) for layer in shown}
    left, col_width = _column_width(shown, sizes)
    ends = 0.0 if len(columns) == 1 else BAND_END if turned else STUB  # room for wires' labels
    height = max(b - t for t, b in columns) + 2 * MARGIN + 2 * ends
    width = col_width * len(columns) + COLUMN_GAP * (len(columns) - 1)
    if turned:
        width, height = height, width
    if left_out:
        height += 30

    def shift(i: int) -> tuple[float, float]:  # world -> picture, for column i (mirrored where turned)
        return (-left + i * (col_width + COLUMN_GAP), -columns[i][0] + MARGIN + ends)

    title = state.get("name", "model")
    out = [(f'<svg xmlns="http://www.w3.org/2000/svg" class="kerascanvas-picture" viewBox="0 0 '
            f'{width:.0f} {height:.0f}" width="{min(width, PAGE_WIDTH):.0f}" role="img" '
            f'aria-label={quoteattr(f"kerascanvas drawing of {title}")} font-family="sans-serif">'),
           f"<title>{escape(str(title))}</title>",
           f'<rect width="{width:.0f}" height="{height:.0f}" fill="#fafafa"/>']
    where = {layer["name"]: ports(real[layer["name"]], filled) for layer in shown}
    if turned:
        where = {n: tuple({k: flip(p) for k, p in side.items()} for side in sides)
                 for n, sides in where.items()}
    # by top: a wire looks only at the boxes whose top lies between its ends (O(layers + edges))
    rects = sorted(((layer["x"], layer["y"], *sizes[layer["name"]]) for layer in shown),
                   key=lambda r: r[1])
    tops = [r[1] for r in rects]
    detours = 0
    for (src, n, t), (dst, k, s) in wires:
        a = where.get(src, ({}, {}))[1].get((n, t))
        b = where.get(dst, ({}, {}))[0].get((k, s))
        if a is None or b is None:
            continue
        ca, cb = column_of[src], column_of[dst]
        if ca == cb:
            between = rects[bisect_right(tops, a[1]):bisect_right(tops, b[1])]
            path, detoured = _route(a, b, between, detours)
            detours += detoured
            dx, dy = flip(shift(ca))
            out.append(f'<path class="wire" transform="translate({dx:.1f},{dy:.1f})" '
                       f'd="{_turn_path(path) if turned else path}" fill="none" stroke="#777" '
                       'stroke-width="1.6"/>')
        else:  # to another column: out at the bottom of this one, in at the top of that one
            out.append(_stub(a, columns[ca][1], shift(ca), f"to {dst}", down=True, turned=turned))
            out.append(_stub(b, columns[cb][0], shift(cb), f"from {src}", down=False, turned=turned))
    for layer in shown:
        dx, dy = flip(shift(column_of[layer["name"]]))
        x, y = flip((layer["x"], layer["y"]))
        w, h = flip(sizes[layer["name"]])
        out.append(f'<g transform="translate({x + dx:.1f},{y + dy:.1f})">'
                   f'{_box(real[layer["name"]], w, h)}</g>')
        ins, outs = where[layer["name"]]
        if not layer.get("fold"):  # (a folded box shows no ports)
            out.extend(f'<circle cx="{px + dx:.1f}" cy="{py + dy:.1f}" r="4" fill="#fff" stroke="#777"/>'
                       for px, py in map(flip, [*ins.values(), *outs.values()]))
    if left_out:
        out.append(f'<text x="{MARGIN}" y="{height - 12:.0f}" font-size="12" fill="#555">… and '
                   f'{left_out} more box{"es" * (left_out != 1)} {"after" if turned else "below"}: the drawing is too big for '
                   'one picture (g.to_html writes all of it)</text>')
    out.append("</svg>")
    return "".join(out)


def _stub(port, edge: float, shift, label: str, down: bool, turned: bool = False) -> str:
    """A wire's end in a column it leaves (down to the column's bottom) or enters (from its top);
    `turned`: in a band of a drawing that flows right (out at its right end, in at its left)."""
    x, y = port[0] + shift[0], port[1] + shift[1]
    end = edge + shift[1] + (STUB * 0.6 if down else -STUB * 0.6)
    if turned:  # (x, y) and end are the mirror's: the wire runs along the band
        return (f'<path class="wire" d="M{y:.1f},{x:.1f} L{end:.1f},{x:.1f}" fill="none" '
                f'stroke="#777" stroke-width="1.6" stroke-dasharray="4 3"/>'
                f'<text x="{end + 3 if down else end - 3:.1f}" y="{x - 4:.1f}" font-size="9" '
                f'fill="#555" text-anchor="{"start" if down else "end"}">'
                f'{"→ " if down else ""}{_fit(label, BAND_END - 28, 5.0)}{"" if down else " →"}</text>')
    ty = end + 12 if down else end - 4
    return (f'<path class="wire" d="M{x:.1f},{y:.1f} L{x:.1f},{end:.1f}" fill="none" stroke="#777" '
            f'stroke-width="1.6" stroke-dasharray="4 3"/>'
            f'<text x="{x + 4:.1f}" y="{ty:.1f}" font-size="9" fill="#555">'
            f'↓ {_fit(label, 160, 5.0)}</text>')


def _route(a, b, rects, detours: int) -> tuple[str, bool]:
    """A curve from port a down to slot b; when boxes stand between them (a skip connection),
    a path that goes round their right side instead of behind them, each detour a little
    further out so that parallel ones stay apart. rects: the boxes whose top is in between."""
    lo, hi = min(a[0], b[0]) - 6, max(a[0], b[0]) + 6
    between = [r for r in rects if r[1] > a[1] and r[1] + r[3] < b[1]
               and r[0] < hi and r[0] + r[2] > lo]
    if not between:
        dy = max(30.0, abs(b[1] - a[1]) / 2)
        return (f"M{a[0]:.1f},{a[1]:.1f} C{a[0]:.1f},{a[1] + dy:.1f} {b[0]:.1f},{b[1] - dy:.1f} "
                f"{b[0]:.1f},{b[1]:.1f}"), False
    x = max(r[0] + r[2] for r in between) + 14 + 8 * (detours % 4)
    y1, y2 = a[1] + 14, b[1] - 14
    return (f"M{a[0]:.1f},{a[1]:.1f} Q{a[0]:.1f},{y1:.1f} {(a[0] + x) / 2:.1f},{y1:.1f} "
            f"L{x - 8:.1f},{y1:.1f} Q{x:.1f},{y1:.1f} {x:.1f},{y1 + 8:.1f} L{x:.1f},{y2 - 8:.1f} "
            f"Q{x:.1f},{y2:.1f} {x - 8:.1f},{y2:.1f} L{(b[0] + x) / 2:.1f},{y2:.1f} "
            f"Q{b[0]:.1f},{y2:.1f} {b[0]:.1f},{b[1]:.1f}"), True
