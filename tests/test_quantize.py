"""Quantization (issue 41): g.quantize(name, mode) on a box and g.quantize(None, mode) on every box
that takes the mode, each one undo step (undo puts the unquantized layers back); the config
carries Keras's quantized dtype policy, so a file and the code keep it; counts equal Keras's own;
shown in the state; the intent; refusals change nothing. Backend-neutral."""

from __future__ import annotations

import math

import keras
import numpy as np
import pytest
from support import fingerprint, intent, keras_counts, ok, recorded_canvas, same_counts, steps_kept

import kerascanvas as kc
from kerascanvas.network.flags import QUANTIZE_MODES, quantize_modes

X = np.random.default_rng(0).normal(size=(4, 6)).astype("float32")




def out(model) -> np.ndarray:
    return keras.ops.convert_to_numpy(model(X))


def drawn() -> kc.Graph:
    keras.utils.set_random_seed(1)
    g = kc.Graph()
    g.add_input((6,), name="x")
    g.add_layer("Dense", units=5, name="hidden")
    g.add_layer("Dropout", rate=0.1, name="drop")
    g.add_layer("Dense", units=3, name="head")
    g.connect("x", "hidden")
    g.connect("hidden", "drop")
    g.connect("drop", "head")
    return ok(g)


def plain_keras(g, quantized: dict):
    """The same model written in Keras with the drawing's weights, quantized as Keras does it."""
    inp = keras.Input((6,))
    hidden, head = keras.layers.Dense(5, name="hidden"), keras.layers.Dense(3, name="head")
    model = keras.Model(inp, head(keras.layers.Dropout(0.1)(hidden(inp))))
    for name in ("hidden", "head"):
        model.get_layer(name).set_weights(g.live_layer(name).get_weights())
    for name, mode in quantized.items():
        model.get_layer(name).quantize(mode)
    return model


def entries(g) -> dict:
    return {entry["name"]: entry for entry in g.state()["layers"]}


def test_the_modes_each_layer_takes_are_keras_own():
    """flags.quantize_modes says exactly the modes Keras's quantize accepts."""
    made = {"Dense": (keras.layers.Dense(4), (None, 6)),
            "EinsumDense": (keras.layers.EinsumDense("ab,bc->ac", output_shape=4), (None, 6)),
            "Embedding": (keras.layers.Embedding(10, 4), (None,)),
            "Conv1D": (keras.layers.Conv1D(2, 3), (None, 8, 2))}
    for class_name, (layer, shape) in made.items():
        layer.build(shape)
        said = quantize_modes(layer)
        for mode in QUANTIZE_MODES:
            copy = type(layer).from_config(layer.get_config())
            copy.build(shape)
            try:
                copy.quantize(mode)
                took = True
            except (NotImplementedError, ValueError):
                took = False
            assert took == (mode in said), (class_name, mode)


@pytest.mark.parametrize("mode", QUANTIZE_MODES)
def test_one_box_is_one_step_with_keras_counts_and_outputs(mode):
    g = drawn()
    before = g.keras_layer("hidden")
    counts, expected_plain = same_counts(g), out(g.model)
    keras_model = plain_keras(g, {"hidden": mode})
    steps = steps_kept(g)
    assert g.quantize("hidden", mode) == ["hidden"]
    after = g.keras_layer("hidden")
    assert after is not before and before.dtype_policy.quantization_mode is None
    assert after.dtype_policy.quantization_mode == mode
    assert g.layers["hidden"]["config"]["dtype"] == after.get_config()["dtype"]
    assert same_counts(g) == keras_counts(keras_model)
    np.testing.assert_allclose(out(g.model), out(keras_model), atol=1e-5)
    assert steps_kept(g) == steps + 1
    layers = entries(g)
    assert layers["hidden"]["dtype_policy"] == after.dtype_policy.name
    assert layers["hidden"]["dtype_policy"].startswith(mode) and "_from_float32" in \
        layers["hidden"]["dtype_policy"]
    assert layers["hidden"]["quantize_ready"] == [] and layers["head"]["quantize_ready"]
    assert layers["hidden"]["params"] == after.count_params()
    assert g.state()["model"]["params"] == keras_model.count_params()  # the footer's count
    ok(g)
    quantized = out(g.model)
    g.undo()
    assert g.keras_layer("hidden") is before and same_counts(g) == counts
    assert entries(g)["hidden"]["dtype_policy"] == "float32"
    np.testing.assert_allclose(out(g.model), expected_plain, atol=1e-6)
    ok(g)
    g.redo()
    assert g.keras_layer("hidden") is after
    np.testing.assert_allclose(out(g.model), quantized, atol=1e-6)
    ok(g)


