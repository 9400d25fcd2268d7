"""Tensor keyword arguments as named slots, and call settings (kerascanvas/kinds/calls.py)."""

import json

import keras
import numpy as np
import pytest
from support import fingerprint, history, ok

import kerascanvas as kc
from kerascanvas.network.invariants import violations


def recorded(node):
    """A node's call as Keras recorded it: positional sources, keyword sources, settings."""
    def source(t):
        return tuple(t._keras_history[:1]) and (t._keras_history.operation.name,
                                                 *t._keras_history[1:])

    args = [source(a) for a in node.arguments.args]
    kwargs = {k: source(v) if isinstance(v, keras.KerasTensor) else v
              for k, v in node.arguments.kwargs.items()}
    return args, kwargs


def same_calls(g, model):
    for op in model.operations:
        mine = g.keras_layer(op.name)
        for a, b in zip(op._inbound_nodes, mine._inbound_nodes, strict=True):
            assert recorded(a) == recorded(b), op.name


def attention_model():
    q, v = keras.Input((4, 8), name="q"), keras.Input((5, 8), name="v")
    m = keras.Input((4, 5), name="m", dtype="bool")
    x = keras.layers.MultiHeadAttention(2, 4, name="mha")(query=q, value=v, attention_mask=m)
    x = keras.layers.Dropout(0.3, name="drop")(x, training=True)
    y = keras.layers.MultiHeadAttention(2, 4, name="self")(x, x, use_causal_mask=True)
    return keras.Model([q, v, m], y)


def test_keyword_tensors_and_settings_import_exactly_as_keras_records_them():
    model = attention_model()
    g = ok(kc.Graph.from_model(model))
    assert violations(g) == []
    same_calls(g, model)
    spec = g.specs["mha"]
    assert spec.slots.names == ("query", "value", "key", "attention_mask")
    assert g.call_slots("mha") == {0: ("q", 0, 0), 1: ("v", 0, 0), 3: ("m", 0, 0)}
    assert history(g, "mha", 0, 3) == ("m", 0, 0)
    assert g.call_settings("drop") == {"training": True}
    assert g.call_settings("self") == {"use_causal_mask": True}
    assert g.model.get_config() == model.get_config()
    x = [np.random.rand(2, 4, 8), np.random.rand(2, 5, 8), np.random.rand(2, 4, 5) > 0.5]
    np.testing.assert_allclose(keras.ops.convert_to_numpy(g.model(x, training=False)),
                               keras.ops.convert_to_numpy(model(x, training=False)), atol=1e-5)


def test_keyword_calls_export_as_keywords_and_rebuild_the_same_model():
    model = attention_model()
    g = ok(kc.Graph.from_model(model))
    code = g.to_code()
    assert "mha(query=q, value=v, attention_mask=m)" in code
    assert "drop(x, training=True)" in code and "use_causal_mask=True)" in code
    scope = {}
    exec(code, scope)  # noqa: S102 - the export runs
    assert scope["model"].get_config()["layers"] == model.get_config()["layers"]
    same_calls(g, scope["model"])


def test_keyword_slots_and_settings_survive_save_load_and_undo(tmp_path):
    g = ok(kc.Graph.from_model(attention_model()))
    g.save(tmp_path / "a.kc")
    h = ok(kc.Graph.load(tmp_path / "a.kc"))
    assert json.dumps(fingerprint(h)[0]) == json.dumps(fingerprint(g)[0])
    assert h.call_slots("mha") == g.call_slots("mha") and h.call_settings("drop") == {"training": True}
    assert violations(h) == []
    h.configure_call("drop", training=None)
    assert h.call_settings("drop") == {} and violations(h) == []
    assert h.keras_layer("drop")._inbound_nodes[0].arguments.kwargs.get("training") is False
    h.undo()
    assert h.call_settings("drop") == {"training": True}
    assert h.keras_layer("drop")._inbound_nodes[0].arguments.kwargs == {"training": True}
    h.redo()
    assert h.call_settings("drop") == {}


