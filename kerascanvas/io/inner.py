"""What an expanded nested-model box shows: the model's own graph, laid out by its depth map.

The inside is read-only on the canvas (a nested model is edited as one box), so it is computed
from the live Keras model, once per model object: a built model's graph never changes in place.
Coordinates are relative to the outer box's top-left corner; the box grows to hold them.
"""

from __future__ import annotations

from weakref import WeakKeyDictionary

from ..geometry.layout import layout

BOX = (150.0, 36.0)  # an inner box
GAP = (16.0, 22.0)
PADDING = (12.0, 48.0, 12.0, 12.0)  # left, top (room for the outer box's header), right, bottom
MIN_WIDTH = 180.0  # a collapsed box's width (js/src/mirror/geometry.ts BOX_WIDTH)

_views: WeakKeyDictionary = WeakKeyDictionary()


def inner_view(model) -> dict | None:
    """{"layers": [{name, class_name, x, y, w, h, nested, output, shape}], "edges": [[src, dst], ...],
    "width", "height"}: the boxes and edges of `model`'s own graph, inside the outer box.
    None while the model has no graph yet (a Sequential without an Input, not called yet)."""
    from ..errors import EditError

    view = _views.get(model)
    if view is None:
        try:
            view = _views[model] = _lay_out(model)
        except EditError:
            return None
    return view


def _lay_out(model) -> dict:
    from .importer import class_name, walk

    w = walk(model)
    names = [layer.name for layer in w.inputs] + [op.name for op in w.layers]
    links = list(dict.fromkeys((src[0], name) for name, calls in w.calls.items()
                               for call in calls for src in call))
    depth = {op.name: d for d, ops in w.model._operations_by_depth.items() for op in ops}
    at = layout(depth, links, names, size=BOX, gap=GAP)
    left, top, right, bottom = PADDING
    x0 = min((x for x, _ in at.values()), default=0.0)
    y0 = min((y for _, y in at.values()), default=0.0)
    classes = {layer.name: "InputLayer" for layer in w.inputs}
    classes.update((op.name, class_name(op)) for op in w.layers)
    outputs = {t[0] for t in w.outputs}
    shapes = {op.name: _first_shape(op) for op in [*w.inputs, *w.layers]}
    layers = [{"name": n, "class_name": classes[n], "x": at[n][0] - x0 + left,
               "y": at[n][1] - y0 + top, "w": BOX[0], "h": BOX[1],
               "nested": classes[n] in ("Functional", "Sequential"), "output": n in outputs,
               "shape": shapes.get(n)}
              for n in names]
    width = max((item["x"] + BOX[0] for item in layers), default=left) + right
    height = max((item["y"] + BOX[1] for item in layers), default=top) + bottom
    if width < MIN_WIDTH:  # centre a narrow inside in a box as wide as a collapsed one
        for item in layers:
            item["x"] += (MIN_WIDTH - width) / 2
        width = MIN_WIDTH
    return {"layers": layers, "edges": [list(link) for link in links],
            "width": width, "height": height}


def _first_shape(op) -> list | None:
    """The shape of a layer's first output in its first call (what its box says it makes)."""
    try:
        tensor = op._inbound_nodes[0].output_tensors[0]
    except (IndexError, AttributeError):
        return None
    return [None if d is None else int(d) for d in tensor.shape]
