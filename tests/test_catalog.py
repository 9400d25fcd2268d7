"""The catalog: every offered class builds from its config and is called on symbolic tensors."""

import json

import keras
import pytest

import kerascanvas as kc
from kerascanvas.kinds import catalog, kinds

# A symbolic sample input per group, and per class where the group's does not fit: (shape, dtype).
GROUP_SAMPLE = {
    "core": ((8,), "float32"),
    "activations": ((8,), "float32"),
    "merging": ((8,), "float32"),
    "normalization": ((6, 8), "float32"),
    "regularization": ((6, 8), "float32"),
    "recurrent": ((6, 8), "float32"),
    "attention": ((6, 8), "float32"),
    "reshaping": ((6, 8), "float32"),
    "pooling": ((6, 8), "float32"),
    "convolutional": ((6, 8), "float32"),
    "preprocessing": ((16, 16, 3), "float32"),
}
CLASS_SAMPLE = {
    "Embedding": ((5,), "int32"),
    "ReversibleEmbedding": ((5,), "int32"),
    "CategoryEncoding": ((5,), "int32"),
    "Hashing": ((5,), "int32"),
    "HashedCrossing": ((1,), "int32"),
    "IntegerLookup": ((5,), "int64"),
    "StringLookup": ((5,), "string"),
    "TextVectorization": ((), "string"),
    "Discretization": ((8,), "float32"),
    "Normalization": ((8,), "float32"),
    "MelSpectrogram": ((4000,), "float32"),
    "STFTSpectrogram": ((1024, 1), "float32"),
    "Flatten": ((4, 4, 3), "float32"),
    "Reshape": ((4, 4, 3), "float32"),
    "RepeatVector": ((8,), "float32"),
    "EinsumDense": ((8,), "float32"),
    "ConvLSTM1D": ((4, 8, 3), "float32"),
    "ConvLSTM2D": ((4, 8, 8, 3), "float32"),
    "ConvLSTM3D": ((4, 6, 6, 6, 3), "float32"),
}


def sample(name):
    if name in CLASS_SAMPLE:
        return CLASS_SAMPLE[name]
    if "3D" in name:
        return (8, 8, 8, 3), "float32"
    if "2D" in name:
        return (8, 8, 3), "float32"
    return GROUP_SAMPLE[catalog.get(name).group]


def call_on_inputs(layer, kind, n_inputs=None):
    shape, dtype = sample(kind.class_name)
    inputs = [keras.Input(shape, dtype=dtype) for _ in range(n_inputs or kind.slots.min)]
    return layer(inputs) if kind.slots.kind == "list" else layer(*inputs)


@pytest.mark.parametrize("name", catalog.names())
def test_every_class_builds_round_trips_and_calls_symbolically(name):
    kind = catalog.get(name)
    config = json.loads(json.dumps(kind.make_config()))
    again = kind.create(config)
    assert json.loads(json.dumps(again.get_config())) == config
    out = call_on_inputs(again, kind)
    assert len(keras.tree.flatten(out)) == kind.n_outputs(config)


def test_the_issues_groups_are_all_there():
    offered = set(catalog.names())
    assert {
        "Dense",
        "Conv2D",
        "MaxPooling2D",
        "BatchNormalization",
        "Dropout",
        "Reshape",
        "Add",
        "LSTM",
        "Bidirectional",
        "MultiHeadAttention",
        "GroupQueryAttention",
        "Embedding",
        "ReLU",
        "Rescaling",
        "Resizing",
        "Normalization",
        "CenterCrop",
        "RandomFlip",
        "StringLookup",
        "TimeDistributed",
    } <= offered
    assert set(catalog.groups()) == {
        "core",
        "convolutional",
        "pooling",
        "normalization",
        "regularization",
        "reshaping",
        "merging",
        "recurrent",
        "attention",
        "activations",
        "preprocessing",
    }


@pytest.mark.parametrize(
    "bad",
    [
        "os.system",
        "keras.src.layers.Dense",
        "keras.layers.Dense",
        "keras.src.x.Y",
        "Lambda",
        "Model",
        "Sequential",
        "Functional",
        "InputLayer",
        "Input",
        "TFSMLayer",
        "TorchModuleWrapper",
        "JaxLayer",
        "FlaxLayer",
        "Layer",
        "RNN",
        "LSTMCell",
        "InputSpec",
        "",
        3,
        None,
        ["Dense"],
        "dense",
        "Dense ",
    ],
)
def test_names_outside_the_catalog_are_refused(bad):
    with pytest.raises(catalog.UnknownLayerError, match="catalog.names") as refused:
        catalog.get(bad)
    assert repr(bad) in str(refused.value)


