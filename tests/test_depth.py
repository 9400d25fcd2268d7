"""The iterative depth map equals Keras's own `map_graph` on real functional models, order included."""

import subprocess
import sys
import time

import keras
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kerascanvas.network.depth import CycleError, DepthMap, depth_map, depth_trace

L = keras.layers


def history(tensor):
    op, node_index, tensor_index = tensor._keras_history
    return (op.name, node_index, tensor_index)


def graph_of(model):
    """(inputs, outputs, node_inputs) by name, read off the Keras objects as the brief describes."""
    node_inputs = {}
    for op in model.operations:
        for k, node in enumerate(op._inbound_nodes):
            node_inputs[(op.name, k)] = [history(t) for t in node.input_tensors]
    return [history(t) for t in model.inputs], [history(t) for t in model.outputs], node_inputs


def keras_depths(model):
    """Keras's own result, converted to names; the dicts keep Keras's key order."""
    nodes = {depth: [(n.operation.name, n.operation._inbound_nodes.index(n)) for n in found]
             for depth, found in model._nodes_by_depth.items()}
    layers = {depth: [op.name for op in ops] for depth, ops in model._operations_by_depth.items()}
    return nodes, layers, [op.name for op in model.operations]


def assert_same_as_keras(model) -> DepthMap:
    ours = depth_map(*graph_of(model))
    nodes, layers, operations = keras_depths(model)
    assert ours.nodes_by_depth == nodes
    assert list(ours.nodes_by_depth) == list(nodes)  # dict key order too
    assert ours.layers_by_depth == layers
    assert list(ours.layers_by_depth) == list(layers)
    assert ours.layers == operations
    assert ours.node_depth == {node: d for d, found in nodes.items() for node in found}
    assert ours.layer_depth == {name: d for d, names in layers.items() for name in names}
    return ours


def dense(name, units=4):
    return L.Dense(units, name=name)


def test_chain():
    x = keras.Input((4,), name="x")
    model = keras.Model(x, dense("c3")(dense("c2")(dense("c1")(x))))
    ours = assert_same_as_keras(model)
    assert ours.layers == ["x", "c1", "c2", "c3"]
    assert ours.layer_depth == {"c3": 0, "c2": 1, "c1": 2, "x": 3}


def test_diamond():
    x = keras.Input((4,), name="x")
    left, right = dense("left")(x), dense("right")(x)
    model = keras.Model(x, L.Add(name="join")([left, right]))
    ours = assert_same_as_keras(model)
    assert ours.nodes_by_depth[1] == [("left", 0), ("right", 0)]


def test_siamese_shared_dense_on_two_inputs():
    a, b = keras.Input((4,), name="a"), keras.Input((4,), name="b")
    shared = dense("shared")
    model = keras.Model([a, b], L.Subtract(name="sub")([shared(a), shared(b)]))
    ours = assert_same_as_keras(model)
    assert ours.nodes_by_depth[1] == [("shared", 0), ("shared", 1)]


def test_layer_called_before_and_after_another():
    x = keras.Input((4,), name="x")
    d1, d2 = dense("d1"), dense("d2")
    model = keras.Model(x, d1(d2(d1(x))))
    ours = assert_same_as_keras(model)
    assert ours.node_depth == {("d1", 1): 0, ("d2", 0): 1, ("d1", 0): 2, ("x", 0): 3}
    assert ours.layer_depth["d1"] == 2  # a shared layer sits at its deepest call


def test_lstm_states_feed_add():
    x = keras.Input((5, 3), name="seq")
    out, h, c = L.LSTM(4, return_state=True, name="lstm")(x)
    model = keras.Model(x, [L.Add(name="states")([h, c]), dense("head")(out)])
    _, _, node_inputs = graph_of(model)
    assert node_inputs[("states", 0)] == [("lstm", 0, 1), ("lstm", 0, 2)]
    assert_same_as_keras(model)


