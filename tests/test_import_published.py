"""Classes of one's own as people publish them, trust reaching nested models, trusted Lambdas
whose default kind name is taken (issue 23)."""

import warnings

import keras
import numpy as np
import pytest
from support import ok

import kerascanvas as kc
from kerascanvas.kinds import custom
from kerascanvas.network.invariants import violations


class TokenAndPositionEmbedding(keras.layers.Layer):
    """keras.io's text classification with Transformer, as published: no **kwargs, no
    get_config."""

    def __init__(self, maxlen, vocab_size, embed_dim):
        super().__init__()
        self.token_emb = keras.layers.Embedding(input_dim=vocab_size, output_dim=embed_dim)
        self.pos_emb = keras.layers.Embedding(input_dim=maxlen, output_dim=embed_dim)

    def call(self, x):
        positions = keras.ops.arange(start=0, stop=keras.ops.shape(x)[-1], step=1)
        return self.token_emb(x) + self.pos_emb(positions)


def embedding_model():
    inputs = keras.Input(shape=(20,), name="tokens")
    x = TokenAndPositionEmbedding(20, 100, 8)(inputs)
    x = keras.layers.GlobalAveragePooling1D(name="pool")(x)
    return keras.Model(inputs, keras.layers.Dense(2, name="head")(x))


def test_a_class_as_published_is_made_from_its_own_arguments(tmp_path):
    model = embedding_model()
    g = ok(kc.Graph.from_model(model, trust_custom=True))
    (name,) = [n for n, s in g.specs.items() if s.class_name == "TokenAndPositionEmbedding"]
    assert violations(g) == []
    shown = {entry["name"]: entry for entry in g.state()["layers"]}
    assert shown[name]["made_from"] == "arguments" and shown["head"]["made_from"] == "config"
    data = np.random.randint(0, 100, (2, 20))
    np.testing.assert_allclose(keras.ops.convert_to_numpy(g.model(data)),
                               keras.ops.convert_to_numpy(model(data)), atol=1e-5)
    code = g.to_code()
    assert "TokenAndPositionEmbedding(maxlen=20, vocab_size=100, embed_dim=8)" in " ".join(
        code.split()).replace("( ", "(").replace(" )", ")")
    scope = {"TokenAndPositionEmbedding": TokenAndPositionEmbedding}
    exec(code, scope)  # noqa: S102 - the export runs
    assert scope["model"].count_params() == model.count_params()
    g.save(tmp_path / "t.kc")
    h = ok(kc.Graph.load(tmp_path / "t.kc"))
    np.testing.assert_allclose(keras.ops.convert_to_numpy(h.model(data)),
                               keras.ops.convert_to_numpy(model(data)), atol=1e-5)
    g.configure(name, embed_dim=4)  # its own arguments stay editable
    assert g.keras_layer(name).token_emb.output_dim == 4 and violations(g) == []


