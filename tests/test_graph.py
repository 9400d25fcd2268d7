"""The live network: real Keras Nodes with exact node and tensor indices after every edit."""

import numpy as np
import pytest
from support import fingerprint, history, ok, siamese

import kerascanvas as kc


def test_siamese_shared_dense_has_nodes_0_and_1_sharing_weights():
    g = ok(siamese())
    dense = g.keras_layer("shared")
    assert len(dense._inbound_nodes) == 2
    assert history(g, "shared", 0, 0) == ("left", 0, 0)
    assert history(g, "shared", 1, 0) == ("right", 0, 0)
    assert history(g, "subtract", 0, 1) == ("shared", 1, 0)
    model = g.model
    assert model is not None and model.count_params() == 4 * 3 + 3
    x = np.ones((2, 4), "float32")
    np.testing.assert_allclose(model.predict([x, x], verbose=0), 0.0, atol=1e-6)
    assert g.nodes_by_depth[0] == [("subtract", 0)]
    assert sorted(g.nodes_by_depth[1]) == [("shared", 0), ("shared", 1)]


def test_lstm_states_feed_add_from_tensor_index_1_and_2():
    g = kc.Graph()
    g.add_input((5, 3), name="seq")
    g.add_layer("LSTM", units=4, return_state=True)
    g.connect("seq", "lstm")
    g.add_layer("Add")
    g.connect(("lstm", 0, 1), "add")
    g.connect(("lstm", 0, 2), "add")
    ok(g)
    assert history(g, "add", 0, 0) == ("lstm", 0, 1)
    assert history(g, "add", 0, 1) == ("lstm", 0, 2)
    assert g.outputs == [("lstm", 0, 0), ("add", 0, 0)]  # the unconsumed ones, creation order
    assert [t.shape for t in g.model.outputs] == [(None, 4), (None, 4)]
    with pytest.raises(kc.EditError, match="tensor_index 0..2"):
        g.connect(("lstm", 0, 3), "add")
    with pytest.raises(kc.EditError, match="disconnect it first"):
        g.configure("lstm", return_state=False)
    ok(g)


def test_multi_head_attention_query_and_value_from_different_inputs():
    g = kc.Graph()
    g.add_input((6, 8), name="q")
    g.add_input((9, 8), name="v")
    g.add_layer("MultiHeadAttention", num_heads=2, key_dim=4, name="mha")
    g.connect("q", "mha", slot=0)
    assert g.model is None and any("'value'" in p.message for p in g.problems)
    g.connect("v", "mha", slot=1)
    ok(g)
    assert history(g, "mha", 0, 0) == ("q", 0, 0)
    assert history(g, "mha", 0, 1) == ("v", 0, 0)
    assert g.model.outputs[0].shape == (None, 6, 8)
    g.connect("v", "mha", slot=2)  # key, optional
    ok(g)
    assert history(g, "mha", 0, 2) == ("v", 0, 0)


def test_removing_a_middle_call_of_a_shared_layer_renumbers_nodes():
    g = kc.Graph()
    for name in "abc":
        g.add_input((4,), name=name)
    g.add_layer("Dense", units=2, name="d")
    for k, name in enumerate("abc"):
        g.connect(name, "d", call=k)
    ok(g)
    dense = g.keras_layer("d")
    kernel = dense.get_weights()[0]
    g.remove_call("d", 1)
    ok(g)
    assert g.keras_layer("d") is dense  # re-called, not re-created: the weights stay
    np.testing.assert_array_equal(dense.get_weights()[0], kernel)
    assert [history(g, "d", k, 0) for k in range(2)] == [("a", 0, 0), ("c", 0, 0)]
    assert g.edges == ((("a", 0, 0), ("d", 0, 0)), (("c", 0, 0), ("d", 1, 0)))
    assert [p.message for p in g.problems] == ["Input b is not used by any layer."]
    g.undo()
    ok(g)
    assert [history(g, "d", k, 0) for k in range(3)] == [("a", 0, 0), ("b", 0, 0), ("c", 0, 0)]