def test_three_inputs():
    ins = [keras.Input((4,), name=f"in{i}") for i in range(3)]
    mid = L.Concatenate(name="cat")([dense("p0")(ins[0]), ins[1]])
    model = keras.Model(ins, L.Add(name="add")([dense("p1")(mid), dense("p2")(ins[2])]))
    assert_same_as_keras(model)


def test_unused_input_gets_depth_0():
    a, unused = keras.Input((4,), name="a"), keras.Input((4,), name="unused")
    model = keras.Model([a, unused], dense("out")(dense("hidden")(a)))
    ours = assert_same_as_keras(model)
    assert ours.layer_depth["unused"] == 0
    assert ours.layers[-2:] == ["unused", "out"]  # index -1 sorts it first among depth 0


def test_shared_layer_outputs_feed_different_depths():
    x = keras.Input((4,), name="x")
    shared = dense("shared")
    first = shared(x)
    deep = dense("deep2")(dense("deep1")(first))
    model = keras.Model(x, L.Add(name="add")([deep, shared(first)]))
    ours = assert_same_as_keras(model)
    assert ours.node_depth[("shared", 1)] == 1 and ours.layer_depth["shared"] == 3


def test_an_output_call_of_a_shared_layer_is_raised_to_the_layers_depth():
    x = keras.Input((4,), name="x")
    shared = dense("shared")
    early = shared(x)  # an output: depth 0 on its own
    late = dense("tail")(shared(dense("b")(dense("a")(x))))
    ours = assert_same_as_keras(keras.Model(x, [early, late]))
    assert ours.node_depth[("shared", 0)] == ours.node_depth[("shared", 1)] == 1


@pytest.mark.parametrize("flip", [False, True])
def test_output_order_changes_depths_of_shared_layers(flip):
    x = keras.Input((4,), name="x")
    shared = dense("shared")
    short = shared(x)
    long = dense("long2")(dense("long1")(shared(short)))
    outputs = [long, short][::-1] if flip else [long, short]
    assert_same_as_keras(keras.Model(x, outputs))


def test_traversal_stops_at_a_declared_input_made_by_a_layer():
    x = keras.Input((4,), name="x")
    hidden = dense("hidden")(x)
    model = keras.Model(hidden, dense("top")(hidden))
    ours = assert_same_as_keras(model)
    assert "x" not in ours.layer_depth


def test_duplicate_parents():
    x = keras.Input((4,), name="x")
    h = dense("h")(x)
    model = keras.Model(x, L.Add(name="twice")([h, h, dense("g")(h)]))
    assert_same_as_keras(model)


@st.composite
def recipes(draw):
    """A plan for up to 8 layers of Dense / Add / Concatenate over 1-3 inputs, shared Dense included.

    Pure data (indices into the tensors made so far), built into Keras objects by `build`, so that
    Keras's seeding does not run inside the strategy. Widths are tracked so that shapes agree.
    """
    n_inputs = draw(st.integers(1, 3))
    widths = [4] * n_inputs  # width of every tensor made so far
    denses = []  # input width of each Dense made so far
    steps = []
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(["dense", "shared", "add", "concat"]))
        tensors = range(len(widths))
        usable = [d for d, w in enumerate(denses) if w in widths]
        if kind == "shared" and usable:
            layer = draw(st.sampled_from(usable))
            source = draw(st.sampled_from([t for t in tensors if widths[t] == denses[layer]]))
            steps.append(("shared", layer, [source]))
            widths.append(4)
        elif kind in ("dense", "shared"):
            source = draw(st.sampled_from(tensors))
            steps.append(("dense", len(denses), [source]))
            denses.append(widths[source])
            widths.append(4)
        elif kind == "add":
            width = widths[draw(st.sampled_from(tensors))]
            same = [t for t in tensors if widths[t] == width]
            steps.append(("add", None, draw(st.lists(st.sampled_from(same), min_size=2, max_size=3))))
            widths.append(width)
        else:
            sources = draw(st.lists(st.sampled_from(tensors), min_size=2, max_size=3))
            steps.append(("concat", None, sources))
            widths.append(sum(widths[t] for t in sources))
    made = range(n_inputs, len(widths))
    outputs = draw(st.lists(st.sampled_from(made), min_size=1, max_size=3, unique=True))
    return n_inputs, steps, draw(st.permutations(range(n_inputs))), outputs


