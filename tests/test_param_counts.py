"""`g.param_counts()` (issue 41, its first part): the drawing's parameters as Keras counts a
model's: total, trainable and non-trainable, a frozen base and BatchNormalization's statistics
included, each shared weight once; they follow configure and undo."""

import math

import keras
import pytest
from support import ok

import kerascanvas as kc


def keras_counts(model) -> dict:
    trainable = sum(math.prod(v.shape) for v in model.trainable_weights)
    frozen = sum(math.prod(v.shape) for v in model.non_trainable_weights)
    assert trainable + frozen == model.count_params()
    return {"total": model.count_params(), "trainable": trainable, "non_trainable": frozen}


def transfer_classifier(frozen: bool):
    """keras.io's transfer-learning recipe: a keras.applications base (no weights: nothing
    downloads) under a new head, the base frozen or not."""
    base = keras.applications.MobileNetV2(input_shape=(32, 32, 3), include_top=False,
                                          weights=None, alpha=0.35)
    base.trainable = not frozen
    inputs = keras.Input((32, 32, 3))
    x = base(inputs, training=False)
    x = keras.layers.GlobalAveragePooling2D()(x)
    outputs = keras.layers.Dense(10)(x)
    return keras.Model(inputs, outputs)


@pytest.mark.parametrize("frozen", [False, True])
def test_counts_equal_keras_for_a_keras_applications_base_under_a_head(frozen):
    model = transfer_classifier(frozen)
    g = ok(kc.Graph.from_model(model))
    assert g.param_counts() == keras_counts(model) == keras_counts(g.model)
    assert (g.param_counts()["trainable"] == 10 * 1280 + 10) is frozen  # only the head trains


def test_counts_follow_configure_and_undo_and_count_a_shared_layer_once():
    g = kc.Graph()
    g.add_input((4,), name="a")
    g.add_input((4,), name="b")
    g.add_layer("Dense", units=3, name="shared")
    g.add_layer("BatchNormalization", name="bn")
    g.add_layer("Add", name="add")
    g.connect("a", "shared")
    g.connect("b", "shared", call=1)  # one layer, two calls: its weights counted once
    g.connect(("shared", 0, 0), "add")
    g.connect(("shared", 1, 0), "add")
    g.connect("add", "bn")
    assert g.param_counts() == keras_counts(ok(g).model) == {
        "total": 15 + 12, "trainable": 15 + 6, "non_trainable": 6}
    g.configure("shared", trainable=False)
    assert g.param_counts() == keras_counts(g.model) == {
        "total": 27, "trainable": 6, "non_trainable": 21}
    g.undo()
    assert g.param_counts()["trainable"] == 21


def test_a_pending_box_counts_nothing_until_it_is_called():
    g = kc.Graph()
    g.add_input((4,), name="x")
    g.add_layer("Dense", units=3, name="head")
    assert g.param_counts() == {"total": 0, "trainable": 0, "non_trainable": 0}
    g.connect("x", "head")
    assert g.param_counts() == {"total": 15, "trainable": 15, "non_trainable": 0}


def test_a_box_cut_off_from_the_input_keeps_its_weights_but_not_the_models_count():
    """Its layer keeps its weights (wire it back and they are there), but it is left out of the
    model: the counts and the canvas's footer figure are Keras's (found by test_diffs, seed
    1079: the canvas said 40 parameters of a 20-parameter model)."""
    g = kc.Graph()
    g.add_input((4,), name="x")
    g.add_layer("Dense", units=4, name="cut")
    g.add_layer("Dense", units=4, name="kept")
    g.connect("x", "cut")
    g.connect("x", "kept")
    g.set_outputs([("kept", 0, 0)])
    g.disconnect(("x", 0, 0), "cut")
    assert g.left_out == ["cut"] and g.keras_layer("cut").built
    assert keras_counts(g.model) == g.param_counts() == {"total": 20, "trainable": 20,
                                                         "non_trainable": 0}
    assert g.state()["model"]["params"] == 20
    assert g.weight_bytes() == 80
