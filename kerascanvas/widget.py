"""`kc.Canvas`: the anywidget that draws a Graph. Thin: it validates browser intents and hands them
to the same Graph methods Python code calls; the Graph's new state flows back as one trait.

Protocol: the browser sends `{"kind": ..., "id": ..., ...}` custom messages; each is answered
`{"id": ..., "ok": true, "result": ...}` or `{"id": ..., "error": "..."}`. Everything in a message
is untrusted: types, sizes and class names (catalog only) are checked before anything changes.

State: the full state goes once (`snapshot`); after that each change is a custom message
`{"diff": {"base", "revision", ...}}` (diffs.py). `revision` is synced too, so a front end that
(re)creates the model from a stale snapshot knows to ask for the full state (intent "state").
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anywidget
import traitlets

from . import catalog, custom, insights, intents, kinds, later, limits, placement, shape
from .diffs import Tracker
from .drawing import MAX_NAME_LENGTH
from .errors import EditError
from .graph import Graph
from .picture_output import PictureOutput, plain_text
from .text import check_text
from .words import canvas_words

MAX_MESSAGE_ITEMS = 200  # names in one delete/duplicate; config keys in one configure
MAX_STRING = 10_000
MAX_CONFIG_VALUES = 5_000  # scalars in one config, all nesting levels together
INPUT_DTYPES = ("float32", "float16", "bfloat16", "int32", "int64", "bool")  # what an Input
# made or configured from the browser may hold (strings come from Python only)


_log = logging.getLogger(__name__)


class IntentError(ValueError):
    """A message from the browser that is malformed; answered as an error, changes nothing."""


class Canvas(anywidget.AnyWidget):
    """Draw, edit and inspect a kc.Graph in a notebook. `canvas.graph` is the live Graph."""

    _esm = Path(__file__).parent / "static" / "widget.js"

    snapshot = traitlets.Dict().tag(sync=True, echo_update=False)
    """The full state at the last full sync (creation, load); the browser keeps its copy current
    by applying diffs. Read `state` for the current one."""

    revision = traitlets.Int(0).tag(sync=True)
    """The revision of the state the kernel last described (diffs count it up)."""

    palette = traitlets.List().tag(sync=True, echo_update=False)
    """The catalog for the palette and the inspector's forms (`kinds.palette()`), sent again
    when `kc.register` changes what is offered."""

    height = traitlets.Int(520).tag(sync=True)
    """Height of the drawing area in pixels."""

    path = traitlets.Unicode("").tag(sync=True)
    """The file the Save and Load buttons use ("" hides them); set from Python only."""

    training = traitlets.Dict().tag(sync=True, echo_update=False)
    """The training panel's view: status, per-epoch history and the live curve (throttled)."""

    train_choices = traitlets.Dict().tag(sync=True, echo_update=False)
    """Optimizers, losses and metrics the training panel offers."""

    edits = traitlets.Int(0).tag(sync=True, echo_update=False)
    """Set by the browser (to the revision it reached) after each of its edits (the kernel marks
    their diffs): a change of the drawing made on the canvas, told as a change of a synced trait
    from the front end, which is what re-runs the cells that read `canvas.graph` in marimo
    (`mo.ui.anywidget(kc.Canvas(g))`). The kernel never reads it."""

    insight_summary = traitlets.Dict().tag(sync=True, echo_update=False)
    """Per box a small live strip (weight norm, activation spread) and its problems
    (`insights.summary`): bounded, sent as records come."""

    insight_focus = traitlets.Unicode("").tag(sync=True)
    """The box whose histograms the browser asks for (set by the browser: untrusted)."""

    insight_detail = traitlets.Dict().tag(sync=True, echo_update=False)
    """The focused box's histograms over its records (`insights.detail`), bounded."""

    insight_epoch = traitlets.Float(-1.0).tag(sync=True)  # the forward pass's (browser: untrusted)
    insight_activations = traitlets.Dict().tag(sync=True, echo_update=False)  # insights.epoch_view

    def __init__(self, graph: Graph | None = None, *, height: int = 520, path: str | None = None):
        """Canvas(path="model.kcanvas") loads that file if it exists (a canvas survives a
        kernel restart this way) and saves to it from its Save button."""
        if graph is not None and not isinstance(graph, Graph):
            raise TypeError(f"Canvas(graph=...) takes a kerascanvas.Graph, got {type(graph).__name__}.")
        if graph is None and path is not None and Path(path).is_file():
            graph = Graph.load(path)
        from .training import choices

        super().__init__(height=height, palette=kinds.palette(), path=str(path or ""),
                         train_choices=choices())
        self._trainer = None
        self._tracker: Tracker | None = None
        self._graph: Graph | None = None
        self._stop: Callable[[], None] = lambda: None
        self._oversize: str | None = None  # why the last state push was too big to send
        self._picture = PictureOutput(self._picture_bundle)  # its picture in a notebook
        self._answering = False  # an intent from the browser is being applied
        self.graph = graph if graph is not None else Graph()
        self.on_msg(self._on_message)
        custom.observe(self._offer_changed)  # held weakly: a closed canvas is not kept

    def _offer_changed(self) -> None:
        """A class was registered (or forgotten) after this canvas was made: its palette too."""
        if self.comm is not None:  # (None once closed)
            self.palette = kinds.palette()

    @property
    def graph(self) -> Graph:
        """The Graph this canvas draws. Replacing it (or loading a file) is refused while
        training runs on it: the run would go on training layers no longer shown."""
        return self._graph

    @graph.setter
    def graph(self, graph: Graph) -> None:
        if not isinstance(graph, Graph):
            raise TypeError(f"Canvas.graph takes a kerascanvas.Graph, got {type(graph).__name__}.")
        self._check_not_training("the drawing cannot be replaced")
        self._stop()
        self._graph = graph
        if getattr(self, "_tracker", None) is None:
            self._tracker = Tracker(graph)
        else:
            self._tracker.reset(graph)  # a new drawing travels whole, at a new revision
        self._stop = graph.observe(self._push)
        self._whole_bytes: int | None = None  # at most what the whole state takes (see _push)
        self._check_waits = False  # a _check_model is waiting (later.when_drawn)
        self.snapshot = self._full_state()
        self.revision = self._tracker.revision
        self._picture.changed()
        self._show_insights()  # a loaded file's records

    def close(self) -> None:
        """Close the widget and let go of it. anywidget's watcher of the `_esm` file holds a
        strong reference to every instance (a lambda in AnyWidget.__init__), which would keep
        each closed canvas, its Graph and all their Keras objects alive for the kernel's life."""
        stop = self.__dict__.get("_stop")  # absent when __init__ refused its arguments
        if stop is not None:
            stop()
        super().close()
        signal = next((c.__dict__["_esm"].changed for c in type(self).__mro__
                       if hasattr(c.__dict__.get("_esm"), "changed")), None)
        for slot in list(getattr(signal, "_slots", ())):
            function = slot.dereference() if hasattr(slot, "dereference") else None
            if any(cell.cell_contents is self for cell in getattr(function, "__closure__", None)
                   or ()):
                signal.disconnect(function)

    def _check_not_training(self, what: str) -> None:
        graph = self._graph
        if graph is not None and (graph.lock_reason is not None or (
                self._trainer is not None and self._trainer.running)):
            raise IntentError(f"Training is running: {what} until it ends. Stop it "
                              "(canvas.stop()) or wait for it to finish.")

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
        status = snapshot.get("status")
        if isinstance(status, dict) and isinstance(status.get("message"), str):  # shown on the canvas
            snapshot = {**snapshot, "status": {**status, "message": canvas_words(status["message"])}}
        self.training = {**snapshot, "curve": self._trainer.curve[-500:],
                         **self._run_shown()}
        self._show_insights()

    # ----- training insights (insights.py keeps them; recording.py makes them) ---------------

    @property
    def insights(self) -> dict:
        """{layer: [record per epoch: {"epoch", "weights", "gradients", "activations"}, ...]}
        of the training runs on this drawing not undone (see kerascanvas/insights.py)."""
        return insights.of(self.graph).records()

    @property
    def insight_problems(self) -> list:
        """[(layer, kind, epoch, message)] that the latest records show; kind is one of
        "dead_units", "vanishing_gradients", "exploding_gradients", "non_finite"."""
        return insights.of(self.graph).problems()

    def activations_at(self, epoch: float) -> dict:
        """{layer: its output's statistics recorded at `epoch`} (`Insights.activations_at`)."""
        return insights.of(self.graph).activations_at(epoch)

    def _run_shown(self) -> dict:
        """Whether the run the training panel shows was undone (Ctrl+Z): its weights and
        records are gone, so the panel says so and greys its curves."""
        trainer = self._trainer
        run = trainer.run if trainer is not None and trainer.graph is self.graph else None
        undone = run is not None and not trainer.running and insights.of(self.graph).run != run
        return {"run": run, "undone": undone}

    def _show_insights(self) -> None:
        store = insights.of(self.graph)
        running = self._trainer is not None and self._trainer.running
        summary = insights.summary(store, running)
        if summary != self.insight_summary:
            self.insight_summary = summary
        self._focus_changed()
        self._epoch_changed()

    @traitlets.observe("insight_epoch")
    def _epoch_changed(self, _change=None) -> None:
        view = insights.epoch_view(insights.of(self.graph), self.insight_epoch)
        if view != self.insight_activations:
            self.insight_activations = view

    @traitlets.observe("insight_focus")
    def _focus_changed(self, _change=None) -> None:
        name = self.insight_focus
        if not isinstance(name, str) or len(name) > 1000 or \
                name not in insights.of(self.graph).cell["records"]:
            detail = {}  # an unknown name (the browser is untrusted) shows nothing
        else:
            detail = insights.detail(insights.of(self.graph), name)
        if detail != self.insight_detail:
            self.insight_detail = detail

    def _insights_after_edit(self) -> None:
        """After an edit (an undo or redo of a run among them): the panel and strips follow."""
        if self._trainer is None or self._trainer.running:
            return
        shown = self._run_shown()
        if self.training and any(self.training.get(k) != v for k, v in shown.items()):
            self.training = {**self.training, **shown}
        self._show_insights()

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
        limits.check_forward(model)  # before a sample of the inputs' shapes is made
        rng = np.random.default_rng(0)
        sample = [rng.random((1, *(d or 1 for d in t.shape[1:])), dtype=np.float32).astype(t.dtype)
                  for t in model.inputs]
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

    @property
    def state(self) -> dict:
        """The Graph's state as the browser holds it (`Graph.state()` plus its `revision`):
        layers, edges, problems, model summary. Read-only."""
        return self._tracker.full()

    def _push(self, graph: Graph) -> None:
        """After an edit: its diff goes out before Keras builds the model (a new keras.Model is
        most of a structural edit's time on a big drawing), then a second diff if building it
        changed what shows (Keras refused a model kerascanvas's own checks pass)."""
        self._oversize = None
        self._send_diff(self._tracker.update(quick=True))
        self._insights_after_edit()
        if not (graph.model_checked and graph.repeats_found) and not self._check_waits:
            self._check_waits = True  # once however many edits come before it (a loop in a cell)
            later.when_drawn(self._check_model)

    def _check_model(self) -> None:
        """Keras's answer for the structure shown (the model built or refused) and the repeated
        blocks found again, and what they changed on the canvas: usually nothing."""
        self._check_waits = False
        if self.comm is None:  # closed meanwhile
            return
        self._send_diff(self._tracker.update())  # a full update builds and finds them

    def _send_diff(self, change: dict | None) -> None:
        if change is None:
            return
        why, size = _wire_check(change)
        if why is None and "layers" in change:  # the structure grew or changed: the whole
            why = self._check_whole(size)  # must still fit (a reload sends it)
        if why is None:  # the diff first: the revision tells late views to catch up
            # an edit made on the canvas is marked: the front end tells the host (`edits`)
            self.send({"diff": change, "edit": True} if self._answering else {"diff": change})
        self._picture.changed()
        self._oversize = self._oversize or why
        self.revision = change["revision"]  # a diff not sent: the browser asks for the state

    def _check_whole(self, diff_bytes: int) -> str | None:
        """Why the whole state no longer fits, or None, without encoding it after every edit (30
        ms at 2,000 layers): it takes at most its size when last measured plus every diff since,
        so it is measured again only when that bound passes the cap."""
        if self._whole_bytes is not None:
            self._whole_bytes += diff_bytes
            if self._whole_bytes <= limits.STATE_BYTES:
                return None
        why, self._whole_bytes = _wire_check(self._tracker.full())
        return why

    def _full_state(self) -> dict:
        """The whole state for the browser, or a stub that says why when it is too big to send."""
        state = self._tracker.full()
        why, self._whole_bytes = _wire_check(state)
        if why is None:
            return state
        return shape.too_big(state, why)

    def _repr_mimebundle_(self, **kwargs):
        """The live view and a static SVG of the drawing as it is now, in one bundle (hosts
        that ask for a bundle: marimo, `IPython.display.display(..., raw=False)` elsewhere)."""
        from . import picture

        data, metadata = super()._repr_mimebundle_(**kwargs)
        return {**data, "image/svg+xml": picture.svg(self.graph.state())}, metadata

    def _ipython_display_(self) -> None:
        """In IPython: the live view, then the picture as an output of its own that follows
        the drawing (kerascanvas/picture_output.py)."""
        from IPython.display import display

        data, metadata = super()._repr_mimebundle_()
        shown = plain_text({"name": self.graph.name, "layers": self.graph.layers})
        display({**data, "text/plain": shown + " (live view)"}, metadata=metadata, raw=True)
        self._picture.display()

    def _picture_bundle(self) -> dict:
        from . import picture

        state = self.graph.state()  # checked: Keras's answer and the runs found, as drawn
        return {"image/svg+xml": picture.svg(state), "text/plain": plain_text(state)}

    def save(self) -> None:
        """Save the drawing and its weights to `path` (what the Save button does)."""
        if not self.path:
            raise IntentError("This canvas has no file: make it with kc.Canvas(path=...).")
        self.graph.save(self.path)

    def load(self) -> None:
        """Replace the drawing by the one in `path`; a bad file changes nothing."""
        if not self.path:
            raise IntentError("This canvas has no file: make it with kc.Canvas(path=...).")
        self._check_not_training("a file cannot be loaded")
        self.graph = Graph.load(self.path)

    # ----- messages ------------------------------------------------------------------------

    def _on_message(self, _widget: Any, content: Any, _buffers: Any = None) -> None:
        later.run_waiting()  # an earlier edit's leftovers first: its model is checked before this one
        later.hold_collector()
        try:
            self._answer(content)
        finally:
            later.when_drawn(later.release_collector)

    def _answer(self, content: Any) -> None:
        ident = content.get("id") if isinstance(content, dict) else None
        if not (isinstance(ident, int) and not isinstance(ident, bool)) and not (
                isinstance(ident, str) and len(ident) <= 64):
            ident = None
        self._oversize = None
        self._answering = True  # the diffs sent meanwhile are an edit made on the canvas
        try:
            result = self.handle(content)
            self._refuse_oversize(content.get("kind"))
        except (IntentError, EditError, ValueError, TypeError, RuntimeError) as e:
            self.send({"id": ident, "error": canvas_words(str(e))})
            return
        except Exception as e:  # noqa: BLE001 - a bug, not a refusal: answered, so the browser never waits
            _log.exception("kerascanvas: intent %.200r failed", content)
            self.send({"id": ident, "error": f"Internal error ({type(e).__name__}): {e}"})
            return
        finally:
            self._answering = False
        self.send({"id": ident, "ok": True, "result": result})

    def _refuse_oversize(self, kind: Any) -> None:
        """An intent whose new state is over limits.STATE_BYTES is taken back and refused."""
        if self._oversize is None:
            return
        why = self._oversize
        if kind == "undo":
            self.graph.redo()
        elif kind in _HANDLERS and kind not in _READS and self.graph.can_undo:
            self.graph.undo()
        raise IntentError(why)

    def handle(self, message: Any) -> Any:
        """Apply one intent (a dict from the browser) through the Graph; returns its result."""
        if not isinstance(message, dict):
            raise IntentError(f"An intent is an object, got {type(message).__name__}.")
        try:
            kind = intents.check(message)  # a kind the description knows, its fields' types
        except ValueError as e:
            raise IntentError(str(e)) from None
        if kind in ("save", "load"):
            return getattr(self, kind)()
        if kind == "train":
            from .training import panel_options

            self.fit(block=False, **panel_options(message))
            return None
        if kind == "stop":
            self.stop()
            return None
        if kind == "state":  # the browser lost a diff (or holds a stale snapshot)
            _state_request(message)
            return self._full_state()
        if kind == "forward_steps":
            model = self.graph.model
            if model is not None:  # before any sample is made or read
                limits.check_forward(model)
            return _forward_steps(self.graph, message, self._sample())
        return _HANDLERS[kind](self.graph, message)