def build(recipe):
    n_inputs, steps, input_order, outputs = recipe
    tensors = [keras.Input((4,)) for _ in range(n_inputs)]
    denses = []
    for kind, layer, sources in steps:
        args = [tensors[t] for t in sources]
        if kind == "dense":
            denses.append(L.Dense(4))
        if kind in ("dense", "shared"):
            tensors.append(denses[layer](args[0]))
        else:
            tensors.append((L.Add() if kind == "add" else L.Concatenate())(args))
    return keras.Model([tensors[i] for i in input_order], [tensors[i] for i in outputs])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(recipes())
def test_random_dags_match_keras(recipe):
    assert_same_as_keras(build(recipe))


def test_cycle_is_reported_with_its_path():
    node_inputs = {("x", 0): [], ("dense", 0): [("dense_1", 0, 0)], ("dense_1", 0): [("dense", 0, 0)],
                   ("head", 0): [("dense", 0, 0), ("x", 0, 0)]}
    with pytest.raises(CycleError) as caught:
        depth_map([("x", 0, 0)], [("head", 0, 0)], node_inputs)
    assert caught.value.path == [("dense", 0), ("dense_1", 0), ("dense", 0)]
    assert "dense(0) -> dense_1(0) -> dense(0)" in str(caught.value)
    assert isinstance(caught.value, ValueError)  # what Keras raises for a cycle
    trace = depth_trace([("x", 0, 0)], [("head", 0, 0)], node_inputs)
    assert trace == [("enter", ("head", 0)), ("enter", ("dense", 0)), ("enter", ("dense_1", 0)),
                     ("cycle", ("dense", 0))]


def test_self_loop_is_a_cycle():
    with pytest.raises(CycleError) as caught:
        depth_map([], [("d", 0, 0)], {("d", 0): [("d", 0, 0)]})
    assert caught.value.path == [("d", 0), ("d", 0)]


def test_a_node_missing_from_node_inputs_is_named():
    with pytest.raises(ValueError, match=r"'ghost', 0, 0.*ghost\(0\)"):
        depth_map([("x", 0, 0)], [("d", 0, 0)], {("x", 0): [], ("d", 0): [("ghost", 0, 0)]})


def test_trace_enters_and_finishes_in_keras_order():
    node_inputs = {("x", 0): [], ("a", 0): [("x", 0, 0)], ("b", 0): [("x", 0, 0)],
                   ("add", 0): [("a", 0, 0), ("b", 0, 0)]}
    trace = depth_trace([("x", 0, 0)], [("add", 0, 0)], node_inputs)
    assert trace == [("enter", ("add", 0)), ("enter", ("a", 0)), ("enter", ("x", 0)),
                     ("finish", ("x", 0)), ("finish", ("a", 0)), ("enter", ("b", 0)),
                     ("finish", ("b", 0)), ("finish", ("add", 0))]


def chain(n):
    node_inputs = {("x", 0): []}
    previous = ("x", 0, 0)
    for i in range(n):
        node_inputs[(f"d{i}", 0)] = [previous]
        previous = (f"d{i}", 0, 0)
    return [("x", 0, 0)], [previous], node_inputs


def test_5000_node_chain_works_without_recursion():
    graph = chain(5000)
    start = time.perf_counter()
    ours = depth_map(*graph)
    elapsed = time.perf_counter() - start
    print(f"\ndepth_map on a 5,000-layer chain: {elapsed * 1000:.1f} ms")
    assert ours.layers[0] == "x" and ours.layers[-1] == "d4999"
    assert ours.layer_depth["x"] == 5000 and len(ours.nodes_by_depth) == 5001
    assert len(depth_trace(*graph)) == 2 * 5001


def test_depth_does_not_import_keras():
    code = "import sys, kerascanvas.network.depth, kerascanvas.geometry.layout; print('keras' in sys.modules)"
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "False"
