"""What an expanded nested-model box shows: the model's own graph, laid out by its depth map,
with its runs of repeated blocks folded as they are for a model imported alone.

The inside is read-only on the canvas (a nested model is edited as one box), so it is computed
from the live Keras model, once per model object: a built model's graph never changes in place.
Coordinates are relative to the outer box's top-left corner; the box grows to hold them.

Runs (kerascanvas/geometry/repeats.py, found on the inner graph as on a drawing) start folded: a
run's first layer stands for it as one box ("fold": what its box says), the run's other layers
are listed with "hidden" naming that first layer and are placed where its box is (as the
canvas places the layers of a folded run), and edges into or out of the run attach to its box.
Unfolding one is a choice of the browser's alone (the inside is read-only): each run says where
its layers go relative to its box when it alone is unfolded and how far the boxes below it move
down ("runs": [{"head", "members", "offsets", "grow"}]); "links" are all the inner edges.
"""

from __future__ import annotations

from weakref import WeakKeyDictionary

from ..geometry import folds
from ..geometry.layout import Placer, rows
from ..geometry.repeats import repeated_blocks
from ..network.inside import takes_lora, targets

BOX = (150.0, 36.0)  # an inner box
FOLDED = (190.0, 50.0)  # an inner folded run's box, its stacked cards included
STACK = 6.0  # the cards behind an inner folded run's box show this far
GAP = (16.0, 22.0)
PADDING = (12.0, 48.0, 12.0, 12.0)  # left, top (room for the outer box's header), right, bottom
MIN_WIDTH = 180.0  # a collapsed box's width (js/src/mirror/geometry.ts BOX_WIDTH)

_views: WeakKeyDictionary = WeakKeyDictionary()


def inner_view(model) -> dict | None:
    """{"layers": [{name, class_name, x, y, w, h, nested, output, shape, hidden, lora, fold}],
    "edges": [[src, dst], ...], "width", "height", "runs": [{head, members, offsets, grow}],
    "links": [[src, dst], ...]}: the boxes
    and edges of `model`'s own graph, inside the outer box, its runs folded. None while the
    model has no graph yet (a Sequential without an Input, not called yet)."""
    from ..errors import EditError

    view = _views.get(model)
    if view is None:
        try:
            view = _views[model] = _lay_out(model)
        except EditError:
            return None
    return view


class _Inside:
    """The inner graph as plain data: names, classes, links, depths, shapes and its runs."""

    def __init__(self, model):
        from .importer import class_name, walk

        w = walk(model)
        self.names = [layer.name for layer in w.inputs] + [op.name for op in w.layers]
        self.links = list(dict.fromkeys((src[0], name) for name, calls in w.calls.items()
                                        for call in calls for src in call))
        self.depth = {op.name: d for d, ops in w.model._operations_by_depth.items() for op in ops}
        self.classes = {layer.name: "InputLayer" for layer in w.inputs}
        self.classes.update((op.name, class_name(op)) for op in w.layers)
        self.outputs = {t[0] for t in w.outputs}
        self.shapes = {op.name: _first_shape(op) for op in [*w.inputs, *w.layers]}
        # what its menu's "LoRA..." may offer (graph/lora.py): a layer that takes it, or one
        # holding the query and value a KerasHub backbone gives it
        self.lora = {op.name for op in w.layers if takes_lora(op) or targets(op)}
        specs = {layer.name: {"class_name": "InputLayer", "config": {"name": layer.name}}
                 for layer in w.inputs}
        specs.update((op.name, {"class_name": self.classes[op.name],
                                "config": w.configs.get(op.name, {})}) for op in w.layers)
        edges = [(src, (name, k, slot)) for name, calls in w.calls.items()
                 for k, call in enumerate(calls)
                 for src, slot in zip(call, w.targets[name][k])]
        self.runs = folds.index(repeated_blocks(specs, edges))[1]  # {head: run}
        self.rows = rows(self.depth, self.links, self.names)  # the depth layout's rows, all unfolded


def _lay_out(model) -> dict:
    inside = _Inside(model)
    heads = list(inside.runs)
    view = _view(inside, folded=set(heads))
    at = {b["name"]: b for b in view["layers"]}
    runs = []
    for head in heads:  # each run unfolded alone: where its layers go, relative to its box
        alone = {b["name"]: b for b in _view(inside, folded=set(heads) - {head})["layers"]}
        members = [n for b in inside.runs[head].blocks for n in b]
        hx, hy = alone[head]["x"], alone[head]["y"]
        bottom = max(alone[n]["y"] + alone[n]["h"] for n in members)
        runs.append({"head": head, "members": members,
                     "offsets": [[alone[n]["x"] - hx, alone[n]["y"] - hy] for n in members],
                     # what the boxes below its folded box move down by while it is unfolded
                     "grow": (bottom - hy) - at[head]["h"]})
    view["runs"] = runs
    view["links"] = [list(link) for link in inside.links]  # every edge, folded or not
    return view


def _view(inside: _Inside, folded: set[str]) -> dict:
    """The inside with the runs whose first layer is in `folded` folded."""
    hidden = folds.hidden(inside.runs, folded)  # {layer: head}
    shown = [n for n in inside.names if n not in hidden]
    links = list(dict.fromkeys((hidden.get(a, a), hidden.get(b, b)) for a, b in inside.links
                               if hidden.get(a, a) != hidden.get(b, b)))
    # a folded run is one box in its first layer's row: the rows it emptied go (as graph/view.py)
    kept = [row for row in ([n for n in row if n not in hidden] for row in inside.rows) if row]
    sizes = {n: (FOLDED if n in folded else BOX) for n in shown}
    at = Placer(kept, sizes, GAP).place({})
    left, top, right, bottom = PADDING
    x0 = min((at[n][0] for n in shown), default=0.0)
    y0 = min((at[n][1] for n in shown), default=0.0)
    place = {n: (at[n][0] - x0 + left, at[n][1] - y0 + top) for n in shown}
    place.update((n, place[head]) for n, head in hidden.items())

    def box(n: str) -> dict:
        w, h = sizes.get(n, BOX)
        run = inside.runs.get(n) if n in folded else None
        return {"name": n, "class_name": inside.classes[n], "x": place[n][0], "y": place[n][1],
                "w": w, "h": h, "nested": inside.classes[n] in ("Functional", "Sequential"),
                "output": n in inside.outputs, "shape": inside.shapes.get(n),
                "hidden": hidden.get(n), "lora": n in inside.lora,
                "fold": None if run is None else {**folds.info(run), "stack": STACK}}

    # the layers a fold hides first: a picture that draws every box in order covers them
    layers = [box(n) for n in inside.names if n in hidden] + [box(n) for n in shown]
    width = max((b["x"] + b["w"] for b in layers), default=left) + right
    height = max((b["y"] + b["h"] for b in layers), default=top) + bottom
    if width < MIN_WIDTH:  # centre a narrow inside in a box as wide as a collapsed one
        for b in layers:
            b["x"] += (MIN_WIDTH - width) / 2
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
