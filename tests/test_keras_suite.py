"""Issue 24: every Functional/Sequential model Keras's own test suite builds (tests/
keras_suite_models.py) imports exactly, or is refused by design with kerascanvas's own message.

For each model: from_model (trusted, as its author would) -> the invariants hold -> g.model gives
the original's outputs, in the original's structure, on the same inputs -> to_code() runs and
rebuilds the same operations, parameters, input and output shapes -> save/load gives the same
outputs -> the mirrored state serializes as JSON.
"""

import json
import warnings

import keras
import keras_suite_models as suite
import numpy as np
import pytest
from support import ok, rebuild

import kerascanvas as kc
from kerascanvas.kinds import custom


def pack(model, values):
    """values (model.inputs order) in the structure the model was built with."""
    return keras.tree.pack_sequence_as(suite.functional(model)._inputs_struct, values)


def run(model, values):
    with warnings.catch_warnings():  # Keras warns for dicts keyed unlike their Inputs
        warnings.simplefilter("ignore")
        out = model(pack(model, values), training=False)
    return {path: keras.ops.convert_to_numpy(y)
            for path, y in keras.tree.flatten_with_path(out)}


def assert_same(got, expected):
    assert list(got) == list(expected)  # the same structure: paths and order
    for path, y in expected.items():
        assert got[path].shape == y.shape, path
        np.testing.assert_allclose(got[path], y, rtol=1e-5, atol=1e-5, err_msg=str(path))


def trusted_import(model):
    lambdas = [kc.register(layer) for layer in model.layers
               if isinstance(layer, keras.layers.Lambda)]
    try:
        return ok(kc.Graph.from_model(model, trust_custom=True)), lambdas
    except BaseException:
        for name in lambdas:
            custom.unregister(name)
        raise


def round_trip(model, tmp_path):
    values = suite.sample_inputs(model)
    expected = run(model, values)
    g, lambdas = trusted_import(model)
    try:
        assert g.model is not None, g.problems
        assert_same(run(g.model, values), expected)
        rebuilt = rebuild(g.to_code())
        assert len(rebuilt.operations) == len(g.model.operations)
        assert rebuilt.count_params() == g.model.count_params() == model.count_params()
        assert [tuple(t.shape) for t in rebuilt.inputs] == \
            [tuple(t.shape) for t in suite.functional(model).inputs]
        assert [tuple(t.shape) for t in rebuilt.outputs] == \
            [tuple(t.shape) for t in g.model.outputs]
        path = tmp_path / "model.kc"
        g.save(path)
        loaded = ok(kc.Graph.load(path))
        assert_same(run(loaded.model, values), expected)
        json.dumps(g.state())
    finally:
        for name in lambdas:
            custom.unregister(name)
    return g


@pytest.mark.parametrize("make", suite.MODELS, ids=lambda f: f.__name__)
def test_keras_suite_model_round_trips(make, tmp_path):
    round_trip(make(), tmp_path)


@pytest.mark.parametrize("make, why", suite.REFUSED, ids=[f.__name__ for f, _ in suite.REFUSED])
def test_refused_by_design_saying_why(make, why):
    with pytest.raises(kc.EditError, match=why):
        kc.Graph.from_model(make(), trust_custom=True)


def test_no_import_raises_anything_but_a_refusal():
    """The whole corpus untrusted (trusted, it is imported above): an import gives a Graph or
    kerascanvas's own EditError, which says what to do."""
    refused = 0
    for make in suite.MODELS + [f for f, _ in suite.REFUSED]:
        try:
            kc.Graph.from_model(make())
        except kc.EditError as e:
            refused += 1
            assert str(e)
    assert refused >= 1  # the classes of one's own, untrusted


def test_corpus_covers_the_keras_test_files():
    assert len(suite.MODELS) >= 100
    assert len(suite.REFUSED) >= 2


def test_a_trusted_layer_with_an_optional_tensor_argument_can_be_wired():
    """call(x, y=None): y is a named slot of its box, drawn as any other edge."""
    name = kc.register(suite.OptionalInputLayer)
    try:
        g = kc.Graph()
        g.add_input((2,), name="x")
        g.add_input((2,), name="y")
        box = g.add_layer(name)
        g.connect("x", box)
        g.connect("y", box, slot=1)
        assert g.model is not None, g.problems
        x, y = np.ones((2, 2), "float32"), np.full((2, 2), 2.0, "float32")
        np.testing.assert_allclose(keras.ops.convert_to_numpy(g.model([x, y])), x + y)
        assert "y=y" in g.to_code()
    finally:
        custom.unregister(name)


def test_return_attention_scores_drawn_gives_a_second_port():
    g = kc.Graph()
    g.add_input((3, 4), name="x")
    g.add_layer("MultiHeadAttention", name="mha", num_heads=2, key_dim=2)
    g.connect("x", "mha", slot=0)
    g.connect("x", "mha", slot=1)
    assert len(g.model.outputs) == 1
    g.configure_call("mha", 0, return_attention_scores=True)
    assert [tuple(t.shape) for t in g.model.outputs] == [(None, 3, 4), (None, 2, 3, 3)]
    assert "return_attention_scores=True" in g.to_code()
