"""Objects layers hold that are not layers: a user's Regularizer, Initializer, Constraint class
and activation function, trusted by kc.register or trust_custom=True (issue 42)."""

import keras
import numpy as np
import pytest
from support import ok

import kerascanvas as kc
from kerascanvas.kinds import custom


@keras.saving.register_keras_serializable("t42")
class MyReg(keras.regularizers.Regularizer):
    def __init__(self, strength=0.01):
        self.strength = strength

    def __call__(self, x):
        return self.strength * keras.ops.sum(keras.ops.abs(x))

    def get_config(self):
        return {"strength": self.strength}


@keras.saving.register_keras_serializable("t42")
def swishy(x):
    return x * keras.ops.sigmoid(x)


@keras.saving.register_keras_serializable("t42")
class MyInit(keras.initializers.Initializer):
    def __call__(self, shape, dtype=None):
        return keras.ops.ones(shape, dtype=dtype) * 0.1


class MyCon(keras.constraints.Constraint):  # not registered with Keras
    def __call__(self, w):
        return keras.ops.clip(w, -1, 1)


CASES = {  # setting -> (the object to register, Dense arguments, what the code writes)
    "regularizer": (MyReg, {"kernel_regularizer": MyReg(strength=0.05)},
                    "kernel_regularizer=MyReg(strength=0.05)"),
    "activation": (swishy, {"activation": swishy}, "activation=swishy"),
    "initializer": (MyInit, {"kernel_initializer": MyInit()}, "kernel_initializer=MyInit()"),
    "constraint": (MyCon, {"kernel_constraint": MyCon()}, "kernel_constraint=MyCon()"),
}
SCOPE = {"MyReg": MyReg, "swishy": swishy, "MyInit": MyInit, "MyCon": MyCon}


def model_with(**settings):
    inputs = keras.Input((4,))
    return keras.Model(inputs, keras.layers.Dense(3, name="d", **settings)(inputs))


def registered_name(obj):
    return keras.saving.get_registered_name(obj)


def check_works(g, model, written, tmp_path):
    data = np.random.rand(2, 4).astype("float32")
    expected = keras.ops.convert_to_numpy(model(data))
    np.testing.assert_allclose(keras.ops.convert_to_numpy(g.model(data)), expected, atol=1e-6)
    code = g.to_code()
    assert written in code
    scope = dict(SCOPE)
    exec(code, scope)  # noqa: S102 - the export runs
    assert scope["model"].get_layer("d").get_config() == model.get_layer("d").get_config()
    g.save(tmp_path / "m.kc")
    h = ok(kc.Graph.load(tmp_path / "m.kc"))
    h.model.set_weights(model.get_weights())
    np.testing.assert_allclose(keras.ops.convert_to_numpy(h.model(data)), expected, atol=1e-6)
    return h


@pytest.mark.parametrize("case", list(CASES))
def test_refused_without_trust_naming_it_and_kc_register(case):
    obj, settings, _ = CASES[case]
    with pytest.raises(kc.EditError, match=r"kc\.register") as refused:
        kc.Graph.from_model(model_with(**settings))
    assert obj.__name__ in str(refused.value)


@pytest.mark.parametrize("case", list(CASES))
def test_trust_custom_trusts_what_layers_hold(case, tmp_path):
    obj, settings, written = CASES[case]
    model = model_with(**settings)
    try:
        g = ok(kc.Graph.from_model(model, trust_custom=True))
        assert custom.held()[registered_name(obj)] is obj
        check_works(g, model, written, tmp_path)
    finally:
        custom.unregister(registered_name(obj))
    assert registered_name(obj) not in custom.held()


@pytest.mark.parametrize("case", list(CASES))
def test_kc_register_trusts_it(case, tmp_path):
    obj, settings, written = CASES[case]
    model = model_with(**settings)
    known_to_keras = keras.saving.get_registered_object(registered_name(obj))
    try:
        assert kc.register(obj) == registered_name(obj)
        # trusted by the canvas, not put in Keras's global custom objects (any load_model)
        assert keras.saving.get_registered_object(registered_name(obj)) is known_to_keras
        g = ok(kc.Graph.from_model(model))
        check_works(g, model, written, tmp_path)
    finally:
        custom.unregister(registered_name(obj))


