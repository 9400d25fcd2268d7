"""Models as published, the next batch (issue 42): calls whose first tensor goes by keyword."""

import io
import json
import zipfile

import keras
import keras_hub
import numpy as np
import pytest
from support import ok

import kerascanvas as kc
from kerascanvas.kinds import custom
from kerascanvas.network.invariants import violations


class Cross(keras.layers.Layer):
    """A cross-attention-like layer as people write it: two tensors, both named parameters."""

    def call(self, query, key):
        return query * 2.0 + key


def cross_by_keyword():
    a, b = keras.Input((4,), name="a"), keras.Input((4,), name="b")
    return keras.Model([a, b], Cross(name="cross")(query=a, key=b))


def decoder_by_keyword():
    x, e = keras.Input((6, 8), name="x"), keras.Input((5, 8), name="e")
    decoder = keras_hub.layers.TransformerDecoder(intermediate_dim=16, num_heads=2, name="dec")
    y = decoder(decoder_sequence=x, encoder_sequence=e)
    return keras.Model([x, e], keras.layers.Dense(3, name="head")(y))


def lstm_by_keyword():
    x = keras.Input((5, 3), name="x")
    return keras.Model(x, keras.layers.LSTM(4, name="lstm")(sequences=x))


def _same(a, b):
    np.testing.assert_allclose(keras.ops.convert_to_numpy(a), keras.ops.convert_to_numpy(b),
                               atol=1e-5)


@pytest.mark.parametrize("make", [cross_by_keyword, decoder_by_keyword, lstm_by_keyword])
def test_a_call_whose_first_tensor_goes_by_keyword_imports_exactly(make, tmp_path):
    before = {*custom.registered(), *custom.trusted()}
    try:
        model = make()
        g = ok(kc.Graph.from_model(model, trust_custom=True))
        assert g.model is not None and g.problems == [] and violations(g) == []
        data = [np.random.rand(2, *t.shape[1:]).astype("float32") for t in model.inputs]
        data = data if len(data) > 1 else data[0]
        _same(g.model(data), model(data))
        layer = model.layers[-1] if make is not decoder_by_keyword else model.get_layer("dec")
        node = g.model.get_layer(layer.name)._inbound_nodes[0]
        assert node.arguments.args == ()  # made again as it was made: by keyword only
        assert set(node.arguments.kwargs) >= set(layer._inbound_nodes[0].arguments.kwargs)
        code = g.to_code()
        first = {cross_by_keyword: "query=", decoder_by_keyword: "decoder_sequence=",
                 lstm_by_keyword: "sequences="}[make]
        assert first in code
        scope = {"Cross": Cross}
        exec(code, scope)  # noqa: S102 - the export runs
        again = scope["model"]
        assert again.count_params() == model.count_params()
        again.set_weights(model.get_weights())
        _same(again(data), model(data))
        g.save(tmp_path / "k.kc")
        _same(ok(kc.Graph.load(tmp_path / "k.kc")).model(data), model(data))
    finally:
        for name in {*custom.registered(), *custom.trusted()} - before:
            custom.unregister(name)


# ----- array constants in operations ------------------------------------------------------------

def mean_subtracted():
    """What keras.applications' preprocess_input does inside a model: `(x - mean) / std`."""
    x = keras.Input((2, 2, 3), name="x")
    mean = np.array([0.485, 0.456, 0.406], dtype="float32")
    std = np.array([0.229, 0.224, 0.225], dtype="float32")
    y = (x - mean) / std
    return keras.Model(x, keras.layers.Dense(2, name="head")(y))


def plus_positions():
    x = keras.Input((8,), name="x")
    return keras.Model(x, keras.layers.Dense(2, name="head")(x + np.arange(8)))


