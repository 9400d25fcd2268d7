"""Checks that the live Keras objects match the drawing (DESIGN.md invariants 1-5).

Used by the tests after every edit, and by teaching views to show the seed-001 identity live:
    origin = inbound_layers[i]._inbound_nodes[node_indices[i]]
    input_tensors[i] is origin.output_tensors[tensor_indices[i]]
"""

from __future__ import annotations

from collections import Counter


def node_coordinates(node) -> list[tuple]:
    """Keras 2's (inbound_layer, node_index, tensor_index) for each input, read off the tensors."""
    return [tuple(t._keras_history) for t in node.input_tensors]


def identity_holds(node) -> list[bool]:
    """Seed 001's identity, checked for every input of a node."""
    results = []
    for tensor, (layer, node_index, tensor_index) in zip(node.input_tensors, node_coordinates(node)):
        origin = layer._inbound_nodes[node_index]
        results.append(tensor is origin.output_tensors[tensor_index])
    return results


def slot_tensor(layer, node, slots, s: int):
    """The tensor in slot s of a node: a layer's as Keras recorded the call (`node.arguments`:
    positional slots by position, named ones by name); an operation's by position."""
    import keras

    from ..kinds.calls import tensor_at

    if isinstance(layer, keras.layers.Layer):
        return tensor_at(node, slots, s)
    return node.input_tensors[s]


def violations(g) -> list[str]:
    """Every broken invariant, as a sentence; empty when the network matches the drawing."""
    specs = g.specs
    found: list[str] = []
    objects = {name: g.keras_layer(name) for name in specs}
    for name, spec in specs.items():  # 1. exact nodes
        built = [k for k in range(spec.calls) if g.is_built(name, k)]
        nodes = objects[name]._inbound_nodes
        if built != list(range(len(built))):
            found.append(f"{name}: built calls {built} are not a prefix")
        if len(nodes) != len(built):
            found.append(f"{name}: {len(nodes)} inbound nodes for {len(built)} complete calls")
        for node in nodes:
            if not all(identity_holds(node)):  # 3. the identity of seed 001
                found.append(f"{name}: a node breaks the inbound identity")
    expected_out: dict[str, Counter] = {name: Counter() for name in specs}
    for e in g.drawn_edges:  # 2. exact edges
        (src, n, t), (dst, k, s) = e
        if not g.is_built(dst, k):
            continue
        node = objects[dst]._inbound_nodes[k]
        history = tuple(slot_tensor(objects[dst], node, specs[dst].slots, s)._keras_history)
        if history != (objects[src], n, t):
            found.append(f"edge {e}: input {s} of {dst} node {k} comes from {history}")
        expected_out[src][id(node)] += 1
    for name, layer in objects.items():  # 4. outbound nodes, none stale
        if Counter(id(x) for x in layer._outbound_nodes) != expected_out[name]:
            found.append(f"{name}: _outbound_nodes holds {len(layer._outbound_nodes)} entries, "
                         f"expected {sum(expected_out[name].values())}")
    model = g.model
    if model is not None:  # 5. the depth map equals Keras's
        keras_nodes = {depth: [(n.operation.name, n.operation._inbound_nodes.index(n)) for n in nodes]
                       for depth, nodes in model._nodes_by_depth.items()}
        keras_layers = {depth: [op.name for op in ops]
                        for depth, ops in model._operations_by_depth.items()}
        if keras_nodes != g.nodes_by_depth:
            found.append(f"nodes_by_depth {g.nodes_by_depth} != Keras's {keras_nodes}")
        if keras_layers != g.layers_by_depth:
            found.append(f"layers_by_depth {g.layers_by_depth} != Keras's {keras_layers}")
        if [op.name for op in model.operations] != g.depth.layers:
            found.append("operation order differs from Keras's")
    extra = set(g.live_names) - set(specs)
    if extra:
        found.append(f"live objects for removed layers: {sorted(extra)}")
    return found
