"""Helpers shared by the tests."""

import contextlib
import linecache
import math
import sys
import uuid
from pathlib import Path

import hypothesis.strategies as st

import kerascanvas as kc
from kerascanvas.network.invariants import violations


def siamese(merge: str = "subtract"):
    """One Dense called on two inputs (nodes 0 and 1), its two outputs subtracted."""
    g = kc.Graph()
    g.add_input((4,), name="left")
    g.add_input((4,), name="right")
    g.add_layer("Dense", units=3, name="shared")
    g.connect("left", "shared")
    g.connect("right", "shared", call=1)
    g.add_layer("Subtract", name=merge)
    g.connect(("shared", 0, 0), merge)
    g.connect(("shared", 1, 0), merge)
    return g


def rebuild(code):
    """Run exported code (`g.to_code()`) and return the `model` it defines."""
    namespace = {}
    exec(compile(code, "<kerascanvas>", "exec"), namespace)  # noqa: S102 - the test runs the export
    return namespace["model"]


def call_again(g, name, src, outputs):
    """Call layer `name` once more (a shared call) on `src`; the new call's output joins
    `outputs`. A call Keras refuses is left out."""
    with contextlib.suppress(kc.EditError):
        g.connect(src, name, call=g.calls(name))
        outputs.append((name, g.calls(name) - 1, 0))


def grow(g, class_name, config, sources, outputs):
    """Add a layer fed by `sources` (slot by slot); its output joins `outputs`. When Keras
    refuses a connection (shapes that disagree) the layer is removed again, as a user would."""
    name = g.add_layer(class_name, **config)
    try:
        for src in sources:
            g.connect(src, name)
    except kc.EditError:
        g.remove(name)
        return
    outputs.append((name, 0, 0))


def ok(g):
    """Assert DESIGN.md's invariants 1-5 hold; returns the graph."""
    assert violations(g) == []
    return g


def history(g, layer, call, slot):
    """(layer name, node_index, tensor_index) of the tensor in a slot of a call."""
    from kerascanvas.network.invariants import slot_tensor

    live = g.keras_layer(layer)
    t = slot_tensor(live, live._inbound_nodes[call], g.specs[layer].slots, slot)
    op, n, i = t._keras_history
    return (op.name, n, i)


def undo_all(g) -> int:
    """Undo every step the history holds; returns how many there were."""
    steps = 0
    while g.can_undo:
        g.undo()
        steps += 1
    return steps


def steps_kept(g) -> int:
    """How many steps undo can take back (counted by undoing, then redone)."""
    n = undo_all(g)
    for _ in range(n):
        g.redo()
    return n


def fingerprint(g):
    """The drawing, the identity of every live object and node, and every weight."""
    specs = g.specs
    objects = {n: g.live_layer(n) for n in specs}
    return (
        {n: (s.class_name, dict(s.config), s.calls, list(s.slots.names),
             [a.as_json() for a in s.call_args], list(s.inside)) for n, s in specs.items()},
        g.edges, {n: g.positions.get(n) for n in sorted(g.pinned)}, g.output_order,
        g.outputs_only,
        {n: (id(o), [id(x) for x in o._inbound_nodes], [id(x) for x in o._outbound_nodes],
             [w.tobytes() for w in getattr(o, "get_weights", list)()])  # (ops have none)
         for n, o in objects.items() if o is not None},
    )


class DrawsFromGraph:
    """What the rule-based machines (test_graph_stateful, test_widget_fuzz) draw from the graph
    `self.g` they edit: layer names, a few of them, an edge."""

    def names(self) -> list[str]:
        return list(self.g.layers)

    def of_class(self, *class_names: str) -> list[str]:
        """The layers of those classes, in creation order."""
        return [n for n, v in self.g.layers.items() if v["class_name"] in class_names]

    def non_inputs(self) -> list[str]:
        """Every layer but the Inputs: those a connection can go into."""
        return [n for n, v in self.g.layers.items() if v["class_name"] != "InputLayer"]

    def pick(self, data) -> str:
        """One layer name (there must be one)."""
        return data.draw(st.sampled_from(self.names()))

    def pick_some(self, data, max_size: int) -> list[str]:
        """1 to `max_size` distinct layer names (there must be one)."""
        return data.draw(st.lists(st.sampled_from(self.names()), min_size=1, max_size=max_size,
                                  unique=True))

    def pick_edge(self, data):
        """One edge (src, dst) of the drawing, or None when it has none."""
        edges = self.g.edges
        return data.draw(st.sampled_from(edges)) if edges else None


