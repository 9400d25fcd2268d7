"""`kc.Graph`: the public API. Every edit is one transaction over the drawing and its live network.

An edit works on a copy of the Drawing; network.py rebuilds what it touched through a Journal. If
the graph or Keras refuses, the journal rolls back and the old drawing stays: nothing changed. A
successful edit keeps (old drawing, new drawing, journal) for undo and redo, which put back the
exact Keras objects (and so the exact weights) each side had.
"""

from __future__ import annotations

import contextlib
import re
import sys
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

import keras

from . import calls as call_model
from . import catalog, folds, kinds, limits, ops
from .boxes import box_size
from .depth import DepthMap, depth_map
from .drawing import FORBIDDEN_IN_NAMES, INPUT_CLASS, Drawing, LayerSpec, Triple
from .drawing import as_triple as _triple
from .errors import EditError
from .inner import inner_view
from .layerkind import NoSlots
from .layout import Placer
from .layout import rows as layout_rows
from .network import Journal, Network, SavedWeights
from .repeats import Repeat, config_text, repeated_blocks
from .text import check_strings, check_text

if keras.backend.backend() == "torch":  # torch modules cannot name a parameter with a "."
    FORBIDDEN_IN_NAMES.setdefault(".", "the torch backend cannot hold '.' in a weight's name")


@dataclass(frozen=True)
class Problem:
    """Why `g.model` is None, and where: the layer, call and slot it concerns (or None)."""

    message: str
    layer: str | None = None
    call: int | None = None
    slot: int | None = None

    def __str__(self) -> str:
        return self.message


@dataclass
class _Step:
    before: Drawing
    after: Drawing
    journal: Journal
    view: bool = False  # only positions, pins, expanded boxes or folds changed: Keras is not involved
    held: int = 0  # bytes only this step keeps alive: weights, drawing copy (limits.HISTORY_BYTES)


