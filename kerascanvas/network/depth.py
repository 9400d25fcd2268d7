"""The depth map of a graph of calls: seed 000's algorithm, as Keras 3's `map_graph` runs it, iteratively.

Keras (`keras/src/ops/function.py`: `map_graph`, `_build_map`, `_build_map_helper`) walks depth-first
from the outputs back to the inputs, recursively, and dies near 1,000 layers. This module takes the same
walk with an explicit stack, on names instead of Keras objects, and reproduces Keras's result exactly:
the same depths, the same order inside every depth list, the same dict key order.

Depth 0 is the output side: a node's depth is one more than the deepest node that consumes it, and a
layer's depth is the deepest of its nodes. Pure Python: no Keras import.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

NodeKey = tuple[str, int]  # (layer name, node_index): one call of a layer
Triple = tuple[str, int, int]  # (layer name, node_index, tensor_index) == KerasTensor._keras_history

__all__ = ["CycleError", "DepthMap", "DepthReason", "NodeKey", "Triple", "depth_map", "depth_trace"]


class CycleError(ValueError):
    """The calls form a cycle; `path` is the cycle as the depth-first search found it."""

    def __init__(self, path: list[NodeKey]):
        self.path = path
        super().__init__(f"These calls form a cycle: {format_path(path)}")


def format_path(path: Sequence[NodeKey]) -> str:
    """'dense(0) -> dense_1(0) -> dense(0)'."""
    return " -> ".join(f"{name}({index})" for name, index in path)


@dataclass
class DepthMap:
    nodes_by_depth: dict[int, list[NodeKey]]  # == Functional._nodes_by_depth, by name
    layers_by_depth: dict[int, list[str]]  # == Functional._operations_by_depth, by name
    node_depth: dict[NodeKey, int]
    layer_depth: dict[str, int]
    layers: list[str]  # == [op.name for op in model.operations]: decreasing depth, then traversal order


@dataclass
class DepthReason:
    """Why a node got its depth, term by term, as depth_map's loop computed it: the max of
    0 (nothing consumed it yet), each consumer's depth + 1 (one term per input tensor, as Keras
    loops over node.parent_nodes), and the depth its layer had reached from its other nodes."""

    node: NodeKey
    consumers: list[tuple[NodeKey, int]] = field(default_factory=list)  # (consumer, its depth + 1)
    layer_so_far: int | None = None  # the layer's depth before this node (None: its first node)
    depth: int = 0
    unused_input: bool = False  # an Input no output depends on (Keras keeps it at depth 0)


class _Walk:
    """What `_build_map` leaves behind: nodes in the order they finished, layers in the order first entered."""

    def __init__(self):
        self.finished_order: list[NodeKey] = []  # Keras's nodes_in_decreasing_depth
        self.layer_index: dict[str, int] = {}  # Keras's operation_indices


def _parents_of(node_inputs: Mapping[NodeKey, Sequence[Triple]], model_inputs: set[Triple]):
    """node -> its input triples; a node missing from node_inputs is accepted only as a model input."""

    def parents(node: NodeKey, via: Triple) -> Sequence[Triple]:
        found = node_inputs.get(node)
        if found is not None:
            return found
        if via in model_inputs:  # an Input's node need not be listed: it has no inputs anyway
            return ()
        raise ValueError(
            f"Tensor {via!r} comes from call {format_path([node])}, which node_inputs does not list."
        )

    return parents


def _walk(
    inputs: Sequence[Triple],
    outputs: Sequence[Triple],
    node_inputs: Mapping[NodeKey, Sequence[Triple]],
    step: Callable[[str, NodeKey], None] | None = None,
    start: Callable[[int], None] | None = None,
) -> _Walk:
    """`_build_map` with an explicit stack. `step(kind, node)` sees "enter", "finish" and "cycle";
    `start(i)` hears that the walk starts again from output i (Keras's loop over the outputs)."""
    model_inputs = set(map(tuple, inputs))
    parents = _parents_of(node_inputs, model_inputs)
    walk = _Walk()
    finished: set[NodeKey] = set()
    in_progress: dict[NodeKey, int] = {}  # node -> its place on the stack, to report a cycle's path
    stack: list[tuple[NodeKey, Sequence[Triple], int]] = []  # (node, its input triples, next input)

    def visit(tensor: Triple) -> None:
        """The part of `_build_map_helper` before its recursive calls."""
        tensor = tuple(tensor)
        node = (tensor[0], tensor[1])
        if node in finished:  # shared subgraphs are walked once
            return
        node_parents = parents(node, tensor)
        is_input = len(node_parents) == 0
        if not is_input and tensor in model_inputs:  # a declared input made by another layer: stop here
            finished.add(node)
            return
        if node in in_progress:
            if step:
                step("cycle", node)
            raise CycleError([entry[0] for entry in stack[in_progress[node]:]] + [node])
        walk.layer_index.setdefault(node[0], len(walk.layer_index))
        if step:
            step("enter", node)
        in_progress[node] = len(stack)
        stack.append((node, node_parents, 0))

    for i, output in enumerate(outputs):
        if start:
            start(i)
        visit(output)
        while stack:
            node, node_parents, next_input = stack[-1]
            if next_input < len(node_parents):
                stack[-1] = (node, node_parents, next_input + 1)
                visit(node_parents[next_input])
                continue
            stack.pop()
            finished.add(node)
            del in_progress[node]
            walk.finished_order.append(node)
            if step:
                step("finish", node)
    return walk


def depth_map(
    inputs: Sequence[Triple],
    outputs: Sequence[Triple],
    node_inputs: Mapping[NodeKey, Sequence[Triple]],
    notify: Callable[[str, NodeKey, int], None] | None = None,
    reasons: dict[NodeKey, DepthReason] | None = None,
) -> DepthMap:
    """Keras's `map_graph` by name: node and layer depths, grouped and ordered exactly as Keras does.

    inputs: the model's input tensors; outputs: its output tensors, in model order (depths of shared
    layers depend on it); node_inputs[(layer, k)]: the input tensors of call k, in Keras order
    (`node.input_tensors`), `[]` for an Input. Raises CycleError for a cycle of calls. Unlike Keras it
    does not check that every node is computable from `inputs` ("Graph disconnected"), so that partial
    drawings have a depth map too. notify("depth", node, depth) hears each node's final depth as
    it is assigned (for teaching views); `reasons`, when given, is filled with each node's
    DepthReason: the terms of the max that gave its depth, recorded by this same loop.
    """
    walk = _walk(inputs, outputs, node_inputs)
    in_graph = set(walk.finished_order)
    node_depth: dict[NodeKey, int] = {}
    layer_depth: dict[str, int] = {}
    layer_index = walk.layer_index

    for node in reversed(walk.finished_order):
        depth = node_depth.setdefault(node, 0)  # no consumer yet: an output, depth 0
        if reasons is not None:
            reasons.setdefault(node, DepthReason(node)).layer_so_far = layer_depth.get(node[0])
        depth = max(depth, layer_depth.get(node[0], 0))  # a shared layer sits at its deepest call
        layer_depth[node[0]] = depth
        node_depth[node] = depth
        if reasons is not None:
            reasons[node].depth = depth
        if notify is not None:
            notify("depth", node, depth)
        for tensor in node_inputs.get(node, ()):  # Keras's node.parent_nodes, duplicates included
            parent = (tensor[0], tensor[1])
            if parent in in_graph:
                node_depth[parent] = max(depth + 1, node_depth.get(parent, 0))
                if reasons is not None:
                    reasons.setdefault(parent, DepthReason(parent)).consumers.append((node, depth + 1))

    # Keras: "Handle inputs that are not connected to outputs" (they may feed losses and metrics).
    for tensor in inputs:
        name, index = tensor[0], tensor[1]
        if name not in layer_depth and not node_inputs.get((name, index)):
            layer_depth[name] = 0
            layer_index[name] = -1
            node_depth[(name, index)] = 0
            if reasons is not None:
                reasons[(name, index)] = DepthReason((name, index), depth=0, unused_input=True)

    nodes_by_depth: dict[int, list[NodeKey]] = {}
    for node, depth in node_depth.items():
        nodes_by_depth.setdefault(depth, []).append(node)
    layers_by_depth: dict[int, list[str]] = {}
    for name, depth in layer_depth.items():
        layers_by_depth.setdefault(depth, []).append(name)

    layers: list[str] = []
    for depth in sorted(layers_by_depth, reverse=True):
        names = layers_by_depth[depth]
        names.sort(key=layer_index.__getitem__)  # in place, as Keras sorts _operations_by_depth
        layers.extend(names)
    return DepthMap(nodes_by_depth, layers_by_depth, node_depth, layer_depth, layers)


def depth_trace(
    inputs: Sequence[Triple],
    outputs: Sequence[Triple],
    node_inputs: Mapping[NodeKey, Sequence[Triple]],
    starts: bool = False,
) -> list[tuple]:
    """The steps of depth_map's depth-first search, for teaching views.

    ("enter", node) when the search starts on a call, ("finish", node) when all its inputs are done
    (the order Keras calls nodes_in_decreasing_depth), and a final ("cycle", node) where a call is
    reached again while still in progress; the trace stops there instead of raising.
    starts=True adds ("start", i) where the walk begins from output i.
    """
    steps: list[tuple] = []
    start = (lambda i: steps.append(("start", i))) if starts else None
    try:
        _walk(inputs, outputs, node_inputs, lambda kind, node: steps.append((kind, node)), start)
    except CycleError:
        pass
    return steps