# ----- validation of untrusted fields ---------------------------------------------------------
# `intents.check` has checked every described field's type (intents.json) before a handler runs:
# a "port" is a list [str, int, int], a "flag" a bool, a "number" an int or float, and so on.
# What is left here is range, size and text: an index 0..9999, a name's length, finite numbers.

def _name(m: dict, key: str = "name") -> str:
    value = m.get(key)
    if not isinstance(value, str) or not 0 < len(value) <= MAX_NAME_LENGTH:
        raise IntentError(f"{key!r} must be a layer name (1 to {MAX_NAME_LENGTH} characters), got "
                          f"{value!r:.80}.")
    return check_text(value, f"{key!r}")


def _optional_name(m: dict, key: str = "name") -> str | None:
    return None if m.get(key) is None else _name(m, key)


def _index(m: dict, key: str, optional: bool = False) -> int | None:
    value = m.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 10_000:
        raise IntentError(f"{key!r} must be an index 0..9999, got {value!r:.40}.")
    return value


def _number(m: dict, key: str) -> float:
    value = m.get(key)
    if not math.isfinite(value):
        raise IntentError(f"{key!r} must be a finite number, got {value!r:.40}.")
    return float(value)


def _triple(m: dict, key: str) -> tuple[str, int, int]:
    """A port [layer, node_index, tensor_index]."""
    d = dict(zip(("layer", "node_index", "tensor_index"), m[key], strict=True))
    return (_name(d, "layer"), _index(d, "node_index"), _index(d, "tensor_index"))


