"""`kc.Graph`: the public API, a composition of parts, each in its own module.

- drawing.py: the drawing as data, edited in place under a change log (changelog.py);
- network.py: the live Keras objects, rebuilt where an edit touched the drawing;
- history.py: every edit is a transaction over both, kept as an undo step holding what it
  changed (undo, redo, batch, the training lock);
- edits.py: the edits that build the drawing (boxes, edges, calls, configs, outputs);
- view.py: where boxes are, which boxes are expanded and which runs are folded;
- reads.py: what the live objects say (calls, tensors, the model, its problems, depth map).
Graph wires them together and forwards its public methods to them.

Why it is long: it is the public API named in DESIGN.md: one short forwarding method (with its
docstring) per public name, and `layers`' read-only view; the work itself is in the parts.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType
from typing import Any

import keras

from ..drawing.drawing import Drawing, LayerSpec, Triple
from ..drawing.drawing import as_triple as _triple
from ..errors import EditError
from ..insights import insights
from ..network.network import Journal, Network
from ..text import check_text
from . import trainable as trainable_edits
from .edits import Edits
from .history import FLAGS, STRUCTURE, VIEW, WEIGHTS, History
from .reads import Problem, Reads
from .view import View

__all__ = ["Graph", "Problem"]

# Characters a layer name may not hold under this backend, beyond drawing.FORBIDDEN_IN_NAMES:
# torch modules cannot name a parameter with a "."
FORBIDDEN_HERE = ({".": "the torch backend cannot hold '.' in a weight's name"}
                  if keras.backend.backend() == "torch" else {})


def _to(part: str, method: Callable) -> Callable:
    """`method` of one of the graph's parts (`part` names the attribute holding it) as a method
    of the graph: same name, signature and docstring."""

    @functools.wraps(method)
    def forward(self, *args, **kwargs):
        return method(getattr(self, part), *args, **kwargs)

    forward.__qualname__ = f"Graph.{method.__name__}"
    return forward


def _read(part: str, cls: type, name: str) -> property:
    """Property `name` of one of the graph's parts as a read-only property of the graph."""
    return property(lambda self: getattr(getattr(self, part), name), doc=getattr(cls, name).__doc__)


