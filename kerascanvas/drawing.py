"""The drawing as data: layers, calls, edges and pinned positions, with structural checks.

Pure Python (no keras): the live Keras objects are made from a Drawing by network.py. A Drawing is
copied before every edit (shallow: specs and edges are immutable), so the old copy is the undo state.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping, NamedTuple

Triple = tuple[str, int, int]  # (layer, node_index, tensor_index): KerasTensor._keras_history
Target = tuple[str, int, int]  # (layer, call, slot)
CallKey = tuple[str, int]  # (layer, call); call k is node_index k once the call is complete

INPUT_CLASS = "InputLayer"
MAX_NAME_LENGTH = 100


class EditError(ValueError):
    """An edit the graph or Keras refused. Nothing was changed."""

    def __init__(self, message: str, layer: str | None = None, call: int | None = None,
                 slot: int | None = None):
        super().__init__(message)
        self.message = message
        self.layer = layer
        self.call = call
        self.slot = slot


class Edge(NamedTuple):
    src: Triple
    dst: Target


@dataclass(frozen=True)
class NoSlots:
    """Input layers take no tensors."""

    kind: str = "none"
    names: tuple = ()
    min: int = 0
    max: int = 0


@dataclass(frozen=True)
class LayerSpec:
    """One box: its class, its full Keras config, how many calls are drawn, its slots and outputs."""

    name: str
    class_name: str
    config: Mapping[str, Any]  # never mutated: configure() makes a new spec
    slots: Any  # catalog.Slots (kind, names, min, max) or NoSlots
    n_outputs: int
    calls: int = 1

    @property
    def is_input(self) -> bool:
        return self.class_name == INPUT_CLASS


@dataclass
class Drawing:
    layers: dict[str, LayerSpec] = field(default_factory=dict)  # creation order
    edges: list[Edge] = field(default_factory=list)  # creation order
    pinned: dict[str, tuple[float, float]] = field(default_factory=dict)
    output_order: tuple[Triple, ...] = ()
    name_counts: dict[str, int] = field(default_factory=dict)

    def copy(self) -> "Drawing":
        return Drawing(dict(self.layers), list(self.edges), dict(self.pinned), self.output_order,
                       dict(self.name_counts))

    # ----- names -----------------------------------------------------------------------------

    def check_new_name(self, name: Any) -> str:
        if not isinstance(name, str):
            raise EditError(f"A layer name must be a string, got {name!r} ({type(name).__name__}).")
        if not name or len(name) > MAX_NAME_LENGTH:
            raise EditError(f"A layer name must have 1 to {MAX_NAME_LENGTH} characters, got {name!r}.")
        if "/" in name:  # Keras uses "/" in weight paths
            raise EditError(f"A layer name may not contain '/', got {name!r}.")
        if name in self.layers:
            raise EditError(f"There is already a layer named {name!r}; names must be unique.",
                            layer=name)
        return name

    def auto_name(self, prefix: str) -> str:
        """Keras's naming (dense, dense_1, ...), counted per drawing instead of per session."""
        while True:
            count = self.name_counts.get(prefix, 0)
            self.name_counts[prefix] = count + 1
            name = prefix if count == 0 else f"{prefix}_{count}"
            if name not in self.layers:
                return name

    def spec(self, name: Any) -> LayerSpec:
        if not isinstance(name, str) or name not in self.layers:
            raise EditError(f"There is no layer named {name!r}.", layer=name if isinstance(name, str) else None)
        return self.layers[name]

    # ----- edits (structural checks only; Keras checks come from network.py) --------------------

    def add(self, spec: LayerSpec) -> None:
        self.check_new_name(spec.name)
        self.layers[spec.name] = spec

    def remove(self, name: str) -> None:
        self.spec(name)
        self.edges = [e for e in self.edges if e.dst[0] != name]
        self._drop_edges_from(lambda src: src[0] == name)
        del self.layers[name]
        self.pinned.pop(name, None)
        self.output_order = tuple(t for t in self.output_order if t[0] != name)

    def rename(self, old: str, new: str) -> None:
        self.spec(old)
        if new == old:
            return
        self.check_new_name(new)

        def swap(key):
            return (new,) + tuple(key[1:]) if key[0] == old else key

        renamed = replace(self.layers[old], name=new, config={**self.layers[old].config, "name": new})
        self.layers = {(new if n == old else n): (renamed if n == old else s)
                       for n, s in self.layers.items()}
        self.edges = [Edge(swap(e.src), swap(e.dst)) for e in self.edges]
        if old in self.pinned:
            self.pinned[new] = self.pinned.pop(old)
        self.output_order = tuple(swap(t) for t in self.output_order)

    def replace_spec(self, spec: LayerSpec) -> None:
        """A new config: refused if it removes output ports that edges still use."""
        for e in self.edges:
            if e.src[0] == spec.name and e.src[2] >= spec.n_outputs:
                raise EditError(
                    f"With this config {spec.name} has {spec.n_outputs} output(s), but the edge "
                    f"{_fmt_edge(e)} uses output {e.src[2]}: disconnect it first.", layer=spec.name)
        self.layers[spec.name] = spec

    def add_call(self, name: str) -> int:
        spec = self.spec(name)
        if spec.is_input:
            raise EditError(f"{name} is an Input: it cannot be called.", layer=name)
        self.layers[name] = replace(spec, calls=spec.calls + 1)
        return spec.calls

    def remove_call(self, name: str, call: int) -> None:
        spec = self.spec(name)
        if spec.is_input or not _is_index(call) or call >= spec.calls or spec.calls == 1:
            raise EditError(f"{name} has calls 0..{spec.calls - 1}; call {call!r} cannot be removed "
                            "(a layer keeps at least one call: remove the layer instead).", layer=name)
        self._drop_edges_from(lambda src: src[:2] == (name, call))
        self.edges = [e for e in self.edges if e.dst[:2] != (name, call)]  # the whole call: no gaps
        kept = []
        for e in self.edges:
            src, dst = e.src, e.dst
            if src[0] == name and src[1] > call:  # later calls move down: node_index == call number
                src = (name, src[1] - 1, src[2])
            if dst[0] == name and dst[1] > call:
                dst = (name, dst[1] - 1, dst[2])
            kept.append(Edge(src, dst))
        self.edges = kept
        self.layers[name] = replace(spec, calls=spec.calls - 1)
        self.output_order = tuple(
            (t[0], t[1] - (t[0] == name and t[1] > call), t[2]) for t in self.output_order
            if not (t[0] == name and t[1] == call))

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
        cycle = self.path((src[0], n), (name, call))
        if cycle is not None:
            path = " -> ".join(f"{c[0]}({c[1]})" for c in cycle + [cycle[0]])
            raise EditError(f"This edge would close a cycle between calls: {path}.", layer=name,
                            call=call, slot=slot)
        self.edges.append(edge)
        return edge

    def disconnect(self, src: Triple, dst: tuple[str, int, int | None]) -> Edge:
        matches = [e for e in self.edges if e.src == tuple(src) and e.dst[:2] == tuple(dst[:2])
                   and (dst[2] is None or e.dst[2] == dst[2])]
        if not matches:
            raise EditError(f"There is no edge {src} -> {dst}.", layer=dst[0], call=dst[1], slot=dst[2])
        self._drop_edge(matches[0])
        return matches[0]

    def _drop_edges_from(self, matches) -> None:
        """Drop edges by source one at a time: each may close a gap in a consumer's list."""
        while True:
            edge = next((e for e in self.edges if matches(e.src)), None)
            if edge is None:
                return
            self._drop_edge(edge)

    def _drop_edge(self, edge: Edge) -> None:
        self.edges.remove(edge)
        name, call, slot = edge.dst
        if self.layers[name].slots.kind == "list":  # like removing a list element: close the gap
            self.edges = [Edge(e.src, (name, call, e.dst[2] - 1))
                          if e.dst[:2] == (name, call) and e.dst[2] > slot else e for e in self.edges]

    def _check_slot(self, spec: LayerSpec, call: int, slot: Any) -> int:
        slots = spec.slots
        taken = {e.dst[2] for e in self.edges if e.dst[:2] == (spec.name, call)}
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

    def sources(self) -> dict[CallKey, dict[int, Triple]]:
        """(layer, call) -> {slot: source triple}."""
        found: dict[CallKey, dict[int, Triple]] = {}
        for e in self.edges:
            found.setdefault(e.dst[:2], {})[e.dst[2]] = e.src
        return found

    def call_inputs(self, spec: LayerSpec, filled: Mapping[int, Triple]) -> list[Triple] | None:
        """The call's tensors in slot order, or None while required slots are empty."""
        slots = spec.slots
        if spec.is_input:
            return []
        if slots.kind == "list":
            return [filled[i] for i in range(len(filled))] if len(filled) >= slots.min else None
        if any(i not in filled for i in range(slots.min)):
            return None
        ordered = [filled[i] for i in sorted(filled)]
        return ordered if sorted(filled) == list(range(len(filled))) else None

    def missing(self, spec: LayerSpec, filled: Mapping[int, Triple]) -> str:
        slots = spec.slots
        if slots.kind == "list":
            return f"it has {len(filled)} input(s) and needs at least {slots.min}"
        empty = [_slot_name(slots, i) for i in range(max(slots.min, 1)) if i not in filled]
        return "its " + ", ".join(repr(s) for s in empty) + " input is empty"

    def call_order(self) -> list[CallKey]:
        """Every drawn call, sources before consumers and call k before call k+1 (Kahn's order)."""
        succ: dict[CallKey, list[CallKey]] = {}
        indegree: dict[CallKey, int] = {}
        for name, spec in self.layers.items():
            for k in range(spec.calls):
                indegree[(name, k)] = 1 if k else 0
                if k:
                    succ.setdefault((name, k - 1), []).append((name, k))
        for e in self.edges:
            succ.setdefault(e.src[:2], []).append(e.dst[:2])
            indegree[e.dst[:2]] += 1
        ready = [c for c, d in indegree.items() if d == 0]
        ready.reverse()
        order = []
        while ready:
            c = ready.pop()
            order.append(c)
            for s in reversed(succ.get(c, [])):
                indegree[s] -= 1
                if indegree[s] == 0:
                    ready.append(s)
        return order

    def path(self, start: CallKey, goal: CallKey) -> list[CallKey] | None:
        """A path of calls from goal to start, if start depends on goal (used to name a cycle)."""
        succ: dict[CallKey, list[CallKey]] = {}
        for e in self.edges:
            succ.setdefault(e.src[:2], []).append(e.dst[:2])
        for name, spec in self.layers.items():
            for k in range(1, spec.calls):
                succ.setdefault((name, k - 1), []).append((name, k))
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
            for s in succ.get(c, []):
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