def test_nothing_that_runs_code_or_loads_files_is_offered():
    offered = set(catalog.names())
    assert not offered & {
        "Lambda",
        "TFSMLayer",
        "TorchModuleWrapper",
        "JaxLayer",
        "FlaxLayer",
        "InputLayer",
        "Layer",
        "Wrapper",
        "RNN",
        "LSTMCell",
        "GRUCell",
        "SimpleRNNCell",
        "StackedRNNCells",
    }
    assert "runs user code" in str(pytest.raises(ValueError, catalog.get, "Lambda").value)


def test_aliases_resolve_to_one_public_name():
    assert catalog.get("Convolution2D") is catalog.get("Conv2D")
    assert catalog.get("AvgPool2D").class_name == "AveragePooling2D"
    # type(layer).__name__ differs from the public name; the public one is the catalog's
    gqa = catalog.get("GroupedQueryAttention")
    assert gqa.class_name == "GroupQueryAttention" and gqa.cls is keras.layers.GroupQueryAttention


def test_slots_from_call_signatures():
    Slots = catalog.Slots
    assert catalog.get("Dense").slots == Slots("single", ("inputs",), 1, 1)
    assert catalog.get("LSTM").slots == Slots("single", ("inputs",), 1, 1)  # initial_state is not
    assert catalog.get("LSTM").slots.first == "sequences"  # LSTM(sequences=x): its own name
    assert catalog.get("Add").slots == Slots("list", (), 2, None)
    assert catalog.get("Concatenate").slots == Slots("list", (), 2, None)
    assert catalog.get("Subtract").slots == Slots("list", (), 2, 2)
    assert catalog.get("Dot").slots == Slots("list", (), 2, 2)
    assert catalog.get("HashedCrossing").slots == Slots("list", (), 2, 2)
    for name in ("MultiHeadAttention", "GroupQueryAttention"):  # attention_mask= by name
        assert catalog.get(name).slots == Slots("args", ("query", "value", "key", "attention_mask"),
                                                2, 4, ("attention_mask",))
    for name in ("Attention", "AdditiveAttention"):
        assert catalog.get(name).slots == Slots("list", ("query", "value", "key"), 2, 3)


@pytest.mark.parametrize(
    "name", ["MultiHeadAttention", "GroupQueryAttention", "Attention", "Add", "Concatenate"]
)
def test_the_most_slots_can_be_filled(name):
    kind = catalog.get(name)
    out = call_on_inputs(kind.create(kind.make_config()), kind, kind.slots.max or 4)
    assert len(keras.tree.flatten(out)) == 1


@pytest.mark.parametrize(
    "name,config,expected",
    [
        ("LSTM", {"units": 4}, 1),
        ("LSTM", {"units": 4, "return_state": True}, 3),
        ("GRU", {"units": 4}, 1),
        ("GRU", {"units": 4, "return_state": True}, 2),
        ("SimpleRNN", {"units": 4}, 1),
        ("SimpleRNN", {"units": 4, "return_state": True}, 2),
        ("ConvLSTM1D", {"filters": 2, "kernel_size": 3, "return_state": True}, 3),
        ("ConvLSTM2D", {"filters": 2, "kernel_size": 3, "return_state": True}, 3),
        (
            "Bidirectional",
            {"layer": {"class_name": "LSTM", "config": {"units": 4, "return_state": True}}},
            5,
        ),
        (
            "Bidirectional",
            {"layer": {"class_name": "GRU", "config": {"units": 4, "return_state": True}}},
            3,
        ),
        (
            "Bidirectional",
            {"layer": {"class_name": "GRU", "config": {"units": 4}}, "merge_mode": None},
            2,
        ),
        (
            "Bidirectional",
            {
                "layer": {"class_name": "LSTM", "config": {"units": 4, "return_state": True}},
                "merge_mode": None,
            },
            6,
        ),
        ("Dense", {"units": 3}, 1),
    ],
)
def test_n_outputs_matches_keras(name, config, expected):
    kind = catalog.get(name)
    layer = kind.build(**config)
    out = call_on_inputs(layer, kind)
    assert len(keras.tree.flatten(out)) == expected == kind.n_outputs(layer.get_config())


