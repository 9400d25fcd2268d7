"""Teaching views: Keras's Node / Layer / Tensor wiring, read off the live objects of a Graph.

Everything here reads; nothing edits. The same functions feed the widget's inspector and lesson
cells in notebooks (`g.explain_node("dense", 1)`), so what a teacher shows is what Keras holds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .depth import depth_map, depth_trace
from .drawing import EditError
from .invariants import identity_holds, node_coordinates


@dataclass
class Explanation:
    """A titled list of (label, value) rows; prints as aligned text, `.data` is JSON-able."""

    title: str
    rows: list[tuple[str, Any]] = field(default_factory=list)

    @property
    def data(self) -> dict:
        return {"title": self.title, "rows": [[k, _plain(v)] for k, v in self.rows]}

    def __repr__(self) -> str:
        width = max((len(k) for k, _ in self.rows), default=0)
        return "\n".join([self.title] + [f"  {k.ljust(width)}  {v}" for k, v in self.rows])


def _plain(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def _node(g, layer: str, node_index: int):
    nodes = g.keras_layer(layer)._inbound_nodes
    if not isinstance(node_index, int) or not 0 <= node_index < len(nodes):
        raise EditError(f"{layer} has {len(nodes)} node(s) (complete calls); there is no node "
                        f"{node_index!r}.", layer=layer)
    return nodes[node_index]


def _tensor_text(t) -> str:
    return f"{t.name} shape={tuple(t.shape)} dtype={t.dtype}"


def _history_text(t) -> str:
    layer, n, i = t._keras_history
    return f"({layer.name!r}, node_index={n}, tensor_index={i})"


def explain_node(g, layer: str, node_index: int) -> Explanation:
    """A node's layer, tensors and Keras 2 coordinates, and seed 001's identity checked live."""
    node = _node(g, layer, node_index)
    coords = node_coordinates(node)
    holds = identity_holds(node)
    rows = [("layer (outbound_layer)", node.operation.name),
            ("node_index", node_index),
            ("input_tensors", [_tensor_text(t) for t in node.input_tensors] or "[] (an Input node)"),
            ("output_tensors", [_tensor_text(t) for t in node.output_tensors]),
            ("inbound_layers", [c[0].name for c in coords]),
            ("node_indices", [c[1] for c in coords]),
            ("tensor_indices", [c[2] for c in coords])]
    for i, ok in enumerate(holds):
        c = coords[i]
        rows.append((f"identity for input {i}",
                     (f"input_tensors[{i}] is {c[0].name}._inbound_nodes[{c[1]}]"
                      f".output_tensors[{c[2]}]: {ok}")))
    return Explanation(f"Node {node_index} of {layer}", rows)


def explain_layer(g, layer: str) -> Explanation:
    """A layer's inbound nodes (one per call, with the edges that feed it) and outbound nodes."""
    keras_layer = g.keras_layer(layer)
    rows: list[tuple[str, Any]] = [("class", type(keras_layer).__name__),
                                   ("calls drawn", g.calls(layer))]
    for k, node in enumerate(keras_layer._inbound_nodes):
        feeds = [f"{src[0]} out {src[1]}.{src[2]} -> slot {dst[2]}"
                 for src, dst in g.edges if dst[:2] == (layer, k)]
        rows.append((f"_inbound_nodes[{k}]", feeds or "an Input node"))
    for j, node in enumerate(keras_layer._outbound_nodes):
        consumer = node.operation
        rows.append((f"_outbound_nodes[{j}]",
                     f"node {consumer._inbound_nodes.index(node)} of {consumer.name}"))
    return Explanation(f"Layer {layer}", rows)