def test_the_whole_drawing_as_model_quantize_does():
    g = drawn()
    steps = steps_kept(g)
    assert sorted(g.quantize(None, "int8")) == ["head", "hidden"]
    assert steps_kept(g) == steps + 1
    keras_model = plain_keras(drawn(), {})
    keras_model.quantize("int8")
    assert same_counts(g) == keras_counts(keras_model)
    np.testing.assert_allclose(out(g.model), out(keras_model), atol=1e-5)
    with pytest.raises(kc.EditError, match="No box of the drawing can be quantized"):
        g.quantize(None, "int8")  # every one is quantized already
    quantized = out(g.model)
    g.undo()
    assert all(entries(g)[n]["dtype_policy"] == "float32" for n in ("hidden", "head"))
    ok(g)
    g.redo()
    np.testing.assert_array_equal(out(g.model), quantized)
    ok(g)


def test_in_a_batch_as_many_boxes_as_wanted_each_with_its_weights():
    g = drawn()
    g.add_layer("Dense", units=2, name="more")
    g.connect("head", "more")
    kernels = {}  # each box quantized by Keras on its own: what the batch must give
    for n in ("hidden", "more"):
        layer = g.keras_layer(n)
        alone = keras.layers.Dense.from_config(layer.get_config())
        alone.build(layer.get_build_config()["input_shape"])
        alone.set_weights(layer.get_weights())
        alone.quantize("int8")
        kernels[n] = alone.get_weights()
    with g.batch():
        g.quantize("head", "int8")
    assert entries(g)["head"]["dtype_policy"] == "int8_from_float32"
    ok(g)
    with g.batch():  # each copy holds its box's weights: the rebuild calls them all
        g.quantize("hidden", "int8")
        g.quantize("more", "int8")
    for n, weights in kernels.items():
        layer = g.keras_layer(n)
        assert layer.quantization_mode == "int8"
        for got, want in zip(layer.get_weights(), weights, strict=True):
            np.testing.assert_array_equal(got, want)
    ok(g)
    g.undo()
    assert all(g.keras_layer(n).quantization_mode is None for n in kernels)


def test_only_the_boxes_not_yet_quantized_are_taken():
    g = drawn()
    g.quantize("hidden", "int4")
    assert g.quantize(None, "int8") == ["head"]
    assert g.keras_layer("hidden").dtype_policy.quantization_mode == "int4"


def test_saved_loaded_and_kept_by_import(tmp_path):
    g = drawn()
    g.quantize("hidden", "int8")
    g.save(tmp_path / "q.kc")
    loaded = ok(kc.Graph.load(tmp_path / "q.kc"))
    assert loaded.keras_layer("hidden").dtype_policy.name == "int8_from_float32"
    np.testing.assert_array_equal(out(loaded.model), out(g.model))
    assert same_counts(loaded) == same_counts(g)
    model = plain_keras(drawn(), {})
    model.quantize("int8")
    imported = ok(kc.Graph.from_model(model))
    assert entries(imported)["head"]["dtype_policy"] == "int8_from_float32"
    assert same_counts(imported) == keras_counts(model)
    np.testing.assert_allclose(out(imported.model), out(model), atol=1e-6)


@pytest.mark.parametrize("mode", QUANTIZE_MODES)
def test_the_code_quantizes_after_the_model_is_made(mode):
    g = drawn()
    g.quantize("head", mode)
    code = g.to_code()
    assert f'head.quantize("{mode}")' in code and "_from_" not in code
    assert code.index("model = keras.Model(") < code.index(f'head.quantize("{mode}")')
    namespace: dict = {}
    exec(compile(code, "<kerascanvas>", "exec"), namespace)  # noqa: S102 - the test runs it
    model = namespace["model"]
    assert keras_counts(model) == same_counts(g)
    model.set_weights(g.model.get_weights())
    np.testing.assert_allclose(out(model), out(g.model), atol=1e-6)