def _edge_end(m: dict, key: str, optional_slot: bool = False) -> tuple[str, int, int | None]:
    """A slot [layer, call, slot]; the slot may be null (the next free one) if `optional_slot`."""
    d = dict(zip(("layer", "call", "slot"), m[key], strict=True))
    return (_name(d, "layer"), _index(d, "call"), _index(d, "slot", optional=optional_slot))


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
        return check_text(value, "A config string", allow_whitespace=True)
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
    if len(config) > MAX_MESSAGE_ITEMS:
        raise IntentError("'config' must be an object of at most 200 keys.")
    budget = [MAX_CONFIG_VALUES]
    return {_key(k): _json_value(v, 0, budget) for k, v in config.items()}


def _names(m: dict) -> list[str]:
    value = m["names"]
    if not 0 < len(value) <= MAX_MESSAGE_ITEMS:
        raise IntentError(f"'names' must be a list of 1 to {MAX_MESSAGE_ITEMS} layer names.")
    return [_name({"names": v}, "names") for v in value]


def _shape(m: dict) -> list:
    value = m.get("shape")
    if not isinstance(value, list) or len(value) > 8 or not all(
            v is None or (isinstance(v, int) and not isinstance(v, bool) and 0 < v <= 2**31)
            for v in value):
        raise IntentError(f"'shape' must be a list of up to 8 positive sizes or null, got {value!r:.80}.")
    return value


