"""Issue 41, "fine-tuning trains as Keras does": the keras.io transfer-learning recipe on a
MobileNetV2 base under a new head, on the digits upscaled to 32x32. Frozen weights (BatchNormalization
statistics included) stay bit-identical through a fit and a frozen BatchNormalization runs in
inference mode; the top blocks unfrozen train at a lower learning rate while the rest stays; each
run is one undo step; the training panel's view keeps the earlier runs, numbered, with their
learning rate and epochs counted on. Backend-neutral (run it under tensorflow, jax and torch)."""

from __future__ import annotations

import keras
import numpy as np
import pytest

import kerascanvas as kc
from kerascanvas.datasets import digits

# the top block's convolutions and the last convolution; the top block's BatchNormalizations
# stay frozen (inference mode), the last one trains
UNFROZEN = ("block_16_expand", "block_16_depthwise", "block_16_project", "Conv_1", "Conv_1_bn")
STILL_FROZEN_BN = ("block_16_expand_BN", "block_16_depthwise_BN", "block_16_project_BN")


@pytest.fixture(scope="module")
def data():
    x, y = digits()
    x = x[:128].reshape(-1, 8, 8).astype("float32") / 16.0
    x = np.repeat(np.repeat(x, 4, axis=1), 4, axis=2)  # 32x32, as a small image base wants
    return np.repeat(x[..., None], 3, axis=-1), y[:128]


def mobilenet_under_a_head() -> kc.Graph:
    keras.utils.set_random_seed(3)
    base = keras.applications.MobileNetV2(weights=None, include_top=False, alpha=0.35,
                                          input_shape=(32, 32, 3), name="base")
    inputs = keras.Input((32, 32, 3), name="image")
    pooled = keras.layers.GlobalAveragePooling2D(name="pool")(base(inputs))
    return kc.Graph.from_model(keras.Model(inputs, keras.layers.Dense(10, name="head")(pooled)))


def weights_by_layer(g: kc.Graph) -> dict[str, list[np.ndarray]]:
    """Every weight of every layer, those inside the base by their inner name."""
    base = g.keras_layer("base")
    found = {x.name: [np.array(w) for w in x.get_weights()] for x in base.layers if x.weights}
    found["head"] = [np.array(w) for w in g.keras_layer("head").get_weights()]
    return found


def identical(a: list, b: list) -> bool:
    return len(a) == len(b) and all(np.array_equal(u, v) for u, v in zip(a, b))


def changed(a: list, b: list) -> bool:
    return all(not np.array_equal(u, v) for u, v in zip(a, b))


