"""`kc.Graph`: the public API, a composition of four parts, each in its own module.

- history.py: every edit is a transaction over the drawing and its live network, kept as an undo
  step holding what it changed (undo, redo, batch, the training lock);
- network.py: the live Keras objects, rebuilt where an edit touched the drawing;
- reads.py: what those objects say (calls, tensors, the model, its problems and depth map);
- view.py: where boxes are, which boxes are expanded and which runs are folded.
Graph holds the edits that build the drawing and forwards the rest.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

import keras

from . import calls as call_model
from . import catalog, kinds, limits, ops
from .depth import DepthMap
from .drawing import INPUT_CLASS, Drawing, EditError, LayerSpec, NoSlots, Triple
from .history import STRUCTURE, VIEW, History
from .network import Journal, Network
from .reads import Problem, Reads
from .repeats import Repeat
from .text import check_strings, check_text
from .view import View

__all__ = ["Graph", "Problem"]

# Characters a layer name may not hold under this backend, beyond drawing.FORBIDDEN_IN_NAMES:
# torch modules cannot name a parameter with a "."
FORBIDDEN_HERE = ({".": "the torch backend cannot hold '.' in a weight's name"}
                  if keras.backend.backend() == "torch" else {})


class Graph:
    """A drawing of a Keras functional model and the live Keras objects that match it."""

    def __init__(self, name: str = "model"):
        if not isinstance(name, str) or not name:
            raise TypeError(f"Graph name must be a non-empty string, got {name!r}.")
        self.name = check_text(name, "A graph name")
        self._drawing = Drawing(forbidden=FORBIDDEN_HERE)  # the one drawing, edited in place
        self._net = Network()
        self._observers: list[Callable[[Graph], None]] = []
        self._structure_revision = 0
        self._history = History(self._drawing, self._net, self._changed, self._notify)
        self._reads = Reads(self._drawing, self._net)
        self._view = View(self._drawing, self._history, lambda: self._reads.depth,
                          self._reads.live_layer)

    # ----- building ---------------------------------------------------------------------------

    def add_input(self, shape: Iterable[int | None], name: str | None = None,
                  dtype: str = "float32", batch_size: int | None = None,
                  optional: bool = False) -> str:
        """Add a `keras.Input` box; returns its name. batch_size fixes the batch dimension;
        optional: the model may be called with None for it (keras.Input(optional=True))."""
        shape = _check_shape(shape)

        def change(d: Drawing) -> str:
            chosen = d.check_new_name(name) if name is not None else d.auto_name("input_layer")
            config = _input_config(shape, dtype, chosen, batch_size, optional)
            d.add(LayerSpec(chosen, INPUT_CLASS, config, NoSlots(), 1))
            return chosen

        return self._history.edit(change)

    def add_layer(self, class_name: str, name: str | None = None, **config: Any) -> str:
        """Add a layer of a catalog class (see `kerascanvas.catalog.names()`), a keras.ops function
        (`kerascanvas.ops.names()`) or a registered class (`kc.register`); returns its name."""
        kind = catalog.get(class_name) if class_name in kinds.NESTED_MODEL_CLASSES else kinds.get(
            class_name, new=True)
        if isinstance(kind, ops.OpKind) and class_name not in ops.names():  # import-only
            raise catalog.UnknownLayerError(
                f"{class_name!r} is not a layer the canvas offers: kerascanvas.ops.names() lists "
                "the keras.ops functions it offers (a model holding others imports them).")
        check_strings(config, f"The config of {class_name}")

        def change(d: Drawing) -> str:
            chosen = d.check_new_name(name) if name is not None else d.auto_name(
                keras.src.utils.naming.to_snake_case(kind.class_name))
            args = {**kind.suggested_args(), **config}
            layer = _made(kind.build, chosen, kind.class_name, args)
            spec = self._spec(kind, chosen, kinds.config_of(kind, layer, args))
            self._net.prepare(chosen, spec.config, layer)  # made once, called by the network
            d.add(spec)
            return chosen

        return self._history.edit(change)

    def add_layer_from_config(self, serialized: Mapping[str, Any], as_given: bool = False,
                              keywords: Iterable[str] = (), call_args: Iterable = ()) -> str:
        """Add a layer from Keras's serialized form, {"class_name": ..., "config": {...}} (as in a
        model's get_config()["layers"]); the config's name is the box's name. Used by import.
        as_given: the config is a live layer's own get_config() (import): kept, not redone.
        keywords: tensor keyword arguments its calls take as named slots (padding_mask, ...);
        call_args: per call, its calls.CallArgs (settings, how many slots go by position)."""
        if not isinstance(serialized, Mapping) or not isinstance(serialized.get("config"), Mapping):
            raise EditError(f"Expected {{'class_name': ..., 'config': {{...}}}}, got {serialized!r:.200}.")
        class_name, config = serialized.get("class_name"), dict(serialized["config"])
        kind = kinds.get(class_name, new=True)  # a catalog layer or a nested model
        check_strings(config, f"The config of {class_name}")

        def change(d: Drawing) -> str:
            name = d.check_new_name(config.get("name"))
            layer = _made(lambda **c: kind.create(c), name, class_name, config)
            spec = self._spec(kind, name, config if as_given else kinds.config_of(kind, layer, config),
                              keywords=tuple(keywords), call_args=call_model.trimmed(call_args))
            self._net.prepare(name, spec.config, layer)
            d.add(spec)
            return name

        return self._history.edit(change)

    def connect(self, src: str | Triple, dst: str, call: int = 0, slot: int | None = None) -> None:
        """Feed a tensor into a slot of a layer's call. call=<number of calls> adds a new call."""
        source = _triple(src)
        self._history.edit(lambda d: d.connect(source, (dst, call, slot)) and None)

    def disconnect(self, src: str | Triple, dst: str, call: int = 0, slot: int | None = None) -> None:
        source = _triple(src)
        self._history.edit(lambda d: d.disconnect(source, (dst, call, slot)) and None)

    def remove(self, name: str, bridge: bool = False) -> None:
        """Remove a box and its edges. bridge=True keeps the chain joined: what fed the box's
        one input now feeds every slot its outputs fed (refused, changing nothing, if Keras
        refuses the shapes or the box has other than one input)."""
        if not bridge:
            self._history.edit(lambda d: d.remove(name))
            return
        d = self._history.editing
        spec = d.spec(name)
        into = [e for e in d.edges if e.dst[0] == name]
        out = [e for e in d.edges if e.src[0] == name]
        if spec.calls != 1 or len(into) != 1 or spec.n_outputs != 1:
            raise EditError(f"Only a box with one call and one input can be deleted keeping the "
                            f"chain joined; {name!r} has {len(into)} input(s) and {spec.calls} "
                            f"call(s).", layer=name)
        src = into[0].src
        with self.batch():
            self._history.edit(lambda dr: dr.remove(name))
            for e in out:
                self._history.edit(lambda dr, e=e: dr.connect(src, e.dst) and None)

    def insert(self, name: str, src: str | Triple, dst: str, call: int = 0, slot: int = 0) -> None:
        """Put box `name` (call 0, slot 0 free) into the edge src -> (dst, call, slot): src feeds
        `name` and `name` feeds that slot. One undo step; layers downstream keep their weights
        where their input shapes did not change."""
        source = _triple(src)
        d = self._history.editing  # inside a batch: its edits
        d.spec(name)
        target = d.spec(dst)
        edge = next((e for e in d.edges if e.src == source and e.dst == (dst, call, slot)), None)
        if edge is None:
            raise EditError(f"There is no edge {source} -> {(dst, call, slot)}.", layer=dst)
        # a list slot (merge layers) closes its gaps: its later edges are taken out and put back
        # after the new one, so the order of the list stays the same
        later = ([e for e in d.edges if e.dst[:2] == (dst, call) and e.dst[2] > slot]
                 if target.slots.kind == "list" else [])
        later.sort(key=lambda e: e.dst[2])
        with self.batch():
            for e in reversed(later):
                self._history.edit(lambda dr, e=e: dr.disconnect(e.src, e.dst) and None)
            self._history.edit(lambda dr: dr.disconnect(source, edge.dst) and None)
            self._history.edit(lambda dr: dr.connect(source, (name, 0, 0)) and None)
            self._history.edit(lambda dr: dr.connect((name, 0, 0), (dst, call, slot)) and None)
            for e in later:
                self._history.edit(lambda dr, e=e: dr.connect(e.src, e.dst) and None)

    def rewire(self, src: str | Triple, old: tuple[str, int, int], new: tuple[str, int, int | None] | None
               ) -> None:
        """Move an edge's end from slot `old` (dst, call, slot) to `new`, or unplug it (new=None):
        one undo step."""
        source = _triple(src)
        with self.batch():
            self._history.edit(lambda dr: dr.disconnect(source, tuple(old)) and None)
            if new is not None:
                self._history.edit(lambda dr: dr.connect(source, tuple(new)) and None)

    def rename(self, old: str, new: str) -> None:
        held = self._net.objects.get(old) or self._net.parked.get(old)
        self._history.edit(lambda d: d.rename(old, new), predecessors={new: held})

    def configure(self, name: str, **changes: Any) -> None:
        """Change config values; Keras checks them (its message is in the error)."""
        check_strings(changes, f"The config of {name!r:.80}")

        def change(d: Drawing) -> None:
            spec = d.spec(name)
            if "name" in changes:
                raise EditError("Use rename() to change a layer's name.", layer=name)
            if spec.is_input:
                shape = _check_shape(changes.pop("shape", spec.config["batch_shape"][1:]))
                dtype = changes.pop("dtype", spec.config["dtype"])
                if changes:
                    raise TypeError(f"An Input takes shape and dtype, not {sorted(changes)}.")
                config = _input_config(shape, dtype, name, spec.config["batch_shape"][0],
                                       spec.config.get("optional", False))
                d.replace_spec(replace(spec, config=config))
                return
            kind = kinds.get(spec.class_name)
            config = {**spec.config, **changes}
            if "trainable" in changes and spec.class_name in kinds.NESTED_MODEL_CLASSES:
                from .nested import with_trainable  # freezing a model freezes its layers

                config = with_trainable(config, changes["trainable"])
            layer = _made(lambda **c: kind.create(c), name, kind.class_name, config)
            new = self._spec(kind, name, kinds.config_of(kind, layer, config), calls=spec.calls,
                             keywords=spec.slots.named, call_args=spec.call_args)
            # made once, called by the network (a second one cost a StringLookup's vocabulary
            # table again, memory Keras never gives back)
            self._net.prepare(name, new.config, layer)
            d.replace_spec(new)

        self._history.edit(change)

    def configure_call(self, name: str, call: int = 0, **settings: Any) -> None:
        """Set the settings of one call: the arguments that are not tensors (training=True,
        use_causal_mask=True, ...); a value of None takes a setting away. Keras checks them
        when the call is made again (its message is in the error)."""
        check_strings(settings, f"The call settings of {name!r:.80}")

        def change(d: Drawing) -> None:
            spec = d.spec(name)
            where = f"{name} call {call!r:.20}"
            if spec.is_input:
                raise EditError(f"{name} is an Input: it is not called.", layer=name)
            kind = kinds.get(spec.class_name)
            call_model.check_setting_names(kind.cls, spec.slots, settings, where)
            old = call_model.of(spec, call) if isinstance(call, int) else call_model.DEFAULT
            merged = {**old.settings_dict, **settings}
            merged = {k: v for k, v in merged.items() if v is not None}
            d.set_call_args(name, call, replace(old, settings=call_model.checked_settings(
                merged, where)))
            spec = d.spec(name)  # return_attention_scores=True: one more port
            outputs = kind.n_outputs(spec.config) + call_model.most_extra_outputs(spec.call_args)
            if outputs != spec.n_outputs:
                d.replace_spec(replace(spec, n_outputs=outputs))

        self._history.edit(change)

    def call_settings(self, name: str, call: int = 0) -> dict:
        """The settings of one call (see configure_call)."""
        return call_model.of(self._drawing.spec(name), call).settings_dict

    def add_call(self, name: str) -> int:
        """A new, pending call of a layer (shared weights); returns its call number = node_index."""
        return self._history.edit(lambda d: d.add_call(name))

    def remove_call(self, name: str, call: int) -> None:
        """Remove one call; later calls move down one node_index, as Keras would number them."""
        self._history.edit(lambda d: d.remove_call(name, call))

    def duplicate(self, names: Iterable[str]) -> dict[str, str]:
        """Copy layers (new names) and the edges among them; returns {old name: new name}."""
        names = list(names)

        def change(d: Drawing) -> dict[str, str]:
            mapping = {}
            for old in names:
                spec = d.spec(old)
                new = d.auto_name(re.sub(r"_\d+$", "", old))  # a copy of dense_1 is dense_2
                d.add(replace(spec, name=new, config={**spec.config, "name": new}))
                mapping[old] = new
                if old in d.pinned:
                    x, y = d.pinned[old]
                    d.pin(new, (x + 40.0, y + 40.0))
            copied = [e for e in d.edges if e.src[0] in mapping and e.dst[0] in mapping]
            # Through connect, so the edge indexes know the copies. A list slot fills in order
            # (slot=None: gaps of inputs left out of the selection close up).
            for e in sorted(copied, key=lambda e: e.dst[2] if d.layers[e.dst[0]].slots.kind
                            == "list" else -1):
                listed = d.layers[e.dst[0]].slots.kind == "list"
                d.connect((mapping[e.src[0]],) + e.src[1:],
                          (mapping[e.dst[0]], e.dst[1], None if listed else e.dst[2]))
            return mapping

        return self._history.edit(change)

    # ----- the view (view.py) -----------------------------------------------------------------

    def move(self, name: str, x: float, y: float) -> None:
        """Put a box at (x, y) and pin it there (the layout leaves pinned boxes alone)."""
        self._view.move(name, x, y)

    def move_many(self, points: Mapping[str, tuple[float, float]]) -> None:
        """`move` for several boxes at once: one edit and one undo step."""
        self._view.move_many(points)

    def arrange(self) -> None:
        """Unpin every box and lay the drawing out again from its depth map."""
        self._view.arrange()

    def expand(self, name: str, open: bool = True) -> None:
        """Show a nested model's box with its own graph inside (open=False: as one box again).
        A view change, like `move`: it is saved with the drawing and undone by `undo`."""
        self._view.expand(name, open)

    def fold(self, name: str, folded: bool = True) -> None:
        """Show a run of repeated blocks (one of `g.repeats`: ResNet's identity blocks in a
        stage, Dense-Dropout pairs) as one box labelled with its block's classes and "×N";
        folded=False shows its layers again. `name` is any layer of the run; `g.folded` names
        the run by its first layer. Edges into and out of the run attach to that box and the
        layout places it as one box. A view change, like `expand`: `g.model`, the depth map and
        every Keras object stay as they are, `undo` takes it back and files keep it. An edit that
        breaks the run (a copy changed or removed) drops its fold: its layers show again."""
        self._view.fold(name, folded)

    def show(self, expanded: Iterable[str] = (), folded: Iterable[str] = ()) -> None:
        """Expand these nested-model boxes and fold the runs these layers belong to, as one view
        edit (what a file's lists do): the runs are found once however long the lists are."""
        self._view.show(expanded, folded)

    def fold_all(self, folded: bool = True) -> None:
        """`fold` every run of repeated blocks (folded=False: unfold them all), as one undo step."""
        self._view.fold_all(folded)

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

    @property
    def repeats(self) -> tuple[Repeat, ...]:
        """The runs of repeated blocks the drawing holds (kerascanvas/repeats.py), in graph
        order: what `fold` can fold. Found again after each structural change."""
        return self._view.repeats

    @property
    def repeats_found(self) -> bool:
        """Whether `repeats` is known for this structure (it is found once per structural edit:
        about 20 ms at 2,000 layers, which the canvas leaves until an edit's diff has gone)."""
        return self._view.repeats_found

    def run_head(self, name: str) -> str | None:
        """The first layer of the run of repeated blocks that `name` belongs to, or None."""
        return self._view.run_head(name)

    @property
    def folded_layers(self) -> Mapping[str, str]:
        """The layers folded runs hide, each with the first layer of its run (whose box they
        are drawn as); their positions are that box's."""
        return self._view.folded_layers

    @property
    def positions(self) -> dict[str, tuple[float, float]]:
        """Box positions: pinned ones as the user put them, the rest from the depth layout."""
        return self._view.positions

    @property
    def box_sizes(self) -> dict[str, tuple[float, float]]:
        """(width, height) of every box, as the layout places it and the canvas draws it."""
        return self._view.box_sizes

    def inner(self, name: str) -> dict | None:
        """The laid-out inside of an expanded nested-model box, else None."""
        return self._view.inner(name)

    # ----- outputs and structures -------------------------------------------------------------

    def set_outputs(self, outputs: Iterable[str | Triple] | Mapping[str, str | Triple],
                    only: bool = False) -> None:
        """Order the model's outputs; outputs not listed follow in creation order, unless
        only=True: then the model's outputs are exactly these (as an imported model's are).
        A dict {key: port} makes `g.model` give a dict of exactly these outputs, as
        `keras.Model(inputs, {"kind": k, "price": p})` does (kept in Keras's sorted-key order)."""
        keys: tuple[str, ...] = ()
        if isinstance(outputs, Mapping):
            if not outputs or not all(isinstance(k, str) and k for k in outputs):
                raise EditError(f"Dict outputs are keyed by non-empty strings, got {outputs!r:.120}.")
            keys = tuple(sorted(check_text(k, "An output key") for k in outputs))
            outputs, only = [outputs[k] for k in keys], True
        order = tuple(_triple(o) for o in outputs)
        twice = next((t for i, t in enumerate(order) if t in order[:i]), None)
        if twice is not None:
            raise EditError(f"{twice} is listed twice among the outputs.", layer=twice[0])

        def change(d: Drawing) -> None:
            for t in order:
                spec = d.spec(t[0])
                if t[1] >= spec.calls or t[2] >= spec.n_outputs:
                    raise EditError(f"{t} is not an output port of {t[0]}.", layer=t[0])
            d.output_order, d.output_keys = order, keys
            d.outputs_only = bool(only) and bool(order)
            d.output_structure = None

        self._history.edit(change, network=False)

    def mark_output(self, port: str | Triple, marked: bool = True) -> None:
        """Mark one port as a model output (after those already chosen) or unmark it, as the
        canvas's Outputs markers do: the outputs become explicit (exactly the marked ports, in
        order; dict keys kept); unmarking the last returns to every unconsumed port. One undo step."""
        from .internals import toggled_outputs

        order, keys = toggled_outputs(self, _triple(port), marked)
        self.set_outputs(dict(zip(keys, order)) if keys else order, only=bool(order))

    def set_dict_inputs(self, on: bool = True) -> None:
        """Make `g.model` take its inputs as a dict keyed by the Inputs' names (as a model built
        with `keras.Model({"wide": wide, "deep": deep}, ...)` does), or as a list again."""
        if not isinstance(on, bool):
            raise EditError(f"set_dict_inputs takes True or False, got {on!r:.40}.")

        def change(d: Drawing) -> None:
            d.dict_inputs = on

        self._history.edit(change, network=False)

    def set_structures(self, inputs: Any = ..., outputs: Any = ...) -> None:
        """The nested structures `g.model` takes its inputs in and gives its outputs in, as
        JSON over positions (kerascanvas/structures.py): inputs over the Inputs in creation
        order, outputs over `outputs` (`keras.Model({"x": a, "more": {"y": b}}, ...)`, dicts
        keyed unlike the Inputs' names, tuples, one tensor in several places). None: plain."""
        from . import structures

        def change(d: Drawing) -> None:
            if inputs is not ...:  # (... leaves it as it is)
                n = sum(1 for s in d.layers.values() if s.is_input)
                d.input_structure = None if inputs is None else structures.checked(
                    inputs, n, "input")
            if outputs is not ...:
                d.output_structure = None if outputs is None else structures.checked(
                    outputs, len(d.output_order), "output")

        self._history.edit(change, network=False)

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
    def _undo(self):  # (older tests read the steps)
        return self._history.undo_steps

    def _changed(self, kind: str, settle: bool) -> None:
        """After a change (history.py): the caches it made stale go; settle=True: the edit's
        change log is still open, and folds whose runs it broke go with it."""
        if kind == VIEW:
            self._view.forget_positions()
        elif kind == STRUCTURE:
            old_runs = self._view.runs
            self._structure_revision += 1
            self._reads.forget()
            self._view.forget()
            if settle:
                self._view.settle_folds(old_runs)

    def _notify(self) -> None:
        for callback in list(self._observers):
            callback(self)

    # ----- reading ----------------------------------------------------------------------------

    @property
    def layers(self) -> Mapping[str, Mapping[str, Any]]:
        """{name: {"class_name", "config"}} in creation order (read-only)."""
        return MappingProxyType({n: MappingProxyType({"class_name": s.class_name,
                                                      "config": MappingProxyType(dict(s.config))})
                                 for n, s in self._drawing.layers.items()})

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

    def live_layer(self, name: str) -> keras.layers.Layer | None:
        """The Keras layer behind a box once a call of it is complete, else None (no placeholder)."""
        return self._reads.live_layer(name)

    def saved_weights(self, name: str) -> list:
        """The weights a box holds, as arrays: its live layer's, or for a box still pending since
        a file was loaded, the file's (its first call takes them when their shapes fit)."""
        return self._reads.saved_weights(name)

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

    def call_record(self, name: str, call: int):
        """(inputs, outputs, shapes) of a complete call (network.CallRecord), or None if pending."""
        return self._reads.call_record(name, call)

    def pending_reason(self, name: str, call: int) -> str | None:
        """Why a call is pending ("its 'inputs' input is empty", ...), None once it is complete."""
        return self._reads.pending_reason(name, call)

    def call_inputs(self, name: str, call: int) -> list[Triple] | None:
        """The sources of a call in slot order, or None while required slots are empty."""
        return self._reads.call_inputs(name, call)

    def call_slots(self, name: str, call: int = 0) -> dict[int, Triple]:
        """{slot: source triple} of a call (named slots may stay empty)."""
        return self._reads.call_slots(name, call)

    def node_inputs(self) -> dict[tuple[str, int], list[Triple]]:
        """{(layer, call): its sources in Keras's order (`node.input_tensors`: positional ones,
        then keyword tensors sorted by name)} for every complete call."""
        return self._reads.node_inputs()

    def call_path(self, start: tuple[str, int], goal: tuple[str, int]) -> list | None:
        """The calls on a path of edges from call `start` to call `goal`, or None."""
        return self._drawing.path(start, goal)

    def calls(self, name: str) -> int:
        """How many calls of the layer are drawn (complete or pending)."""
        return self._drawing.spec(name).calls

    def is_built(self, name: str, call: int = 0) -> bool:
        """Whether that call exists as a Keras Node (else it is pending)."""
        return self._reads.is_built(name, call)

    def keras_layer(self, name: str) -> keras.layers.Layer:
        """The live Keras layer behind a box. A layer none of whose calls is complete yet gets an
        unbuilt layer made from its config, replaced by a fresh one when its first call is made."""
        return self._reads.keras_layer(name)

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

    @property
    def model_checked(self) -> bool:
        """Whether Keras has been asked for this structure's model (it is built or refused), so
        `problems` is final; false after a structural edit until `model` or `problems` is read."""
        return self._reads.model_checked

    def problems_before_keras(self) -> tuple[Problem, ...]:
        """`problems` as kerascanvas's own checks find them, without building the model (about
        90 ms at 2,000 layers): Keras may still refuse a model these pass, which `problems` says.
        The canvas shows these first and Keras's answer just after."""
        return self._reads.problems_before_keras()

    @property
    def inputs(self) -> list[str]:
        return self._reads.inputs

    @property
    def outputs(self) -> list[Triple]:
        """The unconsumed output ports of complete calls, in the model's output order."""
        return self._reads.outputs

    @property
    def depth(self) -> DepthMap:
        """Seed 000's depth map of the model, or of the complete calls of a partial drawing."""
        return self._reads.depth

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
        from .state import graph_state

        return graph_state(self)

    def to_html(self, path) -> Any:
        """Write a self-contained read-only interactive view of the drawing to `path` (one HTML
        file: no kernel, no network; kerascanvas/standalone.py). Returns the path."""
        from .standalone import to_html

        return to_html(self, path)

    # ----- teaching views (teaching.py) ----------------------------------------------------

    def explain_node(self, layer: str, node_index: int = 0):
        """A node's tensors and Keras 2 coordinates, with seed 001's identity checked live."""
        from .teaching import explain_node

        return explain_node(self, layer, node_index)

    def explain_layer(self, layer: str):
        """A layer's _inbound_nodes (the edges feeding each call) and _outbound_nodes."""
        from .teaching import explain_layer

        return explain_layer(self, layer)

    def explain_edge(self, src: str | Triple, dst: str, call: int = 0, slot: int = 0):
        """The KerasTensor on an edge and its _keras_history."""
        from .teaching import explain_edge

        return explain_edge(self, src, dst, call, slot)

    def depth_steps(self) -> list[tuple]:
        """Seed 000's depth computation on this graph, step by step."""
        from .teaching import depth_steps

        return depth_steps(self)

    def cycle_path(self, src: str | Triple, dst: str, call: int = 0):
        """The calls that would form a cycle if this edge were drawn, or None."""
        from .teaching import cycle_path

        return cycle_path(self, src, dst, call)

    def forward_steps(self, sample) -> list:
        """The forward pass node by node (decreasing depth) on a real sample."""
        from .teaching import forward_steps

        return forward_steps(self, sample)

    # ----- code, import, files (codegen.py, importer.py, storage.py) -------------------------

    def to_code(self, op_names: bool = False) -> str:
        """Python source (keras functional API) that rebuilds the same model. Operations are
        written as `x + 3.0`, `keras.ops.mean(x, axis=1)` (Keras names them itself, so their box
        names change on import); op_names=True keeps them; see codegen.to_code."""
        from .codegen import to_code

        return to_code(self, op_names)

    @classmethod
    def from_model(cls, model: keras.Model, trust_custom: bool = False) -> Graph:
        """A drawing of any Functional or Sequential model, weights included: catalog layers,
        keras.ops operations, Keras's own layers and registered classes (`kc.register`);
        trust_custom=True registers the user classes the model uses."""
        from .importer import from_model

        return from_model(model, cls, trust_custom)

    @classmethod
    def load_keras(cls, path, trust_custom: bool = False) -> Graph:
        """A drawing of a model saved as a .keras file (trust_custom: as in from_model)."""
        from .importer import load_keras

        return load_keras(path, cls, trust_custom)

    def replay(self, description: Mapping[str, Any], as_given: bool = False) -> None:
        """Draw a described drawing in one batch (one rebuild, one undo step): what a file holds
        and what import makes of a model. {"layers": [{"name", "class_name", "config", "calls"}],
        "edges": [[src triple, [dst, call, slot]]], and optionally "pinned": {name: [x, y]},
        "expanded": [name], "folded": [first layer of a run], "outputs": [triple],
        "outputs_only": bool, "dict_inputs": bool,
        "output_keys": [key per output]} (see storage.py)."""
        from .storage import replay

        replay(self, description, as_given)

    def save(self, path) -> None:
        """Save drawing, configs, positions and weights (atomically: write, then rename)."""
        from .storage import save

        save(self, path)

    @classmethod
    def load(cls, path) -> Graph:
        from .storage import load

        return load(path, cls)

    def __repr__(self) -> str:
        d = self._drawing
        return (f"<kerascanvas.Graph {self.name!r}: {len(d.layers)} layers, {len(d.edges)} edges, "
                f"{'model' if self.model is not None else f'{len(self.problems)} problem(s)'}>")

    # ----- internals --------------------------------------------------------------------------

    def _spec(self, kind, name: str, config: Mapping, calls: int = 1, keywords: tuple = (),
              call_args: tuple = ()) -> LayerSpec:
        slots = call_model.with_keywords(kind.slots_for(config), keywords)
        outputs = kind.n_outputs(config) + call_model.most_extra_outputs(call_args)
        return LayerSpec(name, kind.class_name, config, slots, outputs, calls, call_args)


