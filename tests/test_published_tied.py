"""Models as published, the next batch (issue 42): a custom layer called with one dict or list
of tensors, and a layer tied across a nested model and the outside (tied embeddings)."""

import json

import keras
import numpy as np
import pytest
from keras import ops
from support import ok

import kerascanvas as kc
from kerascanvas.kinds import calls, custom
from kerascanvas.network.invariants import violations


class Selection(keras.layers.Layer):
    """Picks features by name, as structured-data examples write it: one dict of tensors."""

    def call(self, features):
        return ops.concatenate([features["age"] * 2.0, features["income"]], axis=-1)


class Pair(keras.layers.Layer):
    """One list (or tuple) of tensors, unpacked in the call (as a VAE's Sampling is)."""

    def call(self, inputs):
        first, second = inputs
        return first - second * 3.0


def selection():
    # the dict written in an order that is not sorted: the call keeps it
    income, age = keras.Input((2,), name="income"), keras.Input((1,), name="age")
    picked = Selection(name="sel")({"income": income, "age": age})
    return keras.Model([income, age], keras.layers.Dense(2, name="head")(picked))


def pair_list():
    a, b = keras.Input((3,), name="a"), keras.Input((3,), name="b")
    return keras.Model([a, b], Pair(name="pair")([a, b]))


def pair_tuple():
    a, b = keras.Input((3,), name="a"), keras.Input((3,), name="b")
    return keras.Model([a, b], Pair(name="pair")((b, a)))


def _same(a, b):
    np.testing.assert_allclose(keras.ops.convert_to_numpy(a), keras.ops.convert_to_numpy(b),
                               atol=1e-5)


def _structure(value):
    """A call's arguments with every tensor replaced by its input's name."""
    if isinstance(value, dict):
        return (dict, [(k, _structure(v)) for k, v in value.items()])
    if isinstance(value, (list, tuple)):
        return (type(value), [_structure(v) for v in value])
    return value._keras_history.operation.name


@pytest.fixture
def forget_trusted():
    before = {*custom.registered(), *custom.trusted()}
    yield
    for name in {*custom.registered(), *custom.trusted()} - before:
        custom.unregister(name)


@pytest.mark.parametrize("make", [selection, pair_list, pair_tuple])
def test_a_custom_layer_called_with_one_dict_or_list_of_tensors_imports_exactly(
        make, tmp_path, forget_trusted):
    model = make()
    layer = model.layers[-1] if make is not selection else model.get_layer("sel")
    g = ok(kc.Graph.from_model(model, trust_custom=True))
    assert g.model is not None and g.problems == [] and violations(g) == []
    data = [np.random.rand(2, *t.shape[1:]).astype("float32") for t in model.inputs]
    _same(g.model(data), model(data))
    expected = _structure(layer._inbound_nodes[0].arguments.args)
    made = g.model.get_layer(layer.name)._inbound_nodes[0]
    assert _structure(made.arguments.args) == expected  # the same dict (its keys in order)
    json.dumps(g.state())  # the state the browser gets

    code = g.to_code()
    written = {selection: 'sel({"income": income, "age": age})', pair_list: "pair([a, b])",
               pair_tuple: "pair((b, a))"}[make]
    assert written in code
    scope = {"Selection": Selection, "Pair": Pair}
    exec(code, scope)  # noqa: S102 - the export runs
    again = scope["model"]
    assert [lay.name for lay in again.layers] == [lay.name for lay in model.layers]
    assert again.count_params() == model.count_params()
    assert [tuple(t.shape) for t in again.outputs] == [tuple(t.shape) for t in model.outputs]
    assert _structure(again.get_layer(layer.name)._inbound_nodes[0].arguments.args) == expected
    again.set_weights(model.get_weights())
    _same(again(data), model(data))

    g.save(tmp_path / "k.kc")
    loaded = ok(kc.Graph.load(tmp_path / "k.kc"))
    _same(loaded.model(data), model(data))
    node = loaded.model.get_layer(layer.name)._inbound_nodes[0]
    assert _structure(node.arguments.args) == expected
    assert violations(loaded) == []