def residual_stack(blocks=3):
    """x -> stem -> `blocks` residual blocks (a run of repeated blocks) -> head, drawn by hand."""
    g = kc.Graph()
    g.add_input((8,), name="x")
    g.add_layer("Dense", units=8, name="stem")
    g.connect("x", "stem")
    prev = "stem"
    for i in range(blocks):
        prev = residual(g, prev, i)
    g.add_layer("Dense", units=2, name="head")
    g.connect(prev, "head")
    return g


def residual(g, prev, i, units=8):
    """Dense -> Dense -> Add(skip) -> ReLU, drawn as a canvas user would."""
    g.add_layer("Dense", units=units, activation="relu", name=f"b{i}_a")
    g.add_layer("Dense", units=units, name=f"b{i}_b")
    g.add_layer("Add", name=f"b{i}_add")
    g.add_layer("ReLU", name=f"b{i}_out")
    g.connect(prev, f"b{i}_a")
    g.connect(f"b{i}_a", f"b{i}_b")
    g.connect(f"b{i}_b", f"b{i}_add")
    g.connect(prev, f"b{i}_add")
    g.connect(f"b{i}_add", f"b{i}_out")
    return f"b{i}_out"


# ----- the canvas seen from the browser's side ------------------------------------------------

def recorder(canvas) -> list:
    """What `canvas` sends from now on (replies and diffs, in order): its public `send` is
    wrapped, and goes on sending. Read it again later with `sent(canvas)`."""
    sent_so_far: list = []
    send = canvas.send

    def recording(content, buffers=None):
        sent_so_far.append(content)
        send(content, buffers)

    recording.sent = sent_so_far
    canvas.send = recording
    return sent_so_far


def sent(canvas) -> list:
    """What `canvas` sent since `recorder(canvas)`."""
    return canvas.send.sent


def recorded_canvas(graph=None, path=None):
    """A kc.Canvas (of `graph`, saving to `path`) whose sent messages are recorded."""
    canvas = kc.Canvas(graph) if path is None else kc.Canvas(graph, path=str(path))
    recorder(canvas)
    return canvas


def intent(canvas, **message) -> dict:
    """The browser's message, received: the last message `canvas` sent after it."""
    canvas.receive(message)
    return sent(canvas)[-1]


def ask(canvas, message: dict) -> dict:
    """The browser's message `message` answered by `canvas`: its reply (the last message sent
    with the message's id). `recorder(canvas)` must be on."""
    canvas.receive(message)
    return next(m for m in reversed(sent(canvas)) if "diff" not in m
                and m.get("id") == message.get("id"))


class Wire:
    """The comm between a widget and its browser, recorded: the widget's `comm` is replaced by
    this one, which keeps every message ipywidgets puts on it (`messages`: trait updates and
    custom messages) and hands `deliver`ed ones to the widget the way the kernel's comm does."""

    def __init__(self, widget):
        self.comm_id = uuid.uuid4().hex
        self.messages: list[dict] = []
        self._handlers: list = []
        widget.comm = self  # ipywidgets registers its message handler with on_msg

    def on_msg(self, handler) -> None:
        self._handlers.append(handler)

    def send(self, data=None, metadata=None, buffers=None) -> None:
        self.messages.append(data)

    def close(self, *args, **kwargs) -> None:
        pass

    def deliver(self, content, buffers=()) -> None:
        """A custom message from the front end, as Jupyter delivers it."""
        message = {"content": {"data": {"method": "custom", "content": content}},
                   "buffers": list(buffers)}
        for handler in self._handlers:
            handler(message)

    def update(self, state: dict) -> None:
        """A trait update from the front end (what `model.save_changes()` sends), as Jupyter
        delivers it."""
        message = {"content": {"data": {"method": "update", "state": state, "buffer_paths": []}},
                   "buffers": []}
        for handler in self._handlers:
            handler(message)

    def custom(self) -> list:
        """The custom messages sent (replies and diffs), in order."""
        return [m["content"] for m in self.messages if m.get("method") == "custom"]

    def clear(self) -> None:
        self.messages.clear()