@contextlib.contextmanager
def _yielding(graph: Graph, inner: contextlib.AbstractContextManager):
    """`inner` as a context manager that gives the graph to `with ... as g`."""
    with inner:
        yield graph


def _made(make, name: str, class_name: str, args: Mapping[str, Any]):
    """A layer from `make(**args)`; Keras's own message if it refuses them."""
    try:
        with limits.counted(name):  # a model's constructor builds its layers
            return make(**{**args, "name": name})
    except limits.LimitError:
        raise
    except Exception as e:
        raise EditError(f"Keras refused the config of {name} ({class_name}): {e}",
                        layer=name) from e


def _triple(src: Any) -> Triple:
    if isinstance(src, str):
        return (src, 0, 0)
    if (isinstance(src, (tuple, list)) and len(src) == 3 and isinstance(src[0], str)
            and all(isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in src[1:])):
        return (src[0], src[1], src[2])
    raise EditError(f"A source is a layer name or a (layer, node_index, tensor_index) triple of "
                    f"non-negative ints; got {src!r}.")


def _input_config(shape: tuple, dtype, name: str, batch_size=None, optional=False) -> dict:
    """An InputLayer's config, as Keras makes it (its fixed batch size and optional flag kept)."""
    if batch_size is not None and not (isinstance(batch_size, int) and not isinstance(
            batch_size, bool) and 0 < batch_size <= 2**31):
        raise EditError(f"An Input's batch_size is a positive int or None, got {batch_size!r:.40}.",
                        layer=name)
    if not isinstance(optional, bool):
        raise EditError(f"An Input's optional is True or False, got {optional!r:.40}.", layer=name)
    try:
        return keras.layers.InputLayer(shape=shape, dtype=dtype, name=name, batch_size=batch_size,
                                       optional=optional).get_config()
    except Exception as e:
        raise EditError(f"Keras refused Input(shape={shape}, dtype={dtype!r}): {e}",
                        layer=name) from e


def _check_shape(shape: Any) -> tuple:
    try:
        dims = tuple(shape)
    except TypeError:
        raise EditError(f"An Input shape is a tuple of sizes (ints or None), got {shape!r}.") from None
    if len(dims) > 8 or not all(d is None or (isinstance(d, int) and not isinstance(d, bool)
                                              and 0 < d <= 2**31) for d in dims):
        raise EditError(f"An Input shape is up to 8 sizes, each a positive int or None; got {shape!r}.")
    limits.check_activation("This Input", (None, *dims))
    return dims
