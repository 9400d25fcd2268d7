"""Keras's own graph as the teaching views draw it: one entry per Node (a complete call), its
tensors with `_keras_history`, and the Keras 2 names beside the Keras 3 ones.

Reads only. `node_graph` feeds the canvas's node view (one box per call, edges as KerasTensors);
`internals` feeds the inspector's Keras-internals tab; `set_outputs_intent` is the canvas's way to
mark, unmark and reorder the model's outputs (one `Graph.set_outputs` call: one undo step).
"""

from __future__ import annotations

from typing import Any

from ..errors import EditError
from .teaching import outbound_entries

MAX_OUTPUTS = 1000  # ports one set_outputs intent may list
MAX_KEY = 200  # characters of an output's key

# Keras 2 (the seed articles) -> Keras 3 (keras/src/ops/node.py, function.py)
RENAMED = [
    ["outbound_layer", "operation", "the layer this node is a call of"],
    ["inbound_layers / node_indices / tensor_indices", "input_tensors[i]._keras_history",
     "read off each input tensor (layer, node_index, tensor_index)"],
    ["inbound_nodes of the input layers", "parent_nodes", "the nodes that made this node's inputs"],
    ["layers_by_depth", "_operations_by_depth", "a model's layers grouped by depth"],
    ["nodes_by_depth", "_nodes_by_depth", "a model's nodes grouped by depth"],
    ["_inbound_nodes / _outbound_nodes", "_inbound_nodes / _outbound_nodes", "unchanged"],
]


def _shape(t) -> list:
    return [None if d is None else int(d) for d in t.shape]


def _history(t) -> list:
    layer, n, i = t._keras_history
    return [layer.name, n, i]


def node_graph(g) -> dict:
    """Every Node of the drawing (complete calls only: a pending call is no Node yet) with its
    depth, and every tensor fed into a slot as an edge labelled by its (layer, node_index,
    tensor_index); the model's outputs in order."""
    depth = g.depth.node_depth
    nodes = []
    for name, spec in g.specs.items():  # (specs: no config is copied)
        for k in range(spec.calls):
            record = g.call_record(name, k)
            if record is None:
                continue
            nodes.append({"layer": name, "node_index": k, "depth": depth.get((name, k)),
                          "class_name": spec.class_name,
                          "outputs": [_shape(t) for t in record.outputs]})
    built = {(n["layer"], n["node_index"]) for n in nodes}
    tensors = [{"src": list(src), "dst": list(dst)} for src, dst in g.edges
               if src[:2] in built and dst[:2] in built]
    return {"nodes": nodes, "tensors": tensors, "outputs": [list(t) for t in g.outputs],
            "keys": list(g.output_keys), "explicit": g.outputs_only}


def internals(g, name: str) -> dict:
    """A layer's Keras internals, read off the live objects: per node its input and output
    tensors with `_keras_history` and its parent nodes; each `_outbound_nodes` entry with the
    consumer and the node of this layer that produced the tensor it reads."""
    if name not in g.layers:
        raise EditError(f"There is no layer named {name!r:.80}.")
    layer = g.keras_layer(name)
    depth = g.depth.node_depth
    nodes = []
    for k, node in enumerate(layer._inbound_nodes):
        parents = [[p.operation.name, p.operation._inbound_nodes.index(p)] for p in node.parent_nodes]
        nodes.append({
            "node_index": k, "depth": depth.get((name, k)),
            "inputs": [{"name": t.name, "shape": _shape(t), "keras_history": _history(t)}
                       for t in node.input_tensors],
            "outputs": [{"name": t.name, "shape": _shape(t), "keras_history": _history(t)}
                        for t in node.output_tensors],
            "parent_nodes": parents,
        })
    outbound = [{"entry": j, "consumer": [c, k], "input": i, "producer": list(p)}
                for j, (c, k, i, p) in enumerate(outbound_entries(layer))]
    return {"layer": name, "class_name": type(layer).__name__, "nodes": nodes,
            "outbound": outbound, "renamed": RENAMED}


def set_outputs_intent(g, ports: list, keys: list | None, triple: Any) -> None:
    """The canvas's outputs, marked and ordered: exactly `ports` (`triple` checks each), a dict
    keyed by `keys` if given, or back to every unconsumed port when the list is empty."""
    if len(ports) > MAX_OUTPUTS:
        raise EditError(f"At most {MAX_OUTPUTS} outputs, got {len(ports)}.")
    order = [triple(p) for p in ports]
    if keys is None:
        g.set_outputs(order, only=bool(order))
        return
    if any(len(k) > MAX_KEY for k in keys):
        raise EditError(f"An output key is at most {MAX_KEY} characters.")
    if len(keys) != len(order) or len(set(keys)) != len(keys) or not order:
        raise EditError(f"Output keys must be one distinct key per output ({len(order)}), "
                        f"got {keys!r:.120}.")
    g.set_outputs(dict(zip(keys, order)))


def toggled_outputs(g, port: tuple, marked: bool) -> tuple[list, list]:
    """The outputs (and keys) after marking or unmarking `port`: the current outputs, made
    explicit, with it appended (keyed by its layer name, made unique, for dict outputs) or
    taken out."""
    order, keys = list(g.outputs), list(g.output_keys)
    if marked and port not in order:
        order.append(port)
        if keys:
            key = port[0]
            while key in keys:
                key += "_"
            keys.append(key)
    elif not marked and port in order:
        i = order.index(port)
        del order[i]
        if keys:
            del keys[i]
    return order, keys