def _state_request(m: dict) -> None:
    """{"kind": "state", "id": ..., "have": revision or null}: nothing else is accepted."""
    extra = set(m) - {"kind", "id", "have"}
    if extra:
        raise IntentError(f"A state request takes 'have' only, got {sorted(extra)!r:.80}.")
    have = m.get("have")
    if have is not None and have < 0:
        raise IntentError(f"'have' must be a revision (an int >= 0) or null, got {have!r:.40}.")


def _view(m: dict) -> tuple[float, float, float, float] | None:
    """The world rectangle the browser shows ([x, y, w, h]), where new boxes should land."""
    value = m.get("view")
    if value is None:
        return None
    keys = ("x", "y", "width", "height")
    x, y, w, h = (_number(dict(zip(keys, value)), k) for k in keys)
    if w <= 0 or h <= 0:
        raise IntentError("'view' must have a positive width and height.")
    return (x, y, w, h)


def _drop_point(m: dict) -> tuple[float, float] | None:
    """Where the browser dropped a box ("x", "y"), or None when it did not say."""
    if m.get("x") is not None and m.get("y") is not None:
        return (_number(m, "x"), _number(m, "y"))
    return None


def _place(g: Graph, name: str, m: dict) -> None:
    """A dropped box lands at (x, y), or in the nearest free space (never on another box)."""
    at = _drop_point(m)
    if at is not None:
        placement.place(g, name, at, _view(m))


