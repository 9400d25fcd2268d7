"""`kc.Canvas`: the anywidget that draws a Graph. Thin: it validates browser intents and hands them
to the same Graph methods Python code calls; the Graph's new state flows back as one trait.

Protocol: the browser sends `{"kind": ..., "id": ..., ...}` custom messages; each is answered
`{"id": ..., "ok": true, "result": ...}` or `{"id": ..., "error": "..."}`. Everything in a message
is untrusted: types, sizes and class names (catalog only) are checked before anything changes.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anywidget
import traitlets

from . import catalog, kinds
from .drawing import MAX_NAME_LENGTH, EditError
from .graph import Graph

MAX_MESSAGE_ITEMS = 200  # names in one delete/duplicate; config keys in one configure
MAX_STRING = 10_000
MAX_CONFIG_VALUES = 5_000  # scalars in one config, all nesting levels together


_log = logging.getLogger(__name__)


class IntentError(ValueError):
    """A message from the browser that is malformed; answered as an error, changes nothing."""


class Canvas(anywidget.AnyWidget):
    """Draw, edit and inspect a kc.Graph in a notebook. `canvas.graph` is the live Graph."""

    _esm = Path(__file__).parent / "static" / "widget.js"

    state = traitlets.Dict().tag(sync=True)
    """The Graph's state (`Graph.state()`): layers, edges, problems, model summary. Read-only."""

    palette = traitlets.List().tag(sync=True)
    """The catalog for the palette and the inspector's forms (`catalog.palette()`), sent once."""

    height = traitlets.Int(520).tag(sync=True)
    """Height of the drawing area in pixels."""

    path = traitlets.Unicode("").tag(sync=True)
    """The file the Save and Load buttons use ("" hides them); set from Python only."""

    training = traitlets.Dict().tag(sync=True)
    """The training panel's view: status, per-epoch history and the live curve (throttled)."""

    train_choices = traitlets.Dict().tag(sync=True)
    """Optimizers, losses and metrics the training panel offers."""

    def __init__(self, graph: Graph | None = None, *, height: int = 520, path: str | None = None):
        """Canvas(path="model.kcanvas") loads that file if it exists (a canvas survives a
        kernel restart this way) and saves to it from its Save button."""
        if graph is not None and not isinstance(graph, Graph):
            raise TypeError(f"Canvas(graph=...) takes a kerascanvas.Graph, got {type(graph).__name__}.")
        if graph is None and path is not None and Path(path).is_file():
            graph = Graph.load(path)
        from .training import choices

        super().__init__(height=height, palette=catalog.palette(), path=str(path or ""),
                         train_choices=choices())
        self.graph = graph if graph is not None else Graph()
        self.state = self.graph.state()
        self._stop = self.graph.observe(self._push)
        self.on_msg(self._on_message)
        self._trainer = None

    # ----- training (training.py does the work) --------------------------------------------

    @property
    def trainer(self):
        """The Trainer of this canvas's graph (made on first use: it imports the training code)."""
        from .training import Trainer

        if self._trainer is None or self._trainer.graph is not self.graph:
            self._trainer = Trainer(self.graph)
            self._trainer.on_update(self._training_update)
        return self._trainer

    def _training_update(self, snapshot: dict) -> None:
        self.training = {**snapshot, "curve": self._trainer.curve[-500:]}

    def _sample(self):
        """One sample for the forward-pass view: the first of the training data if there is
        any, else random values of the inputs' shapes."""
        import numpy as np

        data = self._trainer.data if self._trainer is not None else None
        x = data[0] if data else None
        if isinstance(x, np.ndarray):
            return x[:1]
        if isinstance(x, (list, tuple)) and all(isinstance(a, np.ndarray) for a in x):
            return [a[:1] for a in x]
        model = self.graph.model
        if model is None:
            raise IntentError("The drawing is not a model yet: " + "; ".join(map(str, self.graph.problems)))
        rng = np.random.default_rng(0)
        sample = [rng.random((1, *(d or 1 for d in t.shape[1:]))).astype(t.dtype) for t in model.inputs]
        return sample if len(sample) > 1 else sample[0]

    def set_data(self, x, y=None, validation_data=None) -> None:
        """Data for the Train button and fit(): NumPy arrays, a tf.data.Dataset or a
        keras.utils.PyDataset; checked against the model now (and again at fit)."""
        self.trainer.set_data(x, y, validation_data=validation_data)

    def fit(self, block: bool = True, **fit_kwargs):
        """What the Train button does; returns the History (block=False returns at once)."""
        return self.trainer.fit(block=block, **fit_kwargs)

    def stop(self) -> None:
        """Stop training after the current batch; the weights trained so far stay."""
        self.trainer.stop()

    @property
    def history(self) -> dict:
        """Per-epoch logs of the last run ("loss", "val_loss", metrics...)."""
        return self.trainer.history

    def _push(self, graph: Graph) -> None:
        self.state = graph.state()

    def save(self) -> None:
        """Save the drawing and its weights to `path` (what the Save button does)."""
        if not self.path:
            raise IntentError("This canvas has no file: make it with kc.Canvas(path=...).")
        self.graph.save(self.path)

    def load(self) -> None:
        """Replace the drawing by the one in `path`; a bad file changes nothing."""
        if not self.path:
            raise IntentError("This canvas has no file: make it with kc.Canvas(path=...).")
        graph = Graph.load(self.path)
        self._stop()
        self.graph = graph
        self._stop = graph.observe(self._push)
        self._push(graph)

    # ----- messages ------------------------------------------------------------------------

    def _on_message(self, _widget: Any, content: Any, _buffers: Any = None) -> None:
        ident = content.get("id") if isinstance(content, dict) else None
        if not (isinstance(ident, int) and not isinstance(ident, bool)) and not (
                isinstance(ident, str) and len(ident) <= 64):
            ident = None
        try:
            result = self.handle(content)
        except (IntentError, EditError, ValueError, TypeError, RuntimeError) as e:
            self.send({"id": ident, "error": str(e)})
            return
        except Exception as e:  # noqa: BLE001 - a bug, not a refusal: answered, so the browser never waits
            _log.exception("kerascanvas: intent %.200r failed", content)
            self.send({"id": ident, "error": f"Internal error ({type(e).__name__}): {e}"})
            return
        self.send({"id": ident, "ok": True, "result": result})

    def handle(self, message: Any) -> Any:
        """Apply one intent (a dict from the browser) through the Graph; returns its result."""
        if not isinstance(message, dict):
            raise IntentError(f"An intent is an object, got {type(message).__name__}.")
        kind = message.get("kind")
        if kind in ("save", "load"):
            return getattr(self, kind)()
        if kind == "train":
            from .training import panel_options

            self.fit(block=False, **panel_options(message))
            return None
        if kind == "stop":
            self.stop()
            return None
        if kind == "forward_steps":
            return _forward_steps(self.graph, message, self._sample())
        handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
        if handler is None:
            raise IntentError(f"Unknown intent kind {kind!r:.80}.")
        return handler(self.graph, message)


