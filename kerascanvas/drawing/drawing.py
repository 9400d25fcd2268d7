"""The drawing as data: layers, calls, edges and pinned positions, with structural checks.

Pure Python (no keras): the live Keras objects are made from a Drawing by network.py. An edit
changes the drawing in place while a change log records what it changed (`begin` / `end`): the log
is how a refused edit is taken back and how undo and redo step, so one edit costs what it changes,
not the size of the drawing. Specs and edges are immutable, so a log only holds references.

Why it is long: the drawing's data and its structural checks: each check reads the same private
indexes the edits keep current under the change log.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from ..errors import EditError
from ..kinds.layerkind import Slots
from ..limits import check_calls, check_list_inputs
from ..text import check_text
from .changelog import MISSING, Logged

Triple = tuple[str, int, int]  # (layer, node_index, tensor_index): KerasTensor._keras_history
Target = tuple[str, int, int]  # (layer, call, slot)
CallKey = tuple[str, int]  # (layer, call); call k is node_index k once the call is complete

INPUT_CLASS = "InputLayer"
MAX_NAME_LENGTH = 100
# Characters a layer name may not hold, and why; a Drawing adds those its `forbidden` names (graph.py
# adds "." under the torch backend: it knows the backend, this module does not import keras).
FORBIDDEN_IN_NAMES = {"/": "Keras uses '/' in weight paths"}
# A nested functional model's weights are named by its own layers, not under its name: the
# `forbidden` characters, which are about weight names, do not apply to its name (keras.applications
# name theirs "mobilenetv2_1.00_224": under torch, every transfer-learning classifier had one)
OWNS_NO_WEIGHT_NAMES = frozenset({"Functional"})


def as_triple(src: Any) -> Triple:
    """A source as the Graph's edits take it (a layer name, or a (layer, node_index,
    tensor_index) triple of non-negative ints) as a Triple; EditError for anything else."""
    if isinstance(src, str):
        return (src, 0, 0)
    if (isinstance(src, (tuple, list)) and len(src) == 3 and isinstance(src[0], str)
            and all(isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in src[1:])):
        return (src[0], src[1], src[2])
    raise EditError(f"A source is a layer name or a (layer, node_index, tensor_index) triple of "
                    f"non-negative ints; got {src!r}.")


class Edge(NamedTuple):
    src: Triple
    dst: Target


@dataclass(frozen=True)
class LayerSpec:
    """One box: its class, its full Keras config, how many calls are drawn, its slots and outputs."""

    name: str
    class_name: str
    config: Mapping[str, Any]  # never mutated: configure() makes a new spec
    slots: Slots  # (kind, names, min, max, named); NoSlots for an Input
    n_outputs: int
    calls: int = 1
    call_args: tuple = ()  # per call: calls.CallArgs (settings, how tensors are passed); the
    # default where the tuple is shorter
    inside: tuple = ()  # (path, "lora" | "trainable", rank | flag) done, in this order, to layers
    # made in this one's build, which no config can say (network/inside.py): redone each time its
    # layer is made

    @property
    def is_input(self) -> bool:
        return self.class_name == INPUT_CLASS


class Drawing(Logged):
    """Layers (creation order), edges (creation order), pinned positions, expanded boxes, folded
    runs. Every change is recorded in the change log of the edit under way (changelog.py).

    Two indexes (edges into a call, edges out of a call) are kept up to date by every edit, and
    each edit notes the calls it touched and the layers it took away, so that the network rebuild
    visits only those and what lies downstream of them.
    """

    UNLOGGED = frozenset({"touched", "gone", "cycles_later", "forbidden"})  # marks, not state

    def __init__(self, forbidden: Mapping[str, str] | None = None):
        """forbidden: characters layer names may not hold here, beyond FORBIDDEN_IN_NAMES, and why."""
        self.layers: dict[str, LayerSpec] = {}
        self.edges: list[Edge] = []
        self.pinned: dict[str, tuple[float, float]] = {}
        self.expanded: frozenset[str] = frozenset()  # nested-model boxes shown with their inside
        self.folded: frozenset[str] = frozenset()  # runs of repeated blocks shown as one box (first layers)
        self.direction = "down"  # the layout's flow: "down" (inputs at the top) or "right"
        self.output_order: tuple[Triple, ...] = ()
        self.outputs_only = False  # True: the model's outputs are exactly output_order (import)
        self.dict_inputs = False  # True: the model takes {input name: tensor} (as imported)
        self.output_keys: tuple[str, ...] = ()  # dict outputs: output_order[i]'s key (sorted)
        # nested / re-keyed structures (structures.py): JSON over input and output positions
        self.input_structure: Any = None
        self.output_structure: Any = None
        self.name_counts: dict[str, int] = {}
        self._into: dict[CallKey, tuple[Edge, ...]] = {}  # dst call -> its edges
        self._out: dict[CallKey, tuple[Edge, ...]] = {}  # src call -> edges it feeds
        self.touched: set[CallKey] = set()
        self.gone: set[str] = set()
        self.cycles_later = False  # True: connect skips its cycle search; check_acyclic() after
        self.forbidden: Mapping[str, str] = dict(forbidden or {})

    # ----- view fields the graph changes ------------------------------------------------------

    def pin(self, name: str, point: tuple[float, float]) -> None:
        """Pin a box at a point (the layout leaves it there)."""
        self._set("pinned", name, point)

    def pin_many(self, points: Mapping[str, tuple[float, float]]) -> None:
        for name, point in points.items():
            self._set("pinned", name, point)

    def unpin_all(self) -> None:
        self.pinned = {}

    @property
    def under_edit(self) -> bool:
        """An edit is under way (its changes may yet be taken back)."""
        return self.__dict__.get("_log") is not None

    def begin(self) -> None:
        """Start recording an edit (changelog.Logged); the marks of the last rebuild go."""
        self.__dict__.update(touched=set(), gone=set())  # (unlogged: no __setattr__ needed)
        super().begin()

    def adopt(self, copy: Drawing) -> None:
        """Take over the edit under way on `copy`, a copy of this drawing made as it began (a
        batch): its changes are made here too, as part of this drawing's edit."""
        self.take_over(copy)
        self.touched, self.gone = copy.touched, copy.gone

    def copy(self) -> Drawing:
        """A copy to edit apart (a batch): index values are tuples, so shallow copies suffice;
        no edit under way, no marks."""
        d = Drawing.__new__(Drawing)
        d.layers, d.edges, d.pinned = dict(self.layers), list(self.edges), dict(self.pinned)
        d.output_order, d.name_counts = self.output_order, dict(self.name_counts)
        d.outputs_only, d.expanded, d.folded = self.outputs_only, self.expanded, self.folded
        d.direction = self.direction
        d.dict_inputs, d.output_keys = self.dict_inputs, self.output_keys
        d.input_structure, d.output_structure = self.input_structure, self.output_structure
        d._into, d._out = dict(self._into), dict(self._out)
        d.touched, d.gone = set(), set()
        d.cycles_later, d.forbidden = False, self.forbidden
        return d

    # ----- names -----------------------------------------------------------------------------

    def check_new_name(self, name: Any, class_name: str | None = None) -> str:
        """`name` if a new layer of `class_name` may take it here, else EditError saying why."""
        if not isinstance(name, str):
            raise EditError(f"A layer name must be a string, got {name!r} ({type(name).__name__}).")
        if not name or len(name) > MAX_NAME_LENGTH:
            raise EditError(f"A layer name must have 1 to {MAX_NAME_LENGTH} characters, got {name!r}.")

        check_text(name, "A layer name")
        if not name.strip():  # a box with an invisible name could not be told apart or found
            raise EditError(f"A layer name needs a visible character, got {name!r}.")
        own = {} if class_name in OWNS_NO_WEIGHT_NAMES else self.forbidden
        for forbidden in (FORBIDDEN_IN_NAMES, own):
            for char, why in forbidden.items():
                if char in name:
                    raise EditError(f"A layer name may not contain {char!r} ({why}), got {name!r}.")
        if name in self.layers:
            raise EditError(f"There is already a layer named {name!r}; names must be unique.",
                            layer=name)
        return name

    def auto_name(self, prefix: str) -> str:
        """Keras's naming (dense, dense_1, ...), counted per drawing instead of per session."""
        while True:
            count = self.name_counts.get(prefix, 0)
            self._set("name_counts", prefix, count + 1)
            name = prefix if count == 0 else f"{prefix}_{count}"
            if name not in self.layers:
                return name

    def spec(self, name: Any) -> LayerSpec:
        if not isinstance(name, str) or name not in self.layers:
            raise EditError(f"There is no layer named {name!r}.",
                            layer=name if isinstance(name, str) else None)
        return self.layers[name]

    # ----- edits (structural checks only; Keras checks come from network.py) --------------------

    def add(self, spec: LayerSpec) -> None:
        self.check_new_name(spec.name, spec.class_name)
        self._set("layers", spec.name, spec)
        self.touched.update([(spec.name, k) for k in range(spec.calls)])

    def remove(self, name: str) -> None:
        spec = self.spec(name)
        for k in range(spec.calls):
            for e in self._into.get((name, k), ()):
                self._unlink(e)
            while self._out.get((name, k)):
                self._drop_edge(self._out[(name, k)][0])
        if self.layers[name].is_input:
            self.input_structure = None  # its positions no longer say which Input is which
        self._pop("layers", name)
        self._pop("pinned", name)
        self.expanded = self.expanded - {name}
        self._keep_outputs(lambda t: t[0] != name)
        self.gone.add(name)

    def _keep_outputs(self, keep) -> None:
        """Drop the outputs `keep` refuses, with their dict keys."""
        kept = [i for i, t in enumerate(self.output_order) if keep(t)]
        if len(kept) != len(self.output_order):
            self.output_structure = None
        if self.output_keys:
            self.output_keys = tuple(self.output_keys[i] for i in kept)
        self.output_order = tuple(self.output_order[i] for i in kept)

    def rename(self, old: str, new: str) -> None:
        self.spec(old)
        if new == old:
            return
        self.check_new_name(new, self.layers[old].class_name)

        def swap(key):
            return (new,) + tuple(key[1:]) if key[0] == old else key

        renamed = replace(self.layers[old], name=new, config={**self.layers[old].config, "name": new})
        self.layers = {(new if n == old else n): (renamed if n == old else s)
                       for n, s in self.layers.items()}
        self.edges = [Edge(swap(e.src), swap(e.dst)) for e in self.edges]
        self._reindex()
        if old in self.pinned:
            self.pinned = {(new if n == old else n): p for n, p in self.pinned.items()}
        if old in self.expanded:
            self.expanded = self.expanded - {old} | {new}
        if old in self.folded:
            self.folded = self.folded - {old} | {new}
        self.output_order = tuple(swap(t) for t in self.output_order)
        self.gone.add(old)
        self.touched.update((new, k) for k in range(renamed.calls))

    def replace_spec(self, spec: LayerSpec) -> None:
        """A new config: refused if it removes output ports that edges still use."""
        for k in range(spec.calls):
            for e in self._out.get((spec.name, k), ()):
                if e.src[2] >= spec.n_outputs:
                    raise EditError(
                        f"With this config {spec.name} has {spec.n_outputs} output(s), but the edge "
                        f"{_fmt_edge(e)} uses output {e.src[2]}: disconnect it first.",
                        layer=spec.name)
        self._set("layers", spec.name, spec)
        self.touched.add((spec.name, 0))

    def restate(self, spec: LayerSpec) -> None:
        """A new config the live layer already follows (a trainable flag set on it): no call is
        touched, so nothing is made or called again."""
        self.spec(spec.name)
        self._set("layers", spec.name, spec)

    def add_call(self, name: str) -> int:
        spec = self.spec(name)
        if spec.is_input:
            raise EditError(f"{name} is an Input: it cannot be called.", layer=name)

        check_calls(name, spec.calls + 1)
        self._set("layers", name, replace(spec, calls=spec.calls + 1))
        self.touched.add((name, spec.calls))
        return spec.calls

    def remove_call(self, name: str, call: int) -> None:
        spec = self.spec(name)
        if spec.is_input or not _is_index(call) or call >= spec.calls or spec.calls == 1:
            raise EditError(f"{name} has calls 0..{spec.calls - 1}; call {call!r} cannot be removed "
                            "(a layer keeps at least one call: remove the layer instead).", layer=name)
        while self._out.get((name, call)):
            self._drop_edge(self._out[(name, call)][0])
        for e in self._into.get((name, call), ()):  # the whole call goes: no gaps to close
            self._unlink(e)
        kept = []
        for e in self.edges:
            src, dst = e.src, e.dst
            if src[0] == name and src[1] > call:  # later calls move down: node_index == call number
                src = (name, src[1] - 1, src[2])
            if dst[0] == name and dst[1] > call:
                dst = (name, dst[1] - 1, dst[2])
            kept.append(Edge(src, dst))
        self.edges = kept
        self._reindex()
        self._set("layers", name, replace(spec, calls=spec.calls - 1, call_args=tuple(
            a for j, a in enumerate(spec.call_args) if j != call)))
        self._keep_outputs(lambda t: not (t[0] == name and t[1] == call))
        self.output_order = tuple(
            (t[0], t[1] - (t[0] == name and t[1] > call), t[2]) for t in self.output_order)
        self.touched.update((name, k) for k in range(call, spec.calls))  # the last one: to cut

    def set_call_args(self, name: str, call: int, args: Any) -> None:
        """A call's settings and how it passes its tensors (a calls.CallArgs)."""
        spec = self.spec(name)
        if spec.is_input or not _is_index(call) or call >= spec.calls:
            raise EditError(f"{name} has calls 0..{spec.calls - 1}; there is no call {call!r} "
                            "to set.", layer=name)
        found = list(spec.call_args) + [None] * (spec.calls - len(spec.call_args))
        found[call] = args
        default = type(args)()
        found = [default if a is None else a for a in found]
        while found and found[-1] == default:
            found.pop()
        self._set("layers", name, replace(spec, call_args=tuple(found)))
        self.touched.add((name, call))

    def connect(self, src: Triple, dst: tuple[str, int, int | None]) -> Edge:
        src_spec, dst_spec = self.spec(src[0]), self.spec(dst[0])
        name, call, slot = dst
        n, t = src[1], src[2]
        if not _is_index(n) or n >= src_spec.calls:
            raise EditError(f"{src[0]} has calls 0..{src_spec.calls - 1}; there is no node_index {n!r}.",
                            layer=src[0])
        if not _is_index(t) or t >= src_spec.n_outputs:
            raise EditError(f"{src[0]} has {src_spec.n_outputs} output(s) per call "
                            f"(tensor_index 0..{src_spec.n_outputs - 1}); got tensor_index {t!r}.",
                            layer=src[0])
        if dst_spec.is_input:
            raise EditError(f"{name} is an Input: nothing can be connected into it.", layer=name)
        if not _is_index(call) or call > dst_spec.calls:
            raise EditError(f"{name} has calls 0..{dst_spec.calls - 1}; call {call!r} does not exist "
                            f"(call={dst_spec.calls} adds a new call).", layer=name)
        if call == dst_spec.calls:
            self.add_call(name)
            dst_spec = self.layers[name]
        slot = self._check_slot(dst_spec, call, slot)
        edge = Edge(tuple(src), (name, call, slot))
        cycle = None if self.cycles_later else self.path((src[0], n), (name, call))
        if cycle is not None:
            path = " -> ".join(f"{c[0]}({c[1]})" for c in cycle + [cycle[0]])
            error = EditError(f"This edge would close a cycle between calls: {path}.", layer=name,
                              call=call, slot=slot)
            error.path = cycle + [cycle[0]]  # where the search found it, for teaching views
            raise error
        self._link(edge)
        return edge

    def disconnect(self, src: Triple, dst: tuple[str, int, int | None]) -> Edge:
        if not isinstance(dst[0], str) or not _is_index(dst[1]):
            raise EditError(f"There is no edge {src} -> {dst}.")
        matches = [e for e in self._into.get((dst[0], dst[1]), ())
                   if e.src == tuple(src) and (dst[2] is None or e.dst[2] == dst[2])]
        if not matches:
            raise EditError(f"There is no edge {src} -> {dst}.", layer=dst[0], call=dst[1], slot=dst[2])
        self._drop_edge(matches[0])
        return matches[0]

    # ----- edge bookkeeping: every change of self.edges keeps both indexes right ---------------

    def _link(self, edge: Edge, at: int | None = None) -> None:
        self._insert("edges", len(self.edges) if at is None else at, edge)
        self._set("_into", edge.dst[:2], self._into.get(edge.dst[:2], ()) + (edge,))
        self._set("_out", edge.src[:2], self._out.get(edge.src[:2], ()) + (edge,))
        self.touched.add(edge.dst[:2])

    def _unlink(self, edge: Edge) -> int:
        at = self._edge_index(edge)
        self._delete("edges", at)
        for attr, key in (("_into", edge.dst[:2]), ("_out", edge.src[:2])):
            rest = tuple(e for e in getattr(self, attr)[key] if e != edge)
            self._set(attr, key, rest if rest else MISSING)  # (an index's order means nothing)
        self.touched.add(edge.dst[:2])
        return at

    def _edge_index(self, edge: Edge) -> int:
        """Where `edge` is in `edges`: searched from the end, where a recent edge is."""
        edges = self.edges
        for at in range(len(edges) - 1, max(len(edges) - 8, 0) - 1, -1):
            if edges[at] == edge:
                return at
        return edges.index(edge)

    def _drop_edge(self, edge: Edge) -> None:
        self._unlink(edge)
        name, call, slot = edge.dst
        if self.layers[name].slots.kind == "list":  # like removing a list element: close the gap
            for e in self._into.get((name, call), ()):
                if e.dst[2] > slot:
                    self._link(Edge(e.src, (name, call, e.dst[2] - 1)), at=self._unlink(e))

    def _reindex(self) -> None:
        into: dict[CallKey, tuple[Edge, ...]] = {}
        out: dict[CallKey, tuple[Edge, ...]] = {}
        for e in self.edges:
            into[e.dst[:2]] = into.get(e.dst[:2], ()) + (e,)
            out[e.src[:2]] = out.get(e.src[:2], ()) + (e,)
        self._into, self._out = into, out

    def _check_slot(self, spec: LayerSpec, call: int, slot: Any) -> int:
        slots = spec.slots
        into = self._into.get((spec.name, call), ())
        if slots.kind == "list":  # filled in order, gaps closed: slots 0..len - 1 are taken

            check_list_inputs(spec.name, call, len(into) + 1)
            taken: Any = range(len(into))  # (a range answers `in` at once: no set per edge)
        else:
            taken = {e.dst[2] for e in into}
        limit = slots.max if slots.max is not None else float("inf")
        if slot is None:
            if slots.kind != "list":
                slot = next((i for i in range(int(min(limit, len(slots.names) or 1)))
                             if i not in taken), 0)
            else:
                slot = len(taken)
        if not _is_index(slot) or slot >= limit:
            raise EditError(f"{spec.name} takes slots 0..{limit - 1} "
                            f"({_slot_words(slots)}); got slot {slot!r}.", layer=spec.name, call=call)
        if slot in taken:
            if slots.kind == "list":
                raise EditError(f"{spec.name} call {call} slot {slot} is taken; slot=None appends.",
                                layer=spec.name, call=call, slot=slot)
            raise EditError(
                f"{spec.name} call {call} already has its {_slot_name(slots, slot)!r} input. To call "
                f"the layer again on another tensor (sharing its weights), connect to call="
                f"{spec.calls}.", layer=spec.name, call=call, slot=slot)
        if slots.kind == "list" and slot > len(taken):
            raise EditError(f"{spec.name} call {call}: list slots are filled in order; the next free "
                            f"slot is {len(taken)}, got {slot}.", layer=spec.name, call=call, slot=slot)
        return slot

    # ----- derived views ----------------------------------------------------------------------

    def filled(self, key: CallKey) -> dict[int, Triple]:
        """{slot: source triple} of a call."""
        return {e.dst[2]: e.src for e in self._into.get(key, ())}

    def successors(self, key: CallKey) -> list[CallKey]:
        """Calls that must wait for this one: its consumers and the same layer's next call."""
        after = [e.dst[:2] for e in self._out.get(key, ())]
        spec = self.layers.get(key[0])
        if spec is not None and key[1] + 1 < spec.calls:
            after.append((key[0], key[1] + 1))
        return after

    def predecessors(self, key: CallKey) -> list[CallKey]:
        before = [e.src[:2] for e in self._into.get(key, ())]
        if key[1]:
            before.append((key[0], key[1] - 1))
        return before

    def call_inputs(self, spec: LayerSpec, filled: Mapping[int, Triple]) -> list[Triple] | None:
        """The call's tensors in slot order, or None while required slots are empty."""
        slots = spec.slots
        if spec.is_input:
            return []
        if slots.kind == "list":
            return [filled[i] for i in range(len(filled))] if len(filled) >= slots.min else None
        if len(filled) < slots.min or any(i not in filled for i in range(slots.min)):
            return None
        ordered = [filled[i] for i in sorted(filled)]
        # positional slots are filled from the first; named ones (tensor keyword arguments)
        # may stay empty in any order
        named = set(getattr(slots, "named", ()))
        positional = [i for i in sorted(filled) if i >= len(slots.names)
                      or slots.names[i] not in named]
        return ordered if positional == list(range(len(positional))) else None

    def missing(self, spec: LayerSpec, filled: Mapping[int, Triple]) -> str:
        slots = spec.slots
        if slots.kind == "list":
            return f"it has {len(filled)} input(s) and needs at least {slots.min}"
        empty = [repr(_slot_name(slots, i)) for i in range(max(slots.min, 1)) if i not in filled]
        return f"its {', '.join(empty)} input is empty"

    def downstream_order(self, seeds: Iterable[CallKey]) -> list[CallKey]:
        """The seed calls that still exist and everything that waits on them, sources first."""
        layers = self.layers
        affected, todo = set(), [c for c in seeds if c[0] in layers and c[1] < layers[c[0]].calls]
        if len(todo) == 1:  # most edits: a call nothing uses (its layer's last, feeding nothing)
            c = todo[0]
            if not self._out.get(c) and c[1] + 1 >= layers[c[0]].calls:
                return todo
        while todo:
            c = todo.pop()
            if c not in affected:
                affected.add(c)
                todo.extend(self.successors(c))
        order, done = [], set()
        for root in sorted(affected, key=self._rank):  # depth-first, iterative, in a stable order
            stack = [(root, False)]
            while stack:
                c, expanded = stack.pop()
                if c in done:
                    continue
                if expanded:
                    done.add(c)
                    order.append(c)
                    continue
                stack.append((c, True))
                stack.extend((p, False) for p in self.predecessors(c) if p in affected and p not in done)
        return order

    def _rank(self, key: CallKey) -> tuple:
        return (key[1], key[0])

    def check_acyclic(self) -> None:
        """One pass over every call and edge (Kahn's order): what a batch of edits drawn with
        `cycles_later` checks once, instead of one search per edge (quadratic on a long chain)."""
        waiting = Counter(e.dst[:2] for e in self.edges)
        todo = [(n, k) for n, s in self.layers.items() for k in range(s.calls)
                if (n, k) not in waiting]
        while todo:
            for e in self._out.get(todo.pop(), ()):
                waiting[e.dst[:2]] -= 1
                if waiting[e.dst[:2]] == 0:
                    todo.append(e.dst[:2])
        left = {c for c, count in waiting.items() if count > 0}
        if not left:
            return
        c, seen = min(left), []  # each call left has a feeding call left: walk back to a repeat
        while c not in seen:
            seen.append(c)
            c = next(e.src[:2] for e in self._into[c] if e.src[:2] in left)
        cycle = seen[seen.index(c):][::-1]
        path = " -> ".join(f"{x[0]}({x[1]})" for x in cycle + [cycle[0]])
        raise EditError(f"The drawing has a cycle between calls: {path}.", layer=cycle[0][0])

    def path(self, start: CallKey, goal: CallKey) -> list[CallKey] | None:
        """A path of calls from goal to start, if start depends on goal (used to name a cycle)."""
        parent = {goal: None}
        todo = [goal]
        while todo:
            c = todo.pop()
            if c == start:
                chain = []
                while c is not None:
                    chain.append(c)
                    c = parent[c]
                return chain[::-1]
            for s in self.successors(c):
                if s not in parent:
                    parent[s] = c
                    todo.append(s)
        return None


def _is_index(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _slot_name(slots: Any, i: int) -> str:
    return slots.names[i] if i < len(slots.names) else str(i)


def _slot_words(slots: Any) -> str:
    if slots.kind == "list":
        return "a list of tensors"
    return ", ".join(f"{i}: {n}" for i, n in enumerate(slots.names)) or "one tensor"


def _fmt_edge(e: Edge) -> str:
    return f"{e.src[0]} out {e.src[1]}.{e.src[2]} -> {e.dst[0]} in {e.dst[1]}.{e.dst[2]}"