def test_a_base_called_with_training_false_keeps_the_call_and_trains_as_keras_does():
    """keras.io's transfer-learning guide as published calls its base `base(x, training=False)`.
    The import once dropped that training=False (taken for Keras's own filling-in): the drawing's
    config and exported code then differed from the model. A default Keras fills in (Dropout's
    False) stays out. Fine-tuned, it trains as Keras trains it: under Keras 3 fit's own
    training=True reaches the base's layers all the same (keras-team/keras#20285)."""
    inner_in = keras.Input((4,), name="inner_in")
    base = keras.Model(inner_in, keras.layers.BatchNormalization(name="inner_bn")(inner_in),
                       name="base")
    base.trainable = False
    image = keras.Input((4,), name="image")
    x = base(image, training=False)
    x = keras.layers.Dropout(0.2, name="drop")(x)
    model = keras.Model(image, keras.layers.Dense(1, name="head")(x))
    g = ok(kc.Graph.from_model(model))
    assert g.call_settings("base") == {"training": False} and g.call_settings("drop") == {}
    assert g.model.get_config() == model.get_config()
    assert "base(image, training=False)" in g.to_code()
    g.configure("base", trainable=True)  # fine-tuning: the base's weights train
    base.trainable = True
    data = np.random.default_rng(0).normal(3.0, 2.0, (64, 4)).astype("float32")
    target = np.zeros((64, 1), "float32")
    trainer = kc.Canvas(g).trainer
    trainer.set_data(data, target)
    trainer.fit(epochs=1, batch_size=16, loss="mse", optimizer="sgd", learning_rate=0.1,
                shuffle=False, block=True)
    assert trainer.status["state"] == "finished", trainer.status
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    model.fit(data, target, epochs=1, batch_size=16, shuffle=False, verbose=0)
    np.testing.assert_allclose(g.keras_layer("base").get_weights()[2],
                               base.get_weights()[2], rtol=1e-5)  # the moving mean


def test_a_drawn_attention_mask_is_a_named_slot_that_may_stay_empty():
    g = kc.Graph()
    g.add_input((4, 8), name="q")
    g.add_input((4, 4), name="m", dtype="bool")
    g.add_layer("MultiHeadAttention", num_heads=2, key_dim=4, name="mha")
    g.connect("q", "mha", slot=0)
    g.connect("q", "mha", slot=1)
    node = g.keras_layer("mha")._inbound_nodes[0]
    assert node.arguments.kwargs == {} and len(node.arguments.args) == 2
    g.connect("m", "mha", slot=3)  # attention_mask, key left empty
    ok(g)
    node = g.keras_layer("mha")._inbound_nodes[0]
    assert set(node.arguments.kwargs) == {"attention_mask"} and violations(g) == []
    assert "mha(q, q, attention_mask=m)" in g.to_code()
    g.disconnect("m", "mha", slot=3)
    assert g.call_slots("mha") == {0: ("q", 0, 0), 1: ("q", 0, 0)}
    assert violations(g) == []


def test_call_settings_are_checked_and_a_refused_one_changes_nothing():
    g = kc.Graph()
    g.add_input((4,), name="x")
    g.add_layer("Dropout", rate=0.5, name="drop")
    g.connect("x", "drop")
    before = fingerprint(g)
    for bad, match in [({"nonsense": 1}, "takes no argument nonsense="),
                       ({"inputs": 1}, "is a slot"),
                       ({"training": object()}, "must be a number")]:
        with pytest.raises(kc.EditError, match=match):
            g.configure_call("drop", **bad)
        assert fingerprint(g) == before
    with pytest.raises(kc.EditError, match="no call 3"):
        g.configure_call("drop", call=3, training=True)
    g.configure_call("drop", training=True)
    assert g.keras_layer("drop")._inbound_nodes[0].arguments.kwargs == {"training": True}
    shown = {entry["name"]: entry for entry in g.state()["layers"]}
    assert shown["drop"]["calls"][0]["settings"] == {"training": True}


