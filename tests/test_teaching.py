"""Teaching views read the live Keras objects: coordinates, identity, depth steps, forward pass."""

import json

import numpy as np
import pytest
from support import recorder, sent, shared_lstm_states, shared_then_chain
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
    assert r["_outbound_nodes[0]"].startswith("node 0 of diff, for its input 0 (shared node 0, tensor 0)")
    assert r["_outbound_nodes[1]"].startswith("node 0 of diff, for its input 1 (shared node 1, tensor 0)")
    assert "one entry per input tensor" in r["_outbound_nodes[1]"]


def test_explain_edge_shows_keras_history():
    r = rows(lstm_states().explain_edge(("lstm", 0, 2), "add", 0, 1))
    assert r["shape"] == (None, 4) and "tensor_index=2" in r["_keras_history"]


@pytest.mark.parametrize("build", [siamese, lstm_states, diamond, three_inputs])
def test_depth_steps_end_in_the_keras_depth_map(build):
    g = build()
    steps = g.depth_steps()
    kinds = [s[0] for s in steps]
    assert steps[0] == ("start", 0, g.outputs[0]) and kinds[1] == "enter"
    assert kinds[-2:] == ["nodes_by_depth", "layers_by_depth"]
    assert [s[2] for s in steps if s[0] == "start"] == g.outputs
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
    sample = np.random.rand(1, 12, 12, 1).astype("float32")
    steps = g.forward_steps(sample)
    assert steps[0].is_input and steps[0].layer == "img"
    np.testing.assert_array_equal(steps[0].outputs[0], sample)  # the sample, on the edge it feeds
    pic = steps[1].thumbnail()
    assert len(pic) == 10 and len(pic[0]) == 10 and 0.0 <= min(map(min, pic)) <= max(map(max, pic)) <= 1.0


# ----- what misled (issue 25) ------------------------------------------------------------------

def keras_depths(model):
    """{(layer, node_index): depth} read off Keras's own _nodes_by_depth."""
    return {(n.operation.name, n.operation._inbound_nodes.index(n)): d
            for d, nodes in model._nodes_by_depth.items() for n in nodes}


@pytest.mark.parametrize("build", [shared_then_chain, shared_lstm_states, siamese, lstm_states, diamond,
                                   three_inputs])
def test_each_depth_reason_is_the_max_keras_took(build):
    from kerascanvas.teaching.teaching import depth_reasons

    g = build()
    reasons = depth_reasons(g)
    assert {n: r.depth for n, r in reasons.items()} == keras_depths(g.model)
    for node, r in reasons.items():
        terms = [v for _, v in r.consumers] + [r.layer_so_far or 0]
        assert r.depth == max(terms), node
        keras_node = g.keras_layer(node[0])._inbound_nodes[node[1]]
        consumers = [c for c in g.model._nodes_by_depth.get(r.depth - 1, ())
                     if any(p is keras_node for p in c.parent_nodes)]
        if r.depth > (r.layer_so_far or 0):  # raised by a consumer: Keras has it one level up
            assert consumers


def test_a_shared_layers_node_is_raised_to_the_layers_depth_and_says_why():
    g = shared_then_chain()
    assert g.outputs[0] == ("A", 1, 0)  # an output: nothing consumes it
    assert keras_depths(g.model)[("A", 1)] == 2
    steps = {s[1]: s for s in g.depth_steps() if s[0] == "depth"}
    from kerascanvas.teaching.teaching import reason_text

    assert steps[("A", 1)][2] == 2
    text = reason_text(steps[("A", 1)][3])
    assert text.startswith("depth 2 = max(0: no node of the model consumes it (an output")
    assert "depth of layer A so far = 2 (a shared layer's node is raised to its layer's depth)" in text
    assert reason_text(steps[("B", 0)][3]) == "depth 1 = max(depth of C node 0 + 1 = 1)"