def _add_layer(g: Graph, m: dict) -> str:
    class_name = m.get("class_name")
    if not kinds.offered(class_name):  # catalog, allow-listed keras.ops, registered classes
        raise IntentError(f"{class_name!r:.80} is not a layer the canvas offers.")
    src = None if m.get("src") is None else _triple(m, "src")
    with g.batch():
        placement.freeze(g)
        name = g.add_layer(class_name, _optional_name(m), **_config(m))
        _place(g, name, m)
        if src is not None:  # a wire dropped in empty space: the new layer takes its tensor
            g.connect(src, name)
    return name


def _input_dtype(dtype: Any) -> str:
    if not isinstance(dtype, str) or dtype not in INPUT_DTYPES:
        raise IntentError(f"'dtype' must be one of {', '.join(INPUT_DTYPES)}, got {dtype!r:.40}.")
    return dtype


def _configure(g: Graph, m: dict) -> None:
    name, config = _name(m), _config(m)
    if "name" in config:  # the inspector's name field sends a rename (Keras names are unique)
        raise IntentError("Change the name in the name field (or Rename in the box's menu).")
    if name in g.inputs and "dtype" in config:  # the same dtypes as add_input
        _input_dtype(config["dtype"])
    g.configure(name, **config)


def _configure_call(g: Graph, m: dict) -> None:
    """A call's settings edited in the inspector (call_intent.py checks them): one undo step."""
    from .call_intent import checked_settings

    name, call = _name(m), _index(m, "call")
    if name not in g.layers:
        raise IntentError(f"There is no layer named {name!r:.80}.")
    if call >= g.calls(name):
        raise IntentError(f"{name} has calls 0..{g.calls(name) - 1}; there is no call {call}.")
    g.configure_call(name, call, **checked_settings(m["settings"]))


