"""Drawing -> live Keras objects: one Node per complete call, rebuilt incrementally.

Keras nodes are append-only, so a changed call k of a layer truncates that layer's node list at k
(and unhooks the dropped nodes from their sources' `_outbound_nodes`) before calling it again.
Everything downstream follows because its input tensors are new objects. A built layer whose input
shapes did not change is called again (cheap, keeps its weights); otherwise a fresh layer is made
from its config, so a call Keras refuses never touches a live object. Every mutation goes through a
Journal, which is how a refused edit is rolled back and how undo/redo restore exact objects.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from typing import Any, NamedTuple

import keras
import numpy as np

from .. import limits
from ..drawing.drawing import CallKey, Drawing, LayerSpec
from ..errors import EditError
from ..kinds import calls, custom, kinds, nested
from . import inside
from .detached import array_refs, held_values, same_arrays
from .weights import SavedWeights, inherit_weights

_MISSING = object()
KerasTensor = keras.KerasTensor  # a call's one output: no tree to flatten


class CallRecord(NamedTuple):
    inputs: tuple  # the KerasTensors fed to the call, in slot order
    outputs: tuple  # its output KerasTensors, flattened: tensor_index order
    shapes: tuple  # ((shape, dtype), ...) of the inputs
    how: tuple = ()  # (the slots the inputs fill, calls.CallArgs): how the call was made


class Journal:
    """Before/after values of everything an edit mutates: rollback, undo and redo in one place.

    While the edit runs, a cell is a tuple (kind, target, key, before); `seal` reads the after
    values, drops the cells that did not change, and packs the rest into one flat tuple, five
    slots a cell. An undo step keeps its journal, so it is kept small: no object per cell once
    sealed, node lists as tuples (an empty one is the shared `()`). _read and _write know each
    kind (no closures per cell: an edit makes a dozen cells)."""

    __slots__ = ("_cells",)

    def __init__(self):
        # while open: {(id(target), key): cell}, the first cell of each (a dict keeps their
        # order, and its one lookup both finds a repeat and adds a cell); once sealed: CELL
        # slots per cell
        self._cells: dict | tuple = {}

    def item(self, d: dict, key: Any) -> None:
        seen = (id(d), key)
        if seen not in self._cells:
            self._cells[seen] = ("item", d, key, d.get(key, _MISSING))

    def setitem(self, d: dict, key: Any, value: Any) -> None:
        seen = (id(d), key)
        if seen not in self._cells:
            self._cells[seen] = ("item", d, key, d.get(key, _MISSING))
        d[key] = value

    def delitem(self, d: dict, key: Any) -> None:
        self.item(d, key)
        d.pop(key, None)

    def setattr(self, obj: Any, attr: str, value: Any) -> None:
        seen = (id(obj), attr)
        if seen not in self._cells:
            self._cells[seen] = ("attr", obj, attr, getattr(obj, attr))
        setattr(obj, attr, value)

    def node_list(self, lst: list) -> None:
        """Remember a layer's node list before Keras or we change it (a call appends to its
        layer's inbound nodes and to its sources' outbound nodes, and a cut takes them out)."""
        seen = (id(lst), None)
        if seen not in self._cells:
            self._cells[seen] = ("list", lst, None, tuple(lst))

    def weights(self, layer: Any) -> None:
        """Remember a layer's weight values (training changes them, not the structure)."""
        seen = (id(layer), None)
        if seen not in self._cells:
            self._cells[seen] = ("weights", layer, None, host_weights(layer))

    def read_weights_now(self) -> None:
        """Read the weights' after values now rather than at `seal` (nothing may change them in
        between): a training run's end reads them while its last insights record computes."""
        for seen, cell in self._cells.items():
            if cell[0] == "weights" and len(cell) == 4:
                self._cells[seen] = (*cell, host_weights(cell[1]))

    def rollback(self) -> None:
        """Put back what the open edit changed (it was refused)."""
        for kind, target, key, before, *_ in reversed(self._cells.values()):
            _write(kind, target, key, before)

    def seal(self) -> list:
        """The edit is over: read the after values (undo steps keep them). A cell whose value
        did not change goes (a source's inbound nodes when a consumer calls it): undo and redo
        would only write back what is there. Returns the values kept that are not plain data,
        those that may hold weights (what undo history weighs): no status, count, record or
        node list (a tuple)."""
        kept, held = [], []
        keep = kept.extend
        for cell in self._cells.values():
            kind, target, key, before = cell[:4]
            if kind == "list":  # (tuples: plain)
                after = tuple(target)
                if after != before:
                    keep((kind, target, key, before, after))
                continue
            after = target.get(key, _MISSING) if kind == "item" else \
                cell[4] if len(cell) == 5 else _read(kind, target, key)  # (read_weights_now)
            if after is not before:
                keep((kind, target, key, before, after))
                if type(before) not in PLAIN:
                    held.append(before)
                if type(after) not in PLAIN:
                    held.append(after)
        self._cells = tuple(kept)
        return held

    def amend(self, d: dict, key: Any, before: Any, after: Any) -> None:
        """A sealed journal's after value of `d[key]` becomes `after` (a cell from `before` if
        the edit left it unchanged): what finished after the step was sealed (a training run's
        last insights records) is part of what redo brings back and undo takes away."""
        cells = self._cells
        for i in range(0, len(cells), CELL):
            if cells[i] == "item" and cells[i + 1] is d and cells[i + 2] == key:
                self._cells = (*cells[:i + 4], after, *cells[i + 5:])
                return
        self._cells = (*cells, "item", d, key, before, after)

    def undo(self) -> None:
        cells = self._cells
        for i in range(len(cells) - CELL, -1, -CELL):
            _write(cells[i], cells[i + 1], cells[i + 2], cells[i + 3])

    def redo(self) -> None:
        cells = self._cells
        for i in range(0, len(cells), CELL):
            _write(cells[i], cells[i + 1], cells[i + 2], cells[i + 4])