def test_the_walk_payload_starts_from_each_output_in_order_with_its_key():
    from kerascanvas.teaching.teaching import walk_payload

    g = shared_then_chain()
    g.set_outputs({"tail": "C", "side": ("A", 1, 0)})
    steps = walk_payload(g)
    starts = [s for s in steps if s["kind"] == "start"]
    assert [(s["port"], s["key"]) for s in starts] == [(["A", 1, 0], "side"), (["C", 0, 0], "tail")]
    reasons = {tuple(s["node"]): s["reason"] for s in steps if s["kind"] == "depth"}
    assert reasons[("A", 0)] == "depth 2 = max(depth of B node 0 + 1 = 2)"
    json.dumps(steps)


def test_forward_pass_shows_every_tensor_index_and_the_numbers_add_up():
    import keras

    g = shared_lstm_states()
    model = g.model
    rng = np.random.default_rng(0)
    sample = [rng.random((2, 5, 3), dtype="float32") for _ in range(2)]
    steps = {(s.layer, s.node_index): s for s in g.forward_steps(sample)}
    assert [len(steps[("lstm", k)].outputs) for k in (0, 1)] == [3, 3]
    # Keras's own values of every tensor of every node, from a model that outputs them all
    nodes = [(n.operation.name, n.operation._inbound_nodes.index(n), i, t)
             for ns in model._nodes_by_depth.values() for n in ns if not n.is_input
             for i, t in enumerate(n.output_tensors)]
    probe = keras.Model(model.inputs, [t for *_, t in nodes])
    for (layer, k, i, _), value in zip(nodes, probe.predict(sample, verbose=0)):
        np.testing.assert_allclose(steps[(layer, k)].outputs[i], value, rtol=1e-5, atol=1e-6)
    c0, c1 = steps[("lstm", 0)].outputs[2], steps[("lstm", 1)].outputs[2]
    np.testing.assert_allclose(steps[("add", 0)].outputs[0], c0 + c1, rtol=1e-5, atol=1e-6)
    assert steps[("add", 0)].inputs == [("lstm", 0, 2), ("lstm", 1, 2)]
    payload = steps[("lstm", 1)].payload()
    assert [o["tensor_index"] for o in payload["outputs"]] == [0, 1, 2]
    assert payload["outputs"][2]["mean"] == pytest.approx(float(c1.mean()))


def test_outbound_entries_are_one_per_input_tensor_as_keras_lists_them():
    from kerascanvas.teaching.teaching import outbound_entries

    g = lstm_states()  # add reads tensors 1 and 2 of the same lstm node
    lstm = g.keras_layer("lstm")
    entries = outbound_entries(lstm)
    assert len(entries) == len(lstm._outbound_nodes) == 2
    for (consumer, k, i, produced), node in zip(entries, lstm._outbound_nodes):
        assert g.keras_layer(consumer)._inbound_nodes[k] is node
        layer, n, t = node.input_tensors[i]._keras_history
        assert (layer.name, n, t) == produced
    assert [e[2:] for e in entries] == [(0, ("lstm", 0, 1)), (1, ("lstm", 0, 2))]
    r = rows(g.explain_layer("lstm"))
    assert "for its input 1 (lstm node 0, tensor 2)" in r["_outbound_nodes[1]"]


# ----- predict-then-check ----------------------------------------------------------------------

def test_check_depth_answers_with_keras_and_the_reason():
    from kerascanvas.teaching.teaching import check_depth

    g = shared_then_chain()
    wrong = check_depth(g, "A", 1, 0)
    assert not wrong and "Keras says 2" in repr(wrong) and "depth of layer A so far = 2" in repr(wrong)
    right = check_depth(g, "A", 1, 2)
    assert right and repr(right).startswith("Right.")
    with pytest.raises(kc.EditError, match="no node 5"):
        check_depth(g, "A", 5, 0)


def test_check_source_reads_keras_history():
    from kerascanvas.teaching.teaching import check_source

    g = shared_lstm_states()
    tensor = g.keras_layer("add")._inbound_nodes[0].input_tensors[1]
    assert check_source(tensor, ("lstm", 1))
    assert check_source(tensor, ("lstm", 1, 2))
    wrong = check_source(tensor, ("lstm", 0, 2))
    assert not wrong and "tensor_index=2" in repr(wrong) and "('lstm', 1, 2)" in repr(wrong)
    with pytest.raises(kc.EditError, match="KerasTensor"):
        check_source("add", ("lstm", 1))
    with pytest.raises(kc.EditError, match="Answer with"):
        check_source(tensor, "lstm")