@pytest.mark.parametrize("make", [mean_subtracted, plus_positions])
def test_array_constants_are_carried_as_arrays(make, tmp_path):
    model = make()
    g = ok(kc.Graph.from_model(model))
    assert violations(g) == []
    data = np.random.rand(2, *model.inputs[0].shape[1:]).astype("float32")
    _same(g.model(data), model(data))
    arrays = [v["__array__"] for s in g.specs.values() for v in s.config.values()
              if isinstance(v, dict) and "__array__" in v]
    assert arrays and all(a[0] in ("float32", "int64") for a in arrays)  # dtype kept
    g.save(tmp_path / "a.kc")
    # in the file, the values are arrays of the weights part; the config names their entries
    with zipfile.ZipFile(tmp_path / "a.kc") as z:
        written = json.loads(z.read("kerascanvas.json"))
        with zipfile.ZipFile(io.BytesIO(z.read("weights.npz"))) as w:
            stored = {i.filename for i in w.infolist()}
    named = [v["__array__"] for layer in written["layers"] for v in layer["config"].values()
             if isinstance(v, dict) and "__array__" in v]
    assert len(named) == len(arrays) and all(isinstance(a[2], str) and f"{a[2]}.npy" in stored
                                             for a in named)
    loaded = ok(kc.Graph.load(tmp_path / "a.kc"))
    _same(loaded.model(data), model(data))
    assert [s.config for s in loaded.specs.values()] == [s.config for s in g.specs.values()]
    assert g.state()["layers"]  # the state carries it (as JSON)
    code = g.to_code()
    assert "import numpy as np" in code and "np.array([" in code
    scope = {}
    exec(code, scope)  # noqa: S102 - the export runs
    again = scope["model"]
    again.set_weights(model.get_weights())
    _same(again(data), model(data))


@pytest.mark.parametrize("bad", [["float32", [3], [1.0, 2.0]], ["object", [1], [1]],
                                 ["float32", [-1], []], "float32"])
def test_a_malformed_array_constant_from_a_file_is_refused_by_name(bad):
    from kerascanvas.kinds import ops

    with pytest.raises(kc.EditError, match="array constant"):
        ops.get("subtract").checked({"x2": {"__array__": bad}})


def _rewritten(path, change_document=None, change_arrays=None):
    """The saved file at path with its document and/or its weights archive changed."""
    with zipfile.ZipFile(path) as z:
        document = json.loads(z.read("kerascanvas.json"))
        arrays = dict(np.load(io.BytesIO(z.read("weights.npz"))))
    if change_document:
        change_document(document)
    if change_arrays:
        change_arrays(arrays)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("kerascanvas.json", json.dumps(document))
        z.writestr("weights.npz", buffer.getvalue())


def _constant_of(document):
    return next(v["__array__"] for layer in document["layers"] for v in layer["config"].values()
                if isinstance(v, dict) and "__array__" in v)


@pytest.mark.parametrize("spoil, says", [
    (lambda d, a: a.pop(_constant_of(d)[2]), "is not in its weights"),
    (lambda d, a: a.update({_constant_of(d)[2]: np.zeros(3, "float64")}), "config says"),
    (lambda d, a: a.update({_constant_of(d)[2]: np.zeros(4, "float32")}), "config says"),
    (lambda d, a: _constant_of(d).__setitem__(1, [10 ** 6]), "at most"),
    (lambda d, a: _constant_of(d).__setitem__(2, "l0_0"), "must be"),
])
def test_an_array_constant_a_file_names_wrongly_is_refused(spoil, says, tmp_path):
    g = ok(kc.Graph.from_model(mean_subtracted()))
    g.save(tmp_path / "a.kc")
    holder = {}
    _rewritten(tmp_path / "a.kc", lambda d: holder.setdefault("d", d),
               lambda a: spoil(holder["d"], a))
    with pytest.raises(kc.EditError, match=says):
        kc.Graph.load(tmp_path / "a.kc")


# ----- a trusted class its config cannot remake: kept as the object, by checking ----------------

class Patches(keras.layers.Layer):
    """get_config() holds a computed key __init__ does not take (keras.io's ViT examples)."""

    def __init__(self, patch_size, **kwargs):
        super().__init__(**kwargs)
        self.patch_size = patch_size

    def call(self, x):
        return x * 2.0

    def get_config(self):
        return {**super().get_config(), "patch_size": self.patch_size, "num_patches": 4}