CELL = 5  # slots per sealed journal cell: kind, target, key, before, after
# Values that hold no weights: statuses, counts, call records, configs, node lists (tuples),
# the "was not there" mark
PLAIN = frozenset({type(_MISSING), type(None), str, int, float, bool, tuple, dict, CallRecord})


def _read(kind: str, target: Any, key: Any) -> Any:
    if kind == "item":
        return target.get(key, _MISSING)
    if kind == "attr":
        return getattr(target, key)
    if kind == "list":
        return tuple(target)
    return host_weights(target)


_HOST_COPIES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_JAX = keras.backend.backend() == "jax"


def host_weights(layer: Any) -> list:
    """`layer.get_weights()`. Under JAX, while a layer's values are the very array objects read
    last time (a JAX array never changes in place) and the copies made then are still held (by
    an undo step), those copies again: a training run's end and the next run's start read the
    weights once (a host copy of a large weight costs fresh memory, about 0.1 ms per 256 KB).
    Only weak references are kept here. The arrays are shared: read them, never change them."""
    if not _JAX:
        return layer.get_weights()
    values = held_values(layer.weights)
    kept = _HOST_COPIES.get(layer)
    if kept is not None and same_arrays(kept[0], values):
        copies = [ref() for ref in kept[1]]
        if all(c is not None for c in copies):
            return copies
    copies = [np.array(v) for v in values]
    _HOST_COPIES[layer] = (array_refs(values), array_refs(copies))
    return copies


def _write(kind: str, target: Any, key: Any, value: Any) -> None:
    if kind == "item":
        if value is _MISSING:
            target.pop(key, None)
        else:
            target[key] = value
    elif kind == "attr":
        setattr(target, key, value)
    elif kind == "list":  # list.__setitem__: TrackedList overrides only the element-wise mutators
        list.__setitem__(target, slice(None), value)
    else:
        target.set_weights(value)