def test_schema_types_and_defaults():
    dense = {f["name"]: f for f in catalog.get("Dense").schema()}
    assert dense["units"] == {"name": "units", "type": "int", "default": 32, "required": True}
    assert dense["use_bias"] == {
        "name": "use_bias",
        "type": "bool",
        "default": True,
        "required": False,
    }
    assert dense["activation"]["type"] == "choice" and "relu" in dense["activation"]["choices"]
    assert dense["kernel_initializer"]["type"] == "any"  # a serialized object in the config
    assert "name" not in dense and "dtype" not in dense  # rename() sets the name
    conv = {f["name"]: f for f in catalog.get("Conv2D").schema()}
    assert conv["kernel_size"] == {
        "name": "kernel_size",
        "type": "ints",
        "default": 3,
        "required": True,
    }
    assert conv["strides"] == {
        "name": "strides",
        "type": "ints",
        "default": [1, 1],
        "required": False,
    }
    assert conv["padding"]["choices"] == ["valid", "same"]  # causal is for Conv1D only
    assert catalog.get("Conv1D").schema()[3]["choices"] == ["valid", "same", "causal"]
    assert conv["data_format"]["choices"] == [None, "channels_last", "channels_first"]
    assert {f["name"]: f["type"] for f in catalog.get("Reshape").schema()} == {
        "target_shape": "shape"
    }
    bidi = {f["name"]: f for f in catalog.get("Bidirectional").schema()}
    assert bidi["layer"]["type"] == "layer" and bidi["merge_mode"]["default"] == "concat"
    padding = {f["name"]: f for f in catalog.get("ZeroPadding2D").schema()}["padding"]
    assert padding["type"] == "ints" and "choices" not in padding


TYPE_CHECKS = {
    "int": lambda v: type(v) is int,
    "float": lambda v: isinstance(v, (int, float)),
    "bool": lambda v: isinstance(v, bool),
    "str": lambda v: isinstance(v, str),
    "ints": lambda v: type(v) is int or all(type(i) is int for i in v),
    "shape": lambda v: isinstance(v, list),
    "layer": lambda v: isinstance(v, dict),
    "any": lambda v: True,
}


@pytest.mark.parametrize("name", catalog.names())
def test_schema_defaults_have_their_type_and_every_choice_is_accepted(name):
    kind = catalog.get(name)
    schema = json.loads(json.dumps(kind.schema()))
    params = {f["name"] for f in schema}
    assert set(kind.suggested_args()) <= params
    assert all(f["name"] in params for f in schema if f["required"])
    for f in schema:
        if f["type"] == "choice":
            assert f["default"] in f["choices"], f
            for choice in f["choices"]:
                kind.make_config(**{f["name"]: choice})  # Keras accepts each
        elif f["default"] is not None:
            assert TYPE_CHECKS[f["type"]](f["default"]), f


@pytest.mark.parametrize("name", catalog.names())
def test_config_keys_are_arguments_the_class_takes(name):
    kind = catalog.get(name)
    config = kind.make_config()
    assert kind.make_config(**config) == config  # what codegen relies on


def test_keras_messages_for_bad_values_and_unknown_arguments():
    with pytest.raises(ValueError, match="units") as refused:
        catalog.get("Dense").make_config(units=-1)
    assert "Received" in str(refused.value)  # Keras's own words
    with pytest.raises(ValueError, match="kernel_size=x"):
        catalog.get("Conv2D").make_config(kernel_size="x")
    with pytest.raises(ValueError, match="Keras refused Dropout.*TypeError"):  # said as TypeError
        catalog.get("Dropout").make_config(rate="x")
    with pytest.raises(TypeError, match="Dense takes no argument.*'foo'"):
        catalog.get("Dense").make_config(units=2, foo=1)
    with pytest.raises(TypeError, match="'bar'"):  # __init__ without **kwargs
        catalog.get("Bidirectional").make_config(bar=1)
    with pytest.raises(TypeError, match="input_shape.*add_input"):
        catalog.get("Dense").make_config(units=2, input_shape=(3,))


def test_user_code_and_files_are_refused_in_values():
    with pytest.raises(ValueError, match="user code"):
        catalog.get("Dense").make_config(activation=lambda x: x)
    with pytest.raises(ValueError, match="file path"):
        catalog.get("StringLookup").make_config(vocabulary="/etc/passwd")
    with pytest.raises(ValueError, match="file path"):
        catalog.get("StringLookup").create({"vocabulary": "/etc/passwd"})
    assert (
        catalog.get("Dense").make_config(activation=keras.activations.gelu)["activation"] == "gelu"
    )
    hostile = [
        {"module": "os", "class_name": "system", "config": "echo hi", "registered_name": None},
        {"class_name": "__lambda__", "config": {"code": "lambda x: x"}},
    ]
    for value in hostile:  # refused before Keras's (safe) deserialization sees them
        with pytest.raises(kc.EditError, match="may only hold Keras's own"):
            catalog.get("Dense").create({"units": 2, "activation": value})
    registered = {"module": "x", "class_name": "Boom", "registered_name": "user>Boom", "config": {}}
    for key, value in [("kernel_initializer", registered),
                       ("kernel_initializer", {**registered, "module": "keras.initializers"}),
                       ("kernel_regularizer", {"module": "keras", "class_name": "Sequential", "config": {}}),
                       ("bias_constraint", {"module": "keras.layers", "class_name": "Lambda", "config": {}})]:
        with pytest.raises(kc.EditError, match="may only hold Keras's own"):
            catalog.get("Dense").create({"units": 2, key: value})
    assert catalog.get("Dense").create({"units": 2, "kernel_regularizer": {
        "module": "keras.regularizers", "class_name": "L2", "config": {"l2": 0.1}, "registered_name": None}})


