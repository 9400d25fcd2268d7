"""Freezing and unfreezing (issue 41, first parts): g.set_trainable on a box, a folded run and a
layer inside a nested model by path; g.freeze_before; one undo step each; counts equal Keras's;
saved in the file; shown in the state; the intents; refusals change nothing; a fit leaves frozen
weights bit-identical. Backend-neutral (runs under tensorflow, jax and torch)."""

from __future__ import annotations

import keras
import numpy as np
import pytest
from support import keras_counts, ok, rebuild, same_counts

import kerascanvas as kc
from kerascanvas.canvas import intent_handlers


@pytest.fixture(scope="module")
def mobilenet_graph_maker():
    def make():
        keras.utils.set_random_seed(1)
        base = keras.applications.MobileNetV2(weights=None, include_top=False,
                                              input_shape=(32, 32, 3))
        inp = keras.Input((32, 32, 3))
        x = keras.layers.GlobalAveragePooling2D()(base(inp))
        out = keras.layers.Dense(10, activation="softmax")(x)
        g = kc.Graph.from_model(keras.Model(inp, out))
        name = next(n for n, v in g.layers.items() if v["class_name"] == "Functional")
        return g, name
    return make


def layer_entry(g, name) -> dict:
    return next(e for e in g.state()["layers"] if e["name"] == name)


def test_freezing_the_base_then_unfreezing_its_top_blocks_by_path(mobilenet_graph_maker):
    g, base = mobilenet_graph_maker()
    before = same_counts(g)
    live = g.keras_layer(base)
    weights = [w.copy() for w in live.get_weights()]
    objects = {n: g.keras_layer(n) for n in g.layers}  # nothing is made again
    g.set_trainable(base, False)
    frozen = same_counts(g)
    assert frozen["trainable"] == 12_810 and frozen["total"] == before["total"]
    assert g.keras_layer(base) is live and not live.trainable
    assert all(g.keras_layer(n) is o for n, o in objects.items())
    assert all(np.array_equal(a, b) for a, b in zip(weights, live.get_weights()))
    assert g.layers[base]["config"]["trainable"] is False
    assert layer_entry(g, base)["trainable"] == "no"
    assert layer_entry(g, base)["trainable_params"] == 0
    model = g.state()["model"]
    assert (model["trainable_params"], model["non_trainable_params"]) == (
        frozen["trainable"], frozen["non_trainable"])

    # the usual second stage: the top blocks train again, each by its path
    for inner in ("block_16_project", "block_16_project_BN", "Conv_1", "Conv_1_bn"):
        g.set_trainable(f"{base}/{inner}", True)
        same_counts(g)
    partly = same_counts(g)
    assert frozen["trainable"] < partly["trainable"] < before["trainable"]
    assert live.get_layer("Conv_1").trainable and not live.get_layer("block_15_add").trainable
    entry = layer_entry(g, base)
    assert entry["trainable"] == "partly"
    assert entry["trainable_params"] == partly["trainable"] - 12_810
    assert all(g.keras_layer(n) is o for n, o in objects.items())

    # one undo step each; undo restores the previous flags, redo re-applies them
    g.undo()
    assert not live.get_layer("Conv_1_bn").trainable and live.get_layer("Conv_1").trainable
    same_counts(g)
    for _ in range(3):
        g.undo()
    assert same_counts(g) == frozen and layer_entry(g, base)["trainable"] == "no"
    g.undo()
    assert same_counts(g) == before and live.trainable
    assert all(x.trainable for x in live._flatten_layers())
    assert layer_entry(g, base)["trainable"] == "yes"
    for _ in range(5):
        g.redo()
    assert same_counts(g) == partly and layer_entry(g, base)["trainable"] == "partly"
    ok(g)


def test_flags_survive_save_load_and_code(mobilenet_graph_maker, tmp_path):
    g, base = mobilenet_graph_maker()
    g.set_trainable(base, False)
    g.set_trainable(f"{base}/Conv_1", True)
    counts = same_counts(g)
    path = tmp_path / "frozen.kc"
    g.save(path)
    h = kc.Graph.load(path)
    assert same_counts(h) == counts
    assert h.keras_layer(base).get_layer("Conv_1").trainable
    assert not h.keras_layer(base).get_layer("block_16_project").trainable
    assert keras_counts(rebuild(g.to_code())) == counts


def test_a_fit_leaves_frozen_weights_bit_identical(mobilenet_graph_maker):
    g, base = mobilenet_graph_maker()
    g.set_trainable(base, False)
    g.set_trainable(f"{base}/Conv_1", True)
    live = g.keras_layer(base)
    frozen = [x for x in live._flatten_layers(include_self=False) if x.weights and not x.trainable]
    before = {x.name: [w.copy() for w in x.get_weights()] for x in frozen}
    conv = [w.copy() for w in live.get_layer("Conv_1").get_weights()]
    canvas = kc.Canvas(g)
    rng = np.random.default_rng(0)
    canvas.set_data(rng.random((32, 32, 32, 3), dtype=np.float32), rng.integers(0, 10, 32))
    canvas.fit(epochs=1, batch_size=16, block=True)
    for x in frozen:  # BatchNormalization statistics included
        assert all(np.array_equal(a, b) for a, b in zip(before[x.name], x.get_weights())), x.name
    assert not all(np.array_equal(a, b) for a, b in zip(conv, live.get_layer("Conv_1").get_weights()))
    assert same_counts(g)["trainable"] > 12_810