class Block(keras.layers.Layer):
    """A Transformer-style layer of one's own: tensors by keyword, one of them no mask."""

    def __init__(self, units=3, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.dense = keras.layers.Dense(units)

    def call(self, inputs, padding_mask=None, context=None, training=None):
        x = self.dense(inputs)
        if context is not None:
            x = x + keras.ops.mean(context, axis=1, keepdims=True)
        if padding_mask is not None:
            x = x * keras.ops.expand_dims(keras.ops.cast(padding_mask, x.dtype), -1)
        return x

    def get_config(self):
        return {**super().get_config(), "units": self.units}


def test_keyword_tensors_of_a_class_of_ones_own_become_its_named_slots():
    x, m = keras.Input((5, 3), name="x"), keras.Input((5,), name="m")
    c = keras.Input((2, 3), name="c")
    block = Block(name="block")
    y = block(x, padding_mask=m)
    z = block(y, context=c, padding_mask=m)  # a second call, another keyword tensor
    model = keras.Model([x, m, c], z)
    g = ok(kc.Graph.from_model(model, trust_custom=True))
    spec = g.specs["block"]
    assert spec.slots.names == ("inputs", "padding_mask", "context")  # padding_mask offered
    assert g.call_slots("block", 1) == {0: ("block", 0, 0), 1: ("m", 0, 0), 2: ("c", 0, 0)}
    same_calls(g, model)
    assert violations(g) == []
    data = [np.random.rand(2, 5, 3), np.ones((2, 5)), np.random.rand(2, 2, 3)]
    np.testing.assert_allclose(keras.ops.convert_to_numpy(g.model(data)),
                               keras.ops.convert_to_numpy(model(data)), atol=1e-5)
    assert "block(x_1, padding_mask=m, context=c)" in g.to_code().replace("x_1 = ", "")


def test_a_drawn_box_of_ones_own_offers_its_mask_arguments():
    kc.register(Block)
    g = kc.Graph()
    g.add_layer("Block", name="b")
    assert g.specs["b"].slots.names == ("inputs", "padding_mask")


def test_several_tensors_in_one_keyword_are_one_named_slot_each():
    """Issue 24: initial_state=[h, c] fills slots initial_state__0, initial_state__1, given
    back to the call as the list."""
    x = keras.Input((3, 2))
    h, c = keras.Input((4,)), keras.Input((4,))
    model = keras.Model([x, h, c], keras.layers.LSTM(4, name="lstm")(x, initial_state=[h, c]))
    g = ok(kc.Graph.from_model(model))
    assert g.specs["lstm"].slots.names == ("inputs", "initial_state__0", "initial_state__1")
    values = [np.random.default_rng(0).random(s).astype("float32") for s in
              ((2, 3, 2), (2, 4), (2, 4))]
    np.testing.assert_allclose(keras.ops.convert_to_numpy(g.model(values)),
                               keras.ops.convert_to_numpy(model(values)), rtol=1e-5, atol=1e-6)
    assert "initial_state=[" in g.to_code()


def test_a_mask_keras_fills_in_itself_imports_with_the_operation_that_makes_it():
    x = keras.Input((5,), dtype="int32", name="x")
    e = keras.layers.Embedding(10, 4, mask_zero=True, name="emb")(x)
    model = keras.Model(x, keras.layers.LSTM(3, name="lstm")(e))
    g = ok(kc.Graph.from_model(model))
    assert "mask" in g.specs["lstm"].slots.names and violations(g) == []
    data = np.array([[1, 2, 0, 0, 0], [3, 4, 5, 0, 0]])
    np.testing.assert_allclose(keras.ops.convert_to_numpy(g.model(data)),
                               keras.ops.convert_to_numpy(model(data)), atol=1e-5)