# ----- outputs made explicit, node view, Keras internals (widget intents) ----------------------

def _canvas(g):
    c = kc.Canvas(g)
    recorder(c)
    return c


def _intent(canvas, **message):
    canvas.receive({"id": 1, **message})
    return sent(canvas)[-1]


def test_outputs_marked_and_reordered_from_the_canvas_match_keras_with_that_order():
    import keras
    from support import fingerprint

    g = shared_then_chain()
    canvas = _canvas(g)
    assert g.outputs == [("A", 1, 0), ("C", 0, 0)]
    assert _intent(canvas, kind="set_outputs", outputs=[["C", 0, 0], ["A", 1, 0]])["ok"]
    assert g.outputs == [("C", 0, 0), ("A", 1, 0)] and g.outputs_only
    model = g.model
    assert [t._keras_history[0].name for t in model.outputs] == ["C", "A"]
    inputs = [g.keras_layer(n)._inbound_nodes[0].output_tensors[0] for n in ("inp", "inp2")]
    outputs = [g.tensor(("C", 0, 0)), g.tensor(("A", 1, 0))]
    plain = keras.Model(inputs, outputs)
    assert keras_depths(plain) == keras_depths(model)
    assert {(n, d) for n, d in keras_depths(model).items()} == {
        (n, d) for d, ns in g.nodes_by_depth.items() for n in ns}
    # unmark: only C; a consumed port (B's) may be marked too
    assert _intent(canvas, kind="set_outputs", outputs=[["C", 0, 0], ["B", 0, 0]])["ok"]
    assert [t._keras_history[0].name for t in g.model.outputs] == ["C", "B"]
    before = fingerprint(g)
    g.undo()  # one undo step per intent
    assert g.outputs == [("C", 0, 0), ("A", 1, 0)]
    g.redo()
    assert fingerprint(g) == before
    # dict keys: Keras's sorted-key order
    assert _intent(canvas, kind="set_outputs", outputs=[["C", 0, 0], ["A", 1, 0]], keys=["z", "a"])["ok"]
    assert g.output_keys == ("a", "z") and g.outputs == [("A", 1, 0), ("C", 0, 0)]
    struct = g.model._outputs_struct
    assert list(struct) == ["a", "z"] and struct["z"] is g.tensor(("C", 0, 0))
    # all unmarked: back to every unconsumed port
    assert _intent(canvas, kind="set_outputs", outputs=[])["ok"]
    assert not g.outputs_only and g.outputs == [("A", 1, 0), ("C", 0, 0)]


@pytest.mark.parametrize("fields, words", [
    ({"outputs": [["C", 0, 0], ["C", 0, 0]]}, "listed twice"),
    ({"outputs": [["C", 0, 3]]}, "not an output port of C"),
    ({"outputs": [["nope", 0, 0]]}, "nope"),
    ({"outputs": [["C", 0, 0]], "keys": ["k", "j"]}, "one distinct key per output"),
    ({"outputs": [["C", 0, 0], ["B", 0, 0]], "keys": ["k", "k"]}, "one distinct key per output"),
    ({"outputs": [["C", -1, 0]]}, "index 0..9999"),
    ({"outputs": "C"}, "'outputs' must be a list"),
])
def test_a_bad_set_outputs_intent_is_refused_and_changes_nothing(fields, words):
    from support import fingerprint

    g = shared_then_chain()
    canvas = _canvas(g)
    before, undo = fingerprint(g), g.can_undo
    reply = _intent(canvas, kind="set_outputs", **fields)
    assert words in reply.get("error", ""), reply
    assert fingerprint(g) == before and g.can_undo == undo and g.outputs == [("A", 1, 0), ("C", 0, 0)]


