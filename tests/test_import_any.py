"""Issue 10: any real Keras model imports: training defaults, Keras's own layers, keras.ops nodes,
registered custom layers, dict inputs; the rest refused in one sentence."""

import keras
import numpy as np
import pytest
from support import ok

import kerascanvas as kc


def same_outputs(a, b, inputs):
    for x, y in zip(keras.tree.flatten(a(inputs)), keras.tree.flatten(b(inputs))):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-5, atol=1e-6)


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


def test_a_training_argument_the_caller_chose_is_still_refused():
    x = keras.Input((4,))
    model = keras.Model(x, keras.layers.Dropout(0.5, name="drop")(x, training=True))
    with pytest.raises(kc.EditError, match="'drop' .*training="):
        kc.Graph.from_model(model)