def test_two_stages_train_as_keras_does_and_each_run_is_one_undo_step(data):
    g = mobilenet_under_a_head()
    canvas = kc.Canvas(g)
    canvas.set_data(*data)
    g.set_trainable("base", False)
    base = g.keras_layer("base")
    # a frozen BatchNormalization runs in inference mode: training=True changes nothing
    sample = data[0][:8]
    assert np.array_equal(keras.ops.convert_to_numpy(base(sample, training=True)),
                          keras.ops.convert_to_numpy(base(sample, training=False)))

    # stage 1: the head alone
    start = weights_by_layer(g)
    canvas.fit(epochs=1, batch_size=32, learning_rate=1e-3, metrics=["accuracy"])
    stage1 = weights_by_layer(g)
    for name, values in start.items():
        if name != "head":  # BatchNormalization's moving mean and variance included
            assert identical(values, stage1[name]), name
    assert changed(start["head"], stage1["head"])

    # stage 2: the top blocks unfrozen (each one undo step), a lower learning rate
    for name in UNFROZEN:
        g.set_trainable(f"base/{name}", True)
    assert base.trainable and not base.get_layer("block_15_project").trainable
    canvas.fit(epochs=1, batch_size=32, learning_rate=1e-4, metrics=["accuracy"])
    stage2 = weights_by_layer(g)
    for name in (*UNFROZEN, "head"):
        if name != "Conv_1_bn":
            assert changed(stage1[name], stage2[name]), name
    # a BatchNormalization that trains runs in training mode: its moving mean and variance move
    # (its gamma may not: on 1x1 maps of this untrained base its normalized input can be all 0)
    assert changed(stage1["Conv_1_bn"][1:], stage2["Conv_1_bn"][1:])
    for name, values in stage1.items():
        if name not in (*UNFROZEN, "head"):
            assert identical(values, stage2[name]), name
    assert all(name in stage1 for name in STILL_FROZEN_BN)

    # the panel's view: both runs, numbered, epochs counted on, the learning rate of each
    view = canvas.training
    assert view["this_run"] == {"run": view["run"], "number": 2, "first_epoch": 1,
                                "learning_rate": 1e-4, "optimizer": "adam"}
    [first] = view["runs"]
    assert (first["number"], first["first_epoch"], first["learning_rate"]) == (1, 0, 1e-3)
    assert first["curve"] and first["curve"][-1]["epoch"] == 1.0 and "loss" in first["curve"][-1]
    assert "accuracy" in view["history"] and len(view["history"]["loss"]) == 1

    # each run is one undo step: undo puts the weights from before it back, redo its own
    g.undo()
    assert all(identical(v, weights_by_layer(g)[n]) for n, v in stage1.items())
    assert canvas.training["undone"] and [r["number"] for r in canvas.training["runs"]] == [1]
    g.redo()
    assert all(identical(v, weights_by_layer(g)[n]) for n, v in stage2.items())
    assert not canvas.training["undone"] and len(canvas.training["runs"]) == 1
    for _ in range(1 + len(UNFROZEN)):  # the run, then each unfreezing
        g.undo()
    assert not base.trainable
    g.undo()  # the first run
    assert all(identical(v, weights_by_layer(g)[n]) for n, v in start.items())
    assert canvas.training["runs"] == []


def test_unfreezing_between_runs_with_the_same_settings_trains_what_was_unfrozen(data):
    """The second run keeps every setting: it must still compile again, since what trains
    changed (a stale train step would leave the unfrozen layer as it was, or fail)."""
    g = mobilenet_under_a_head()
    canvas = kc.Canvas(g)
    canvas.set_data(*data)
    g.set_trainable("base", False)
    canvas.fit(epochs=1, batch_size=64)
    before = weights_by_layer(g)
    g.set_trainable("base/Conv_1", True)
    canvas.fit(epochs=1, batch_size=64)
    after = weights_by_layer(g)
    assert changed(before["Conv_1"], after["Conv_1"])
    assert identical(before["Conv_1_bn"], after["Conv_1_bn"])
    assert identical(before["block_16_project"], after["block_16_project"])
    view = canvas.training  # the same learning rate: the panel's label leaves it out
    assert view["this_run"]["learning_rate"] == view["runs"][0]["learning_rate"] == 1e-3


def test_a_run_undone_and_followed_by_another_is_forgotten():
    g = kc.Graph()
    g.add_input((4,), name="x")
    g.add_layer("Dense", units=2, name="d")
    g.connect("x", "d")
    canvas = kc.Canvas(g)
    rng = np.random.default_rng(0)
    canvas.set_data(rng.random((16, 4), dtype=np.float32), rng.random((16, 2), dtype=np.float32))
    for rate in (1e-2, 1e-3):
        canvas.fit(epochs=2, batch_size=8, learning_rate=rate, insights=False)
    assert [r["number"] for r in canvas.training["runs"]] == [1]
    g.undo()
    canvas.fit(epochs=1, batch_size=8, learning_rate=5e-4, insights=False)
    view = canvas.training
    assert [(r["number"], r["learning_rate"]) for r in view["runs"]] == [(1, 1e-2)]
    assert (view["this_run"]["number"], view["this_run"]["first_epoch"]) == (2, 2)
    other = kc.Graph()  # another drawing: none of these runs is its
    other.add_input((4,), name="x")
    other.add_layer("Dense", units=2, name="d")
    other.connect("x", "d")
    canvas.graph = other
    canvas.set_data(rng.random((16, 4), dtype=np.float32), rng.random((16, 2), dtype=np.float32))
    canvas.fit(epochs=1, batch_size=8, insights=False)
    view = canvas.training
    assert view["runs"] == [] and view["this_run"]["number"] == 1