def _add_input(g: Graph, m: dict) -> str:
    dtype = _input_dtype(m.get("dtype", "float32"))
    with g.batch():
        placement.freeze(g)
        name = g.add_input(_shape(m), _optional_name(m), dtype=dtype)
        _place(g, name, m)
    return name


def _connect(g: Graph, m: dict, edit: Callable) -> None:
    dst, call, slot = _edge_end(m, "dst", optional_slot=True)
    edit(_triple(m, "src"), dst, call=call, slot=slot)


def _remove(g: Graph, m: dict) -> None:
    names = _names(m)
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


def _insert_layer(g: Graph, m: dict) -> str:
    """A palette layer dropped on a wire: added, placed there, and put into the wire (one undo
    step); the boxes below the wire make room when it is too short."""
    class_name = m["class_name"]
    if class_name not in catalog.names():
        raise IntentError(f"{class_name!r:.80} is not a layer the canvas offers.")
    src, dst = _triple(m, "src"), _edge_end(m, "dst")
    with g.batch():
        placement.freeze(g)
        name = g.add_layer(class_name)
        at = _drop_point(m)
        if at is not None:
            placement.place_on_wire(g, name, src, at)
        g.insert(name, src, dst[0], dst[1], dst[2])
    return name


def _duplicate(g: Graph, m: dict) -> dict:
    """Copies of boxes (paste): placed together in free space in the view when the browser says
    where it looks, leaving every other box where it is."""
    names = _names(m)
    view = _view(m)
    with g.batch():
        placement.freeze(g)
        mapping = g.duplicate(names)
        if view is not None:
            placement.place_copies(g, names, mapping, view)
    return mapping


def _rewire(g: Graph, m: dict) -> None:
    """An edge's end dragged to another slot (`new`), or to empty space (`new` null: unplugged)."""
    new = None if m.get("new") is None else _edge_end(m, "new", optional_slot=True)
    _stable(g, lambda: g.rewire(_triple(m, "src"), _edge_end(m, "old"), new))


def _accepts(g: Graph, m: dict) -> dict:
    """Which catalog classes and which free slots of the drawing take the tensor of port `src`
    (asked once per wire drag)."""
    from .accepts import classes_accepting, ports_accepting

    src = _triple(m, "src")
    if src[0] not in g.layers:
        raise IntentError(f"There is no layer named {src[0]!r:.80}.")
    tensor = g.tensor(src)
    if tensor is None:  # a pending call: its shape is not known yet, everything is offered
        return {"classes": None, "accept": [], "refuse": []}
    return {"classes": classes_accepting(tensor), **ports_accepting(g, tensor)}


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
    from .teaching import walk_payload

    return walk_payload(g)