# ----- the teaching graphs (issue 25): built by the Python tests and, from this same source, in
# the browser tests' kernels (tests/browser/conftest.py `graph_cell`) -----------------------------

def shared_then_chain(name: str = "model"):
    """inp -> A, inp2 -> A (call 1), A -> B -> C: node 1 of A is an output, yet gets depth 2."""
    g = kc.Graph(name=name)
    g.add_input((3,), name="inp")
    g.add_input((3,), name="inp2")
    g.add_layer("Dense", units=3, name="A")
    g.connect("inp", "A")
    g.connect("inp2", "A", call=1)
    for src, dst in (("A", "B"), ("B", "C")):
        g.add_layer("Dense", units=3, name=dst)
        g.connect(src, dst)
    return g


def shared_lstm_states(name: str = "model"):
    """One LSTM(return_state=True) called on two sequences; the cell states (tensor_index 2)
    of both calls added."""
    g = kc.Graph(name=name)
    g.add_input((5, 3), name="s1")
    g.add_input((5, 3), name="s2")
    g.add_layer("LSTM", units=4, return_state=True, name="lstm")
    g.connect("s1", "lstm")
    g.connect("s2", "lstm", call=1)
    g.add_layer("Add", name="add")
    g.connect(("lstm", 0, 2), "add")
    g.connect(("lstm", 1, 2), "add")
    return g


_PACKAGE = str(Path(kc.__file__).parent)


def interrupt_fit_at(trainer, line: int, **fit) -> bool:
    """Raise KeyboardInterrupt at the `line`-th line event of `trainer.fit(**fit, block=False)`
    and what it calls in this thread, in kerascanvas's code; True if the interrupt happened."""
    seen = [0]
    visited: dict = {}  # frame -> its lines run so far

    def tracer(frame, event, arg):
        if event == "line":
            lines = visited.setdefault(frame, set())
            again, lines_text = frame.f_lineno in lines, linecache.getline(
                frame.f_code.co_filename, frame.f_lineno).lstrip()
            lines.add(frame.f_lineno)
            if again and lines_text.startswith("with "):
                # a `with` block's exit: the line event comes before `__exit__` runs, while a
                # real KeyboardInterrupt arrives where CPython checks for signals, after a call
                # (`__exit__` included) has returned: raising here would leak a held lock
                return tracer
            seen[0] += 1
            if seen[0] == line:
                raise KeyboardInterrupt
        return tracer

    def start(frame, event, arg):
        return tracer if frame.f_code.co_filename.startswith(_PACKAGE) else None

    sys.settrace(start)
    try:
        trainer.fit(**fit, block=False)
    except KeyboardInterrupt:
        return True
    finally:
        sys.settrace(None)
    return False


def keras_counts(model) -> dict:
    """Keras's own parameter counts of a model: {"total", "trainable", "non_trainable"}."""
    trainable = sum(math.prod(v.shape) for v in model.trainable_weights)
    frozen = sum(math.prod(v.shape) for v in model.non_trainable_weights)
    return {"total": trainable + frozen, "trainable": trainable, "non_trainable": frozen}


def same_counts(g) -> dict:
    """g.param_counts(), checked against Keras's own counts of g.model."""
    counts = g.param_counts()
    assert counts == keras_counts(g.model)
    return counts