class Graph:
    """A drawing of a Keras functional model and the live Keras objects that match it."""

    def __init__(self, name: str = "model"):
        if not isinstance(name, str) or not name:
            raise TypeError(f"Graph name must be a non-empty string, got {name!r}.")
        self.name = check_text(name, "A graph name")
        # what the import says about the drawing that is not a problem, shown muted on the canvas
        self.notes: tuple[str, ...] = ()
        self._drawing = Drawing(forbidden=FORBIDDEN_HERE)  # the one drawing, edited in place
        self._net = Network()
        self._observers: list[Callable[[Graph], None]] = []
        self._structure_revision = 0
        self._history = History(self._drawing, self._net, self._changed, self._notify,
                                names_changed=self._names_changed)
        self._reads = Reads(self._drawing, self._net)
        self._view = View(self._drawing, self._history, lambda: self._reads.depth,
                          self._reads.live_layer)
        self._edits = Edits(self._history, self._net)
        self._layers: _Layers | None = None  # `layers`, made again after a change
        # The compile and fit settings of the last training run, set by the trainer as a run
        # starts (training_code.run_settings), written by to_code(training=True); or None.
        self.last_training: dict | None = None
        # The drawing as imported or loaded (from_model, load_keras, load), frozen, to compare
        # against: kc.compare(g.as_imported, g). None for a drawing begun here.
        self.as_imported = None
        # The drawing as last saved to or loaded from a .kc file (save, load), frozen, to
        # compare against: kc.compare(g.as_saved, g). None until then.
        self.as_saved = None
        # The snapshots taken with a name (g.snapshot("before")), by name: what the canvas's
        # "Compare with..." offers besides the drawing as imported and as saved.
        self.snapshots: dict = {}

    # ----- building (edits.py) -----------------------------------------------------------------

    add_input = _to("_edits", Edits.add_input)
    add_layer = _to("_edits", Edits.add_layer)
    add_layer_from_config = _to("_edits", Edits.add_layer_from_config)
    connect = _to("_edits", Edits.connect)
    disconnect = _to("_edits", Edits.disconnect)
    remove = _to("_edits", Edits.remove)
    insert = _to("_edits", Edits.insert)
    rewire = _to("_edits", Edits.rewire)
    rename = _to("_edits", Edits.rename)
    configure = _to("_edits", Edits.configure)
    configure_call = _to("_edits", Edits.configure_call)
    call_settings = _to("_edits", Edits.call_settings)
    add_call = _to("_edits", Edits.add_call)
    remove_call = _to("_edits", Edits.remove_call)
    duplicate = _to("_edits", Edits.duplicate)
    set_outputs = _to("_edits", Edits.set_outputs)
    set_dict_inputs = _to("_edits", Edits.set_dict_inputs)
    set_structures = _to("_edits", Edits.set_structures)

    def set_trainable(self, name: str, trainable: bool) -> None:
        """Freeze (trainable=False) or unfreeze a box, a folded run (named by its first layer:
        every layer of it) or a layer inside a nested model by path ("outer/inner", any
        depth), as `layer.trainable = ...` does: a flag on the live layers, no rebuild, weights
        untouched; one undo step. Unfreezing an inner layer makes the models around it
        trainable too, their other layers kept as they were."""
        trainable_edits.set_trainable(self, self._history, self._net, name, trainable)

    def freeze_before(self, name: str) -> list[str]:
        """Freeze every layer upstream of box `name` (the usual fine-tuning cut), in one undo
        step; returns their names."""
        return trainable_edits.freeze_before(self, self._history, self._net, name)

    def enable_lora(self, name: str | None, rank: int) -> list[str]:
        """`layer.enable_lora(rank)` on a box or a layer inside it by path ("outer/inner",
        "transformer_layer_0/self_attention/query"): a Dense, EinsumDense or Embedding, as Keras
        does it (its kernel stops training; two small matrices of that rank train). A box that
        is none of those (a KerasHub TransformerDecoder, a backbone) gets LoRA on the layers in
        it that KerasHub's Backbone.enable_lora targets (query and value); name None: those of
        the whole drawing. Files and code keep it; one undo step (undo puts the layers without
        LoRA back). Returns the paths that got LoRA."""
        from . import lora  # (graph/lora.py)

        return lora.enable_lora(self, self._history, self._net, name, rank)

    def quantize(self, name: str | None, mode: str) -> list[str]:
        """`layer.quantize(mode)` ("int8", "float8", "int4") on box `name`, or with name None on
        every box that takes the mode and is not quantized yet (as `model.quantize(mode)`): a
        built Dense, EinsumDense or Embedding. Its config then carries Keras's quantized dtype
        policy ("int8_from_float32"), so files and code keep it; one undo step (undo puts the
        unquantized layers back). Returns the names quantized."""
        from . import quantize  # (graph/quantize.py)

        return quantize.quantize(self, self._history, self._net, name, mode)

    # ----- the view (view.py) -----------------------------------------------------------------

    move = _to("_view", View.move)
    move_many = _to("_view", View.move_many)
    arrange = _to("_view", View.arrange)
    expand = _to("_view", View.expand)
    fold = _to("_view", View.fold)
    show = _to("_view", View.show)
    fold_all = _to("_view", View.fold_all)
    set_direction = _to("_view", View.set_direction)
    direction = _read("_view", View, "direction")

    @property
    def expanded(self) -> frozenset[str]:
        """The nested-model boxes shown with their inside."""
        return self._drawing.expanded

    @property
    def folded(self) -> frozenset[str]:
        """The runs of repeated blocks shown as one box, each named by its first layer."""
        return self._drawing.folded

    @property
    def pinned(self) -> frozenset[str]:
        return frozenset(self._drawing.pinned)

    repeats = _read("_view", View, "repeats")
    repeats_found = _read("_view", View, "repeats_found")
    run_head = _to("_view", View.run_head)
    folded_layers = _read("_view", View, "folded_layers")
    positions = _read("_view", View, "positions")
    box_sizes = _read("_view", View, "box_sizes")
    inner = _to("_view", View.inner)

    # ----- outputs and structures -------------------------------------------------------------

    def mark_output(self, port: str | Triple, marked: bool = True) -> None:
        """Mark one port as a model output (after those already chosen) or unmark it, as the
        canvas's Outputs markers do: the outputs become explicit (exactly the marked ports, in
        order; dict keys kept); unmarking the last returns to every unconsumed port. One undo step."""
        from ..teaching.internals import toggled_outputs

        order, keys = toggled_outputs(self, _triple(port), marked)
        self.set_outputs(dict(zip(keys, order)) if keys else order, only=bool(order))

    @property
    def input_structure(self) -> Any:
        """The inputs' structure set by `set_structures` (JSON), or None."""
        return self._drawing.input_structure

    @property
    def output_structure(self) -> Any:
        """The outputs' structure set by `set_structures` (JSON), or None."""
        return self._drawing.output_structure

    @property
    def output_keys(self) -> tuple[str, ...]:
        """The keys of dict outputs, one per `outputs` entry (sorted), or () for a list."""
        return self._drawing.output_keys

    @property
    def dict_inputs(self) -> bool:
        """Whether `g.model` takes {input name: tensor}."""
        return self._drawing.dict_inputs

    # ----- history: undo, redo, batch, lock (history.py) -------------------------------------

    @property
    def can_undo(self) -> bool:
        return self._history.can_undo

    @property
    def can_redo(self) -> bool:
        return self._history.can_redo

    def undo(self) -> None:
        self._history.undo()

    def redo(self) -> None:
        self._history.redo()

    def batch(self, all_or_nothing: bool = False) -> contextlib.AbstractContextManager:
        """Several edits as one: Keras is called once at the end, and undo takes them back at once.

        Structural checks happen at each edit; Keras's checks at the end, where a refusal takes
        back the whole batch. Reads inside the block see the drawing as it was before it.
        all_or_nothing=True (files, import): a refused edit must end the block (its error left to
        propagate), which spares each edit taking back what it did.
        """
        return _yielding(self, self._history.batch(all_or_nothing))

    @property
    def history_dropped(self) -> int:
        """Undo steps dropped to keep history under limits.HISTORY_BYTES."""
        return self._history.dropped

    def reset_history(self) -> None:
        """Forget undo and redo (a loaded drawing starts a fresh history)."""
        self._history.reset()

    def remember_weights(self) -> Journal:
        """The weights of every live layer now; `weights_changed` makes what changes them after
        this (a training run) one undo step, and `.rollback()` on it puts them back."""
        journal = Journal()
        for layer in self._net.objects.values():
            if getattr(layer, "weights", None):  # (a keras.ops operation has none)
                journal.weights(layer)
        return journal

    def weights_changed(self, journal: Journal) -> None:
        """Record the weight changes since `remember_weights()` as one undo step: undo puts the
        weights from before back, redo the new ones. The drawing is unchanged. Not refused while
        training runs: the trainer calls it as the run ends."""
        self._history.weights_changed(journal)

    @property
    def lock_reason(self) -> str | None:
        """Why structural edits are refused now (training runs on these layers), or None."""
        return self._history.lock_reason

    def lock(self, reason: str) -> None:
        """Refuse structural edits (with `reason` as their error) until `unlock()`; view edits
        stay allowed. Refused if already locked."""
        self._history.lock(reason)

    def unlock(self) -> None:
        self._history.unlock()

    @contextlib.contextmanager
    def locked(self, reason: str):
        """`lock(reason)` for the duration of a with-block."""
        self.lock(reason)
        try:
            yield self
        finally:
            self.unlock()

    @property
    def _edit_lock(self) -> str | None:  # (older tests set it directly)
        return self._history.lock_reason

    @_edit_lock.setter
    def _edit_lock(self, reason: str | None) -> None:
        self._history.lock_reason = reason

    @property
    def undo_step(self):
        """The step the next undo takes back (history.Step: its kind says what it changed), or
        None: a canvas tells its own steps from a cell's by it (canvas/widget.py)."""
        steps = self._history.undo_steps
        return steps[-1] if steps else None

    @property
    def _undo(self):  # (older tests read the steps)
        return self._history.undo_steps

    def _changed(self, kind: str, settle: bool) -> None:
        """After a change (history.py): the caches it made stale go; settle=True: the edit's
        change log is still open, and folds whose runs it broke go with it."""
        if kind != WEIGHTS:
            self._layers = None
        if kind == VIEW:
            self._view.forget_positions()
        elif kind == FLAGS:  # the same layers; a new keras.Model, so a fit compiles again
            self._structure_revision += 1
            self._reads.forget()
        elif kind == STRUCTURE:
            old_runs = self._view.runs
            self._structure_revision += 1
            self._reads.forget()
            self._view.forget()
            if settle:
                self._view.settle_folds(old_runs)

    def _names_changed(self, journal: Journal, renamed: Mapping[str, str],
                       removed: set[str]) -> None:
        """Layers were renamed or removed (history.py): their training insights follow, in the
        same step."""
        insights.of(self).layers_changed(journal, renamed, removed)

    def _notify(self) -> None:
        for callback in list(self._observers):
            callback(self)

    # ----- reading ----------------------------------------------------------------------------

    @property
    def layers(self) -> Mapping[str, Mapping[str, Any]]:
        """{name: {"class_name", "config"}} in creation order (read-only, nested configs
        included; a copy of a config is a plain dict): the drawing as it is now, the same object
        until the next change. (Made on every access, it made the node view of 2,000 layers
        quadratic: 1.2 s.)"""
        layers = self._layers
        if layers is None:
            layers = _Layers(self._drawing.layers)
            if not self._drawing.under_edit:  # (an edit under way may yet be taken back)
                self._layers = layers
        return layers

    @property
    def edges(self) -> tuple:
        """((src, node_index, tensor_index), (dst, call, slot)) pairs in creation order."""
        return tuple((e.src, e.dst) for e in self._drawing.edges)

    @property
    def specs(self) -> Mapping[str, LayerSpec]:
        """{name: LayerSpec} in creation order (read-only; specs are immutable): what the state,
        code and files are made from, without copying configs as `layers` does."""
        return MappingProxyType(self._drawing.layers)

    @property
    def drawn_edges(self) -> tuple:
        """The drawing's Edge(src, dst) records in creation order; an unchanged edge stays the
        same object from edit to edit."""
        return tuple(self._drawing.edges)

    @property
    def output_order(self) -> tuple[Triple, ...]:
        """The output order set by `set_outputs` (outputs not listed follow, unless outputs_only)."""
        return self._drawing.output_order

    @property
    def outputs_only(self) -> bool:
        return self._drawing.outputs_only

    live_layer = _to("_reads", Reads.live_layer)
    saved_weights = _to("_reads", Reads.saved_weights)

    def park_weights(self, name: str, arrays: list) -> None:
        """Give a pending box the weights a file holds for it (storage.load; not an undo step)."""
        self._drawing.spec(name)  # an unknown name raises
        if name in self._net.objects:
            raise EditError(f"{name!r} has a live layer; set its weights on that layer.")
        self._net.park(name, arrays)

    @property
    def live_names(self) -> tuple[str, ...]:
        """Names of the boxes that have a live Keras layer object, in the order the network made
        them: each box one of whose calls has been complete. A box whose calls all went pending
        again (an input removed) keeps its object, and its weights, among them."""
        return tuple(self._net.objects)

    param_counts = _to("_reads", Reads.param_counts)
    weight_bytes = _to("_reads", Reads.weight_bytes)
    call_record = _to("_reads", Reads.call_record)
    pending_reason = _to("_reads", Reads.pending_reason)
    call_inputs = _to("_reads", Reads.call_inputs)
    call_slots = _to("_reads", Reads.call_slots)
    node_inputs = _to("_reads", Reads.node_inputs)

    def call_path(self, start: tuple[str, int], goal: tuple[str, int]) -> list | None:
        """The calls on a path of edges from call `start` to call `goal`, or None."""
        return self._drawing.path(start, goal)

    def calls(self, name: str) -> int:
        """How many calls of the layer are drawn (complete or pending)."""
        return self._drawing.spec(name).calls

    is_built = _to("_reads", Reads.is_built)
    keras_layer = _to("_reads", Reads.keras_layer)

    def tensor(self, src: str | Triple):
        """The KerasTensor of an output port, or None while its call is pending."""
        return self._reads.tensor(_triple(src))

    @property
    def problems(self) -> list[Problem]:
        """Why the drawing is not (yet) a model; empty when `g.model` exists."""
        return self._reads.problems(self.name)

    @property
    def model(self) -> keras.Model | None:
        """A keras.Model over every Input and every unconsumed output, or None (see problems)."""
        return self._reads.model(self.name)

    model_checked = _read("_reads", Reads, "model_checked")
    left_out = _read("_reads", Reads, "left_out")
    problems_before_keras = _to("_reads", Reads.problems_before_keras)
    inputs = _read("_reads", Reads, "inputs")
    outputs = _read("_reads", Reads, "outputs")
    depth = _read("_reads", Reads, "depth")

    @property
    def nodes_by_depth(self) -> dict[int, list[tuple[str, int]]]:
        return self.depth.nodes_by_depth

    @property
    def layers_by_depth(self) -> dict[int, list[str]]:
        return self.depth.layers_by_depth

    @property
    def structure_revision(self) -> int:
        """Counts structural changes (layers, calls, edges, outputs); view edits leave it."""
        return self._structure_revision

    def observe(self, callback: Callable[[Graph], None]) -> Callable[[], None]:
        """Call `callback(graph)` after every change; returns a function that stops it."""
        self._observers.append(callback)
        return lambda: self._observers.remove(callback) if callback in self._observers else None

    def forget(self) -> None:
        """Make every cached read (model, depth map, layout) again on next use (benchmarks)."""
        self._changed(STRUCTURE, False)

    def state(self) -> dict:
        from ..mirror.state import graph_state

        return graph_state(self)

    def to_html(self, path, compare_with=None) -> Any:
        """Write a self-contained read-only interactive view of the drawing to `path` (one HTML
        file: no kernel, no network; kerascanvas/io/standalone.py). Returns the path.
        compare_with: a snapshot, Graph, keras.Model or file to mark the changes from (as the
        canvas's "Compare with..." marks them)."""
        from ..io.standalone import to_html

        if compare_with is None:
            return to_html(self, path)
        from ..io.compare import compare
        from ..io.compare_marks import view

        other = compare_with if hasattr(compare_with, "specs") else None
        result = compare(compare_with, self, type(self))
        if other is None:  # (a model or a file: imported once more, for the ghosts' classes)
            from ..io.compare import as_drawing

            other = as_drawing(compare_with, type(self), "other")
        from ..io.snapshot import Snapshot

        kind = "snapshot" if isinstance(other, Snapshot) else "the drawing"
        label = f"{kind} {getattr(other, 'name', '?')!r}"
        return to_html(self, path, view(result, other, self, label))

    # ----- teaching views (teaching.py) ----------------------------------------------------

    def explain_node(self, layer: str, node_index: int = 0):
        """A node's tensors and Keras 2 coordinates, with seed 001's identity checked live."""
        from ..teaching.teaching import explain_node

        return explain_node(self, layer, node_index)

    def explain_layer(self, layer: str):
        """A layer's _inbound_nodes (the edges feeding each call) and _outbound_nodes."""
        from ..teaching.teaching import explain_layer

        return explain_layer(self, layer)

    def explain_edge(self, src: str | Triple, dst: str, call: int = 0, slot: int = 0):
        """The KerasTensor on an edge and its _keras_history."""
        from ..teaching.teaching import explain_edge

        return explain_edge(self, src, dst, call, slot)

    def depth_steps(self) -> list[tuple]:
        """Seed 000's depth computation on this graph, step by step."""
        from ..teaching.teaching import depth_steps

        return depth_steps(self)

    def cycle_path(self, src: str | Triple, dst: str, call: int = 0):
        """The calls that would form a cycle if this edge were drawn, or None."""
        from ..teaching.teaching import cycle_path

        return cycle_path(self, src, dst, call)

    def forward_steps(self, sample) -> list:
        """The forward pass node by node (decreasing depth) on a real sample."""
        from ..teaching.teaching import forward_steps

        return forward_steps(self, sample)

    # ----- code, import, files (codegen.py, importer.py, storage.py) -------------------------

    def to_code(self, op_names: bool = False, training: bool = False) -> str:
        """Python source (keras functional API) that rebuilds the same model, trainable flags
        and LoRA set after construction as a person sets them. Operations are written as
        `x + 3.0`, `keras.ops.mean(x, axis=1)` (Keras names them itself, so their box names
        change on import); op_names=True keeps them; see codegen.to_code. training=True adds
        the `compile(...)` and `fit(...)` of the last training run (`last_training`), its data
        named `x_train, y_train`."""
        from ..io import codegen, training_code

        if training:
            return training_code.to_code(self, op_names)
        return codegen.to_code(self, op_names)

    @classmethod
    def from_model(cls, model: keras.Model, trust_custom: bool = False) -> Graph:
        """A drawing of any Functional or Sequential model, weights included: catalog layers,
        keras.ops operations, Keras's own layers and registered classes (`kc.register`);
        trust_custom=True registers the user classes the model uses."""
        from ..io.importer import from_model

        return _keeping_as_imported(from_model(model, cls, trust_custom))

    @classmethod
    def load_keras(cls, path, trust_custom: bool = False) -> Graph:
        """A drawing of a model saved as a .keras file (trust_custom: as in from_model)."""
        from ..io.importer import load_keras

        return _keeping_as_imported(load_keras(path, cls, trust_custom))

    def replay(self, description: Mapping[str, Any], as_given: bool = False) -> None:
        """Draw a described drawing in one batch (one rebuild, one undo step): what a file holds
        and what import makes of a model. {"layers": [{"name", "class_name", "config", "calls"}],
        "edges": [[src triple, [dst, call, slot]]], and optionally "pinned": {name: [x, y]},
        "expanded": [name], "folded": [first layer of a run], "direction": "down" | "right",
        "outputs": [triple], "outputs_only": bool, "dict_inputs": bool,
        "output_keys": [key per output]} (see storage.py)."""
        from ..io.storage import replay

        replay(self, description, as_given)

    def save(self, path) -> None:
        """Save drawing, configs, positions and weights (atomically: write, then rename)."""
        from ..io import snapshot
        from ..io.storage import save

        save(self, path)
        self.as_saved = snapshot.take(self, "as saved", snapshot.AS_IMPORTED_WEIGHT_BYTES)

    @classmethod
    def load(cls, path) -> Graph:
        from ..io.storage import load

        g = _keeping_as_imported(load(path, cls))
        g.as_saved = g.as_imported  # (as loaded: the same frozen drawing)
        return g

    def snapshot(self, name: str | None = None):
        """The drawing as it is now, frozen, to compare against later (kc.compare(s, g)): its
        specs and edges (immutable, shared) and one copy of every live layer's weights as numpy
        arrays; nothing live (io/snapshot.py). One given a name is kept in `snapshots` (the
        canvas's "Compare with..." offers it; a later one of the same name replaces it)."""
        from ..io.snapshot import take

        taken = take(self, name)
        if name is not None:
            self.snapshots[name] = taken
        return taken

    def __repr__(self) -> str:
        d = self._drawing
        return (f"<kerascanvas.Graph {self.name!r}: {len(d.layers)} layers, {len(d.edges)} edges, "
                f"{'model' if self.model is not None else f'{len(self.problems)} problem(s)'}>")