class DropsName(keras.layers.Layer):
    """`super().__init__()`: the name given is dropped."""

    def __init__(self, units=3, **kwargs):
        super().__init__()
        self.units = units

    def build(self, shape):
        self.w = self.add_weight(shape=(shape[-1], self.units))

    def call(self, x):
        return x @ self.w

    def get_config(self):
        return {**super().get_config(), "units": self.units}


class Renames(keras.layers.Layer):
    def __init__(self, name=None, **kwargs):
        super().__init__(name=f"{name}_0" if name else None, **kwargs)

    def call(self, x):
        return x + 1.0


class HidesItsSize(keras.layers.Layer):
    """get_config() leaves out `units`: the same config remakes a kernel of the default size
    (caught by the remade layer's weights)."""

    def __init__(self, units=8, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, shape):
        self.kernel = self.add_weight(shape=(shape[-1], self.units), name="kernel")

    def call(self, x):
        return x @ self.kernel

    def get_config(self):
        return super().get_config()


class HidesItsScale(keras.layers.Layer):
    """get_config() leaves out `factor`: no weights, the same config, other outputs (caught by
    the probe batch)."""

    def __init__(self, factor=1.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def call(self, x):
        return x * self.factor

    def get_config(self):
        return super().get_config()


MADE = {Patches: lambda: Patches(2, name="mine"), HidesItsSize: lambda: HidesItsSize(3, name="mine"),
        HidesItsScale: lambda: HidesItsScale(3.0, name="mine")}


@pytest.mark.parametrize("cls", [Patches, DropsName, Renames, HidesItsSize, HidesItsScale])
def test_a_trusted_class_its_config_cannot_remake_is_kept_as_the_object(cls, tmp_path):
    before = {*custom.registered(), *custom.trusted()}
    try:
        x = keras.Input((8,), name="x")
        made = MADE[cls]() if cls in MADE else cls(name="mine")
        model = keras.Model(x, keras.layers.Dense(2, name="head")(made(x)))
        g = ok(kc.Graph.from_model(model, trust_custom=True))
        shown = {e["name"]: e for e in g.state()["layers"]}
        assert shown[made.name]["made_from"] == "object"  # its own name kept
        assert shown["head"]["made_from"] == "config"
        data = np.random.rand(2, 8).astype("float32")
        _same(g.model(data), model(data))
        g.save(tmp_path / "p.kc")
        _same(ok(kc.Graph.load(tmp_path / "p.kc")).model(data), model(data))
        code = g.to_code()  # its constructor, with the arguments it was made with
        scope = {cls.__name__: cls}
        exec(code, scope)  # noqa: S102 - the export runs
        again = scope["model"]
        assert again.count_params() == model.count_params()
        again.set_weights(model.get_weights())
        _same(again(data), model(data))
        if cls is Patches:  # (a class that drops or changes the name given cannot get it back)
            assert again.get_layer(made.name).name == made.name
    finally:
        for name in {*custom.registered(), *custom.trusted()} - before:
            custom.unregister(name)


def test_a_trusted_class_its_config_remakes_is_still_made_from_config():
    x = keras.Input((4,), name="x")
    model = keras.Model(x, Cross(name="cross")(x, x))
    before = {*custom.registered(), *custom.trusted()}
    try:
        g = ok(kc.Graph.from_model(model, trust_custom=True))
        assert {e["name"]: e for e in g.state()["layers"]}["cross"]["made_from"] == "config"
    finally:
        for name in {*custom.registered(), *custom.trusted()} - before:
            custom.unregister(name)


def test_numpy_scalars_in_a_config_come_in_as_python_numbers():
    x = keras.Input((8,), name="x")
    y = keras.layers.Dropout(np.float64(0.1), name="drop")(x)
    model = keras.Model(x, keras.layers.Dense(2, use_bias=np.bool_(True), name="head")(y))
    g = ok(kc.Graph.from_model(model))
    assert type(g.layers["drop"]["config"]["rate"]) is float
    assert type(g.layers["head"]["config"]["use_bias"]) is bool
    code = g.to_code()
    assert "np." not in code
    scope = {}
    exec(code, scope)  # noqa: S102 - runs without numpy imported
    assert scope["model"].count_params() == model.count_params()


# ----- adapted lookup layers keep their vocabulary ---------------------------------------------

def test_an_adapted_lookup_layer_keeps_its_vocabulary(tmp_path):
    """keras.io's structured-data and text examples adapt StringLookup, IntegerLookup and
    TextVectorization: the vocabulary lives in a table their config leaves out, so the canvas's
    layers looked up nothing ("Table not initialized"). The box's config now holds it."""
    pytest.importorskip("tensorflow")
    if keras.backend.backend() != "tensorflow":
        pytest.skip("lookup tables of string tensors run under TensorFlow only")
    tv = keras.layers.TextVectorization(max_tokens=20, output_sequence_length=4, name="tv")
    tv.adapt(["Hello World", "hello there"])
    sl = keras.layers.StringLookup(name="sl")
    sl.adapt(["a", "b", "b", "c"])
    il = keras.layers.IntegerLookup(name="il")
    il.adapt([3, 5, 5, 9])
    text = keras.Input((), dtype="string", name="text")
    word = keras.Input((1,), dtype="string", name="word")
    code = keras.Input((1,), dtype="int64", name="code")
    model = keras.Model([text, word, code], [tv(text), sl(word), il(code)])
    data = [np.array(["HELLO there", "world"]), np.array([["b"], ["z"]]), np.array([[5], [7]])]
    expected = [np.asarray(t).tolist() for t in model(data)]
    g = ok(kc.Graph.from_model(model))
    assert g.layers["sl"]["config"]["vocabulary"] == ["b", "c", "a"]  # by frequency, as adapted
    assert [np.asarray(t).tolist() for t in g.model(data)] == expected
    scope = {}
    exec(g.to_code(), scope)  # noqa: S102 - the export runs, its vocabularies written out
    assert [np.asarray(t).tolist() for t in scope["model"](data)] == expected
    g.save(tmp_path / "v.kc")
    assert [np.asarray(t).tolist() for t in ok(kc.Graph.load(tmp_path / "v.kc")).model(data)] \
        == expected


@pytest.mark.parametrize("cls", ["StringLookup", "IntegerLookup", "TextVectorization"])
def test_a_tf_idf_lookup_keeps_its_idf_weights(cls, tmp_path):
    """output_mode="tf_idf" after adapt(): the idf weights live in a variable the config leaves
    out (idf_weights=None); the box's config carries them beside the vocabulary, so counts are
    weighted as the original weights them (an unknown token too)."""
    pytest.importorskip("tensorflow")
    if keras.backend.backend() != "tensorflow":
        pytest.skip("lookup tables of string tensors run under TensorFlow only")
    if cls == "IntegerLookup":
        adapted, dtype, data = [[1, 2], [1, 3], [4, 1]], "int64", np.array([[1, 4], [9, 9]])
        shape = (2,)
    elif cls == "StringLookup":
        adapted, dtype, data = [["a", "b"], ["a", "c"], ["d", "a"]], "string", np.array(
            [["a", "d"], ["z", "z"]])
        shape = (2,)
    else:
        adapted, dtype, data = ["a b", "a c", "d a"], "string", np.array(["a d", "z z"])
        shape = ()
    layer = getattr(keras.layers, cls)(output_mode="tf_idf", name="lookup")
    layer.adapt(adapted)
    inputs = keras.Input(shape, dtype=dtype)
    model = keras.Model(inputs, layer(inputs))
    expected = np.asarray(model(data))
    g = ok(kc.Graph.from_model(model))
    assert len(g.layers["lookup"]["config"]["idf_weights"]) == 4
    np.testing.assert_allclose(np.asarray(g.model(data)), expected, rtol=1e-6)
    scope = {}
    exec(g.to_code(), scope)  # noqa: S102 - the export writes the weights out
    np.testing.assert_allclose(np.asarray(scope["model"](data)), expected, rtol=1e-6)
    g.save(tmp_path / "v.kc")
    np.testing.assert_allclose(np.asarray(ok(kc.Graph.load(tmp_path / "v.kc")).model(data)),
                               expected, rtol=1e-6)


def test_a_layer_made_around_another_layer_is_kept_as_the_object():
    """Keras's saving_lib_test ComplexModel(first_layer=FactorLayer(0.5)): its config holds the
    layer object itself, which Keras cannot load back either. Trusted, it is kept as it is (its
    weights, its outputs); code cannot write it (no plain arguments recorded) and says so."""
    from keras_suite_models import complex_model_without_explicit_deserialization

    before = {*custom.registered(), *custom.trusted()}
    try:
        model = complex_model_without_explicit_deserialization()
        g = ok(kc.Graph.from_model(model, trust_custom=True))
        held = next(e for e in g.state()["layers"] if e["class_name"].startswith("ComplexModel"))
        assert held["made_from"] == "object"
        data = np.random.rand(2, 32).astype("float32")
        _same(g.model(data), model(data))
        with pytest.raises(kc.EditError, match="kept as it is.*which code cannot write"):
            g.to_code()
    finally:
        for name in {*custom.registered(), *custom.trusted()} - before:
            custom.unregister(name)


class TiedOutput(keras.layers.Layer):
    """Logits from the token embedding's own matrix, given the embedding layer (a language
    model's tied output as published): its config cannot make it again."""

    def __init__(self, embedding, **kwargs):
        super().__init__(**kwargs)
        self.embedding = embedding

    def call(self, x):
        return keras.ops.matmul(x, keras.ops.transpose(self.embedding.embeddings))


def test_a_kept_layer_holding_another_boxs_layer_shares_its_weights():
    """The tied output holds the embedding drawn as its own box: that box is kept as its object
    too, so both hold one variable (was: a second copy, 392 parameters for Keras's 232)."""
    emb = keras.layers.Embedding(20, 8, name="tokens")
    ids = keras.Input((5,), dtype="int32", name="ids")
    out = TiedOutput(emb, name="logits")(keras.layers.Dense(8, name="mix")(emb(ids)))
    model = keras.Model(ids, out)
    before = {*custom.registered(), *custom.trusted()}
    try:
        g = ok(kc.Graph.from_model(model, trust_custom=True))
        assert g.keras_layer("tokens").embeddings is g.keras_layer("logits").embedding.embeddings
        assert g.model.count_params() == model.count_params() == 232
        summary = g.state()["model"]
        assert (summary["params"], summary["weight_bytes"]) == (232, 232 * 4)
        assert g.param_counts()["total"] == 232
        data = np.random.default_rng(0).integers(0, 20, (2, 5))
        _same(g.model(data), model(data))
        g.model.compile(optimizer="sgd", loss="mse")  # trained together: one variable
        g.model.fit(data, np.ones((2, 5, 20), "float32"), epochs=1, verbose=0)
        assert g.keras_layer("tokens").embeddings is g.keras_layer("logits").embedding.embeddings
        assert [e["made_from"] for e in g.state()["layers"][1:]] == ["object", "config", "object"]
    finally:
        for name in {*custom.registered(), *custom.trusted()} - before:
            custom.unregister(name)


class Experts(keras.layers.Layer):
    """One expert layer given to the constructor, a gate made inside (a mixture of experts as
    published: get_config serializes the expert, from_config deserializes it)."""

    def __init__(self, expert, num_experts=2, **kwargs):
        super().__init__(**kwargs)
        self.expert = expert
        self.num_experts = num_experts
        self.gate = keras.layers.Dense(num_experts, name="gate")

    def get_config(self):
        return {**super().get_config(), "num_experts": self.num_experts,
                "expert": keras.saving.serialize_keras_object(self.expert)}

    @classmethod
    def from_config(cls, config):
        return cls(**dict(config, expert=keras.saving.deserialize_keras_object(config["expert"])))

    def call(self, x):
        weights = keras.ops.softmax(self.gate(x))
        return self.expert(x) * keras.ops.sum(weights, axis=-1, keepdims=True)


class MixtureOfExperts(keras.layers.Layer):
    """Experts given as a list of layers, mixed by a learned gate."""

    def __init__(self, experts, **kwargs):
        super().__init__(**kwargs)
        self.experts = experts
        self.gate = keras.layers.Dense(len(experts), activation="softmax", name="gate")

    def get_config(self):
        return {**super().get_config(),
                "experts": [keras.saving.serialize_keras_object(e) for e in self.experts]}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        return cls([keras.saving.deserialize_keras_object(e) for e in config.pop("experts")],
                   **config)

    def call(self, x):
        outs = keras.ops.stack([e(x) for e in self.experts], axis=-1)
        return keras.ops.sum(outs * keras.ops.expand_dims(self.gate(x), 1), axis=-1)


def one_expert():
    x = keras.Input((6,), name="x")
    y = Experts(keras.layers.Dense(4, name="expert"), num_experts=3, name="moe")(x)
    return keras.Model(x, keras.layers.Dense(2, name="head")(y))


def expert_list():
    x = keras.Input((6,), name="x")
    y = MixtureOfExperts([keras.layers.Dense(4, name=f"expert_{i}") for i in range(3)],
                         name="moe")(x)
    return keras.Model(x, keras.layers.Dense(2, name="head")(y))


@pytest.mark.parametrize("make", [one_expert, expert_list])
def test_a_layer_whose_constructor_takes_layers_exports_them_as_constructor_calls(make, tmp_path):
    """The code writes the layers given to the constructor as people write them
    (`Experts(expert=layers.Dense(units=4, name="expert"), ...)`); the rebuilt model has the same
    names, weights and output shapes; the file keeps outputs."""
    before = {*custom.registered(), *custom.trusted()}
    try:
        model = make()
        g = ok(kc.Graph.from_model(model, trust_custom=True))
        data = np.random.rand(3, 6).astype("float32")
        _same(g.model(data), model(data))
        code = g.to_code()
        assert "layers.Dense(units=4, name=\"expert" in code and "module" not in code
        scope = {"Experts": Experts, "MixtureOfExperts": MixtureOfExperts}
        exec(code, scope)  # noqa: S102 - the export runs
        rebuilt = scope["model"]
        assert [w.path for w in rebuilt.weights] == [w.path for w in model.weights]
        assert [tuple(w.shape) for w in rebuilt.weights] == [tuple(w.shape) for w in model.weights]
        assert tuple(rebuilt.outputs[0].shape) == tuple(model.outputs[0].shape)
        g.save(tmp_path / "moe.kc")
        _same(ok(kc.Graph.load(tmp_path / "moe.kc")).model(data), model(data))
    finally:
        for name in {*custom.registered(), *custom.trusted()} - before:
            custom.unregister(name)


def test_a_constant_over_the_bound_is_refused_until_the_bound_is_raised(monkeypatch, tmp_path):
    x = keras.Input((12_000,), name="x")
    model = keras.Model(x, x + np.arange(12_000, dtype="float32"))
    with pytest.raises(kc.EditError):
        kc.Graph.from_model(model)
    monkeypatch.setattr(kc.limits, "CONSTANT_VALUES", 20_000)  # kc.limits.CONSTANT_VALUES = ...
    g = ok(kc.Graph.from_model(model))
    data = np.random.rand(2, 12_000).astype("float32")
    _same(g.model(data), model(data))
    g.save(tmp_path / "big.kc")
    _same(ok(kc.Graph.load(tmp_path / "big.kc")).model(data), model(data))