@pytest.mark.parametrize("case", list(CASES))
def test_a_file_naming_it_needs_it_registered_again(case, tmp_path):
    obj, settings, _ = CASES[case]
    try:
        kc.register(obj)
        ok(kc.Graph.from_model(model_with(**settings))).save(tmp_path / "m.kc")
    finally:
        custom.unregister(registered_name(obj))
    with pytest.raises(kc.EditError, match=rf"kc\.register\({obj.__name__}\)"):
        kc.Graph.load(tmp_path / "m.kc")
    try:  # registered again in this session, the file loads
        kc.register(obj)
        ok(kc.Graph.load(tmp_path / "m.kc"))
    finally:
        custom.unregister(registered_name(obj))
    # (a class Keras itself does not know stays unknown to Keras once unregistered)
    assert (keras.saving.get_registered_object(registered_name(obj)) is obj) == (obj is not MyCon)


def test_a_lambdas_function_is_not_trusted_by_trust_custom():
    inputs = keras.Input((4,))
    model = keras.Model(inputs, keras.layers.Lambda(swishy, name="l")(inputs))
    with pytest.raises(kc.EditError, match="Lambda"):
        kc.Graph.from_model(model, trust_custom=True)
    assert registered_name(swishy) not in custom.held()


def test_an_instance_registers_its_class(tmp_path):
    """kc.register(MyReg(0.05)), as one holds it in hand: its class is what a config names."""
    model = model_with(kernel_regularizer=MyReg(strength=0.05))
    try:
        assert kc.register(MyReg(strength=0.05)) == registered_name(MyReg)
        assert custom.held()[registered_name(MyReg)] is MyReg
        check_works(ok(kc.Graph.from_model(model)), model, "kernel_regularizer=MyReg(strength=0.05)",
                    tmp_path)
    finally:
        custom.unregister(registered_name(MyReg))


def test_register_refuses_what_layers_cannot_name():
    with pytest.raises(TypeError, match="def"):
        kc.register(lambda x: x)
    with pytest.raises(TypeError, match="Keras's serialization"):
        kc.register(MyReg, name="Other")
    with pytest.raises(TypeError, match="Regularizer"):
        kc.register(3)


def lower_only(x):
    import tensorflow as tf

    return tf.strings.lower(x)


def test_text_vectorization_with_a_standardize_function_of_ones_own():
    """TextVectorization(standardize=fn) as keras.io's text examples write it: the function is
    trusted like an activation, the config holds it as Keras saves it, the code names it."""
    pytest.importorskip("tensorflow")
    if keras.backend.backend() != "tensorflow":
        pytest.skip("TextVectorization's string ops run under TensorFlow only")
    tv = keras.layers.TextVectorization(max_tokens=20, output_sequence_length=4,
                                        standardize=lower_only, name="tv")
    tv.adapt(["Hello World", "hello there"])
    text = keras.Input((), dtype="string", name="text")
    model = keras.Model(text, tv(text))
    before = {*custom.registered(), *custom.trusted(), *custom.held()}
    try:
        with pytest.raises(kc.EditError, match="standardize.*trust"):
            kc.Graph.from_model(model)
        g = kc.Graph.from_model(model, trust_custom=True)
        assert g.layers["tv"]["config"]["standardize"]["class_name"] == "function"
        code = g.to_code()
        assert "standardize=lower_only" in code
        scope = {"lower_only": lower_only}
        exec(code, scope)  # noqa: S102 - the export runs
        again = scope["model"].get_layer("tv")
        again.set_vocabulary(tv.get_vocabulary())  # (an adapted vocabulary is the user's data)
        data = np.array(["HELLO there", "world"])
        np.testing.assert_array_equal(np.asarray(scope["model"](data)), np.asarray(model(data)))
    finally:
        for name in {*custom.registered(), *custom.trusted(), *custom.held()} - before:
            custom.unregister(name)
