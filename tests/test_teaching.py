"""Teaching views read the live Keras objects: coordinates, identity, depth steps, forward pass."""

import numpy as np
import pytest
from support import siamese as support_siamese

import kerascanvas as kc


def siamese():
    return support_siamese("diff")


def lstm_states():
    g = kc.Graph()
    g.add_input((5, 3), name="seq")
    g.add_layer("LSTM", units=4, return_state=True, name="lstm")
    g.connect("seq", "lstm")
    g.add_layer("Add", name="add")
    g.connect(("lstm", 0, 1), "add")
    g.connect(("lstm", 0, 2), "add")
    return g


def diamond():
    g = kc.Graph()
    g.add_input((4,), name="x")
    for name in ("a", "b"):
        g.add_layer("Dense", units=4, name=name)
        g.connect("x", name)
    g.add_layer("Concatenate", name="cat")
    g.connect("a", "cat")
    g.connect("b", "cat")
    return g


def three_inputs():
    g = kc.Graph()
    for name in "pqr":
        g.add_input((2,), name=name)
    g.add_layer("Concatenate", name="cat")
    for name in "pqr":
        g.connect(name, "cat")
    g.add_layer("Dense", units=1, name="out")
    g.connect("cat", "out")
    return g


def rows(explanation):
    return dict(explanation.rows)


def test_explain_node_reads_coordinates_off_the_live_node():
    g = siamese()
    e = g.explain_node("shared", 1)
    r = rows(e)
    assert r["inbound_layers"] == ["right"] and r["node_indices"] == [0] and r["tensor_indices"] == [0]
    assert "identity for input 0" in r and r["identity for input 0"].endswith("True")
    assert "Node 1 of shared" in repr(e)
    diff = rows(g.explain_node("diff", 0))
    assert diff["inbound_layers"] == ["shared", "shared"] and diff["node_indices"] == [0, 1]
    with pytest.raises(kc.EditError, match="no node 2"):
        g.explain_node("shared", 2)


def test_explain_node_multi_output_tensor_indices():
    r = rows(lstm_states().explain_node("add", 0))
    assert r["inbound_layers"] == ["lstm", "lstm"] and r["tensor_indices"] == [1, 2]


def test_explain_layer_lists_inbound_and_outbound_nodes():
    r = rows(siamese().explain_layer("shared"))
    assert r["_inbound_nodes[0]"] == ["left out 0.0 -> slot 0"]
    assert r["_inbound_nodes[1]"] == ["right out 0.0 -> slot 0"]
    assert r["_outbound_nodes[0]"] == "node 0 of diff" and r["_outbound_nodes[1]"] == "node 0 of diff"


def test_explain_edge_shows_keras_history():
    r = rows(lstm_states().explain_edge(("lstm", 0, 2), "add", 0, 1))
    assert r["shape"] == (None, 4) and "tensor_index=2" in r["_keras_history"]


@pytest.mark.parametrize("build", [siamese, lstm_states, diamond, three_inputs])
def test_depth_steps_end_in_the_keras_depth_map(build):
    g = build()
    steps = g.depth_steps()
    kinds = [s[0] for s in steps]
    assert kinds[0] == "enter" and kinds[-2:] == ["nodes_by_depth", "layers_by_depth"]
    assert kinds.count("enter") == kinds.count("finish") == sum(map(len, g.nodes_by_depth.values()))
    keras_nodes = {d: [(n.operation.name, n.operation._inbound_nodes.index(n)) for n in ns]
                   for d, ns in g.model._nodes_by_depth.items()}
    assert steps[-2][1] == keras_nodes
    assigned = {s[1]: s[2] for s in steps if s[0] == "depth"}
    assert all(keras_nodes[d].count(n) for n, d in assigned.items())


def test_closing_a_cycle_names_where_the_search_found_it():
    g = diamond()
    g.add_layer("Dense", units=4, name="loop")
    g.connect("cat", "loop")
    assert g.cycle_path("loop", "cat") == [("cat", 0), ("loop", 0)]
    with pytest.raises(kc.EditError) as e:
        g.connect("loop", "cat", slot=None)  # cat(0) -> loop(0) -> cat(0)
    assert e.value.path == [("cat", 0), ("loop", 0), ("cat", 0)]


@pytest.mark.parametrize("build", [siamese, diamond, three_inputs])
def test_forward_steps_follow_decreasing_depth_and_match_predict(build):
    g = build()
    model = g.model
    sample = [np.random.rand(2, *t.shape[1:]).astype("float32") for t in model.inputs]
    steps = g.forward_steps(sample if len(sample) > 1 else sample[0])
    depths = [s.depth for s in steps]
    assert depths == sorted(depths, reverse=True)
    expected = model.predict(sample if len(sample) > 1 else sample[0], verbose=0)
    np.testing.assert_allclose(steps[-1].outputs[0], expected, rtol=1e-5, atol=1e-6)
    assert steps[-1].summary()[0]["shape"] == list(expected.shape)


def test_forward_step_thumbnail_of_an_image_tensor():
    g = kc.Graph()
    g.add_input((12, 12, 1), name="img")
    g.add_layer("Conv2D", filters=2, kernel_size=3, name="conv")
    g.connect("img", "conv")
    steps = g.forward_steps(np.random.rand(1, 12, 12, 1).astype("float32"))
    pic = steps[0].thumbnail()
    assert len(pic) == 10 and len(pic[0]) == 10 and 0.0 <= min(map(min, pic)) <= max(map(max, pic)) <= 1.0