def test_node_graph_has_one_entry_per_keras_node_and_tensors_as_edges():
    g = shared_lstm_states()
    expected = keras_depths(g.model)
    g.add_layer("Dense", units=2, name="later")  # a pending call: no Node, not drawn
    canvas = _canvas(g)
    view = _intent(canvas, kind="node_graph")["result"]
    nodes = {(n["layer"], n["node_index"]): n for n in view["nodes"]}
    assert set(nodes) == {(n, k) for n in ("s1", "s2", "add") for k in (0,)} | {("lstm", 0), ("lstm", 1)}
    assert {k: n["depth"] for k, n in nodes.items()} == expected
    assert len(nodes[("lstm", 1)]["outputs"]) == 3
    for edge in view["tensors"]:
        dst = g.keras_layer(edge["dst"][0])._inbound_nodes[edge["dst"][1]]
        layer, n, t = dst.input_tensors[edge["dst"][2]]._keras_history
        assert [layer.name, n, t] == edge["src"]
    assert view["outputs"] == [["lstm", 0, 0], ["lstm", 0, 1], ["lstm", 1, 0], ["lstm", 1, 1], ["add", 0, 0]]


def test_internals_reads_tensors_parents_and_outbound_producers_off_keras():
    g = shared_lstm_states()
    canvas = _canvas(g)
    got = _intent(canvas, kind="internals", name="lstm")["result"]
    lstm = g.keras_layer("lstm")
    assert [n["node_index"] for n in got["nodes"]] == [0, 1]
    one = got["nodes"][1]
    assert one["inputs"][0]["keras_history"] == ["s2", 0, 0] and one["parent_nodes"] == [["s2", 0]]
    assert [o["keras_history"] for o in one["outputs"]] == [["lstm", 1, t] for t in range(3)]
    assert one["outputs"][2]["name"] == lstm._inbound_nodes[1].output_tensors[2].name
    assert got["outbound"] == [{"entry": 0, "consumer": ["add", 0], "input": 0, "producer": ["lstm", 0, 2]},
                               {"entry": 1, "consumer": ["add", 0], "input": 1, "producer": ["lstm", 1, 2]}]
    assert ["layers_by_depth", "_operations_by_depth"] in [r[:2] for r in got["renamed"]]
    assert "no layer named" in _intent(canvas, kind="internals", name="nope")["error"]


def test_readme_and_quickstart_say_a_call_is_a_node_and_an_edge_carries_a_tensor():
    from pathlib import Path

    root = Path(__file__).parent.parent
    texts = [(root / "README.md").read_text(encoding="utf-8")] + [
        "".join(c["source"]) for name in ("quickstart", "nodes_layers_tensors")
        for c in json.loads((root / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8"))["cells"]]
    text = " ".join(" ".join(texts).split())
    assert "edge you draw becomes" not in text and "Each edge is a real Keras node" not in text
    assert "completed call" in text and "carries one output tensor" in text
    assert "is one node with two input tensors" in text or "is *one* node with two input tensors" in text
    # what they say, on Keras's objects: two edges into an Add make one node with two inputs
    g = lstm_states()
    add = g.keras_layer("add")
    assert len(add._inbound_nodes) == 1 and len(add._inbound_nodes[0].input_tensors) == 2


def test_mark_output_from_python_is_the_canvas_gesture():
    g = shared_then_chain()
    g.mark_output(("B", 0, 0))  # a consumed port: outputs become explicit
    assert g.outputs == [("A", 1, 0), ("C", 0, 0), ("B", 0, 0)] and g.outputs_only
    assert [t._keras_history[0].name for t in g.model.outputs] == ["A", "C", "B"]
    g.mark_output(("A", 1, 0), marked=False)
    assert g.outputs == [("C", 0, 0), ("B", 0, 0)]
    g.undo()
    assert g.outputs == [("A", 1, 0), ("C", 0, 0), ("B", 0, 0)]
    g.set_outputs({"tail": "C"})
    g.mark_output("B")
    assert g.output_keys == ("B", "tail") and set(g.model._outputs_struct) == {"B", "tail"}
    with pytest.raises(kc.EditError, match="not an output port"):
        g.mark_output(("C", 0, 5))
    for port in [("B", 0, 0), ("C", 0, 0)]:
        g.mark_output(port, marked=False)
    assert not g.outputs_only and g.outputs == [("A", 1, 0), ("C", 0, 0)]
