"""Reads of the live Keras objects behind a drawing: calls, nodes and tensors, the model over
them, why there is none (problems), its outputs and its depth map. Made once per structure."""

from __future__ import annotations

import math
import sys
import warnings
from dataclasses import dataclass

import keras

from ..drawing.drawing import Drawing, Triple
from ..kinds import calls as call_model
from ..kinds import kinds
from ..network.depth import DepthMap, depth_map
from ..network.network import Network

_UNSET = object()


@dataclass(frozen=True)
class Problem:
    """Why `g.model` is None, and where: the layer, call and slot it concerns (or None)."""

    message: str
    layer: str | None = None
    call: int | None = None
    slot: int | None = None

    def __str__(self) -> str:
        return self.message


class Reads:
    """What `drawing` and its live `network` say, cached until the structure changes."""

    def __init__(self, drawing: Drawing, network: Network):
        self.drawing, self.network = drawing, network
        self._placeholders: dict[str, tuple] = {}  # name -> (config, unbuilt layer)
        self.forget()

    def forget(self) -> None:
        """The structure changed: model, problems, outputs and depth map are made again."""
        self._model = _UNSET
        self._problems: list[Problem] = []
        self._found: tuple[Problem, ...] | None = None  # problems_before_keras, made once
        self._left_out: tuple[str, ...] | None = None  # left_out, made once
        self._depth: DepthMap | None = None
        self._outputs: list[Triple] | None = None

    # ----- calls, nodes and tensors -----------------------------------------------------------

    def live_layer(self, name: str) -> keras.layers.Layer | None:
        """The Keras layer behind a box once a call of it is complete, else None (no placeholder)."""
        return self.network.objects.get(name)

    def keras_layer(self, name: str) -> keras.layers.Layer:
        """The live Keras layer behind a box. A layer none of whose calls is complete yet gets an
        unbuilt layer made from its config, replaced by a fresh one when its first call is made."""
        spec = self.drawing.spec(name)
        if name in self.network.objects:
            return self.network.objects[name]
        held = self._placeholders.get(name)
        if held is None or held[0] is not spec.config:
            held = (spec.config, kinds.get(spec.class_name).create(dict(spec.config)))
            self._placeholders[name] = held
        return held[1]

    def saved_weights(self, name: str) -> list:
        """The weights a box holds, as arrays: its live layer's, or for a box still pending since
        a file was loaded, the file's (its first call takes them when their shapes fit)."""
        layer = self.network.objects.get(name)
        if layer is not None:
            return layer.get_weights() if hasattr(layer, "get_weights") else []
        held = self.network.parked.get(name)
        return held.get_weights() if held is not None else []

    def param_counts(self) -> dict[str, int]:
        """{"total", "trainable", "non_trainable"}: the parameters of every live layer, counted
        as Keras counts a model's (each variable once, however many layers hold it; a frozen
        layer's weights, and BatchNormalization's statistics, non-trainable). A box still
        pending holds no weights yet and counts none; a box left out of the model (`left_out`:
        a layer cut off from the Inputs keeps its weights) counts none."""
        seen: set[int] = set()
        counts = {"trainable": 0, "non_trainable": 0}
        for layer in self._model_objects():
            for v in getattr(layer, "weights", ()):  # (an operation has none)
                if id(v) not in seen:  # by its own flag, as a model counts (flags.py)
                    seen.add(id(v))
                    counts["trainable" if v.trainable else "non_trainable"] += math.prod(v.shape)
        return {"total": counts["trainable"] + counts["non_trainable"], **counts}

    def weight_bytes(self) -> float:
        """The memory the weights of every live layer take, in bytes, as Keras's model.summary
        counts it (each variable once, by its dtype: quantization shrinks it)."""
        from keras.src.utils.summary_utils import weight_memory_size  # (Keras's summary's own)

        return weight_memory_size([v for layer in self._model_objects()
                                   for v in getattr(layer, "weights", ())])

    def _model_objects(self) -> list:
        """The live layers of the model's boxes (those `left_out` are not the model's)."""
        left = set(self.left_out) if self.inputs else set()
        return [layer for name, layer in self.network.objects.items() if name not in left]

    def call_record(self, name: str, call: int):
        """(inputs, outputs, shapes) of a complete call (network.CallRecord), or None if pending."""
        return self.network.records.get((name, call))

    def pending_reason(self, name: str, call: int) -> str | None:
        """Why a call is pending ("its 'inputs' input is empty", ...), None once it is complete."""
        return self.network.status.get((name, call))

    def is_built(self, name: str, call: int = 0) -> bool:
        """Whether that call exists as a Keras Node (else it is pending)."""
        return self.network.status.get((name, call), "") is None

    def tensor(self, src: Triple):
        record = self.network.records.get(src[:2])
        return record.outputs[src[2]] if record is not None and src[2] < len(record.outputs) else None

    def call_inputs(self, name: str, call: int) -> list[Triple] | None:
        """The sources of a call in slot order, or None while required slots are empty."""
        d = self.drawing
        return d.call_inputs(d.spec(name), d.filled((name, call)))

    def call_slots(self, name: str, call: int = 0) -> dict[int, Triple]:
        """{slot: source triple} of a call (named slots may stay empty)."""
        self.drawing.spec(name)
        return self.drawing.filled((name, call))

    def node_inputs(self) -> dict[tuple[str, int], list[Triple]]:
        """{(layer, call): its sources in Keras's order (`node.input_tensors`: positional ones,
        then keyword tensors sorted by name)} for every complete call."""
        d = self.drawing
        return {key: call_model.keras_order(d.layers[key[0]].slots, d.filled(key),
                                            call_model.of(d.layers[key[0]], key[1]))
                for key, why in self.network.status.items() if why is None}

    # ----- the model ---------------------------------------------------------------------------

    @property
    def inputs(self) -> list[str]:
        return [n for n, s in self.drawing.layers.items() if s.is_input]

    @property
    def outputs(self) -> list[Triple]:
        """The unconsumed output ports of complete calls, in the model's output order."""
        if self._outputs is None:
            self._outputs = self._find_outputs()
        return list(self._outputs)

    def _find_outputs(self) -> list[Triple]:
        d, records = self.drawing, self.network.records
        consumed = {e.src for e in d.edges if self.is_built(e.dst[0], e.dst[1])}
        default = [(n, k, t) for n, s in d.layers.items() if not s.is_input
                   for k in range(s.calls) if (n, k) in records
                   for t in range(len(records[(n, k)].outputs)) if (n, k, t) not in consumed]
        if d.outputs_only:  # exactly the listed ports whose calls are built, consumed or not
            return [t for t in d.output_order
                    if t[:2] in records and t[2] < len(records[t[:2]].outputs)]
        listed = set(default)  # (sets: lists searched per port made this quadratic)
        chosen = [t for t in d.output_order if t in listed]
        taken = set(chosen)
        return chosen + [t for t in default if t not in taken]

    @property
    def depth(self) -> DepthMap:
        """Seed 000's depth map of the model, or of the complete calls of a partial drawing."""
        if self._depth is None:
            self._depth = depth_map([(n, 0, 0) for n in self.inputs], self.outputs,
                                    self.node_inputs())
        return self._depth

    def model(self, name: str) -> keras.Model | None:
        """The keras.Model named `name`, or None (see `problems`)."""
        if self._model is _UNSET:
            self._problems = list(self.problems_before_keras())
            self._model = None if self._problems else self._build_model(name)
        return self._model

    @property
    def model_checked(self) -> bool:
        """Whether Keras has been asked for this structure's model (it is built or refused), so
        `problems` is final; false after a structural edit until `model` or `problems` is read."""
        return self._model is not _UNSET

    def problems(self, name: str) -> list[Problem]:
        _ = self.model(name)  # building it may add one: a model Keras refuses
        return list(self._problems)

    def problems_before_keras(self) -> tuple[Problem, ...]:
        """`problems` as kerascanvas's own checks find them, without building the model (about
        90 ms at 2,000 layers): Keras may still refuse a model these pass, which `problems` says.
        The canvas shows these first and Keras's answer just after."""
        if self._found is None:
            self._found = tuple(self._find_problems())
        return self._found

    @property
    def left_out(self) -> list[str]:
        """Boxes wired to no Input at all (dropped, not connected yet; a chain of such boxes):
        left out of the model, as node editors leave out what is not connected, instead of
        making it None. A box wired into the Input's part of the drawing is never left out: its
        pending call is a problem there."""
        if self._left_out is None:  # (read by problems, the footer and the counts per change)
            self._left_out = tuple(self._find_left_out())
        return list(self._left_out)

    def _find_left_out(self) -> list[str]:
        d = self.drawing
        neighbours: dict[str, set[str]] = {n: set() for n in d.layers}
        for e in d.edges:
            neighbours[e.src[0]].add(e.dst[0])
            neighbours[e.dst[0]].add(e.src[0])
        reached, todo = set(self.inputs), list(self.inputs)
        while todo:
            for n in neighbours[todo.pop()] - reached:
                reached.add(n)
                todo.append(n)
        return [n for n in d.layers if n not in reached]

    def _find_problems(self) -> list[Problem]:
        d, status = self.drawing, self.network.status
        found = []
        left_out = set(self.left_out) if self.inputs else set()
        if not self.inputs:
            found.append(Problem("The drawing has no Input: add one with add_input()."))
        used = {e.src[0] for e in d.edges} | {t[0] for t in self.outputs}
        if d.input_structure is not None:  # an imported model's own inputs, used or not
            used |= set(self.inputs)
        for name in self.inputs:
            if name not in used:
                found.append(Problem(f"Input {name} is not used by any layer.", name, 0))
        for (name, k), why in status.items():
            if why is not None and name not in left_out:
                found.append(Problem(f"{name} call {k} is pending: {why}.", name, k))
        if not found and not self.outputs:
            found.append(Problem("The drawing has no output."))
        return found

    def _structured(self, inputs: list, outputs: list) -> tuple[list, list]:
        """Inputs and outputs in the drawing's structures, where set (one item: the structure)."""
        from ..drawing import structures

        d = self.drawing
        if d.input_structure is not None and structures.fits(d.input_structure, len(inputs)):
            inputs = [structures.packed(d.input_structure, inputs)]
        if d.output_structure is not None and structures.fits(d.output_structure, len(outputs)):
            outputs = [structures.packed(d.output_structure, outputs)]
        return inputs, outputs

    def _build_model(self, name: str) -> keras.Model | None:
        records, d = self.network.records, self.drawing
        inputs = [records[(n, 0)].outputs[0] for n in self.inputs]
        outputs = [records[t[:2]].outputs[t[2]] for t in self.outputs]
        limit = sys.getrecursionlimit()  # Keras's map_graph recurses once per node (#15596)
        sys.setrecursionlimit(max(limit, 20 * len(records) + 2000))
        try:
            inputs, outputs = self._structured(inputs, outputs)
            if d.dict_inputs and d.input_structure is None:
                inputs = [dict(zip(self.inputs, inputs))]
            if d.output_keys and d.output_structure is None:
                built = set(self.outputs)
                outputs = [{k: records[t[:2]].outputs[t[2]] for t, k in
                            zip(d.output_order, d.output_keys) if t in built}]
            with warnings.catch_warnings():
                # Keras warns when dict keys differ from the Inputs' names: the user's own
                # model said so once when it was made, the canvas would again after every edit
                warnings.filterwarnings("ignore", "When providing `inputs` as a dict",
                                        UserWarning)
                return keras.Model(inputs=inputs[0] if len(inputs) == 1 else inputs,
                                   outputs=outputs[0] if len(outputs) == 1 else outputs,
                                   name=name)
        except Exception as e:  # noqa: BLE001 - Keras's message becomes the problem
            self._problems = [Problem(f"Keras refused the model: {e}")]
            return None
        finally:
            sys.setrecursionlimit(limit)