@pytest.mark.parametrize("bad", [{"keys": [1, 2]}, {"keys": ["a", "a"]}, {"keys": "ab"},
                                 {"tuple": "yes"}, {"keys": ["x" * 101]}])
def test_malformed_container_keys_from_a_file_are_refused(bad):
    with pytest.raises(kc.EditError, match="keys|tuple"):
        calls.CallArgs.from_json(bad, "layer 'sel'")


# ----- a layer tied across a nested model and the outside ---------------------------------------

class TiedEmbedding(keras.layers.Embedding):
    """A token embedding that also projects back onto the vocabulary (reverse=True), as
    keras_hub's ReversibleEmbedding does for a causal LM's logits."""

    def call(self, inputs, reverse=False):
        if reverse:
            return ops.matmul(inputs, ops.transpose(self.embeddings))
        return super().call(inputs)

    def compute_output_spec(self, inputs, reverse=False):
        if reverse:
            return keras.KerasTensor((*inputs.shape[:-1], self.input_dim), "float32")
        return super().compute_output_spec(inputs)


def tied_in_functional():
    embedding = TiedEmbedding(20, 4, name="token_embedding")
    ids = keras.Input((5,), dtype="int32", name="ids")
    backbone = keras.Model(ids, keras.layers.Dense(4, name="mix")(embedding(ids)),
                           name="backbone")
    tokens = keras.Input((5,), dtype="int32", name="tokens")
    return keras.Model(tokens, embedding(backbone(tokens), reverse=True), name="lm")


def tied_in_sequential():
    embedding = TiedEmbedding(20, 4, name="token_embedding")
    backbone = keras.Sequential([keras.Input((5,), dtype="int32", name="ids"), embedding,
                                 keras.layers.Dense(4, name="mix")], name="backbone")
    tokens = keras.Input((5,), dtype="int32", name="tokens")
    return keras.Model(tokens, embedding(backbone(tokens), reverse=True), name="lm")


def _one_embedding(model):
    found = [w for w in model.weights if w.path.endswith("embeddings")]
    assert len(found) == 1, [w.path for w in model.weights]  # one variable, not a copy
    return found[0]


@pytest.mark.parametrize("make", [tied_in_functional, tied_in_sequential])
def test_an_embedding_tied_across_a_nested_model_stays_one_variable(make, tmp_path,
                                                                    forget_trusted):
    model = make()
    g = ok(kc.Graph.from_model(model, trust_custom=True))
    assert g.model is not None and g.problems == [] and violations(g) == []
    assert g.calls("token_embedding") == 2
    assert g.call_settings("token_embedding", 1) == {"reverse": True}
    data = np.random.randint(0, 20, (3, 5)).astype("int32")
    _same(g.model(data), model(data))
    assert g.model.count_params() == model.count_params()
    assert len(g.model.weights) == len(model.weights)

    code = g.to_code()
    scope = {"TiedEmbedding": TiedEmbedding}
    exec(code, scope)  # noqa: S102 - the export runs
    again = scope["model"]
    assert again.count_params() == model.count_params()
    assert [tuple(t.shape) for t in again.outputs] == [tuple(t.shape) for t in model.outputs]
    again.set_weights(g.model.get_weights())
    _same(again(data), model(data))

    g.save(tmp_path / "tied.kc")
    loaded = ok(kc.Graph.load(tmp_path / "tied.kc"))
    _same(loaded.model(data), model(data))
    _one_embedding(loaded.model)  # still tied after a load

    # a fit moves both uses alike: the lookup and the projection read the one variable
    variable = _one_embedding(g.model)
    before = keras.ops.convert_to_numpy(variable.value).copy()
    g.model.compile(optimizer=keras.optimizers.SGD(0.5), loss="mse")
    g.model.fit(data, np.random.rand(3, 5, 20).astype("float32"), epochs=1, verbose=0)
    after = keras.ops.convert_to_numpy(variable.value)
    assert not np.allclose(before, after)
    layer = g.keras_layer("token_embedding")
    _same(layer.embeddings, after)
    _same(layer(data[:1]), np.take(after, data[:1], axis=0))