def _keeping_as_imported(g: Graph) -> Graph:
    """g with `as_imported` set: its snapshot, weights included up to
    snapshot.AS_IMPORTED_WEIGHT_BYTES."""
    from ..io import snapshot

    g.as_imported = snapshot.take(g, "as imported", snapshot.AS_IMPORTED_WEIGHT_BYTES)
    return g


class _Layers(Mapping):
    """`Graph.layers`: the drawing's specs at one moment (a copy of its dict), each entry made
    when first read, once."""

    def __init__(self, specs: Mapping[str, LayerSpec]):
        self._specs = dict(specs)
        self._made: dict[str, Mapping[str, Any]] = {}

    def __getitem__(self, name: str) -> Mapping[str, Any]:
        entry = self._made.get(name)
        if entry is None:
            spec = self._specs[name]
            entry = self._made[name] = MappingProxyType({
                "class_name": spec.class_name,
                "config": MappingProxyType(_read_only(dict(spec.config)))})
        return entry

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    def __iter__(self) -> Iterator[str]:
        return iter(self._specs)

    def __len__(self) -> int:
        return len(self._specs)

    def __repr__(self) -> str:
        return repr(dict(self))


def _refused(self, *args, **kwargs):
    raise TypeError("A config that Graph.layers shows is read-only: change a layer with "
                    "g.configure(name, ...), or copy the config (copy.deepcopy) to change it.")


class _ReadOnlyDict(dict):
    """A dict in a config that `Graph.layers` shows: reads as the dict (==, json.dumps), refuses
    changes (they would change the drawing's own config); a copy of it is a plain dict."""

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = __ior__ = _refused

    def __reduce__(self):
        return (dict, (dict(self),))


class _ReadOnlyList(list):
    """A list in a config that `Graph.layers` shows (see _ReadOnlyDict)."""

    __setitem__ = __delitem__ = append = extend = insert = pop = remove = clear = sort = \
        reverse = __iadd__ = __imul__ = _refused

    def __reduce__(self):
        return (list, (list(self),))


def _read_only(value: Any) -> Any:
    """`value` with every dict and list in it read-only (tuples of them included)."""
    if isinstance(value, dict):
        return _ReadOnlyDict((k, _read_only(v)) for k, v in value.items())
    if isinstance(value, list):
        return _ReadOnlyList(map(_read_only, value))
    if type(value) is tuple:
        return tuple(map(_read_only, value))
    return value


@contextlib.contextmanager
def _yielding(graph: Graph, inner: contextlib.AbstractContextManager):
    """`inner` as a context manager that gives the graph to `with ... as g`."""
    with inner:
        yield graph
