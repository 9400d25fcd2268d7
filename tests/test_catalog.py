"""The catalog: every offered class builds from its config and is called on symbolic tensors."""

import json

import keras
import pytest

from kerascanvas import catalog

IMAGE = {"CenterCrop", "Resizing", "RandomCrop", "Rescaling", "Normalization"}
INTEGER_INPUT = {"Embedding", "ReversibleEmbedding", "Hashing", "CategoryEncoding",
                 "HashedCrossing"}


def sample_shape(kind):
    name = kind.class_name
    if name.startswith("ConvLSTM"):
        return (4,) + (8,) * int(name[-2]) + (3,)
    if "3D" in name:
        return (8, 8, 8, 3)
    if "2D" in name or name in IMAGE or (kind.group == "preprocessing" and name.startswith(
            ("Random", "Auto", "Equal", "Solar", "Mix", "Cut", "Aug", "Rand"))):
        return (16, 16, 3)
    if "1D" in name or kind.group in ("recurrent", "attention") or name in ("Permute",):
        return (6, 8)
    return (8,)


@pytest.mark.parametrize("name", catalog.names())
def test_every_class_builds_round_trips_and_calls_symbolically(name):
    kind = catalog.get(name)
    layer = kind.build(**kind.suggested_args())
    config = json.loads(json.dumps(layer.get_config()))
    again = kind.create(config)
    assert json.loads(json.dumps(again.get_config())) == config
    dtype = "int32" if name in INTEGER_INPUT else "float32"
    inputs = [keras.Input(sample_shape(kind), dtype=dtype) for _ in range(max(kind.slots.min, 1))]
    out = again(inputs) if kind.slots.kind == "list" else again(*inputs)
    assert len(keras.tree.flatten(out)) == kind.n_outputs(config)
    assert isinstance(json.loads(json.dumps(kind.schema())), list)


@pytest.mark.parametrize("bad", ["os.system", "keras.src.layers.Dense", "Lambda", "Model",
                                 "Sequential", "InputLayer", "TFSMLayer", "", 3, None, "dense"])
def test_names_outside_the_catalog_are_refused(bad):
    with pytest.raises(catalog.UnknownLayerError, match="catalog.names"):
        catalog.get(bad)


def test_nothing_that_runs_code_or_loads_files_is_offered():
    offered = set(catalog.names())
    assert not offered & {"Lambda", "TFSMLayer", "TorchModuleWrapper", "JaxLayer", "FlaxLayer"}
    assert {"Dense", "Conv2D", "MaxPooling2D", "BatchNormalization", "Dropout", "Reshape", "Add",
            "LSTM", "Bidirectional", "MultiHeadAttention", "Embedding", "ReLU", "Rescaling"} <= offered
    assert catalog.get("Convolution2D") is catalog.get("Conv2D")  # aliases resolve


def test_slots_from_call_signatures():
    assert catalog.get("Dense").slots == catalog.Slots("single", ("inputs",), 1, 1)
    assert catalog.get("Add").slots == catalog.Slots("list", (), 2, None)
    assert catalog.get("Concatenate").slots.kind == "list"
    assert catalog.get("Subtract").slots.max == 2
    assert catalog.get("MultiHeadAttention").slots == catalog.Slots(
        "args", ("query", "value", "key"), 2, 3)
    assert catalog.get("Attention").slots == catalog.Slots("list", ("query", "value", "key"), 2, 3)


@pytest.mark.parametrize("name,config,expected", [
    ("LSTM", {"units": 4}, 1), ("LSTM", {"units": 4, "return_state": True}, 3),
    ("GRU", {"units": 4, "return_state": True}, 2), ("SimpleRNN", {"units": 4, "return_state": True}, 2),
    ("Bidirectional", {"layer": {"class_name": "LSTM", "config": {"units": 4, "return_state": True}}}, 5),
    ("Bidirectional", {"layer": {"class_name": "GRU", "config": {"units": 4}}, "merge_mode": None}, 2),
    ("Dense", {"units": 3}, 1),
])
def test_n_outputs_matches_keras(name, config, expected):
    kind = catalog.get(name)
    layer = kind.build(**config)
    out = layer(keras.Input((5, 3)))
    assert len(keras.tree.flatten(out)) == expected == kind.n_outputs(layer.get_config())


def test_schema_types_and_defaults():
    dense = {f["name"]: f for f in catalog.get("Dense").schema()}
    assert dense["units"] == {"name": "units", "type": "int", "default": 32, "required": True}
    assert dense["use_bias"]["type"] == "bool" and dense["use_bias"]["default"] is True
    assert dense["activation"]["type"] == "choice" and "relu" in dense["activation"]["choices"]
    conv = {f["name"]: f for f in catalog.get("Conv2D").schema()}
    assert conv["strides"]["type"] == "ints" and conv["padding"]["choices"][:2] == ["valid", "same"]


def test_keras_messages_for_bad_values_and_unknown_arguments():
    with pytest.raises(ValueError, match="units"):
        catalog.get("Dense").make_config(units=-1)
    with pytest.raises((TypeError, ValueError), match="foo"):
        catalog.get("Dense").make_config(units=2, foo=1)


def test_a_wrapper_only_wraps_catalog_layers():
    with pytest.raises(ValueError, match="not a layer the canvas offers"):
        catalog.get("Bidirectional").build(layer={"class_name": "Lambda", "config": {}})
    with pytest.raises(ValueError, match="wraps one of"):
        catalog.get("Bidirectional").build(layer={"class_name": "Dense", "config": {"units": 2}})
    evil = {"module": "os", "class_name": "LSTM", "config": {"units": 2}}
    layer = catalog.get("Bidirectional").create({"layer": evil, "name": "b"})
    assert type(layer.forward_layer).__name__ == "LSTM"


def test_palette_is_json_and_grouped():
    entries = json.loads(json.dumps(catalog.palette()))
    assert {e["class_name"] for e in entries} == set(catalog.names())
    groups = catalog.groups()
    assert "Dense" in groups["core"] and "Conv2D" in groups["convolutional"]
    assert "LSTM" in groups["recurrent"] and "Add" in groups["merging"]
