"""Import: any Functional or Sequential model of catalog layers becomes a drawing, weights included."""

import keras
import numpy as np
import pytest
from support import history, ok

import kerascanvas as kc


def same_weights(a, b):
    return all(np.array_equal(x, y) for x, y in zip(a.get_weights(), b.get_weights()))


def test_shared_layers_multi_outputs_and_outside_calls():
    left, right = keras.Input((5, 3), name="left"), keras.Input((5, 3), name="right")
    lstm = keras.layers.LSTM(4, return_state=True, name="lstm")
    lstm(keras.Input((5, 3)))  # a call outside the model: its node is not the model's
    out_l, h_l, _ = lstm(left)
    _, _, c_r = lstm(right)
    added = keras.layers.Add(name="add")([h_l, c_r])
    model = keras.Model([left, right], [out_l, added], name="twins")
    g = ok(kc.Graph.from_model(model))
    assert g.name == "twins" and g.calls("lstm") == 2  # renumbered: the model's nodes 0 and 1
    assert history(g, "add", 0, 0) == ("lstm", 0, 1) and history(g, "add", 0, 1) == ("lstm", 1, 2)
    assert g.model.get_config() == model.get_config()
    assert same_weights(g.model, model)
    x = np.random.rand(2, 5, 3).astype("float32")
    for a, b in zip(g.model.predict([x, x], verbose=0), model.predict([x, x], verbose=0)):
        np.testing.assert_allclose(a, b, rtol=1e-5)


def test_sequential_imports_and_undo_takes_it_back_at_once():
    model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(4, name="d1"),
                              keras.layers.Dropout(0.2, name="drop"), keras.layers.Dense(2, name="d2")])
    g = ok(kc.Graph.from_model(model))
    assert list(g.layers)[1:] == ["d1", "drop", "d2"]
    assert same_weights(g.model, model) and g.model.count_params() == model.count_params()
    g.undo()
    assert dict(g.layers) == {}


class Custom(keras.layers.Layer):
    def call(self, x):
        return x


@pytest.mark.parametrize("layer,message", [
    (keras.layers.Lambda(lambda t: t * 2, name="double"), "'double' is a Lambda"),
    (Custom(name="mine"), "'mine' is a .*Custom"),
])
def test_layers_outside_the_catalog_are_refused_by_name(layer, message):
    x = keras.Input((3,))
    model = keras.Model(x, keras.layers.Dense(2)(layer(x)))
    with pytest.raises(kc.EditError, match=message):
        kc.Graph.from_model(model)


def test_nested_models_are_refused_with_a_clear_message():
    inner = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)], name="inner")
    x = keras.Input((3,))
    with pytest.raises(kc.EditError, match="nested model"):
        kc.Graph.from_model(keras.Model(x, inner(x)))


def test_load_keras_file(tmp_path):
    x = keras.Input((4,), name="x")
    model = keras.Model(x, keras.layers.Dense(3, name="head")(x))
    path = tmp_path / "m.keras"
    model.save(path)
    g = kc.Graph.load_keras(path)
    assert same_weights(g.model, model)
    with pytest.raises(kc.EditError, match="no file"):
        kc.Graph.load_keras(tmp_path / "missing.keras")
    (tmp_path / "bad.keras").write_bytes(b"not a zip")
    with pytest.raises(kc.EditError, match="could not load"):
        kc.Graph.load_keras(tmp_path / "bad.keras")


@pytest.mark.parametrize("name", ["ResNet50", "MobileNetV2", "DenseNet121", "InceptionV3",
                                  "EfficientNetB0", "NASNetMobile"])
def test_applications_import_export_and_rebuild_identical(name):
    model = getattr(keras.applications, name)(weights=None)
    g = kc.Graph.from_model(model)
    assert g.model.get_config() == model.get_config()
    assert same_weights(g.model, model)
    namespace = {}
    exec(g.to_code(), namespace)  # noqa: S102 - the test runs the export
    again = namespace["model"]
    assert again.get_config() == model.get_config()
    assert again.count_params() == model.count_params()