class Broken(keras.layers.Layer):
    """A class whose get_config() fails (KerasHub's LlamaTransformerDecoder does so)."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.dense = keras.layers.Dense(units)

    def get_config(self):
        raise AttributeError("no attribute 'rope_scaling_factor'")

    def call(self, x):
        return self.dense(x)


def broken_model():
    x = keras.Input((3,), name="x")
    return keras.Model(x, keras.layers.Dense(2, name="head")(Broken(4, name="broken")(x)))


def test_a_layer_its_config_cannot_make_is_kept_as_the_object_itself(tmp_path):
    model = broken_model()
    g = ok(kc.Graph.from_model(model, trust_custom=True))
    try:
        assert g.layers["broken"]["class_name"] == "Broken_broken"
        shown = {entry["name"]: entry for entry in g.state()["layers"]}
        assert shown["broken"]["made_from"] == "object"
        live = g.keras_layer("broken")
        assert live is not model.get_layer("broken") and len(live._inbound_nodes) == 1
        assert live.dense.kernel is model.get_layer("broken").dense.kernel  # its weights
        data = np.random.rand(2, 3)
        np.testing.assert_allclose(keras.ops.convert_to_numpy(g.model(data)),
                                   keras.ops.convert_to_numpy(model(data)), atol=1e-6)
        code = g.to_code()  # the arguments it was made with, as Keras recorded them (issue 42)
        assert 'Broken(units=4, name="broken")' in code
        scope = {"Broken": Broken}
        exec(code, scope)  # noqa: S102 - the export runs
        assert scope["model"].count_params() == model.count_params()
        g.save(tmp_path / "b.kc")
        h = ok(kc.Graph.load(tmp_path / "b.kc"))
        np.testing.assert_allclose(keras.ops.convert_to_numpy(h.model(data)),
                                   keras.ops.convert_to_numpy(model(data)), atol=1e-6)
    finally:
        custom.unregister("Broken_broken")


def test_a_registered_class_whose_get_config_breaks_is_refused_by_kerascanvas():
    kc.register(Broken)
    try:
        with pytest.raises(kc.EditError, match="'broken' .*get_config\\(\\) raised AttributeError"):
            kc.Graph.from_model(broken_model())
    finally:
        custom.unregister("Broken")


class MixerBlock(keras.layers.Layer):
    """keras.io's MLP-Mixer layer (made small): a class of one's own in a nested Sequential."""

    def __init__(self, num_patches, hidden_units, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.mlp1 = keras.layers.Dense(num_patches)
        self.mlp2 = keras.layers.Dense(hidden_units)
        self.normalize = keras.layers.LayerNormalization(epsilon=1e-6)

    def call(self, inputs):
        x = self.normalize(inputs)
        x = keras.ops.transpose(self.mlp1(keras.ops.transpose(x, (0, 2, 1))), (0, 2, 1)) + inputs
        return x + self.mlp2(self.normalize(x))


def test_trust_reaches_classes_in_models_nested_at_any_depth(tmp_path):
    blocks = keras.Sequential([MixerBlock(6, 4), MixerBlock(6, 4)], name="blocks")
    inner_in = keras.Input((6, 4))
    inner = keras.Model(inner_in, blocks(inner_in), name="inner")
    x = keras.Input((6, 4), name="x")
    model = keras.Model(x, keras.layers.Dense(2, name="head")(inner(x)))
    custom.unregister("MixerBlock")
    with pytest.raises(kc.EditError, match="MixerBlock"):
        kc.Graph.from_model(model)
    g = ok(kc.Graph.from_model(model, trust_custom=True))
    data = np.random.rand(2, 6, 4)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(g.model(data)),
                               keras.ops.convert_to_numpy(model(data)), atol=1e-5)
    g.save(tmp_path / "m.kc")
    h = ok(kc.Graph.load(tmp_path / "m.kc"))
    np.testing.assert_allclose(keras.ops.convert_to_numpy(h.model(data)),
                               keras.ops.convert_to_numpy(model(data)), atol=1e-5)


def halve(t):
    return t / 2


def test_a_second_lambda_of_the_same_name_is_trusted_under_a_free_name():
    made = []
    for _ in range(2):
        x = keras.Input((3,))
        made.append(keras.Model(x, keras.layers.Lambda(halve, name="lambda")(x)))
    first = kc.register(made[0].get_layer("lambda"))
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            second = kc.register(made[1].get_layer("lambda"))
        assert (first, second) == ("Lambda_lambda", "Lambda_lambda_1")
        assert any("trusted as 'Lambda_lambda_1'" in str(w.message) for w in caught)
        assert kc.register(made[1].get_layer("lambda")) == "Lambda_lambda_1"  # the same again
        for model in made:
            ok(kc.Graph.from_model(model))
    finally:
        custom.unregister("Lambda_lambda")
        custom.unregister("Lambda_lambda_1")