def test_undo_and_redo_restore_exact_objects_and_weights():
    g = siamese()
    prints = [fingerprint(g)]
    g.configure("shared", units=5)
    prints.append(fingerprint(g))
    g.add_layer("Dense", units=1, name="head")
    prints.append(fingerprint(g))
    g.connect("subtract", "head")
    prints.append(fingerprint(g))
    g.rename("shared", "tower")
    prints.append(fingerprint(g))
    for expected in reversed(prints[:-1]):
        g.undo()
        ok(g)
        assert fingerprint(g) == expected
    for expected in prints[1:]:
        g.redo()
        ok(g)
        assert fingerprint(g) == expected


def test_a_call_on_a_taken_slot_says_how_to_call_again():
    g = siamese()
    before = fingerprint(g)
    with pytest.raises(kc.EditError, match="call=2"):
        g.connect("left", "shared")
    assert fingerprint(g) == before


def test_cycles_between_calls_are_refused_with_the_path():
    g = kc.Graph()
    g.add_input((4,), name="x")
    g.add_layer("Dense", units=4, name="d1")
    g.add_layer("Dense", units=4, name="d2")
    g.connect("x", "d1")
    g.connect("d1", "d2")
    g.connect("d2", "d1", call=1)  # d1(d2(d1(x))): legal, a layer before and after another
    ok(g)
    g.add_layer("Dense", units=4, name="p")
    g.add_layer("Dense", units=4, name="q")
    g.connect("p", "q")
    before = fingerprint(g)
    with pytest.raises(kc.EditError, match=r"cycle between calls: p\(0\) -> q\(0\) -> p\(0\)"):
        g.connect("q", "p")
    assert fingerprint(g) == before
    g.add_call("d2")
    before = fingerprint(g)
    with pytest.raises(kc.EditError, match=r"d2\(1\) -> d2\(1\)") as e:
        g.connect(("d2", 1, 0), "d2", call=1)
    assert e.value.layer == "d2" and e.value.call == 1
    assert fingerprint(g) == before


def test_shape_refused_by_keras_changes_nothing_and_quotes_keras():
    g = kc.Graph()
    g.add_input((4,), name="a")
    g.add_input((5,), name="b")
    g.add_layer("Dense", units=3, name="d")
    g.connect("a", "d")
    g.add_layer("Add")
    g.connect("a", "add")
    before = fingerprint(g)
    with pytest.raises(kc.EditError, match="incompatible shapes") as e:
        g.connect("b", "add")
    assert e.value.layer == "add" and e.value.call == 0
    with pytest.raises(kc.EditError, match="expected axis -1 of input shape to have value 4"):
        g.connect("b", "d", call=1)
    assert fingerprint(g) == before
    ok(g)


def test_invalid_config_and_names_are_refused():
    g = kc.Graph()
    g.add_input((4,), name="x")
    g.add_layer("Dense", units=3, name="d")
    g.connect("x", "d")
    before = fingerprint(g)
    with pytest.raises(ValueError, match="units"):
        g.configure("d", units=-1)
    with pytest.raises(ValueError, match="foo"):
        g.configure("d", foo=1)
    for bad in ["x", "a/b", "", "n" * 101, 7]:
        with pytest.raises(kc.EditError):
            g.rename("d", bad)
        with pytest.raises(kc.EditError):
            g.add_layer("Dense", units=2, name=bad)
    for bad in ["os.system", "keras.src.layers.Dense", "Lambda", "Model"]:
        with pytest.raises(ValueError):
            g.add_layer(bad)
    assert fingerprint(g) == before


def test_auto_names_are_per_graph_like_keras():
    g1, g2 = kc.Graph(), kc.Graph()
    assert [g1.add_layer("Dense", units=1) for _ in range(3)] == ["dense", "dense_1", "dense_2"]
    assert g2.add_layer("Dense", units=1) == "dense"
    assert g2.add_layer("Conv2D", filters=2, kernel_size=3) == "conv2d"
    assert g2.add_input((3,)) == "input_layer"