def _forward_steps(g: Graph, m: dict, sample: Any) -> list:
    """The forward pass node by node on one real sample: shapes, statistics, small pictures."""
    return [s.payload() for s in g.forward_steps(sample)]


def _explain_edge(g: Graph, m: dict) -> dict:
    """The KerasTensor an edge carries and its _keras_history."""
    return g.explain_edge(_triple(m, "src"), *_edge_end(m, "dst")).data


def _set_outputs(g: Graph, m: dict) -> None:
    """The model's outputs marked and ordered on the canvas (internals.py): one undo step."""
    from .internals import set_outputs_intent

    set_outputs_intent(g, m["outputs"], m.get("keys"), lambda p: _triple({"p": p}, "p"))


def _internals(g: Graph, m: dict) -> dict:
    from .internals import internals

    return internals(g, _name(m))


def _node_graph(g: Graph, m: dict) -> dict:
    from .internals import node_graph

    return node_graph(g)


_READS = {"explain", "explain_edge", "depth_steps", "internals", "node_graph", "export_html"}  # intents that change nothing


def _code(g: Graph, m: dict) -> dict:
    """The export-code panel's text: `g.to_code()`, or why there is none yet."""
    try:
        return {"code": g.to_code(), "error": None}
    except (EditError, ValueError, TypeError, RuntimeError) as e:
        return {"code": None, "error": canvas_words(str(e))}


def _export_html(g: Graph, m: dict) -> dict:
    """The Export HTML button's file: the standalone read-only view (kerascanvas/standalone.py)."""
    from .standalone import html

    return {"html": html(g), "name": g.name}


def _stable(g: Graph, edit: Callable[[], Any]) -> Any:
    with g.batch():
        placement.freeze(g)
        return edit()


_HANDLERS: dict[str, Callable[[Graph, dict], Any]] = {
    "explain": _explain,
    "explain_edge": _explain_edge,
    "depth_steps": _depth_steps,
    "internals": _internals,
    "node_graph": _node_graph,
    "set_outputs": _set_outputs,
    "add_layer": _add_layer,
    "add_input": _add_input,
    "connect": lambda g, m: _stable(g, lambda: _connect(g, m, g.connect)),
    "disconnect": lambda g, m: _stable(g, lambda: _connect(g, m, g.disconnect)),
    "remove": _remove,
    "rename": lambda g, m: g.rename(_name(m), _name(m, "new_name")),
    "configure": _configure,
    "add_call": lambda g, m: g.add_call(_name(m)),
    "remove_call": lambda g, m: g.remove_call(_name(m), _index(m, "call")),
    "configure_call": _configure_call,
    "move": lambda g, m: g.move(_name(m), _number(m, "x"), _number(m, "y")),
    "arrange": lambda g, m: g.arrange(),
    "expand": lambda g, m: g.expand(_name(m), m["open"]),
    "fold": lambda g, m: g.fold(_name(m), m["folded"]),
    "fold_all": lambda g, m: g.fold_all(m["folded"]),
    "duplicate": _duplicate,
    "insert_layer": _insert_layer,
    "rewire": _rewire,
    "accepts": _accepts,
    "code": _code,
    "export_html": _export_html,
    "undo": lambda g, m: g.undo(),
    "redo": lambda g, m: g.redo(),
}


def _wire_problem(payload: Any) -> str | None:
    """Why `payload` cannot go to the browser (over limits.STATE_BYTES as Jupyter's UTF-8 JSON,
    or not valid Unicode: text is checked where it enters, this is a last guard), or None."""
    return _wire_check(payload)[0]


def _wire_check(payload: Any) -> tuple[str | None, int]:
    """(_wire_problem's answer, the payload's size in bytes as Jupyter sends it)."""
    try:
        size = len(json.dumps(payload, ensure_ascii=False).encode("utf-8"))
        limits.check_state(size)
    except limits.LimitError as e:
        return e.message, size
    except UnicodeEncodeError as e:
        return f"The drawing's state holds text that is not valid Unicode: {e}.", 0
    return None, size