# ----- validation of untrusted fields ---------------------------------------------------------

def _name(m: dict, key: str = "name") -> str:
    value = m.get(key)
    if not isinstance(value, str) or not 0 < len(value) <= MAX_NAME_LENGTH:
        raise IntentError(f"{key!r} must be a layer name (1 to {MAX_NAME_LENGTH} characters), got "
                          f"{value!r:.80}.")
    return value


def _optional_name(m: dict, key: str = "name") -> str | None:
    return None if m.get(key) is None else _name(m, key)


def _index(m: dict, key: str, optional: bool = False) -> int | None:
    value = m.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 10_000:
        raise IntentError(f"{key!r} must be an index 0..9999, got {value!r:.40}.")
    return value


def _flag(m: dict, key: str) -> bool:
    value = m.get(key)
    if not isinstance(value, bool):
        raise IntentError(f"{key!r} must be true or false, got {value!r:.40}.")
    return value


def _number(m: dict, key: str) -> float:
    value = m.get(key)
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
        raise IntentError(f"{key!r} must be a finite number, got {value!r:.40}.")
    return float(value)


def _triple(m: dict, key: str) -> tuple[str, int, int]:
    value = m.get(key)
    if not isinstance(value, list) or len(value) != 3:
        raise IntentError(f"{key!r} must be [layer, node_index, tensor_index], got {value!r:.80}.")
    return (_name({"v": value[0]}, "v"), _index({"v": value[1]}, "v"), _index({"v": value[2]}, "v"))