def test_a_wrapper_only_wraps_catalog_layers_at_any_depth():
    bidi, timed = catalog.get("Bidirectional"), catalog.get("TimeDistributed")
    with pytest.raises(ValueError, match="not a layer the canvas offers"):
        bidi.build(layer={"class_name": "Lambda", "config": {}})
    with pytest.raises(ValueError, match="wraps one of"):
        bidi.build(layer={"class_name": "Dense", "config": {"units": 2}})
    with pytest.raises(ValueError, match="wraps one of"):
        catalog.get("SpectralNormalization").build(
            layer={"class_name": "Dropout", "config": {"rate": 0.1}}
        )
    deep = {
        "class_name": "Bidirectional",
        "config": {"layer": {"class_name": "Lambda", "config": {}}},
    }
    with pytest.raises(ValueError, match="'Lambda' is not a layer the canvas offers"):
        timed.create({"layer": deep})
    evil = {"module": "os", "class_name": "LSTM", "config": {"units": 2}}
    layer = bidi.create({"layer": evil, "name": "b"})
    assert type(layer.forward_layer).__name__ == "LSTM"
    layer = bidi.build(
        layer=keras.layers.GRU(3), backward_layer=keras.layers.GRU(3, go_backwards=True)
    )
    assert type(layer.backward_layer).__name__ == "GRU"


def test_suggested_args_make_a_palette_drop_work():
    assert catalog.get("Dense").suggested_args() == {"units": 32}
    assert catalog.get("Flatten").suggested_args() == {}
    assert catalog.get("Bidirectional").suggested_args()["layer"]["class_name"] == "LSTM"


def test_palette_is_json_and_grouped():
    entries = json.loads(json.dumps(kinds.palette()))
    from kerascanvas.kinds import custom, ops

    assert [e["class_name"] for e in entries] == catalog.names() + ops.names() + custom.offered()
    dense = next(e for e in entries if e["class_name"] == "Dense")
    assert dense["slots"] == {"kind": "single", "names": ["inputs"], "min": 1, "max": 1}
    assert dense["suggested"] == {"units": 32} and dense["group"] == "core"
    groups = catalog.groups()
    assert sorted(n for names in groups.values() for n in names) == catalog.names()
    assert "Dense" in groups["core"] and "Conv2D" in groups["convolutional"]
    assert "LSTM" in groups["recurrent"] and "Add" in groups["merging"]
    assert "RandomFlip" in groups["preprocessing"] and "ReLU" in groups["activations"]


def test_every_kind_offers_the_kind_protocol():
    from kerascanvas.kinds import layerkind

    inner = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])

    class Scale(keras.layers.Layer):
        def call(self, x):
            return x * 2

    trusted = keras.layers.Lambda(lambda x: x + 1, name="plus_one")
    kc.register(Scale, name="HouseScale")
    name = kc.register(trusted)
    try:
        found = [kinds.get(n) for n in ("Dense", "TimeDistributed", "expand_dims", "Sequential",
                                         "Functional", "HouseScale", name)]
        assert [type(k).__name__ for k in found] == [
            "LayerKind", "WrapperKind", "OpKind", "ModelKind", "ModelKind", "CustomKind",
            "TrustedLambda"]
        for kind in found:
            assert isinstance(kind, layerkind.Kind), kind
            assert isinstance(kind.slots, layerkind.Slots)
        assert kinds.get("Sequential").slots_for(inner.get_config()).kind == "single"
        assert kinds.get(name).checked({"trainable": False}) == {"trainable": False}
    finally:
        kc.unregister("HouseScale")
        kc.unregister(name)


def test_a_model_inside_time_distributed_comes_through_kinds():
    inner = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    wrapped = {"layer": {"class_name": "Sequential", "config": inner.get_config()}}
    layer = kinds.get("TimeDistributed").create(wrapped)
    assert type(layer.layer).__name__ == "Sequential"
    twice = {"layer": {"class_name": "TimeDistributed", "config": wrapped}}
    assert type(kinds.get("TimeDistributed").create(twice).layer.layer).__name__ == "Sequential"
    with pytest.raises(kc.EditError, match="kerascanvas.kinds.get gives its kind"):
        catalog.get("TimeDistributed").create(wrapped)  # the catalog alone knows keras.layers
    evil = {"layer": {"class_name": "Sequential", "config": {**inner.get_config(), "layers": [
        {"class_name": "Lambda", "config": {"name": "l"}}]}}}
    with pytest.raises(kc.EditError, match="Lambda"):
        kinds.get("TimeDistributed").create(evil)
