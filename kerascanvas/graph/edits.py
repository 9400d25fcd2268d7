"""The edits that build a drawing: boxes, edges, calls, configs and the model's outputs.

Each is one transaction of the history (history.py): checked on the drawing, then by Keras as the
network rebuilds what it touched; a refusal changes nothing. `Graph` forwards its edits here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

import keras

from .. import limits
from ..drawing.drawing import INPUT_CLASS, Drawing, LayerSpec, Triple, as_triple
from ..errors import EditError
from ..kinds import calls as call_model
from ..kinds import catalog, custom, kinds, ops
from ..kinds.layerkind import NoSlots
from ..network.network import Network
from ..text import check_strings, check_text
from .history import History


class Edits:
    """Structural edits of `history`'s drawing, with `network` its live Keras objects."""

    def __init__(self, history: History, network: Network):
        self.history, self.network = history, network


    def add_input(self, shape: Iterable[int | None], name: str | None = None,
                  dtype: str = "float32", batch_size: int | None = None,
                  optional: bool = False) -> str:
        """Add a `keras.Input` box; returns its name. batch_size fixes the batch dimension;
        optional: the model may be called with None for it (keras.Input(optional=True))."""
        shape = _check_shape(shape)

        def change(d: Drawing) -> str:
            chosen = d.check_new_name(name, INPUT_CLASS) if name is not None else d.auto_name(
                "input_layer")
            config = _input_config(shape, dtype, chosen, batch_size, optional)
            d.add(LayerSpec(chosen, INPUT_CLASS, config, NoSlots(), 1))
            return chosen

        return self.history.edit(change)

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
            chosen = d.check_new_name(name, kind.class_name) if name is not None else \
                d.auto_name(keras.src.utils.naming.to_snake_case(kind.class_name))
            args = {**kind.suggested_args(), **config}
            layer = _made(kind.build, chosen, kind.class_name, args)
            spec = self._spec(kind, chosen, kinds.config_of(kind, layer, args))
            self.network.prepare(chosen, spec.config, layer)  # made once, called by the network
            d.add(spec)
            return chosen

        return self.history.edit(change)

    def add_layer_from_config(self, serialized: Mapping[str, Any], as_given: bool = False,
                              keywords: Iterable[str] = (), call_args: Iterable = (),
                              inside: Iterable = ()) -> str:
        """Add a layer from Keras's serialized form, {"class_name": ..., "config": {...}} (as in a
        model's get_config()["layers"]); the config's name is the box's name. Used by import.
        as_given: the config is a live layer's own get_config() (import): kept, not redone.
        keywords: tensor keyword arguments its calls take as named slots (padding_mask, ...);
        call_args: per call, its calls.CallArgs (settings, how many slots go by position);
        inside: what was done to layers made in its build (LayerSpec.inside), redone when built."""
        if not isinstance(serialized, Mapping) or not isinstance(serialized.get("config"), Mapping):
            raise EditError(f"Expected {{'class_name': ..., 'config': {{...}}}}, got {serialized!r:.200}.")
        class_name, config = serialized.get("class_name"), dict(serialized["config"])
        kind = kinds.get(class_name, new=True)  # a catalog layer or a nested model
        check_strings(config, f"The config of {class_name}")

        def change(d: Drawing) -> str:
            name = d.check_new_name(config.get("name"), class_name)
            layer = _made(lambda **c: kind.create(c), name, class_name, config)
            spec = self._spec(kind, name, config if as_given else kinds.config_of(kind, layer, config),
                              keywords=tuple(keywords), call_args=call_model.trimmed(call_args))
            spec = replace(spec, inside=tuple(inside))
            self.network.prepare(name, spec.config, layer)
            d.add(spec)
            return name

        return self.history.edit(change)

    def connect(self, src: str | Triple, dst: str, call: int = 0, slot: int | None = None) -> None:
        """Feed a tensor into a slot of a layer's call. A `call` equal to the number of calls
        adds a new call."""
        source = as_triple(src)
        self.history.edit(lambda d: d.connect(source, (dst, call, slot)) and None)

    def disconnect(self, src: str | Triple, dst: str, call: int = 0, slot: int | None = None) -> None:
        source = as_triple(src)
        self.history.edit(lambda d: d.disconnect(source, (dst, call, slot)) and None)

    def remove(self, name: str, bridge: bool = False) -> None:
        """Remove a box and its edges. bridge=True keeps the chain joined: what fed the box's
        one input now feeds every slot its outputs fed (refused, changing nothing, if Keras
        refuses the shapes or the box has other than one input)."""
        if not bridge:
            self.history.edit(lambda d: d.remove(name))
            return
        d = self.history.editing
        spec = d.spec(name)
        into = [e for e in d.edges if e.dst[0] == name]
        out = [e for e in d.edges if e.src[0] == name]
        if spec.calls != 1 or len(into) != 1 or spec.n_outputs != 1:
            raise EditError(f"Only a box with one call and one input can be deleted keeping the "
                            f"chain joined; {name!r} has {len(into)} input(s) and {spec.calls} "
                            f"call(s).", layer=name)
        src = into[0].src
        with self.history.batch():
            self.history.edit(lambda dr: dr.remove(name))
            for e in out:
                self.history.edit(lambda dr, e=e: dr.connect(src, e.dst) and None)

    def insert(self, name: str, src: str | Triple, dst: str, call: int = 0, slot: int = 0) -> None:
        """Put box `name` (call 0, slot 0 free) into the edge src -> (dst, call, slot): src feeds
        `name` and `name` feeds that slot. One undo step; layers downstream keep their weights
        where their input shapes did not change."""
        source = as_triple(src)
        d = self.history.editing  # inside a batch: its edits
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
        with self.history.batch():
            for e in reversed(later):
                self.history.edit(lambda dr, e=e: dr.disconnect(e.src, e.dst) and None)
            self.history.edit(lambda dr: dr.disconnect(source, edge.dst) and None)
            self.history.edit(lambda dr: dr.connect(source, (name, 0, 0)) and None)
            self.history.edit(lambda dr: dr.connect((name, 0, 0), (dst, call, slot)) and None)
            for e in later:
                self.history.edit(lambda dr, e=e: dr.connect(e.src, e.dst) and None)

    def rewire(self, src: str | Triple, old: tuple[str, int, int], new: tuple[str, int, int | None] | None
               ) -> None:
        """Move an edge's end from slot `old` (dst, call, slot) to `new`, or unplug it (new=None):
        one undo step."""
        source = as_triple(src)
        with self.history.batch():
            self.history.edit(lambda dr: dr.disconnect(source, tuple(old)) and None)
            if new is not None:
                self.history.edit(lambda dr: dr.connect(source, tuple(new)) and None)

    def rename(self, old: str, new: str) -> None:
        held = self.network.objects.get(old) or self.network.parked.get(old)
        self.history.edit(lambda d: d.rename(old, new), predecessors={new: held},
                          renamed={old: new})

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
                from ..kinds.nested import with_trainable  # freezing a model freezes its layers

                config = with_trainable(config, changes["trainable"])
            layer = _made(lambda **c: kind.create(c), name, kind.class_name, config)
            new = self._spec(kind, name, kinds.config_of(kind, layer, config), calls=spec.calls,
                             keywords=spec.slots.named, call_args=spec.call_args)
            # made once, called by the network (a second one cost a StringLookup's vocabulary
            # table again, memory Keras never gives back)
            self.network.prepare(name, new.config, layer)
            d.replace_spec(new)

        self.history.edit(change)

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

        self.history.edit(change)

    def call_settings(self, name: str, call: int = 0) -> dict:
        """The settings of one call (see configure_call)."""
        return call_model.of(self.history.drawing.spec(name), call).settings_dict

    def add_call(self, name: str) -> int:
        """A new, pending call of a layer (shared weights); returns its call number = node_index."""
        return self.history.edit(lambda d: d.add_call(name))

    def remove_call(self, name: str, call: int) -> None:
        """Remove one call; later calls move down one node_index, as Keras would number them."""
        self.history.edit(lambda d: d.remove_call(name, call))

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

        return self.history.edit(change)

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
        order = tuple(as_triple(o) for o in outputs)
        seen: set[Triple] = set()  # (a set: a list searched per port took 82 s for 100,000)
        twice = next((t for t in order if t in seen or seen.add(t)), None)
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

        self.history.edit(change, network=False)

    def set_dict_inputs(self, on: bool = True) -> None:
        """Make `g.model` take its inputs as a dict keyed by the Inputs' names (as a model built
        with `keras.Model({"wide": wide, "deep": deep}, ...)` does), or as a list again."""
        if not isinstance(on, bool):
            raise EditError(f"set_dict_inputs takes True or False, got {on!r:.40}.")

        def change(d: Drawing) -> None:
            d.dict_inputs = on

        self.history.edit(change, network=False)

    def set_structures(self, inputs: Any = ..., outputs: Any = ...) -> None:
        """The nested structures `g.model` takes its inputs in and gives its outputs in, as
        JSON over positions (kerascanvas/drawing/structures.py): inputs over the Inputs in creation
        order, outputs over `outputs` (`keras.Model({"x": a, "more": {"y": b}}, ...)`, dicts
        keyed unlike the Inputs' names, tuples, one tensor in several places). None: plain."""
        from ..drawing import structures

        def change(d: Drawing) -> None:
            if inputs is not ...:  # (... leaves it as it is)
                n = sum(1 for s in d.layers.values() if s.is_input)
                d.input_structure = None if inputs is None else structures.checked(
                    inputs, n, "input")
            if outputs is not ...:
                d.output_structure = None if outputs is None else structures.checked(
                    outputs, len(d.output_order), "output")

        self.history.edit(change, network=False)


    def _spec(self, kind, name: str, config: Mapping, calls: int = 1, keywords: tuple = (),
              call_args: tuple = ()) -> LayerSpec:
        slots = call_model.with_keywords(kind.slots_for(config), keywords)
        outputs = kind.n_outputs(config) + call_model.most_extra_outputs(call_args)
        return LayerSpec(name, kind.class_name, config, slots, outputs, calls, call_args)


def _made(make, name: str, class_name: str, args: Mapping[str, Any]):
    """A layer from `make(**args)`; Keras's own message if it refuses them."""
    try:
        # (a model's constructor builds its layers; a registered MyReg in the config is found)
        with limits.counted(name), custom.scope():
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