def _json_value(value: Any, depth: int = 0, budget: list[int] | None = None) -> Any:
    """Config values: JSON scalars, lists and dicts of bounded size, depth and total count."""
    budget = [MAX_CONFIG_VALUES] if budget is None else budget
    budget[0] -= 1
    if budget[0] < 0:
        raise IntentError(f"A config may hold at most {MAX_CONFIG_VALUES} values.")
    if depth > 6:
        raise IntentError("A config value is nested too deeply.")
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise IntentError(f"A config value must be finite, got {value!r}.")
        return value
    if isinstance(value, str):
        if len(value) > MAX_STRING:
            raise IntentError("A config string is too long.")
        return value
    if isinstance(value, list) and len(value) <= MAX_MESSAGE_ITEMS:
        return [_json_value(v, depth + 1, budget) for v in value]
    if isinstance(value, dict) and len(value) <= MAX_MESSAGE_ITEMS:
        return {_key(k): _json_value(v, depth + 1, budget) for k, v in value.items()}
    raise IntentError(f"Unsupported config value {value!r:.80}.")


def _key(k: Any) -> str:
    if not isinstance(k, str) or not k.isidentifier() or len(k) > 64:
        raise IntentError(f"A config key must be an identifier, got {k!r:.40}.")
    return k


def _config(m: dict) -> dict:
    config = m.get("config", {})
    if not isinstance(config, dict) or len(config) > MAX_MESSAGE_ITEMS:
        raise IntentError("'config' must be an object of at most 200 keys.")
    budget = [MAX_CONFIG_VALUES]
    return {_key(k): _json_value(v, 0, budget) for k, v in config.items()}


def _names(m: dict) -> list[str]:
    value = m.get("names")
    if not isinstance(value, list) or not 0 < len(value) <= MAX_MESSAGE_ITEMS:
        raise IntentError(f"'names' must be a list of 1 to {MAX_MESSAGE_ITEMS} layer names.")
    return [_name({"v": v}, "v") for v in value]


def _shape(m: dict) -> list:
    value = m.get("shape")
    if not isinstance(value, list) or len(value) > 8 or not all(
            v is None or (isinstance(v, int) and not isinstance(v, bool) and 0 < v <= 2**31)
            for v in value):
        raise IntentError(f"'shape' must be a list of up to 8 positive sizes or null, got {value!r:.80}.")
    return value


def _place(g: Graph, name: str, m: dict) -> None:
    if m.get("x") is not None and m.get("y") is not None:
        g.move(name, _number(m, "x"), _number(m, "y"))


def _add_layer(g: Graph, m: dict) -> str:
    class_name = m.get("class_name")
    if not kinds.offered(class_name):  # catalog, allow-listed keras.ops, registered classes
        raise IntentError(f"{class_name!r:.80} is not a layer the canvas offers.")
    with g.batch():
        name = g.add_layer(class_name, _optional_name(m), **_config(m))
        _place(g, name, m)
    return name


