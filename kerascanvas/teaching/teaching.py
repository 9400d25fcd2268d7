"""Teaching views: Keras's Node / Layer / Tensor wiring, read off the live objects of a Graph.

Everything here reads; nothing edits. The same functions feed the widget's inspector and lesson
cells in notebooks (`g.explain_node("dense", 1)`), so what a teacher shows is what Keras holds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..drawing.drawing import as_triple
from ..errors import EditError
from ..network.depth import DepthReason, NodeKey, depth_map, depth_trace
from ..network.invariants import identity_holds, node_coordinates


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
    for j, entry in enumerate(outbound_entries(keras_layer)):
        consumer, k, i, produced = entry
        why = (f"node {k} of {consumer}, for its input {i} ({produced[0]} node {produced[1]}, "
               f"tensor {produced[2]}): Keras adds one entry per input tensor a node reads "
               f"from this layer")
        rows.append((f"_outbound_nodes[{j}]", why))
    return Explanation(f"Layer {layer}", rows)


def outbound_entries(keras_layer) -> list[tuple[str, int, int, tuple[str, int, int]]]:
    """Each entry of `keras_layer._outbound_nodes` as (consumer layer, its node_index, which of
    its input tensors, the (layer, node_index, tensor_index) that tensor came from). Keras 3's
    Node appends itself once per input tensor (`for tensor in arguments.keras_tensors`), so a
    node reading two of this layer's tensors is listed twice: the m-th listing of a node is
    its m-th input from this layer."""
    seen: dict[int, int] = {}
    entries = []
    for node in keras_layer._outbound_nodes:
        m = seen.get(id(node), 0)
        seen[id(node)] = m + 1
        mine = [(i, t) for i, t in enumerate(node.input_tensors)
                if t._keras_history[0] is keras_layer]
        i, tensor = mine[m] if m < len(mine) else (None, None)
        history = tensor._keras_history if tensor is not None else (keras_layer, -1, -1)
        consumer = node.operation
        entries.append((consumer.name, consumer._inbound_nodes.index(node),
                        -1 if i is None else i, (history[0].name, history[1], history[2])))
    return entries


def explain_edge(g, src, dst: str, call: int = 0, slot: int = 0) -> Explanation:
    """The KerasTensor an edge carries and its _keras_history (the node that produced it)."""
    source = as_triple(src)
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
    """Seed 000 on the user's graph, step by step: ("start", i, port) where the walk starts from
    output i, the depth-first search from it ("enter" / "finish", or "cycle"), each node's depth
    as it is assigned ("depth", node, d, reason: a DepthReason), then ("nodes_by_depth", {...})
    and ("layers_by_depth", {...})."""
    inputs = [(n, 0, 0) for n in g.inputs]
    outputs = g.outputs
    node_inputs = g.node_inputs()
    steps: list[tuple] = [("start", s[1], outputs[s[1]]) if s[0] == "start" else s
                          for s in depth_trace(inputs, outputs, node_inputs, starts=True)]
    if steps and steps[-1][0] == "cycle":
        return steps
    reasons: dict[NodeKey, DepthReason] = {}
    assigned: list[NodeKey] = []
    result = depth_map(inputs, outputs, node_inputs, reasons=reasons,
                       notify=lambda kind, node, depth: assigned.append(node))
    steps.extend(("depth", n, reasons[n].depth, reasons[n]) for n in assigned)
    steps.extend(("depth", n, r.depth, r) for n, r in reasons.items() if r.unused_input)
    steps.append(("nodes_by_depth", result.nodes_by_depth))
    steps.append(("layers_by_depth", result.layers_by_depth))
    return steps


def depth_reasons(g) -> dict[NodeKey, DepthReason]:
    """Why each node of the graph's depth map has its depth (the terms Keras's max took)."""
    reasons: dict[NodeKey, DepthReason] = {}
    depth_map([(n, 0, 0) for n in g.inputs], g.outputs, g.node_inputs(), reasons=reasons)
    return reasons


def walk_payload(g) -> list[dict]:
    """depth_steps as JSON for the canvas's player: each step with its node, the output a walk
    starts from (with its dict key, if any), and each depth with its reason in words."""
    keys = dict(zip(g.output_order, g.output_keys)) if g.output_keys else {}
    steps = []
    for step in depth_steps(g):
        kind = step[0]
        if kind == "start":
            steps.append({"kind": kind, "output": step[1], "port": list(step[2]),
                          "key": keys.get(step[2])})
        elif kind in ("enter", "finish", "cycle"):
            steps.append({"kind": kind, "node": list(step[1])})
        elif kind == "depth":
            reason = step[3]
            steps.append({"kind": kind, "node": list(step[1]), "depth": step[2],
                          "reason": reason_text(reason),
                          "consumers": [[list(c), v] for c, v in reason.consumers],
                          "layer_so_far": reason.layer_so_far})
        else:
            steps.append({"kind": kind, "map": {str(d): [list(x) if isinstance(x, tuple) else x
                                                         for x in v] for d, v in step[1].items()}})
    return steps


def _node_text(node: NodeKey) -> str:
    return f"{node[0]} node {node[1]}"


def reason_text(reason: DepthReason) -> str:
    """'depth 2 = max(depth of add node 0 + 1 = 1, depth of layer A so far = 2)'."""
    if reason.unused_input:
        return "depth 0: an Input no output depends on (Keras keeps it, at depth 0)"
    terms = []
    if not reason.consumers:
        terms.append("0: no node of the model consumes it (an output: a walk starts there)")
    counts: dict[tuple, int] = {}
    for consumer in reason.consumers:
        counts[consumer] = counts.get(consumer, 0) + 1
    for (consumer, value), times in counts.items():
        twice = f" (counted {times} times: it reads {times} of this node's tensors)" if times > 1 else ""
        terms.append(f"depth of {_node_text(consumer)} + 1 = {value}{twice}")
    if reason.layer_so_far is not None:
        raised = reason.layer_so_far > max([v for _, v in reason.consumers], default=0)
        terms.append(f"depth of layer {reason.node[0]} so far = {reason.layer_so_far}"
                     + (" (a shared layer's node is raised to its layer's depth)" if raised else ""))
    return f"depth {reason.depth} = max({', '.join(terms)})"


def cycle_path(g, src, dst: str, call: int = 0) -> list[tuple[str, int]] | None:
    """Where the search would find a cycle if this edge were drawn: the calls on it, or None."""
    source = as_triple(src)
    return g.call_path(source[:2], (dst, call))


@dataclass
class ForwardStep:
    layer: str
    node_index: int
    depth: int
    outputs: list  # numpy arrays, tensor_index order
    is_input: bool = False  # an Input's node: the sample fed in, nothing run
    inputs: list = field(default_factory=list)  # its input tensors' _keras_history, slot order
    fed: str | None = None  # an Input's: what the sample is, in words (sample.py)

    def summary(self) -> list[dict]:
        return [{"shape": list(a.shape), "mean": float(a.mean()), "std": float(a.std()),
                 "min": float(a.min()), "max": float(a.max())} for a in self.outputs]

    def payload(self) -> dict:
        """JSON for the canvas: every output tensor (tensor_index order) with its numbers and
        a small picture where it is an image: the value each edge from this node carries."""
        return {"node": [self.layer, self.node_index], "depth": self.depth, "is_input": self.is_input,
                "inputs": [list(t) for t in self.inputs], **({"fed": self.fed} if self.fed else {}),
                "outputs": [{"tensor_index": i, **stats, "picture": self.thumbnail(i)}
                            for i, stats in enumerate(self.summary())]}

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
    layer called on the values its node's input tensors got. Input nodes come first, holding the
    sample itself (is_input), so every tensor of the graph has its value."""
    import keras

    from ..limits import check_forward

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
            if node.is_input:  # its value is the sample fed in: shown on the edges it feeds
                value = computed.get(id(node.output_tensors[0]))
                if value is not None:
                    steps.append(ForwardStep(node.operation.name, 0, depth,
                                             [keras.ops.convert_to_numpy(value)], is_input=True))
                continue
            args, kwargs = node.arguments.fill_in(computed)
            outputs = keras.tree.flatten(node.operation(*args, **kwargs))
            for symbolic, value in zip(node.output_tensors, outputs):
                computed[id(symbolic)] = value
            op = node.operation
            inputs = [(t._keras_history[0].name, t._keras_history[1], t._keras_history[2])
                      for t in node.input_tensors]
            steps.append(ForwardStep(op.name, op._inbound_nodes.index(node), depth,
                                     [keras.ops.convert_to_numpy(v) for v in outputs], inputs=inputs))
    return steps