class Graph:
    """A drawing of a Keras functional model and the live Keras objects that match it."""

    def __init__(self, name: str = "model"):
        if not isinstance(name, str) or not name:
            raise TypeError(f"Graph name must be a non-empty string, got {name!r}.")
        self.name = check_text(name, "A graph name")
        self._drawing = Drawing()
        self._net = Network()
        self._undo: list[_Step] = []
        self._redo: list[_Step] = []
        self._observers: list[Callable[[Graph], None]] = []
        self._placeholders: dict[str, tuple[Mapping, keras.layers.Layer]] = {}
        self._edit_lock: str | None = None  # a message: edits are refused while it is set
        self._batch: Drawing | None = None
        self._batch_whole = False  # batch(all_or_nothing=True): edits change it in place
        self._batch_predecessors: dict = {}
        self.history_dropped = 0  # undo steps dropped to keep history under limits.HISTORY_BYTES
        self._batch_view = True  # no structural edit in the batch so far
        self._structure_revision = 0
        self._size_of: dict[str, tuple] = {}  # name -> (spec, filled slots per call, box size)
        self._config_texts: dict = {}  # what repeats compare, per unchanged layer spec
        self._forget()

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

        return self._edit(change)

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
            self._net.prepared[chosen] = (spec.config, layer)  # made once, called by the network
            d.add(spec)
            return chosen

        return self._edit(change)

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
            self._net.prepared[name] = (spec.config, layer)
            d.add(spec)
            return name

        return self._edit(change)

    def connect(self, src: str | Triple, dst: str, call: int = 0, slot: int | None = None) -> None:
        """Feed a tensor into a slot of a layer's call. call=<number of calls> adds a new call."""
        source = _triple(src)
        self._edit(lambda d: d.connect(source, (dst, call, slot)) and None)

    def disconnect(self, src: str | Triple, dst: str, call: int = 0, slot: int | None = None) -> None:
        source = _triple(src)
        self._edit(lambda d: d.disconnect(source, (dst, call, slot)) and None)

    def remove(self, name: str, bridge: bool = False) -> None:
        """Remove a box and its edges. bridge=True keeps the chain joined: what fed the box's
        one input now feeds every slot its outputs fed (refused, changing nothing, if Keras
        refuses the shapes or the box has other than one input)."""
        if not bridge:
            self._edit(lambda d: d.remove(name))
            return
        d = self._batch if self._batch is not None else self._drawing
        spec = d.spec(name)
        into = [e for e in d.edges if e.dst[0] == name]
        out = [e for e in d.edges if e.src[0] == name]
        if spec.calls != 1 or len(into) != 1 or spec.n_outputs != 1:
            raise EditError(f"Only a box with one call and one input can be deleted keeping the "
                            f"chain joined; {name!r} has {len(into)} input(s) and {spec.calls} "
                            f"call(s).", layer=name)
        src = into[0].src
        with self.batch():
            self._edit(lambda dr: dr.remove(name))
            for e in out:
                self._edit(lambda dr, e=e: dr.connect(src, e.dst) and None)

    def insert(self, name: str, src: str | Triple, dst: str, call: int = 0, slot: int = 0) -> None:
        """Put box `name` (call 0, slot 0 free) into the edge src -> (dst, call, slot): src feeds
        `name` and `name` feeds that slot. One undo step; layers downstream keep their weights
        where their input shapes did not change."""
        source = _triple(src)
        d = self._batch if self._batch is not None else self._drawing  # inside a batch: its edits
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
                self._edit(lambda dr, e=e: dr.disconnect(e.src, e.dst) and None)
            self._edit(lambda dr: dr.disconnect(source, edge.dst) and None)
            self._edit(lambda dr: dr.connect(source, (name, 0, 0)) and None)
            self._edit(lambda dr: dr.connect((name, 0, 0), (dst, call, slot)) and None)
            for e in later:
                self._edit(lambda dr, e=e: dr.connect(e.src, e.dst) and None)

    def rewire(self, src: str | Triple, old: tuple[str, int, int], new: tuple[str, int, int | None] | None
               ) -> None:
        """Move an edge's end from slot `old` (dst, call, slot) to `new`, or unplug it (new=None):
        one undo step."""
        source = _triple(src)
        with self.batch():
            self._edit(lambda dr: dr.disconnect(source, tuple(old)) and None)
            if new is not None:
                self._edit(lambda dr: dr.connect(source, tuple(new)) and None)

    def rename(self, old: str, new: str) -> None:
        held = self._net.objects.get(old) or self._net.parked.get(old)
        self._edit(lambda d: d.rename(old, new), predecessors={new: held})

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
            self._net.prepared[name] = (new.config, layer)
            d.replace_spec(new)

        self._edit(change)

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

        self._edit(change)

    def call_settings(self, name: str, call: int = 0) -> dict:
        """The settings of one call (see configure_call)."""
        d = self._drawing
        return call_model.of(d.spec(name), call).settings_dict

    def add_call(self, name: str) -> int:
        """A new, pending call of a layer (shared weights); returns its call number = node_index."""
        return self._edit(lambda d: d.add_call(name))

    def remove_call(self, name: str, call: int) -> None:
        """Remove one call; later calls move down one node_index, as Keras would number them."""
        self._edit(lambda d: d.remove_call(name, call))

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
                    d.pinned[new] = (x + 40.0, y + 40.0)
            copied = [e for e in d.edges if e.src[0] in mapping and e.dst[0] in mapping]
            # Through connect, so the edge indexes know the copies. A list slot fills in order
            # (slot=None: gaps of inputs left out of the selection close up).
            for e in sorted(copied, key=lambda e: e.dst[2] if d.layers[e.dst[0]].slots.kind
                            == "list" else -1):
                listed = d.layers[e.dst[0]].slots.kind == "list"
                d.connect((mapping[e.src[0]],) + e.src[1:],
                          (mapping[e.dst[0]], e.dst[1], None if listed else e.dst[2]))
            return mapping

        return self._edit(change)

    def move(self, name: str, x: float, y: float) -> None:
        """Put a box at (x, y) and pin it there (the layout leaves pinned boxes alone)."""
        point = _check_point(x, y)

        def change(d: Drawing) -> None:
            d.spec(name)
            d.pinned[name] = point

        self._edit(change, network=False, view=True)

    def move_many(self, points: Mapping[str, tuple[float, float]]) -> None:
        """`move` for several boxes at once: one edit and one undo step (the canvas pins every
        shown box before a structural edit; one `move` each copied the drawing each time)."""
        checked = {name: _check_point(*point) for name, point in points.items()}

        def change(d: Drawing) -> None:
            for name in checked:
                d.spec(name)
            d.pinned.update(checked)

        self._edit(change, network=False, view=True)

    def expand(self, name: str, open: bool = True) -> None:
        """Show a nested model's box with its own graph inside (open=False: as one box again).
        A view change, like `move`: it is saved with the drawing and undone by `undo`."""

        def change(d: Drawing) -> None:
            spec = d.spec(name)
            if spec.class_name not in kinds.NESTED_MODEL_CLASSES:
                raise EditError(f"{name!r} ({spec.class_name}) is not a nested model: only a "
                                "model used as a layer (Functional, Sequential) expands.", layer=name)
            d.expanded = d.expanded | {name} if open else d.expanded - {name}

        self._edit(change, network=False, view=True)

    @property
    def expanded(self) -> frozenset[str]:
        """The nested-model boxes shown with their inside."""
        return self._drawing.expanded

    def fold(self, name: str, folded: bool = True) -> None:
        """Show a run of repeated blocks (one of `g.repeats`: ResNet's identity blocks in a
        stage, Dense-Dropout pairs) as one box labelled with its block's classes and "×N";
        folded=False shows its layers again. `name` is any layer of the run; `g.folded` names
        the run by its first layer. Edges into and out of the run attach to that box and the
        layout places it as one box. A view change, like `expand`: `g.model`, the depth map and
        every Keras object stay as they are, `undo` takes it back and files keep it. An edit that
        breaks the run (a copy changed or removed) drops its fold: its layers show again."""
        if not isinstance(folded, bool):
            raise TypeError(f"folded must be True or False, got {folded!r:.80}.")

        def change(d: Drawing) -> None:
            d.spec(name)
            head_of, runs = folds.index(self._repeats_for(d))
            head = head_of.get(name)
            if head is None:
                raise EditError(f"{name!r} is not part of a run of repeated blocks: only copies "
                                "of one block, one after another, fold into one box.", layer=name)
            if (head in d.folded) != folded and self._batch is None:
                self._make_room(d, [n for block in runs[head].blocks for n in block], folded)
            d.folded = d.folded | {head} if folded else d.folded - {head}

        self._edit(change, network=False, view=True)

    def show(self, expanded: Iterable[str] = (), folded: Iterable[str] = ()) -> None:
        """Expand these nested-model boxes and fold the runs these layers belong to, as one view
        edit (what a file's lists do): the runs are found once however long the lists are."""
        expanded, folded = list(dict.fromkeys(expanded)), list(dict.fromkeys(folded))

        def change(d: Drawing) -> None:
            for name in expanded:
                spec = d.spec(name)
                if spec.class_name not in kinds.NESTED_MODEL_CLASSES:
                    raise EditError(f"{name!r} ({spec.class_name}) is not a nested model: only a "
                                    "model used as a layer (Functional, Sequential) expands.",
                                    layer=name)
            head_of = folds.index(self._repeats_for(d))[0] if folded else {}
            for name in folded:
                d.spec(name)
                if name not in head_of:
                    raise EditError(f"{name!r} is not part of a run of repeated blocks: only "
                                    "copies of one block, one after another, fold into one box.",
                                    layer=name)
            d.expanded = d.expanded | set(expanded)
            d.folded = d.folded | {head_of[n] for n in folded}

        self._edit(change, network=False, view=True)

    def _make_room(self, d: Drawing, members: list[str], folding: bool) -> None:
        """Where boxes are pinned (the canvas pins what it shows before an edit), the pinned
        boxes below a run (`members`, its first layer first) move up by what folding saves, or
        down by what unfolding needs; an unfolded run's layers are pinned around its box as the
        layout would place them. `d` is the drawing `self.positions` describes."""
        inside = set(members)
        others = [n for n in d.pinned if n not in inside]
        if not others:
            return  # nothing pinned: the layout places everything
        head, (hx, hy) = members[0], self.positions[members[0]]
        plain = {**self._plain_sizes, **{n: self._sizes[n] for n in d.expanded if n in self._sizes}}
        folded_h = folds.size()[1]
        if folding:
            pos = self.positions
            edge = max(pos[m][1] + plain[m][1] for m in members)
            delta = hy + folded_h - edge  # < 0: up
        else:
            natural = Placer(self._layout_rows(), plain, GAP).place({})
            nx, ny = natural[head]
            for m in members[1:]:
                d.pinned[m] = (hx + natural[m][0] - nx, hy + natural[m][1] - ny)
            edge = hy + folded_h
            delta = max(d.pinned.get(m, (hx, hy))[1] + plain[m][1] for m in members) - edge
        d.pinned[head] = (hx, hy)
        for n in others:
            x, y = d.pinned[n]
            if y >= edge - 1:
                d.pinned[n] = (x, y + delta)

    def fold_all(self, folded: bool = True) -> None:
        """`fold` every run of repeated blocks (folded=False: unfold them all), as one undo step."""
        if not isinstance(folded, bool):
            raise TypeError(f"folded must be True or False, got {folded!r:.80}.")

        def change(d: Drawing) -> None:
            d.folded = frozenset(folds.index(self._repeats_for(d))[1]) if folded else frozenset()

        self._edit(change, network=False, view=True)

    @property
    def folded(self) -> frozenset[str]:
        """The runs of repeated blocks shown as one box, each named by its first layer."""
        return self._drawing.folded

    @property
    def repeats(self) -> tuple[Repeat, ...]:
        """The runs of repeated blocks the drawing holds (kerascanvas/repeats.py), in graph
        order: what `fold` can fold. Found again after each structural change."""
        if self._repeats is None:
            self._repeats = _find_repeats(self._drawing, self._config_texts)
            self._run_index = folds.index(self._repeats)
        return self._repeats

    @property
    def repeats_found(self) -> bool:
        """Whether `repeats` is known for this structure (it is found once per structural edit:
        about 20 ms at 2,000 layers, which the canvas leaves until an edit's diff has gone)."""
        return self._repeats is not None

    def run_head(self, name: str) -> str | None:
        """The first layer of the run of repeated blocks that `name` belongs to, or None."""
        _ = self.repeats
        return self._run_index[0].get(name)

    def _repeats_for(self, d: Drawing) -> tuple[Repeat, ...]:
        """The runs of `d`: the graph's own (cached) outside a batch, where `d` is a copy of the
        drawing being edited; found afresh inside one, whose drawing may differ."""
        return self.repeats if self._batch is None else _find_repeats(d)

    @property
    def folded_layers(self) -> Mapping[str, str]:
        """The layers folded runs hide, each with the first layer of its run (whose box they
        are drawn as); their positions are that box's."""
        return MappingProxyType(self._hidden())

    def _hidden(self) -> dict[str, str]:
        """{layer: head of its folded run} for the layers folded runs hide."""
        if not self._drawing.folded:
            return {}
        _ = self.repeats
        return folds.hidden(self._run_index[1], self._drawing.folded)

    def arrange(self) -> None:
        """Unpin every box and lay the drawing out again from its depth map."""
        self._edit(lambda d: d.pinned.clear(), network=False, view=True)

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

        self._edit(change, network=False)

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

        self._edit(change, network=False)

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

        self._edit(change, network=False)

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

    # ----- undo / redo ------------------------------------------------------------------------

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    def undo(self) -> None:
        self._check_unlocked()
        if not self._undo:
            raise EditError("Nothing to undo.")
        step = self._undo.pop()
        step.journal.undo()
        self._redo.append(step)
        self._commit(step.before, view=step.view)

    def redo(self) -> None:
        self._check_unlocked()
        if not self._redo:
            raise EditError("Nothing to redo.")
        step = self._redo.pop()
        step.journal.redo()
        self._undo.append(step)
        self._commit(step.after, view=step.view)

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
        journal.seal()
        self._push_step(_Step(self._drawing, self._drawing, journal))
        self._commit(self._drawing)

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
        return self._net.objects.get(name)

    def saved_weights(self, name: str) -> list:
        """The weights a box holds, as arrays: its live layer's, or for a box still pending since
        a file was loaded, the file's (its first call takes them when their shapes fit)."""
        layer = self._net.objects.get(name)
        if layer is not None:
            return layer.get_weights() if hasattr(layer, "get_weights") else []
        held = self._net.parked.get(name)
        return held.get_weights() if held is not None else []

    def park_weights(self, name: str, arrays: list) -> None:
        """Give a pending box the weights a file holds for it (storage.load; not an undo step)."""
        self._drawing.spec(name)  # an unknown name raises
        if name in self._net.objects:
            raise EditError(f"{name!r} has a live layer; set its weights on that layer.")
        self._net.parked[name] = SavedWeights(arrays)

    @property
    def live_names(self) -> tuple[str, ...]:
        """Names of the boxes that have a live Keras layer object, in the order the network made
        them: each box one of whose calls has been complete. A box whose calls all went pending
        again (an input removed) keeps its object, and its weights, among them."""
        return tuple(self._net.objects)

    def call_record(self, name: str, call: int):
        """(inputs, outputs, shapes) of a complete call (network.CallRecord), or None if pending."""
        return self._net.records.get((name, call))

    def pending_reason(self, name: str, call: int) -> str | None:
        """Why a call is pending ("its 'inputs' input is empty", ...), None once it is complete."""
        return self._net.status.get((name, call))

    def call_inputs(self, name: str, call: int) -> list[Triple] | None:
        """The sources of a call in slot order, or None while required slots are empty."""
        d = self._drawing
        return d.call_inputs(d.spec(name), d.filled((name, call)))

    def call_slots(self, name: str, call: int = 0) -> dict[int, Triple]:
        """{slot: source triple} of a call (named slots may stay empty)."""
        self._drawing.spec(name)
        return self._drawing.filled((name, call))

    def node_inputs(self) -> dict[tuple[str, int], list[Triple]]:
        """{(layer, call): its sources in Keras's order (`node.input_tensors`: positional ones,
        then keyword tensors sorted by name)} for every complete call."""
        d = self._drawing
        return {key: call_model.keras_order(d.layers[key[0]].slots, d.filled(key),
                                            call_model.of(d.layers[key[0]], key[1]))
                for key, why in self._net.status.items() if why is None}

    def call_path(self, start: tuple[str, int], goal: tuple[str, int]) -> list | None:
        """The calls on a path of edges from call `start` to call `goal`, or None."""
        return self._drawing.path(start, goal)

    def calls(self, name: str) -> int:
        """How many calls of the layer are drawn (complete or pending)."""
        return self._drawing.spec(name).calls

    def is_built(self, name: str, call: int = 0) -> bool:
        """Whether that call exists as a Keras Node (else it is pending)."""
        return self._net.status.get((name, call), "") is None

    def keras_layer(self, name: str) -> keras.layers.Layer:
        """The live Keras layer behind a box. A layer none of whose calls is complete yet gets an
        unbuilt layer made from its config, replaced by a fresh one when its first call is made."""
        spec = self._drawing.spec(name)
        if name in self._net.objects:
            return self._net.objects[name]
        held = self._placeholders.get(name)
        if held is None or held[0] is not spec.config:
            held = (spec.config, kinds.get(spec.class_name).create(dict(spec.config)))
            self._placeholders[name] = held
        return held[1]

    def tensor(self, src: str | Triple):
        """The KerasTensor of an output port, or None while its call is pending."""
        t = _triple(src)
        record = self._net.records.get(t[:2])
        return record.outputs[t[2]] if record is not None and t[2] < len(record.outputs) else None

    @property
    def problems(self) -> list[Problem]:
        """Why the drawing is not (yet) a model; empty when `g.model` exists."""
        _ = self.model  # building it may add one: a model Keras refuses
        return list(self._problems)

    @property
    def model(self) -> keras.Model | None:
        """A keras.Model over every Input and every unconsumed output, or None (see problems)."""
        if self._model is _UNSET:
            self._problems = list(self.problems_before_keras())
            self._model = None if self._problems else self._build_model()
        return self._model

    @property
    def model_checked(self) -> bool:
        """Whether Keras has been asked for this structure's model (it is built or refused), so
        `problems` is final; false after a structural edit until `model` or `problems` is read."""
        return self._model is not _UNSET

    def problems_before_keras(self) -> tuple[Problem, ...]:
        """`problems` as kerascanvas's own checks find them, without building the model (about
        90 ms at 2,000 layers): Keras may still refuse a model these pass, which `problems` says.
        The canvas shows these first and Keras's answer just after."""
        if self._found is None:
            self._found = tuple(self._find_problems())
        return self._found

    @property
    def inputs(self) -> list[str]:
        return [n for n, s in self._drawing.layers.items() if s.is_input]

    @property
    def outputs(self) -> list[Triple]:
        """The unconsumed output ports of complete calls, in the model's output order."""
        if self._outputs is None:
            self._outputs = self._find_outputs()
        return list(self._outputs)

    def _find_outputs(self) -> list[Triple]:
        d, records = self._drawing, self._net.records
        consumed = {e.src for e in d.edges if self.is_built(e.dst[0], e.dst[1])}
        default = [(n, k, t) for n, s in d.layers.items() if not s.is_input
                   for k in range(s.calls) if (n, k) in records
                   for t in range(len(records[(n, k)].outputs)) if (n, k, t) not in consumed]
        if d.outputs_only:  # exactly the listed ports whose calls are built, consumed or not
            return [t for t in d.output_order
                    if t[:2] in records and t[2] < len(records[t[:2]].outputs)]
        chosen = [t for t in d.output_order if t in default]
        return chosen + [t for t in default if t not in chosen]

    @property
    def depth(self) -> DepthMap:
        """Seed 000's depth map of the model, or of the complete calls of a partial drawing."""
        if self._depth is None:
            self._depth = depth_map([(n, 0, 0) for n in self.inputs], self.outputs,
                                    self.node_inputs())
        return self._depth

    @property
    def nodes_by_depth(self) -> dict[int, list[tuple[str, int]]]:
        return self.depth.nodes_by_depth

    @property
    def layers_by_depth(self) -> dict[int, list[str]]:
        return self.depth.layers_by_depth

    @property
    def positions(self) -> dict[str, tuple[float, float]]:
        """Box positions: pinned ones as the user put them, the rest from the depth layout."""
        if self._positions is None:
            d = self._drawing
            sizes = self.box_sizes
            hidden = self._hidden()  # layers of folded runs, but their heads: not placed
            if all(n in d.pinned or n in hidden for n in d.layers):  # as after any edit from
                # the canvas: no layout to make (its rows cost most of a structural edit)
                placed = {n: d.pinned[n] for n in d.layers if n not in hidden}
            else:
                if self._placer is None:
                    rows = self._layout_rows()
                    if hidden:  # a folded run is one box in one row: the rows it emptied go
                        rows = [kept for kept in ([n for n in row if n not in hidden]
                                                  for row in rows) if kept]
                    self._placer = Placer(rows, sizes, GAP)
                placed = self._placer.place(
                    {n: p for n, p in d.pinned.items() if n not in hidden} if hidden else d.pinned)
            if hidden:
                placed.update((n, placed[head]) for n, head in hidden.items())  # where they are
            self._positions = placed
        return self._positions

    def _layout_rows(self) -> list[list[str]]:
        """The depth layout's rows of box names (made once per structure)."""
        if self._rows is None:
            d = self._drawing
            links = [(e.src[0], e.dst[0]) for e in d.edges]
            self._rows = layout_rows(self.depth.layer_depth, links, list(d.layers))
        return self._rows

    @property
    def box_sizes(self) -> dict[str, tuple[float, float]]:
        """(width, height) of every box, as the layout places it and the canvas draws it."""
        d = self._drawing
        if self._plain_sizes is None:  # depend on the structure: a box's spec and filled slots
            into = Counter(e.dst[:2] for e in d.edges)
            made, old = {}, self._size_of
            for name, spec in d.layers.items():
                filled = [into[(name, k)] for k in range(spec.calls)]
                was = old.get(name)
                made[name] = was if was is not None and was[0] is spec and was[1] == filled \
                    else (spec, filled, box_size(spec, filled))
            self._size_of = made  # kept across edits: an edit sizes only the boxes it changed
            self._plain_sizes = {name: entry[2] for name, entry in made.items()}
        if self._sizes is None or self._sizes_key != (d.expanded, d.folded):
            self._sizes = dict(self._plain_sizes)
            for name in d.expanded:  # a view choice: as big as its inside
                inside = self.inner(name)
                if inside is not None:
                    self._sizes[name] = box_size(d.layers[name], [], inside)
            for head in set(self._hidden().values()):  # a folded run: one box
                self._sizes[head] = folds.size()
            self._sizes_key, self._placer = (d.expanded, d.folded), None
        return self._sizes

    def inner(self, name: str) -> dict | None:
        """The laid-out inside of an expanded nested-model box, else None."""
        layer = self._net.objects.get(name)
        if name not in self._drawing.expanded or layer is None:
            return None
        return inner_view(layer)

    @property
    def structure_revision(self) -> int:
        """Counts structural changes (layers, calls, edges, outputs); view edits leave it."""
        return self._structure_revision

    @property
    def pinned(self) -> frozenset[str]:
        return frozenset(self._drawing.pinned)

    def observe(self, callback: Callable[[Graph], None]) -> Callable[[], None]:
        """Call `callback(graph)` after every change; returns a function that stops it."""
        self._observers.append(callback)
        return lambda: self._observers.remove(callback) if callback in self._observers else None

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

    def _edit(self, change: Callable[[Drawing], Any], network: bool = True,
              predecessors: Mapping | None = None, view: bool = False) -> Any:
        """network: rebuild Keras objects; view: the edit changes only the view (positions, pins,
        expanded boxes), so the model, depth map and everything Keras stay as they are."""
        if network:  # moving boxes stays allowed while training: it touches no Keras object
            self._check_unlocked()
        if self._batch is not None:  # inside batch(): collect, rebuild once at the end
            # all_or_nothing: a refusal ends the whole batch, so edits need no copy to fall
            # back on (a file's thousands of edits cost O(layers + edges), not a copy each)
            drawing = self._batch if self._batch_whole else self._batch.copy(keep_marks=True)
            result = change(drawing)
            self._batch = drawing
            self._batch_predecessors.update(predecessors or {})
            self._batch_view = self._batch_view and view
            return result
        drawing = self._drawing.copy()
        result = change(drawing)  # refuses by raising; only the copy was touched
        self._apply(drawing, network, predecessors, view)
        return result

    def _apply(self, drawing: Drawing, network: bool, predecessors: Mapping | None,
               view: bool = False) -> None:
        journal = Journal()
        if network:
            try:
                self._net.rebuild(drawing, journal, predecessors)
                limits.check_total_params(sum(map(limits.params_of, self._net.objects.values())))
            except BaseException:
                journal.rollback()
                raise
        journal.seal()
        self._push_step(_Step(self._drawing, drawing, journal, view))
        self._commit(drawing, view)

    # ----- locking and history (training, files) --------------------------------------------

    @property
    def lock_reason(self) -> str | None:
        """Why structural edits are refused now (training runs on these layers), or None."""
        return self._edit_lock

    def lock(self, reason: str) -> None:
        """Refuse structural edits (with `reason` as their error) until `unlock()`; view edits
        stay allowed. Refused if already locked."""
        if self._edit_lock is not None:
            raise EditError(self._edit_lock)
        self._edit_lock = reason

    def unlock(self) -> None:
        self._edit_lock = None

    @contextlib.contextmanager
    def locked(self, reason: str):
        """`lock(reason)` for the duration of a with-block."""
        self.lock(reason)
        try:
            yield self
        finally:
            self.unlock()

    def reset_history(self) -> None:
        """Forget undo and redo (a loaded drawing starts a fresh history)."""
        self._undo.clear()
        self._redo.clear()
        self._commit(self._drawing, view=True)  # can_undo changed: observers hear it

    def _push_step(self, step: _Step) -> None:
        """A new undo step; the oldest ones go when history would keep more than
        limits.HISTORY_BYTES of old layers and weights alive (the user is warned)."""
        live = {id(layer) for layer in self._net.objects.values()}  # counted by no step
        step.held = (limits.held_bytes(step.journal.held(), live)
                     + limits.step_bytes(step.before, step.after))
        self._undo.append(step)
        self._redo.clear()
        total = sum(s.held for s in self._undo)
        dropped = 0
        while total > limits.HISTORY_BYTES and len(self._undo) > 1:
            total -= self._undo.pop(0).held
            dropped += 1
        if dropped:
            self.history_dropped += dropped
            if self.history_dropped > dropped:  # said once per graph, not at every edit
                return
            warnings.warn(f"Undo history went over its cap of {limits.HISTORY_BYTES:,} bytes of "
                          f"old layers, weights and drawings (kerascanvas.limits.HISTORY_BYTES): "
                          f"the oldest {dropped} step(s) were dropped; it now keeps {total:,} "
                          f"bytes and {len(self._undo)} step(s) to undo (older steps will go "
                          "the same way, without another warning).", RuntimeWarning, stacklevel=4)

    def _check_unlocked(self) -> None:
        if self._edit_lock is not None:  # set while training runs on these layers
            raise EditError(self._edit_lock)

    @contextlib.contextmanager
    def batch(self, all_or_nothing: bool = False):
        """Several edits as one: Keras is called once at the end, and undo takes them back at once.

        Structural checks happen at each edit; Keras's checks at the end, where a refusal takes
        back the whole batch. Reads inside the block see the drawing as it was before it.
        all_or_nothing=True (files, import): a refused edit must end the block (its error left to
        propagate), which spares each edit a copy of the drawing to fall back on.
        """
        if self._batch is not None:
            yield self
            return
        self._batch, self._batch_predecessors = self._drawing.copy(), {}
        self._batch_view, self._batch_whole = True, all_or_nothing
        self._batch.cycles_later = all_or_nothing  # one check at the end, not one per edge
        try:
            yield self
            drawing, predecessors, view = self._batch, self._batch_predecessors, self._batch_view
            if all_or_nothing:
                drawing.check_acyclic()
                drawing.cycles_later = False
        finally:
            self._batch, self._batch_whole = None, False
        self._apply(drawing, not view, predecessors, view)

    def _commit(self, drawing: Drawing, view: bool = False) -> None:
        old_runs = self._run_index[1] if self._drawing.folded else {}  # (before _forget)
        if view:
            self._forget_view()
        elif drawing is not self._drawing:  # a weights-only step keeps the model (and its compile)
            self._forget()
        self._drawing = drawing
        if not view and drawing.folded:  # a fold whose run an edit broke goes; nothing else does
            runs = folds.index(self.repeats)[1]
            dropped = drawing.folded - runs.keys()
            drawing.folded = drawing.folded & runs.keys()
            for head in dropped & old_runs.keys() & drawing.layers.keys():
                # its layers show again, around its box, the pinned boxes below making room
                members = [n for block in old_runs[head].blocks for n in block if n in drawing.layers]
                self._make_room(drawing, members, folding=False)
                self._forget_view()
        for callback in list(self._observers):
            callback(self)

    def _forget(self) -> None:
        """The structure changed: model, problems, depth map and layout rows are made again."""
        self._structure_revision += 1
        self._model = _UNSET
        self._problems: list[Problem] = []
        self._found: tuple[Problem, ...] | None = None  # problems_before_keras, made once
        self._depth: DepthMap | None = None
        self._rows: list[list[str]] | None = None
        self._placer = None  # places those rows again after each move
        self._plain_sizes: dict[str, tuple[float, float]] | None = None
        self._sizes: dict[str, tuple[float, float]] | None = None  # with expanded boxes' insides
        self._sizes_key: tuple = ()  # the (expanded, folded) boxes these sizes are for
        self._outputs: list[Triple] | None = None
        self._repeats: tuple[Repeat, ...] | None = None
        self._run_index: tuple[dict, dict] = ({}, {})
        self._forget_view()

    def _forget_view(self) -> None:
        """Only the view changed: positions are placed again from the same rows."""
        self._positions = None

    def _find_problems(self) -> list[Problem]:
        d, status = self._drawing, self._net.status
        found = []
        if not self.inputs:
            found.append(Problem("The drawing has no Input: add one with add_input()."))
        used = {e.src[0] for e in d.edges} | {t[0] for t in self.outputs}
        if d.input_structure is not None:  # an imported model's own inputs, used or not
            used |= set(self.inputs)
        for name in self.inputs:
            if name not in used:
                found.append(Problem(f"Input {name} is not used by any layer.", name, 0))
        for (name, k), why in status.items():
            if why is not None:
                found.append(Problem(f"{name} call {k} is pending: {why}.", name, k))
        if not found and not self.outputs:
            found.append(Problem("The drawing has no output."))
        return found

    def _structured(self, inputs: list, outputs: list) -> tuple[list, list]:
        """Inputs and outputs in the drawing's structures, where set (one item: the structure)."""
        from . import structures

        d = self._drawing
        if d.input_structure is not None and structures.fits(d.input_structure, len(inputs)):
            inputs = [structures.packed(d.input_structure, inputs)]
        if d.output_structure is not None and structures.fits(d.output_structure, len(outputs)):
            outputs = [structures.packed(d.output_structure, outputs)]
        return inputs, outputs

    def _build_model(self) -> keras.Model | None:
        net = self._net
        inputs = [net.records[(n, 0)].outputs[0] for n in self.inputs]
        outputs = [net.records[t[:2]].outputs[t[2]] for t in self.outputs]
        limit = sys.getrecursionlimit()  # Keras's map_graph recurses once per node (#15596)
        sys.setrecursionlimit(max(limit, 20 * len(net.records) + 2000))
        try:
            inputs, outputs = self._structured(inputs, outputs)
            if self._drawing.dict_inputs and self._drawing.input_structure is None:
                inputs = [dict(zip(self.inputs, inputs))]
            if self._drawing.output_keys and self._drawing.output_structure is None:
                d, built = self._drawing, set(self.outputs)
                outputs = [{k: net.records[t[:2]].outputs[t[2]] for t, k in
                            zip(d.output_order, d.output_keys) if t in built}]
            return keras.Model(inputs=inputs[0] if len(inputs) == 1 else inputs,
                               outputs=outputs[0] if len(outputs) == 1 else outputs,
                               name=self.name)
        except Exception as e:  # noqa: BLE001 - Keras's message becomes the problem
            self._problems = [Problem(f"Keras refused the model: {e}")]
            return None
        finally:
            sys.setrecursionlimit(limit)


_UNSET = object()
GAP = (60.0, 40.0)  # between boxes in a row, between rows


def _find_repeats(d: Drawing, texts: dict | None = None) -> tuple[Repeat, ...]:
    """The runs of `d`. texts: {id(spec): (spec, config text)} kept between calls (specs are
    immutable and an edit keeps the unchanged ones), updated to `d`'s specs."""
    known = texts if texts is not None else {}
    fresh = {}
    for spec in d.layers.values():
        hit = known.get(id(spec))
        fresh[id(spec)] = hit if hit is not None and hit[0] is spec else (spec, config_text(spec.config))
    if texts is not None:
        texts.clear()
        texts.update(fresh)
    layers = {n: {"class_name": s.class_name, "config": s.config, "config_text": fresh[id(s)][1]}
              for n, s in d.layers.items()}
    return tuple(repeated_blocks(layers, [(e.src, e.dst) for e in d.edges]))


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


def _check_point(x: Any, y: Any) -> tuple[float, float]:
    import math

    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
               and abs(v) < 1e7 for v in (x, y)):
        raise EditError(f"A position is two finite numbers, got ({x!r}, {y!r}).")
    return (float(x), float(y))