def explain_edge(g, src, dst: str, call: int = 0, slot: int = 0) -> Explanation:
    """The KerasTensor an edge carries and its _keras_history (the node that produced it)."""
    from .graph import _triple

    source = _triple(src)
    if (source, (dst, call, slot)) not in g.edges:
        raise EditError(f"There is no edge {source} -> {(dst, call, slot)}.", layer=dst)
    tensor = g.tensor(source)
    if tensor is None:
        return Explanation(f"Edge {source} -> {dst} call {call} slot {slot}",
                           [("tensor", f"none yet: {source[0]} call {source[1]} is pending")])
    return Explanation(f"Edge {source} -> {dst} call {call} slot {slot}", [
        ("tensor", tensor.name), ("shape", tuple(tensor.shape)), ("dtype", tensor.dtype),
        ("_keras_history", _history_text(tensor)),
        ("produced by", f"node {source[1]} of {source[0]}"),
    ])


def depth_steps(g) -> list[tuple]:
    """Seed 000 on the user's graph, step by step: the depth-first search from the outputs
    ("enter" / "finish", or "cycle"), each node's depth as it is assigned ("depth", node, d), then
    ("nodes_by_depth", {...}) and ("layers_by_depth", {...})."""
    inputs = [(n, 0, 0) for n in g.inputs]
    node_inputs = _node_inputs(g)
    steps: list[tuple] = list(depth_trace(inputs, g.outputs, node_inputs))
    if steps and steps[-1][0] == "cycle":
        return steps
    result = depth_map(inputs, g.outputs, node_inputs,
                       notify=lambda kind, node, depth: steps.append((kind, node, depth)))
    steps.append(("nodes_by_depth", result.nodes_by_depth))
    steps.append(("layers_by_depth", result.layers_by_depth))
    return steps


def _node_inputs(g) -> dict:
    return g.node_inputs()


def cycle_path(g, src, dst: str, call: int = 0) -> list[tuple[str, int]] | None:
    """Where the search would find a cycle if this edge were drawn: the calls on it, or None."""
    from .graph import _triple

    source = _triple(src)
    return g.call_path(source[:2], (dst, call))


@dataclass
class ForwardStep:
    layer: str
    node_index: int
    depth: int
    outputs: list  # numpy arrays, tensor_index order

    def summary(self) -> list[dict]:
        return [{"shape": list(a.shape), "mean": float(a.mean()), "std": float(a.std()),
                 "min": float(a.min()), "max": float(a.max())} for a in self.outputs]

    def thumbnail(self, tensor_index: int = 0, size: int = 32) -> list[list[float]] | None:
        """A small grey picture (values in 0..1) of the first sample, for image-like outputs."""
        a = self.outputs[tensor_index]
        if a.ndim == 4:
            a = a[0].mean(axis=-1)
        elif a.ndim == 3 and a.shape[0] == 1:
            a = a[0]
        else:
            return None
        step_y, step_x = max(1, -(-a.shape[0] // size)), max(1, -(-a.shape[1] // size))
        a = a[::step_y, ::step_x].astype("float64")
        span = a.max() - a.min()
        return ((a - a.min()) / span if span > 0 else np.zeros_like(a)).tolist()


def forward_steps(g, sample) -> list[ForwardStep]:
    """Run the model on a real sample the way Functional does: nodes in decreasing depth, each
    layer called on the values its node's input tensors got."""
    import keras

    from .limits import check_forward

    model = g.model
    if model is None:
        raise EditError("The drawing is not a model yet: " + "; ".join(map(str, g.problems)))
    check_forward(model)  # it keeps every node's outputs for the sample
    values = sample if isinstance(sample, (list, tuple)) else [sample]
    if len(values) != len(model.inputs):
        raise EditError(f"The model has {len(model.inputs)} input(s); got {len(values)} array(s).")
    computed = {id(t): keras.ops.convert_to_tensor(np.asarray(v)) for t, v in zip(model.inputs, values)}
    steps = []
    for depth in sorted(model._nodes_by_depth, reverse=True):
        for node in model._nodes_by_depth[depth]:
            if node.is_input:
                continue
            args, kwargs = node.arguments.fill_in(computed)
            outputs = keras.tree.flatten(node.operation(*args, **kwargs))
            for symbolic, value in zip(node.output_tensors, outputs):
                computed[id(symbolic)] = value
            op = node.operation
            steps.append(ForwardStep(op.name, op._inbound_nodes.index(node), depth,
                                     [keras.ops.convert_to_numpy(v) for v in outputs]))
    return steps