def _add_input(g: Graph, m: dict) -> str:
    dtype = m.get("dtype", "float32")
    if dtype not in ("float32", "float16", "bfloat16", "int32", "int64", "bool"):
        raise IntentError(f"'dtype' must be a numeric dtype name, got {dtype!r:.40}.")
    with g.batch():
        name = g.add_input(_shape(m), _optional_name(m), dtype=dtype)
        _place(g, name, m)
    return name


def _connect(g: Graph, m: dict, edit: Callable) -> None:
    dst = m.get("dst")
    if not isinstance(dst, list) or len(dst) != 3:
        raise IntentError(f"'dst' must be [layer, call, slot|null], got {dst!r:.80}.")
    d = {"n": dst[0], "k": dst[1], "s": dst[2]}
    edit(_triple(m, "src"), _name(d, "n"), call=_index(d, "k"), slot=_index(d, "s", optional=True))


def _remove(g: Graph, m: dict) -> None:
    names = _names(m)
    with g.batch():
        for name in names:
            g.remove(name)


def _explain(g: Graph, m: dict) -> dict:
    """The teaching view of a layer: its nodes with their Keras 2 coordinates, read live."""
    name = _name(m)
    if name not in g.layers:
        raise IntentError(f"There is no layer named {name!r:.80}.")
    nodes = len(g.keras_layer(name)._inbound_nodes)
    return {"layer": g.explain_layer(name).data,
            "nodes": [g.explain_node(name, k).data for k in range(nodes)]}


def _depth_steps(g: Graph, m: dict) -> list:
    """Seed 000's depth computation on this graph, as steps the canvas plays back."""
    steps = []
    for step in g.depth_steps():
        kind = step[0]
        if kind in ("enter", "finish", "cycle"):
            steps.append({"kind": kind, "node": list(step[1])})
        elif kind == "depth":
            steps.append({"kind": kind, "node": list(step[1]), "depth": step[2]})
        else:
            steps.append({"kind": kind, "map": {str(d): [list(x) if isinstance(x, tuple) else x
                                                         for x in v] for d, v in step[1].items()}})
    return steps


def _forward_steps(g: Graph, m: dict, sample: Any) -> list:
    """The forward pass node by node on one real sample: shapes, statistics, small pictures."""
    return [{"node": [s.layer, s.node_index], "depth": s.depth, "outputs": s.summary(),
             "picture": s.thumbnail()} for s in g.forward_steps(sample)]


def _explain_edge(g: Graph, m: dict) -> dict:
    """The KerasTensor an edge carries and its _keras_history."""
    dst = m.get("dst")
    if not isinstance(dst, list) or len(dst) != 3:
        raise IntentError(f"'dst' must be [layer, call, slot], got {dst!r:.80}.")
    d = {"n": dst[0], "k": dst[1], "s": dst[2]}
    return g.explain_edge(_triple(m, "src"), _name(d, "n"), _index(d, "k"), _index(d, "s")).data


_HANDLERS: dict[str, Callable[[Graph, dict], Any]] = {
    "explain": _explain,
    "explain_edge": _explain_edge,
    "depth_steps": _depth_steps,
    "add_layer": _add_layer,
    "add_input": _add_input,
    "connect": lambda g, m: _connect(g, m, g.connect),
    "disconnect": lambda g, m: _connect(g, m, g.disconnect),
    "remove": _remove,
    "rename": lambda g, m: g.rename(_name(m), _name(m, "new_name")),
    "configure": lambda g, m: g.configure(_name(m), **_config(m)),
    "add_call": lambda g, m: g.add_call(_name(m)),
    "remove_call": lambda g, m: g.remove_call(_name(m), _index(m, "call")),
    "move": lambda g, m: g.move(_name(m), _number(m, "x"), _number(m, "y")),
    "arrange": lambda g, m: g.arrange(),
    "expand": lambda g, m: g.expand(_name(m), _flag(m, "open")),
    "duplicate": lambda g, m: g.duplicate(_names(m)),
    "undo": lambda g, m: g.undo(),
    "redo": lambda g, m: g.redo(),
}