def test_pending_calls_and_edges_from_pending_sources():
    g = kc.Graph()
    g.add_layer("Dense", units=3, name="d1")
    g.add_layer("Dense", units=2, name="d2")
    g.connect("d1", "d2")  # drawn top-down before d1 has an input
    assert g.model is None
    assert not g.is_built("d1") and not g.is_built("d2")
    assert "waits for d1 call 0" in " ".join(p.message for p in g.problems)
    g.add_input((4,), name="x")
    g.connect("x", "d1")
    ok(g)
    assert history(g, "d2", 0, 0) == ("d1", 0, 0)
    g.disconnect("x", "d1")
    ok(g)
    assert len(g.keras_layer("d2")._inbound_nodes) == 0


def test_merge_list_slots_close_gaps_and_append():
    g = kc.Graph()
    for name in "abc":
        g.add_input((4,), name=name)
    g.add_layer("Concatenate", name="cat")
    for name in "abc":
        g.connect(name, "cat")
    assert [history(g, "cat", 0, s) for s in range(3)] == [("a", 0, 0), ("b", 0, 0), ("c", 0, 0)]
    g.disconnect("b", "cat")
    g.remove("b")
    ok(g)
    assert g.edges[-1] == (("c", 0, 0), ("cat", 0, 1))
    assert g.model.outputs[0].shape == (None, 8)


def test_editing_the_head_keeps_the_backbone_weights_and_objects():
    g = kc.Graph()
    g.add_input((8,), name="x")
    g.add_layer("Dense", units=16, name="backbone")
    g.add_layer("Dense", units=4, name="head")
    g.connect("x", "backbone")
    g.connect("backbone", "head")
    backbone = g.keras_layer("backbone")
    backbone.set_weights([np.full((8, 16), 0.5, "float32"), np.ones(16, "float32")])
    node = backbone._inbound_nodes[0]
    g.configure("head", units=10)
    g.add_layer("Dense", units=2, name="out")
    g.connect("head", "out")
    ok(g)
    assert g.keras_layer("backbone") is backbone and backbone._inbound_nodes[0] is node
    assert float(backbone.get_weights()[0][0, 0]) == 0.5
    g.configure("head", activation="relu")  # same weight shapes: trained weights carry over
    g.configure("x", shape=(8,))
    ok(g)
    assert float(g.keras_layer("backbone").get_weights()[0][0, 0]) == 0.5


def dense_made(monkeypatch) -> list:
    """Every keras.layers.Dense made from now on (one item each)."""
    import keras

    made, init = [], keras.layers.Dense.__init__

    def counting(self, *args, **kwargs):
        made.append(self)
        init(self, *args, **kwargs)

    monkeypatch.setattr(keras.layers.Dense, "__init__", counting)
    return made


def test_middle_edit_recalls_downstream_instead_of_recreating(monkeypatch):
    g = kc.Graph()
    g.add_input((8,), name="x")
    prev = "x"
    for i in range(6):
        name = g.add_layer("Dense", units=8)
        g.connect(prev, name)
        prev = name
    tail = g.keras_layer("dense_5")
    made = dense_made(monkeypatch)
    g.configure("dense_2", activation="relu")
    ok(g)
    assert made == [g.keras_layer("dense_2")]  # only dense_2 was made again
    assert g.keras_layer("dense_5") is tail


def test_output_order_can_be_set():
    g = siamese()
    g.add_layer("Dense", units=2, name="extra")
    g.connect(("shared", 1, 0), "extra")
    assert g.outputs == [("subtract", 0, 0), ("extra", 0, 0)]
    g.set_outputs([("extra", 0, 0)])
    assert g.outputs == [("extra", 0, 0), ("subtract", 0, 0)]
    ok(g)


def test_deep_chain_builds_a_model_past_the_recursion_limit():
    import sys

    g = kc.Graph()
    g.add_input((2,), name="x")
    prev = "x"
    for _ in range(1100):
        name = g.add_layer("Identity")
        g.connect(prev, name)
        prev = name
    limit = sys.getrecursionlimit()
    assert g.model is not None and len(g.model.layers) == 1101
    assert sys.getrecursionlimit() == limit
    assert max(g.nodes_by_depth) == 1100