class Network:
    """The live Keras objects behind a Drawing."""

    shortcuts = True  # False: every rebuild takes the general pass (tests compare the two)

    def __init__(self):
        self.objects: dict[str, keras.layers.Layer] = {}
        self.made_from: dict[str, Mapping] = {}  # the config object each live layer was made from
        self.records: dict[CallKey, CallRecord] = {}
        self.status: dict[CallKey, str | None] = {}  # None: built; else why the call is pending
        self.created = 0  # layers made from config so far (tests use it to check reuse)
        self.prepared: dict[str, tuple[Mapping, Any, bool]] = {}  # name -> (config, layer made
        # while checking that config, built with its weights?), used once instead of making it again
        self.parked: dict[str, SavedWeights] = {}  # pending boxes' weights from a loaded file
        self.param_counts: dict[str, int] = {}  # name -> scalars in its live layer's variables
        self.params_total = 0  # their sum, kept as layers come and go (limits.TOTAL_PARAMS)

    # ----- what the graph gives and reads -------------------------------------------------------

    def prepare(self, name: str, config: Mapping, layer: Any, built: bool = False) -> None:
        """A layer made from `config` while checking it: the network calls it instead of making
        the layer a second time (once: a later config makes its own). built: it is built and
        holds its weights (the live layer's copy with LoRA on or quantized, graph/lora.py)."""
        self.prepared[name] = (config, layer, built)

    def park(self, name: str, arrays: list) -> None:
        """A file's weights for a pending box: its first call's layer takes them if they fit."""
        self.parked[name] = SavedWeights(arrays)

    def is_live(self, obj: Any) -> bool:
        """Whether `obj` is one of the live layers (undo history does not weigh those)."""
        return self.objects.get(getattr(obj, "name", None)) is obj

    # ----- the rebuild -------------------------------------------------------------------------

    def rebuild(self, drawing: Drawing, journal: Journal,
                predecessors: Mapping[str, keras.layers.Layer] | None = None) -> None:
        """Make the live objects match `drawing`, touching only calls whose inputs changed.

        predecessors: name -> a layer whose weights a newly made layer inherits (rename).
        """
        if (self.shortcuts and not predecessors and not drawing.gone and len(drawing.touched) == 1
                and self._lone_call(drawing, journal)):
            return
        predecessors = predecessors or {}
        status, ended = self.status, set()
        touched_names = {c[0] for c in drawing.touched}
        for name in drawing.gone | touched_names:
            spec = drawing.layers.get(name)
            k = 0 if spec is None else spec.calls
            while (name, k) in status:  # calls that no longer exist
                ended.add((name, k))
                k += 1
        if ended:  # a new dict (order kept); otherwise changed in place, key by key
            journal.setattr(self, "status", {c: why for c, why in status.items() if c not in ended})
            status = self.status
        redone: dict[str, int] = {}  # layer -> first call rebuilt in this pass
        order = drawing.downstream_order(drawing.touched)
        for key in order:
            name, k = key
            spec = drawing.layers[name]
            filled = drawing.filled(key)
            triples = drawing.call_inputs(spec, filled)
            reason = None
            if triples is None:
                reason = drawing.missing(spec, filled)
            elif k and status[(name, k - 1)] is not None:
                reason = f"it waits for call {k - 1} of {name}"
            else:
                reason = _waits(triples, status)
            if status.get(key, _MISSING) != reason:
                journal.setitem(status, key, reason)
            if reason is not None:
                self._cut(name, k, journal)
                continue
            inputs = tuple(self._tensor(s, key) for s in triples)
            how = (tuple(sorted(filled)), calls.of(spec, k))
            self._ensure_call(spec, k, inputs, journal, redone, predecessors, how)
        for name in drawing.gone:
            if name not in drawing.layers:
                self._drop(name, journal)
                if name in self.parked:
                    journal.delitem(self.parked, name)
        for name, held in predecessors.items():  # a pending box renamed: its weights wait on
            if name not in self.objects and name in drawing.layers and held is not None \
                    and getattr(held, "built", False) and hasattr(held, "get_weights"):
                journal.setitem(self.parked, name, SavedWeights(held.get_weights()))
        for name in touched_names.union(c[0] for c in order):
            spec = drawing.layers.get(name)
            if spec is not None:  # calls removed from the end of a layer
                built = 0
                while built < spec.calls and status.get((name, built), "") is None:
                    built += 1
                self._cut(name, built, journal)
        limits.check_total_params(self.params_total)

    def _lone_call(self, drawing: Drawing, journal: Journal) -> bool:
        """The one touched call is its box's only call, has no layer object yet and nothing
        waits on it (a box just added, an edge into a box not called yet: most edits while
        drawing): it stays pending or is made now, as the general pass would find, in fewer
        steps. False: not such an edit."""
        (key,) = drawing.touched
        name, k = key
        spec = drawing.layers.get(name)
        status = self.status
        if (spec is None or k != 0 or spec.calls != 1 or name in self.objects
                or (name, 1) in status or drawing.successors(key)):
            return False
        filled = drawing.filled(key)
        triples = drawing.call_inputs(spec, filled)
        if triples is None:
            reason = drawing.missing(spec, filled)
        else:
            reason = _waits(triples, status)
        if status.get(key, _MISSING) != reason:
            journal.setitem(status, key, reason)
        if reason is None:
            inputs = tuple([self._tensor(s, key) for s in triples])
            how = (tuple(sorted(filled)), calls.of(spec, 0))
            self._ensure_call(spec, 0, inputs, journal, {}, {}, how)
            self._cut(name, 1, journal)  # (the general pass's last step: a no-op after a call)
        limits.check_total_params(self.params_total)
        return True

    def _tensor(self, src: tuple, consumer: CallKey):
        outputs = self.records[src[:2]].outputs
        if src[2] >= len(outputs):
            raise EditError(f"{src[0]} call {src[1]} has {len(outputs)} output(s); there is no "
                            f"tensor_index {src[2]} for {consumer[0]} call {consumer[1]}.",
                            layer=consumer[0], call=consumer[1])
        return outputs[src[2]]

    def _ensure_call(self, spec: LayerSpec, k: int, inputs: tuple, journal: Journal,
                     redone: dict[str, int], predecessors: Mapping, how: tuple = ()) -> None:
        name = spec.name
        layer = self.objects.get(name)
        record = self.records.get((name, k))
        same_layer = layer is not None and self.made_from.get(name) is spec.config
        if (same_layer and name not in redone and record is not None and record.how == how
                and len(record.inputs) == len(inputs)
                and all(a is b for a, b in zip(record.inputs, inputs))):
            return  # nothing upstream of this call changed
        shapes = tuple([(tuple(t.shape), t.dtype) for t in inputs])
        previous, made = None, False
        if name not in redone:
            reuse = (same_layer and getattr(layer, "built", True) and not spec.is_input
                     and (k > 0 or (record is not None and record.shapes == shapes)))
            if reuse:
                self._cut(name, k, journal)
            else:
                assert k == 0, f"{name}: a layer is re-created only at call 0"
                previous = layer if layer is not None else (predecessors.get(name)
                                                             or self.parked.get(name))
                if name in self.parked:  # its first call takes them (or they do not fit)
                    journal.delitem(self.parked, name)
                layer, finished = self._create(spec)
                made = not finished  # (a prepared copy holds what was done inside it)
                self._drop(name, journal)
                journal.setitem(self.objects, name, layer)
                journal.setitem(self.made_from, name, spec.config)
            redone[name] = k
        if spec.is_input:
            outputs = tuple(layer._inbound_nodes[0].output_tensors)
        else:
            outputs = self._call(layer, spec, k, inputs, journal, how)
            if made:
                inside.made(layer, spec.inside)  # before weights flow in: LoRA's too
            if previous is not None and k == 0:
                inherit_weights(previous, layer)
        if self.param_counts.get(name) is None:  # made now: its variables exist once called
            self._count(name, limits.params_of(layer), journal)
        journal.setitem(self.records, (name, k), CallRecord(inputs, outputs, shapes, how))

    def _create(self, spec: LayerSpec) -> tuple[keras.layers.Layer, bool]:
        """(the box's layer, whether it is a prepared copy made and built with its weights)."""
        self.created += 1
        config, layer, built = self.prepared.pop(spec.name, (None, None, False))
        # A fresh layer is unbuilt (or built without weights: ReLU); a fresh model is built by
        # its constructor, but never called.
        if (config is spec.config and not layer._inbound_nodes
                and (not getattr(layer, "built", False) or isinstance(layer, keras.Model)
                     or not layer.weights or built)):
            return layer, built
        try:
            if spec.is_input:
                return keras.layers.InputLayer.from_config(dict(spec.config)), False
            with custom.scope():  # a registered MyReg in the config
                return kinds.get(spec.class_name).create(dict(spec.config)), False
        except Exception as e:  # Keras's own message is the useful part
            raise EditError(f"Keras refused the config of {spec.name} ({spec.class_name}): {e}",
                            layer=spec.name) from e

    def _call(self, layer, spec: LayerSpec, k: int, inputs: tuple, journal: Journal,
              how: tuple = ()) -> tuple:
        journal.node_list(layer._inbound_nodes)
        known = {}  # id of each source operation -> (it, its outbound node count before the call)
        for t in inputs:
            op = t._keras_history.operation
            journal.node_list(op._outbound_nodes)
            known[id(op)] = (op, len(op._outbound_nodes))
        if len(layer._inbound_nodes) != k:
            raise AssertionError(f"{spec.name}: call {k} would get node_index "
                                 f"{len(layer._inbound_nodes)}")
        kind = kinds.get(spec.class_name)
        call = getattr(kind, "call", None)  # keras.ops: constants too
        try:
            with limits.counted(spec.name):  # variables hold no memory until counted
                if call is not None:
                    out = call(layer, spec.config, inputs)
                else:  # positional slots by position, named ones by name, and the settings
                    filled = dict(zip(how[0] if how else range(len(inputs)), inputs))
                    args, kwargs = calls.arrange(spec.slots, filled,
                                                 how[1] if how else calls.DEFAULT,
                                                 nested.input_keys(spec.class_name, spec.config))
                    out = layer(*args, **kwargs)
        except limits.LimitError:
            raise
        except Exception as e:
            shapes = ", ".join(str(tuple(t.shape)) for t in inputs)
            why = str(e)
            if "must be fully-defined" in why:  # Keras names a variable; the cause is the input
                feeding = ", ".join(t._keras_history.operation.name for t in inputs)
                why = (f"{spec.class_name} needs every size of its input but the batch known to "
                       f"make its weights, and {feeding} gives None there. ({why})")
            raise EditError(f"Keras refused to call {spec.name} ({spec.class_name}) call {k} on "
                            f"input shape(s) {shapes}: {why}", layer=spec.name, call=k) from e
        for op, before in known.values():  # autocast (mixed precision) adds Cast nodes to the
            added = op._outbound_nodes[before:]  # sources that nothing uses: keep only this
            if len(added) != 1 or added[0].operation is not layer:  # call's own node (an op's too)
                list.__setitem__(op._outbound_nodes, slice(before, None),
                                 [n for n in added if n.operation is layer])
        out = (out,) if isinstance(out, KerasTensor) else tuple(keras.tree.flatten(out))
        if isinstance(kind, custom.CustomKind) and len(out) != spec.n_outputs:
            raise EditError(f"{spec.name} ({spec.class_name}) gives {len(out)} tensors per call, "
                            f"but its box has {spec.n_outputs} output port(s): say how many with "
                            f"kc.register(TheClass, outputs={len(out)}) (import counts them itself).",
                            layer=spec.name, call=k)
        for t in out:  # (the message is made only for a tensor over the cap)
            if limits.per_sample(t.shape) > limits.ACTIVATION:
                limits.check_activation(f"{spec.name} call {k}", t.shape, layer=spec.name)
        return out

    # ----- removing nodes ----------------------------------------------------------------------

    def _cut(self, name: str, k: int, journal: Journal) -> None:
        """Drop calls k, k+1, ... of a layer: its nodes, their outbound entries and records."""
        layer = self.objects.get(name)
        if layer is None or len(layer._inbound_nodes) <= k:
            return
        dropped = layer._inbound_nodes[k:]
        journal.node_list(layer._inbound_nodes)
        for node in dropped:
            for t in node.input_tensors:
                source = t._keras_history.operation
                journal.node_list(source._outbound_nodes)
                list.__setitem__(source._outbound_nodes, slice(None),
                                 [n for n in source._outbound_nodes if n is not node])
        list.__setitem__(layer._inbound_nodes, slice(k, None), [])
        for j in range(k, k + len(dropped)):
            journal.delitem(self.records, (name, j))

    def _drop(self, name: str, journal: Journal) -> None:
        """Take a layer object out of the live network (it was removed, renamed or re-created)."""
        if name not in self.objects:
            return
        self._cut(name, 0, journal)
        journal.delitem(self.objects, name)
        journal.delitem(self.made_from, name)
        self._count(name, None, journal)

    def _count(self, name: str, params: int | None, journal: Journal) -> None:
        """Keep `params_total` as a layer's count is set (None: its layer went)."""
        old = self.param_counts.get(name) or 0
        if params is None:
            journal.delitem(self.param_counts, name)
        else:
            journal.setitem(self.param_counts, name, params)
        journal.setattr(self, "params_total", self.params_total - old + (params or 0))


def _waits(triples: list, status: Mapping) -> str | None:
    """Why a call whose slots are filled still waits (a source call is pending), or None."""
    for s in triples:
        if status[s[:2]] is not None:
            return f"it waits for {s[0]} call {s[1]}, which is pending"
    return None
