"""Issue 10: any real Keras model imports: training defaults, Keras's own layers, keras.ops nodes,
registered custom layers, dict inputs; the rest refused in one sentence."""

import re
import warnings

import keras
import numpy as np
import pytest
from support import ok

import kerascanvas as kc


def same_outputs(a, b, inputs):
    for x, y in zip(keras.tree.flatten(a(inputs)), keras.tree.flatten(b(inputs))):
        np.testing.assert_allclose(keras.ops.convert_to_numpy(x), keras.ops.convert_to_numpy(y), rtol=1e-5, atol=1e-6)


def test_a_call_keras_filled_with_its_signature_default_imports():
    # RandomFlip.call(inputs, training=True): Keras stores training=True in the node
    g = kc.Graph()
    g.add_input((8, 8, 3), name="image")
    g.add_layer("RandomFlip")
    g.add_layer("Resizing", height=4, width=4)
    g.connect("image", "random_flip")
    g.connect("random_flip", "resizing")
    again = ok(kc.Graph.from_model(g.model))
    assert list(again.layers) == ["image", "random_flip", "resizing"]
    namespace = {}
    exec(g.to_code(), namespace)  # noqa: S102 - the test runs the export
    assert list(ok(kc.Graph.from_model(namespace["model"])).layers) == list(again.layers)


def test_a_training_argument_the_caller_chose_is_kept_as_a_call_setting():
    x = keras.Input((4,))
    model = keras.Model(x, keras.layers.Dropout(0.5, name="drop")(x, training=True))
    g = kc.Graph.from_model(model)
    assert g.call_settings("drop") == {"training": True}
    assert re.search(r"= drop\(\w+, training=True\)", g.to_code())


def test_dict_inputs_stay_dict_inputs(tmp_path):
    wide, deep = keras.Input((3,), name="wide"), keras.Input((2,), name="deep")
    both = keras.layers.Concatenate()([wide, keras.layers.Dense(4)(deep)])
    model = keras.Model({"wide": wide, "deep": deep}, keras.layers.Dense(1)(both))
    g = ok(kc.Graph.from_model(model))
    assert g.dict_inputs and isinstance(g.model._inputs_struct, dict)
    batch = {"wide": np.ones((2, 3), "float32"), "deep": np.ones((2, 2), "float32")}
    same_outputs(g.model, model, batch)
    assert 'inputs={"deep": deep, "wide": wide}' in g.to_code()
    namespace = {}
    exec(g.to_code(), namespace)  # noqa: S102 - the test runs the export
    assert isinstance(namespace["model"]._inputs_struct, dict)
    g.save(tmp_path / "m.kc")
    assert kc.Graph.load(tmp_path / "m.kc").dict_inputs
    g.undo()
    assert not g.dict_inputs


def test_a_functional_subclass_imports_as_its_graph_and_says_so():
    class Classifier(keras.Model):
        pass

    x = keras.Input((4,), name="x")
    model = Classifier(x, keras.layers.Dense(2)(x))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # said in g.notes and on the canvas, never printed red
        g = ok(kc.Graph.from_model(model))
    assert len(g.notes) == 1 and "subclass of Functional" in g.notes[0]
    assert g.state()["notes"] == list(g.notes)
    same_outputs(g.model, model, np.ones((2, 4), "float32"))


def test_a_subclassed_model_is_refused_in_one_sentence():
    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(2)

        def call(self, x):
            return self.dense(x)

    with pytest.raises(kc.EditError, match="subclassed model"):
        kc.Graph.from_model(Net())


def test_a_keras_file_with_ops_and_a_registered_layer_loads(tmp_path):
    from corpus_models import vae_encoder

    from kerascanvas.kinds import custom

    custom.unregister("Sampling")  # other tests may have registered it (trust_custom=True)
    model = vae_encoder()
    model.save(tmp_path / "vae.keras")
    with pytest.raises(kc.EditError, match=r"kc.register\(Sampling\)"):
        kc.Graph.load_keras(tmp_path / "vae.keras")
    g = ok(kc.Graph.load_keras(tmp_path / "vae.keras", trust_custom=True))
    same_outputs(g.model, model, np.random.rand(2, 28, 28, 1).astype("float32"))
