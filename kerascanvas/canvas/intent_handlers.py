"""What each intent from the browser does: one table, intent kind -> handler, and one dispatch.

A handler takes the canvas it answers for (through `Host`, the few public things an intent may use:
its Graph, its file, its training) and the message, whose fields it reads through intent_checks.py;
it edits through the same Graph methods Python code calls and returns the intent's result. Kinds and
field types come from intents.json (intents.py), which the front end reads too."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple, Protocol

from .. import limits
from ..errors import EditError
from ..graph.graph import Graph
from ..kinds import catalog, kinds
from ..words import canvas_words
from . import intent_checks as check
from . import intents, placement
from .intent_checks import IntentError


class Host(Protocol):
    """What intents may use of the canvas besides its Graph (kc.Canvas is one)."""

    graph: Graph

    path: str

    def save(self, path: str | None = None) -> str: ...

    def load(self, path: str | None = None) -> str: ...

    def fit(self, block: bool = True, **fit_kwargs: Any) -> Any: ...

    def stop(self) -> None: ...

    def undo(self) -> None: ...

    def example(self) -> list[str]: ...

    def wire_state(self) -> dict: ...

    comparison: dict

    def compare_with(self, other: Any) -> Any: ...

    def compare_choices(self) -> dict: ...

    @property
    def training_data(self) -> tuple | None: ...


class Intent(NamedTuple):
    """A handler, and whether the intent may change the drawing (an edit refused after it ran,
    its new state too big to send, is undone)."""

    handler: Callable[[Host, dict], Any]
    edits: bool


def dispatch(host: Host, message: Any) -> Any:
    """Apply one intent (a dict from the browser) for `host`; returns its result. IntentError
    (or the Graph's EditError) says why it was refused; nothing changed then."""
    if not isinstance(message, dict):
        raise IntentError(f"An intent is an object, got {type(message).__name__}.")
    try:
        kind = intents.check(message)  # a kind the description knows, its fields' types
    except ValueError as e:
        raise IntentError(str(e)) from None
    return INTENTS[kind].handler(host, message)


def edits(kind: Any) -> bool:
    """Whether intent `kind` may change the drawing (False for reads and unknown kinds)."""
    return isinstance(kind, str) and kind in INTENTS and INTENTS[kind].edits


# ----- edits ------------------------------------------------------------------------------------

def _stable(g: Graph, edit: Callable[[], Any]) -> Any:
    """An edit that leaves every box where it is (the layout does not move them)."""
    with g.batch():
        placement.freeze(g)
        return edit()


def _place(g: Graph, name: str, m: dict) -> None:
    """A dropped box lands at (x, y), or in the nearest free space (never on another box)."""
    at = check.drop_point(m)
    if at is not None:
        placement.place(g, name, at, check.view(m))


def _add_layer(host: Host, m: dict) -> str:
    g = host.graph
    class_name = m.get("class_name")
    if not kinds.offered(class_name):  # catalog, allow-listed keras.ops, registered classes
        raise IntentError(f"{class_name!r:.80} is not a layer the canvas offers.")
    src = None if m.get("src") is None else check.port(m, "src")
    with g.batch():
        placement.freeze(g)
        name = g.add_layer(class_name, check.optional_name(m), **check.config(m))
        _place(g, name, m)
        if src is not None:  # a wire dropped in empty space: the new layer takes its tensor
            g.connect(src, name)
    return name


def _add_input(host: Host, m: dict) -> str:
    g = host.graph
    dtype = check.input_dtype(m.get("dtype", "float32"))
    with g.batch():
        placement.freeze(g)
        name = g.add_input(check.shape(m), check.optional_name(m), dtype=dtype)
        _place(g, name, m)
    return name


def _configure(host: Host, m: dict) -> None:
    g = host.graph
    name, config = check.layer_name(m), check.config(m)
    if "name" in config:  # the inspector's name field sends a rename (Keras names are unique)
        raise IntentError("Change the name in the name field (or Rename in the box's menu).")
    if name in g.inputs and "dtype" in config:  # the same dtypes as add_input
        check.input_dtype(config["dtype"])
    g.configure(name, **config)


def _set_trainable(host: Host, m: dict) -> None:
    """Freeze or unfreeze a box, a folded run or a layer inside a nested model (by path): one
    undo step (graph/trainable.py)."""
    host.graph.set_trainable(check.layer_path(m), check.flag(m, "trainable"))


def _freeze_before(host: Host, m: dict) -> None:
    """Freeze every layer upstream of a box: one undo step."""
    host.graph.freeze_before(check.layer_name(m))


def _enable_lora(host: Host, m: dict) -> None:
    """LoRA on a box or a layer inside a nested model (by path), at a rank the graph checks:
    one undo step (graph/lora.py)."""
    host.graph.enable_lora(check.layer_path(m), m["rank"])


def _quantize(host: Host, m: dict) -> None:
    """Quantize a box, or with no name every box that takes the mode: one undo step
    (graph/quantize.py checks the mode)."""
    host.graph.quantize(check.optional_name(m), m["mode"])


def _configure_call(host: Host, m: dict) -> None:
    """A call's settings edited in the inspector: one undo step."""
    g = host.graph
    name, call = check.layer_name(m), check.index(m, "call")
    if name not in g.layers:
        raise IntentError(f"There is no layer named {name!r:.80}.")
    if call >= g.calls(name):
        raise IntentError(f"{name} has calls 0..{g.calls(name) - 1}; there is no call {call}.")
    g.configure_call(name, call, **check.call_settings(m["settings"]))


def _connect(edit: Callable) -> Callable[[Host, dict], None]:
    """connect or disconnect: the edge from port `src` into slot `dst`."""
    def handler(host: Host, m: dict) -> None:
        dst, call, slot = check.slot(m, "dst", optional_slot=True)
        _stable(host.graph, lambda: edit(host.graph, check.port(m, "src"), dst, call=call,
                                          slot=slot))
    return handler


def _remove(host: Host, m: dict) -> None:
    g = host.graph
    names = check.names(m)
    bridge = m.get("bridge", False) is True
    try:
        with g.batch():
            placement.freeze(g)
            for name in names:
                g.remove(name, bridge=bridge)
    except EditError as e:
        if not bridge or "Keras refused" not in str(e):
            raise
        # which gesture failed comes before Keras's reason, with the one that works
        joined = ", ".join(names)
        raise EditError(f"{joined} cannot be deleted keeping the chain joined (Delete alone "
                        f"removes it and its edges): {e}") from e


def _insert_layer(host: Host, m: dict) -> str:
    """A palette layer dropped on a wire: added, placed there, and put into the wire (one undo
    step); the boxes below the wire make room when it is too short."""
    g = host.graph
    class_name = m["class_name"]
    if class_name not in catalog.names():
        raise IntentError(f"{class_name!r:.80} is not a layer the canvas offers.")
    src, dst = check.port(m, "src"), check.slot(m, "dst")
    with g.batch():
        placement.freeze(g)
        name = g.add_layer(class_name)
        at = check.drop_point(m)
        if at is not None:
            placement.place_on_wire(g, name, src, at)
        g.insert(name, src, dst[0], dst[1], dst[2])
    return name


def _duplicate(host: Host, m: dict) -> dict:
    """Copies of boxes (paste): placed together in free space in the view when the browser says
    where it looks, leaving every other box where it is."""
    g = host.graph
    names = check.names(m)
    view = check.view(m)
    with g.batch():
        placement.freeze(g)
        mapping = g.duplicate(names)
        if view is not None:
            placement.place_copies(g, names, mapping, view)
    return mapping


def _rewire(host: Host, m: dict) -> None:
    """An edge's end dragged to another slot (`new`), or to empty space (`new` null: unplugged)."""
    g = host.graph
    new = None if m.get("new") is None else check.slot(m, "new", optional_slot=True)
    _stable(g, lambda: g.rewire(check.port(m, "src"), check.slot(m, "old"), new))


def _set_outputs(host: Host, m: dict) -> None:
    """The model's outputs marked and ordered on the canvas (internals.py): one undo step."""
    from ..teaching.internals import set_outputs_intent

    set_outputs_intent(host.graph, m["outputs"], m.get("keys"), lambda p: check.port({"p": p}, "p"))


# ----- reads ------------------------------------------------------------------------------------

def _layer(host: Host, m: dict) -> str:
    """The drawn layer `name` names (IntentError when there is none)."""
    name = check.layer_name(m)
    if name not in host.graph.layers:
        raise IntentError(f"There is no layer named {name!r:.80}.")
    return name


def _accepts(host: Host, m: dict) -> dict:
    """Which catalog classes and which free slots of the drawing take the tensor of port `src`
    (asked once per wire drag)."""
    from ..kinds.accepts import classes_accepting, ports_accepting

    g = host.graph
    src = check.port(m, "src")
    if src[0] not in g.layers:
        raise IntentError(f"There is no layer named {src[0]!r:.80}.")
    tensor = g.tensor(src)
    if tensor is None:  # a pending call: its shape is not known yet, everything is offered
        return {"classes": None, "accept": [], "refuse": []}
    return {"classes": classes_accepting(tensor), **ports_accepting(g, tensor)}


def _explain(host: Host, m: dict) -> dict:
    """The teaching view of a layer: its nodes with their Keras 2 coordinates, read live."""
    g, name = host.graph, _layer(host, m)
    nodes = len(g.keras_layer(name)._inbound_nodes)
    return {"layer": g.explain_layer(name).data,
            "nodes": [g.explain_node(name, k).data for k in range(nodes)]}


def _inspect(host: Host, m: dict) -> dict:
    """The inspector's fields of a layer, or of a layer inside a nested model ("outer/inner"):
    one per key of the live layer's get_config(), each with its value, form kind and whether
    the kernel can check an edit of it (mirror/fields.py)."""
    from ..mirror import fields

    path = check.layer_path(m)
    try:
        found = fields.inspect_layer(host.graph, path)
    except fields.PathError as e:
        raise IntentError(str(e)) from None
    if found["is_input"]:  # the dtypes an Input made or configured from the browser may hold
        for field in found["fields"]:
            if field["name"] == "dtype" and field["editable"]:
                choices = list(check.INPUT_DTYPES)
                field.update(kind="choice", choices=choices + [field["value"]] * (
                    field["value"] not in choices))
    return found


def _explain_edge(host: Host, m: dict) -> dict:
    """The KerasTensor an edge carries and its _keras_history."""
    return host.graph.explain_edge(check.port(m, "src"), *check.slot(m, "dst")).data


def _depth_steps(host: Host, m: dict) -> list:
    """Seed 000's depth computation on this graph, as steps the canvas plays back."""
    from ..teaching.teaching import walk_payload

    return walk_payload(host.graph)


def _forward_steps(host: Host, m: dict) -> list:
    """The forward pass node by node on one sample that means something for the model's inputs
    (teaching/sample.py): shapes, statistics, small pictures; each Input's step says what it was
    fed."""
    from ..teaching.sample import forward_sample

    model = host.graph.model
    if model is None:
        raise IntentError("The drawing is not a model yet: " + "; ".join(map(str, host.graph.problems)))
    limits.check_forward(model)  # before a sample is made or read
    sample, fed = forward_sample(model, host.training_data)
    steps = host.graph.forward_steps(sample)
    for step in steps:
        step.fed = fed.get(step.layer) if step.is_input else None
    return [s.payload() for s in steps]


def _internals(host: Host, m: dict) -> dict:
    from ..teaching.internals import internals

    return internals(host.graph, check.layer_name(m))


def _node_graph(host: Host, m: dict) -> dict:
    from ..teaching.internals import node_graph

    return node_graph(host.graph)


def _code(host: Host, m: dict) -> dict:
    """The export-code panel's text: `g.to_code()`, or why there is none yet."""
    try:
        return {"code": host.graph.to_code(), "error": None}
    except (EditError, ValueError, TypeError, RuntimeError) as e:
        return {"code": None, "error": canvas_words(str(e))}


def _export_html(host: Host, m: dict) -> dict:
    """The Export HTML button's file: the standalone read-only view (kerascanvas/io/standalone.py)."""
    from ..io.standalone import html

    return {"html": html(host.graph, host.comparison), "name": host.graph.name}


COMPARE_AGAINST = ("imported", "saved", "snapshot", "none")


def _compare(host: Host, m: dict) -> dict:
    """"Compare with...": the drawing as imported, as saved, or a snapshot kept by name (never a
    file: the browser names none), or "none" to end it. Returns the summary shown."""
    against = m["against"]
    if against not in COMPARE_AGAINST:
        raise IntentError(f"Compare with {against!r:.80}? The canvas compares with "
                          f"{', '.join(COMPARE_AGAINST)}.")
    if against == "none":
        host.compare_with(None)
        return {"summary": None}
    other: Any = against
    if against == "snapshot":
        name = m.get("snapshot")
        if not isinstance(name, str) or name not in host.graph.snapshots:
            raise IntentError(f"There is no snapshot named {name!r:.80} (g.snapshot(name) keeps "
                              "one).")
        other = host.graph.snapshots[name]
    elif m.get("snapshot") is not None:
        raise IntentError(f"A snapshot's name goes with against='snapshot', not {against!r}.")
    result = host.compare_with(other)
    from ..io.compare_marks import summary

    return {"summary": summary(result)}


def _state(host: Host, m: dict) -> dict:
    """The whole state, when the browser lost a diff (or holds a stale snapshot)."""
    check.state_request(m)
    return host.wire_state()


def _train(host: Host, m: dict) -> None:
    """The Train button: a run in the background, with the panel's checked options."""
    host.fit(block=False, **check.panel_options(m))


def _edit(handler: Callable[[Host, dict], Any]) -> Intent:
    return Intent(handler, edits=True)


def _read(handler: Callable[[Host, dict], Any]) -> Intent:
    return Intent(handler, edits=False)


INTENTS: dict[str, Intent] = {
    # reads: they change nothing in the drawing
    "explain": _read(_explain),
    "explain_edge": _read(_explain_edge),
    "inspect": _read(_inspect),
    "depth_steps": _read(_depth_steps),
    "forward_steps": _read(_forward_steps),
    "internals": _read(_internals),
    "node_graph": _read(_node_graph),
    "accepts": _read(_accepts),
    "code": _read(_code),
    "export_html": _read(_export_html),
    # what the drawing is compared with: a view of it, the drawing unchanged
    "compare_choices": _read(lambda h, m: h.compare_choices()),
    "compare": _read(_compare),
    "state": _read(_state),
    # edits of the drawing, each one undo step
    "set_outputs": _edit(_set_outputs),
    "add_layer": _edit(_add_layer),
    "add_input": _edit(_add_input),
    "example": _edit(lambda h, m: h.example()),  # an empty canvas's "Start from an example"
    "connect": _edit(_connect(Graph.connect)),
    "disconnect": _edit(_connect(Graph.disconnect)),
    "remove": _edit(_remove),
    "rename": _edit(lambda h, m: h.graph.rename(check.layer_name(m), check.layer_name(m, "new_name"))),
    "configure": _edit(_configure),
    "set_trainable": _edit(_set_trainable),
    "freeze_before": _edit(_freeze_before),
    "enable_lora": _edit(_enable_lora),
    "quantize": _edit(_quantize),
    "add_call": _edit(lambda h, m: h.graph.add_call(check.layer_name(m))),
    "remove_call": _edit(lambda h, m: h.graph.remove_call(check.layer_name(m), check.index(m, "call"))),
    "configure_call": _edit(_configure_call),
    "move": _edit(lambda h, m: h.graph.move(check.layer_name(m), check.number(m, "x"),
                                            check.number(m, "y"))),
    "arrange": _edit(lambda h, m: h.graph.arrange()),
    "expand": _edit(lambda h, m: h.graph.expand(check.layer_name(m), m["open"])),
    "fold": _edit(lambda h, m: h.graph.fold(check.layer_name(m), m["folded"])),
    "fold_all": _edit(lambda h, m: h.graph.fold_all(m["folded"])),
    "set_direction": _edit(lambda h, m: h.graph.set_direction(m["direction"])),
    "duplicate": _edit(_duplicate),
    "insert_layer": _edit(_insert_layer),
    "rewire": _edit(_rewire),
    "undo": _edit(lambda h, m: h.undo()),  # (stops once before a cell's edits: widget.py)
    "redo": _edit(lambda h, m: h.graph.redo()),
    # the canvas's file and training (what its buttons do)
    "save": _read(lambda h, m: h.save(check.file_name(m, existing=False, own=h.path))),
    # a new drawing with a fresh history: nothing to undo
    "load": _read(lambda h, m: h.load(check.file_name(m, existing=True))),
    "train": _read(_train),
    "stop": _read(lambda h, m: h.stop()),
}