# ----- predict-then-check exercises (lesson notebooks) -----------------------------------------

@dataclass
class Check:
    """A learner's answer checked against Keras's own objects: prints as the verdict and why."""

    correct: bool
    answer: Any
    expected: Any
    why: str

    def __repr__(self) -> str:
        verdict = "Right" if self.correct else f"Not quite: you said {self.answer!r}, Keras says {self.expected!r}"
        return f"{verdict}. {self.why}"

    def __bool__(self) -> bool:
        return self.correct


def check_depth(g, layer: str, node_index: int, answer: int) -> Check:
    """'What depth will `layer` node `node_index` get?': checked against the live model's
    `_nodes_by_depth`, with the reason from the same walk."""
    node = _node(g, layer, node_index)
    model = g.model
    if model is None:
        raise EditError("The drawing is not a model yet: " + "; ".join(map(str, g.problems)))
    expected = next((d for d, nodes in model._nodes_by_depth.items()
                     if any(n is node for n in nodes)), None)
    if expected is None:
        raise EditError(f"Node {node_index} of {layer} is not in the model (no output depends on it).",
                        layer=layer)
    reason = depth_reasons(g)[(layer, node_index)]
    return Check(answer == expected, answer, expected, reason_text(reason))


def check_source(tensor, answer) -> Check:
    """'Which node does this tensor come from?': `answer` (layer name, node_index) or
    (layer name, node_index, tensor_index), checked against `tensor._keras_history`."""
    history = getattr(tensor, "_keras_history", None)
    if history is None:
        raise EditError(f"check_source takes a KerasTensor, got {type(tensor).__name__}.")
    layer, n, t = history
    expected = (layer.name, n, t)
    given = tuple(answer) if isinstance(answer, (list, tuple)) else (answer,)
    if len(given) not in (2, 3):
        raise EditError(f"Answer with (layer name, node_index) or (layer name, node_index, "
                        f"tensor_index), got {answer!r:.80}.")
    correct = given == expected[:len(given)]
    why = (f"{tensor.name}._keras_history = ({layer.name!r}, node_index={n}, tensor_index={t}): "
           f"output {t} of node {n} of {layer.name} (call {n} of that layer).")
    return Check(correct, answer, expected[:len(given)], why)