def test_unused_input_and_empty_graph_problems():
    g = kc.Graph()
    assert g.model is None and "no Input" in g.problems[0].message
    g.add_input((3,), name="x")
    assert [p.layer for p in g.problems] == ["x"]


def test_observers_hear_every_change_and_can_stop():
    g = kc.Graph()
    seen = []
    stop = g.observe(lambda graph: seen.append(len(graph.layers)))
    g.add_input((3,), name="x")
    g.undo()
    stop()
    g.redo()
    assert seen == [1, 0]


def test_positions_are_set_by_layout_and_pinned_by_move():
    g = siamese()
    pos = g.positions
    assert set(pos) == {"left", "right", "shared", "subtract"}
    assert pos["left"][1] < pos["subtract"][1]  # inputs first (top)
    g.move("subtract", 500, 42)
    assert g.positions["subtract"] == (500.0, 42.0) and "subtract" in g.pinned
    g.arrange()
    assert not g.pinned
    with pytest.raises(kc.EditError):
        g.move("subtract", float("nan"), 0)


def test_duplicate_copies_layers_and_inner_edges():
    g = siamese()
    mapping = g.duplicate(["shared", "subtract"])
    assert mapping == {"shared": "shared_1", "subtract": "subtract_1"}
    assert (("shared_1", 1, 0), ("subtract_1", 0, 1)) in g.edges
    ok(g)


def test_state_is_json_and_names_stay_text():
    import json

    g = siamese()
    g.rename("shared", "<img src=x onerror=alert(1)>")
    state = json.loads(json.dumps(g.state()))
    names = [layer["name"] for layer in state["layers"]]
    assert "<img src=x onerror=alert(1)>" in names
    assert state["model"]["params"] == 15
    assert state["edges"][0]["shape"] == [None, 4]


def test_batch_is_one_rebuild_and_one_undo_step():
    g = kc.Graph()
    with g.batch():
        g.add_input((4,), name="x")
        g.add_layer("Dense", units=3, name="d")
        g.connect("x", "d")
        assert g.layers == {}  # reads see the drawing as it was
    ok(g)
    assert g.model is not None and history(g, "d", 0, 0) == ("x", 0, 0)
    g.undo()
    assert dict(g.layers) == {} and not g.can_undo
    g.redo()
    ok(g)
    before = fingerprint(g)
    with pytest.raises(kc.EditError, match="incompatible"), g.batch():
        g.add_input((5,), name="y")
        g.add_layer("Add", name="add")
        g.connect("d", "add")
        g.connect("y", "add")  # Keras refuses (3 vs 5) at the end: the whole batch goes
    assert fingerprint(g) == before
    ok(g)


def test_add_layer_from_config_uses_the_checked_layer_once(monkeypatch):
    g = kc.Graph()
    g.add_input((4,), name="x")
    made = dense_made(monkeypatch)
    name = g.add_layer_from_config({"class_name": "Dense", "config": {"name": "head", "units": 2}})
    g.connect("x", name)
    assert name == "head" and g.model.count_params() == 10
    assert made == [g.keras_layer("head")]
    with pytest.raises(ValueError):
        g.add_layer_from_config({"class_name": "Lambda", "config": {"name": "evil"}})
    with pytest.raises(kc.EditError):
        g.add_layer_from_config({"class_name": "Dense", "config": {"name": "head", "units": 2}})


def test_edits_are_refused_while_locked():
    g = siamese()
    before = fingerprint(g)
    g.lock("Training is running: edits wait until it ends.")
    for edit in (lambda: g.add_layer("Dense", units=2), g.undo, lambda: g.remove("shared")):
        with pytest.raises(kc.EditError, match="Training is running"):
            edit()
    g.move("shared", 10, 20)  # moving a box touches no Keras object: allowed while training
    g.unlock()
    g.undo()
    assert fingerprint(g) == before
    g.remove("subtract")