def test_lora_then_quantize_as_keras_allows_it(tmp_path):
    g = drawn()
    keras_model = plain_keras(g, {})
    g.enable_lora("hidden", 2)
    g.quantize("hidden", "int8")
    layer = g.keras_layer("hidden")
    assert layer.lora_enabled and layer.dtype_policy.name == "int8_from_float32"
    hidden = keras_model.get_layer("hidden")
    hidden.enable_lora(2)
    hidden.quantize("int8")
    keras_model.set_weights(g.model.get_weights())
    assert same_counts(g) == keras_counts(keras_model)
    np.testing.assert_allclose(out(g.model), out(keras_model), atol=1e-6)
    g.save(tmp_path / "q.kc")
    np.testing.assert_array_equal(out(ok(kc.Graph.load(tmp_path / "q.kc")).model), out(g.model))
    code = g.to_code()
    assert code.index("hidden.enable_lora(2)") < code.index('hidden.quantize("int8")')


def test_the_intent_quantizes_a_box_and_the_whole_drawing():
    g = drawn()
    canvas = recorded_canvas(g)
    intent(canvas, kind="quantize", id=1, name="hidden", mode="int8")
    assert entries(g)["hidden"]["dtype_policy"] == "int8_from_float32"
    intent(canvas, kind="quantize", id=2, name=None, mode="float8")
    assert entries(g)["head"]["dtype_policy"] == "float8_from_float32"
    assert "No box" in str(intent(canvas, kind="quantize", id=3, mode="int8"))
    assert "one of int8" in str(intent(canvas, kind="quantize", id=4, name="head", mode="int9"))


def test_a_pending_box_is_refused_and_left_out_of_the_whole():
    g = drawn()
    g.add_layer("Dense", units=2, name="loose")
    with pytest.raises(kc.EditError, match="holds no weights yet"):
        g.quantize("loose", "int8")
    assert entries(g)["loose"]["quantize_ready"] == []
    assert "loose" not in g.quantize(None, "int8")


def test_refusals_name_what_was_wrong_and_change_nothing():
    g = drawn()
    g.quantize("head", "int8")
    before, steps = fingerprint(g), steps_kept(g)
    for name, mode, match in [
        ("nope", "int8", "no layer named 'nope'"),
        (3, "int8", "no layer named 3"),
        ("hidden", "int2", "one of int8, float8, int4"),
        ("hidden", "gptq", "one of int8, float8, int4"),
        ("hidden", None, "one of int8, float8, int4"),
        ("drop", "int8", "Dropout, which cannot be quantized"),
        ("x", "int8", "InputLayer, which cannot be quantized"),
        ("head", "int4", "quantized already"),
    ]:
        with pytest.raises(kc.EditError, match=match):
            g.quantize(name, mode)
    with g.locked("Training runs on these layers."), \
            pytest.raises(kc.EditError, match="Training runs"):
        g.quantize("hidden", "int8")
    assert fingerprint(g) == before and steps_kept(g) == steps


def test_an_embedding_takes_int8_but_not_float8():
    g = kc.Graph()
    g.add_input((3,), name="ids", dtype="int32")
    g.add_layer("Embedding", input_dim=10, output_dim=4, name="emb")
    g.connect("ids", "emb")
    assert entries(g)["emb"]["quantize_ready"] == ["int8", "int4"]
    before = fingerprint(g)
    with pytest.raises(kc.EditError, match="to int8 or int4 only"):
        g.quantize("emb", "float8")
    assert fingerprint(g) == before
    g.quantize("emb", "int8")
    assert entries(g)["emb"]["dtype_policy"] == "int8_from_float32"
    ok(g)


def test_memory_follows_as_keras_summary_counts_it():
    """g.weight_bytes() and the state's model summary say the memory Keras's model.summary
    says; quantizing to int8 shrinks a kernel to a quarter, undo brings it back."""
    from keras.src.utils.summary_utils import weight_memory_size

    g = drawn()
    before = g.weight_bytes()
    assert before == weight_memory_size(g.model.weights) == 4 * g.param_counts()["total"]
    assert g.state()["model"]["weight_bytes"] == before
    g.quantize("hidden", "int8")
    after = g.weight_bytes()
    assert after == weight_memory_size(g.model.weights) < before
    layer = g.keras_layer("hidden")  # an int8 kernel (1 byte, was 4) and float32 scales added
    assert before - after == 3 * math.prod(layer._kernel.shape) - 4 * math.prod(layer.kernel_scale.shape)
    assert g.state()["model"]["weight_bytes"] == after
    g.undo()
    assert g.weight_bytes() == before
