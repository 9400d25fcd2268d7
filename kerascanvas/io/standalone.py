"""`g.to_html(path)`: the drawing as one self-contained HTML file, a read-only interactive view
that needs no kernel and no network (pan, zoom, fold and unfold, find, a box's class, config,
shapes, parameters and Keras nodes, a wire's tensor).

The file runs the canvas's own front end (kerascanvas/static/viewer.js: the built widget with a
read-only in-memory model, js/src/viewer.ts) inlined in a classic <script>, so that it opens from
disk (no ES module is fetched from file://). What the kernel would answer (each layer's and each
edge's explanation, the code, each run's folded box) is computed here and embedded as JSON: its
text cannot close the <script> that holds it (`<`, `>` and `&` are written as JSON escapes), and
the front end renders every string in it as text. A Content-Security-Policy of `default-src
'none'` keeps the page from loading or sending anything.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from html import escape
from pathlib import Path
from typing import Any

from ..geometry import boxes, folds, layout
from ..kinds import kinds
from ..kinds.kinds import NESTED_MODEL_CLASSES
from .inner import inner_view

VIEWER = Path(__file__).parents[1] / "static" / "viewer.js"
FORMAT = 1  # the embedded data's shape (js/src/mirror/readonly.ts ViewerData)

_POLICY = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
           "img-src data: blob:; font-src data:")


def viewer_data(g, comparison: dict | None = None) -> dict:
    """Everything the read-only view shows or answers, as JSON-able data. comparison: the
    changes marked on the drawing (io/compare_marks.py `view`), shown as the canvas shows them."""
    from ..errors import EditError

    state = g.state()
    explain = {}
    for layer in state["layers"]:
        name = layer["name"]
        built = sum(1 for call in layer["calls"] if call["built"])
        explain[name] = {"layer": g.explain_layer(name).data,
                         "nodes": [g.explain_node(name, k).data for k in range(built)]}
    edges = {}
    for e in state["edges"]:
        key = _edge_key(e["src"], e["dst"])
        try:
            edges[key] = g.explain_edge(tuple(e["src"]), *e["dst"]).data
        except (EditError, ValueError):  # a wire from a pending call carries no tensor yet
            edges[key] = None
    try:
        code = {"code": g.to_code(), "error": None}
    except (EditError, ValueError, TypeError, RuntimeError) as e:
        code = {"code": None, "error": str(e)}
    width, height = folds.size()
    return {"format": FORMAT, "state": state, "explain": explain, "edges": edges, "code": code,
            "palette": kinds.palette(),  # the inspector's forms show a config by it
            "runs": _runs(g, state), "folded_size": [width, height], "inner": _insides(g, state),
            "comparison": comparison or {}}


def _runs(g, state: dict) -> dict:
    """Each run of repeated blocks, as the view folds and unfolds it: what its folded box says,
    and where its layers stand unfolded, from its first layer's box (a folded run's layers are
    placed as the layout would place them all unfolded)."""
    runs = g.repeats
    if not runs:
        return {}
    layers = {layer["name"]: layer for layer in state["layers"]}
    into = Counter((e["dst"][0], e["dst"][1]) for e in state["edges"])

    def plain_size(name: str) -> tuple[float, float]:
        spec = g.specs[name]
        return boxes.box_size(spec, [into[(name, k)] for k in range(spec.calls)],
                              direction=g.direction)

    natural = None
    if any(layers[run.blocks[0][0]].get("fold") for run in runs):
        links = [(e["src"][0], e["dst"][0]) for e in state["edges"]]
        rows = layout.rows(g.depth.layer_depth, links, list(layers))
        sizes = {n: plain_size(n) if layer.get("fold") else (layer["w"], layer["h"])
                 for n, layer in layers.items()}
        natural = layout.place(rows, {}, sizes, layout.gap_for(g.direction), g.direction)
    out = {}
    for run in runs:
        head = run.blocks[0][0]
        at = natural if layers[head].get("fold") else {n: (layer["x"], layer["y"])
                                                       for n, layer in layers.items()}
        x0, y0 = at[head]
        out[head] = {"info": folds.info(run),
                     "members": {n: [at[n][0] - x0, at[n][1] - y0] for block in run.blocks
                                 for n in block},
                     "size": list(plain_size(head))}
    return out


def _insides(g, state: dict) -> dict:
    """The inside of every nested model (shown when its box is expanded)."""
    out = {}
    for layer in state["layers"]:
        if layer["class_name"] in NESTED_MODEL_CLASSES:
            inside = inner_view(g.keras_layer(layer["name"]))
            if inside is not None:
                out[layer["name"]] = inside
    return out


def _edge_key(src, dst) -> str:
    """An edge's key as js/src/mirror/readonly.ts makes it."""
    return f"{src[0]}:{src[1]}:{src[2]}>{dst[0]}:{dst[1]}:{dst[2]}"


def script_json(value: Any) -> str:
    """JSON that can stand inside a <script> element: no `<`, `>` or `&` in its text (each is
    written as its \\u escape, which JSON reads back as the same character)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026") \
        .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _viewer_script() -> str:
    if not VIEWER.is_file():
        raise RuntimeError(f"The front end is not built ({VIEWER} is missing): run `npm run build` "
                           "in js/ (installing kerascanvas builds it).")
    code = VIEWER.read_text(encoding="utf-8")
    return re.sub(r"</(script)", r"<\\/\1", code, flags=re.IGNORECASE)  # (inside JS strings)


def html(g, comparison: dict | None = None) -> str:
    """The standalone HTML document of `g` (what `to_html` writes), its changes marked when a
    comparison is given (io/compare_marks.py `view`)."""
    data = viewer_data(g, comparison)
    title = escape(f"{g.name} · kerascanvas", quote=True)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{_POLICY}\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<meta name=\"generator\" content=\"kerascanvas\"><title>{title}</title>"
            "<style>html,body{margin:0;padding:0;font-family:system-ui,sans-serif;background:#fff}"
            "#kc-app{padding:8px}</style></head>\n<body><div id=\"kc-app\"></div>\n"
            f"<script type=\"application/json\" id=\"kc-data\">{script_json(data)}</script>\n"
            f"<script>{_viewer_script()}</script>\n</body></html>\n")


def to_html(g, path, comparison: dict | None = None) -> Path:
    """Write `g`'s standalone view to `path` (UTF-8); returns the path."""
    path = Path(path)
    path.write_text(html(g, comparison), encoding="utf-8")
    return path