def small():
    g = kc.Graph()
    g.add_input((4,), name="x")
    g.add_layer("Dense", units=3, name="a")
    g.add_layer("Dense", units=3, name="b")
    g.add_layer("Dense", units=2, name="c")
    g.connect("x", "a")
    g.connect("a", "b")
    g.connect("b", "c")
    return g


def test_a_box_as_configure_does_and_configure_still_works():
    g = small()
    layer = g.keras_layer("b")
    g.set_trainable("b", False)
    assert g.keras_layer("b") is layer and not layer.trainable
    assert same_counts(g)["non_trainable"] == 12
    assert g.layers["b"]["config"]["trainable"] is False
    assert "b.trainable = False" in g.to_code()  # set after construction, as people do
    g.undo()
    assert layer.trainable and g.layers["b"]["config"]["trainable"] is True
    g.configure("c", trainable=False)  # the old way keeps working
    assert same_counts(g)["non_trainable"] == 8
    assert layer_entry(g, "c")["trainable"] == "no" and layer_entry(g, "b")["trainable"] == "yes"
    ok(g)


def test_freeze_before_freezes_every_ancestor_in_one_step():
    g = small()
    assert g.freeze_before("c") == ["a", "b"]
    assert same_counts(g) == {"total": 35, "trainable": 8, "non_trainable": 27}
    assert not g.keras_layer("a").trainable and g.keras_layer("c").trainable
    g.undo()
    assert same_counts(g)["non_trainable"] == 0
    g.redo()
    assert same_counts(g)["non_trainable"] == 27
    ok(g)


def test_a_folded_run_freezes_every_layer_of_it():
    g = kc.Graph()
    g.add_input((4,), name="x")
    prev = "x"
    for i in range(3):
        d = g.add_layer("Dense", units=4, name=f"d{i}")
        r = g.add_layer("Dropout", rate=0.1, name=f"r{i}")
        g.connect(prev, d)
        g.connect(d, r)
        prev = r
    head = g.repeats[0].blocks[0][0]
    g.fold(head, True)
    g.set_trainable(head, False)
    assert same_counts(g)["trainable"] == 0
    assert all(not g.keras_layer(f"d{i}").trainable for i in range(3))
    g.undo()
    assert same_counts(g)["non_trainable"] == 0


def test_refusals_name_what_was_wrong_and_change_nothing(mobilenet_graph_maker):
    g, base = mobilenet_graph_maker()
    counts, steps = same_counts(g), len(g._undo)
    for name, trainable, match in [
        ("nope", False, "no layer named 'nope'"),
        (f"{base}/nope", False, "no layer named 'nope'"),
        (f"{base}/Conv_1/deeper", False, "not a nested model"),
        (f"{base}//Conv_1", False, "not a layer path"),
        (base, "no", "trainable must be True or False"),
        (base, 0, "trainable must be True or False"),
        ("input_layer", False, "Input"),
    ]:
        if name == "input_layer":
            name = g.inputs[0]
        with pytest.raises(kc.EditError, match=match):
            g.set_trainable(name, trainable)
    with g.locked("Training runs on these layers."):
        with pytest.raises(kc.EditError, match="Training runs"):
            g.set_trainable(base, False)
        with pytest.raises(kc.EditError, match="Training runs"):
            g.freeze_before(list(g.layers)[-1])
    with pytest.raises(kc.EditError, match="no layer named"):
        g.freeze_before("nope")
    assert same_counts(g) == counts and len(g._undo) == steps
    assert g.keras_layer(base).trainable


def test_inside_a_batch_with_other_edits_it_is_one_step():
    g = small()
    with g.batch():
        g.set_trainable("a", False)
        g.configure("c", units=5)
    assert not g.keras_layer("a").trainable and same_counts(g)["non_trainable"] == 15
    g.undo()
    assert g.keras_layer("a").trainable and g.keras_layer("c").units == 2
    ok(g)


def test_the_intents(mobilenet_graph_maker):
    g, base = mobilenet_graph_maker()
    canvas = kc.Canvas(g)
    answers = []
    canvas.send = answers.append
    canvas.receive({"kind": "set_trainable", "id": 1, "name": base,
                               "trainable": False})
    canvas.receive({"kind": "set_trainable", "id": 2, "name": f"{base}/Conv_1",
                               "trainable": True})
    canvas.receive({"kind": "set_trainable", "id": 3, "name": f"{base}/x",
                               "trainable": True})
    canvas.receive({"kind": "set_trainable", "id": 4, "name": base,
                               "trainable": "yes"})
    canvas.receive({"kind": "freeze_before", "id": 5, "name": list(g.layers)[-1]})
    by_id = {a.get("id"): a for a in answers if "id" in a}
    assert by_id[1].get("ok") and by_id[2].get("ok") and by_id[5].get("ok"), by_id
    assert "no layer named 'x'" in by_id[3]["error"]
    assert "trainable" in by_id[4]["error"]
    assert g.keras_layer(base).get_layer("Conv_1").trainable is False  # freeze_before: all of it
    assert set(intent_handlers.INTENTS) >= {"set_trainable", "freeze_before"}
