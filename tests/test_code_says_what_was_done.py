"""The code says what was done (issue 41): g.to_code() sets trainable flags and LoRA after
construction, as a person writes them (`base.trainable = False`,
`base.get_layer("Conv_1").trainable = True`, `dense.enable_lora(4)`), and
g.to_code(training=True) adds the compile and fit of the last training run. The executed code
gives a model with the graph's trainable and non-trainable counts. Backend-neutral."""

from __future__ import annotations

import keras
import numpy as np
import pytest
from support import keras_counts, rebuild
from test_codegen import ruff

import kerascanvas as kc
from kerascanvas.io.training_code import DATA_NAMES


def tidy(code, tmp_path) -> None:
    """ruff check and ruff format --check pass; the training code's data names are the only
    undefined names (the reader's own data)."""
    checked = ruff(code, tmp_path, "check", "--output-format", "concise").stdout
    found = [line for line in checked.splitlines() if ".py:" in line]
    assert all(any(f"F821 Undefined name `{n}`" in line for n in DATA_NAMES)
               for line in found), checked[-2000:]
    result = ruff(code, tmp_path, "format", "--check", "--diff")
    assert result.returncode == 0, result.stdout[-2000:]


def after_model(code: str) -> list[str]:
    """The lines after `model = keras.Model(...)`."""
    lines = code.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("model = keras.Model("))
    end = start if lines[start].endswith(")") else lines.index(")", start)
    return lines[end + 1:]


def chain():
    g = kc.Graph()
    g.add_input((4,), name="features")
    for name, units in (("a", 3), ("b", 3), ("head", 2)):
        g.add_layer("Dense", units=units, activation="softmax" if name == "head" else "relu",
                    name=name)
    g.connect("features", "a")
    g.connect("a", "b")
    g.connect("b", "head")
    return g


def test_a_frozen_dense_is_frozen_after_construction(tmp_path):
    g = chain()
    g.set_trainable("b", False)
    code = g.to_code()
    assert "trainable=" not in code  # not a constructor argument any more
    assert after_model(code) == ["", "b.trainable = False"]
    tidy(code, tmp_path)
    model = rebuild(code)
    assert keras_counts(model) == g.param_counts() == {"total": 35, "trainable": 23,
                                                        "non_trainable": 12}
    assert not model.get_layer("b").trainable and model.get_layer("a").trainable
    g.undo()
    assert "trainable" not in g.to_code()
    assert keras_counts(rebuild(g.to_code()))["non_trainable"] == 0


@pytest.fixture(scope="module")
def mobilenet():
    keras.utils.set_random_seed(1)
    base = keras.applications.MobileNetV2(weights=None, include_top=False,
                                          input_shape=(32, 32, 3), alpha=0.35)
    image = keras.Input((32, 32, 3), name="image")
    features = keras.layers.GlobalAveragePooling2D(name="pool")(base(image))
    model = keras.Model(image, keras.layers.Dense(10, activation="softmax", name="head")(features))
    return model


def test_a_base_frozen_then_its_top_unfrozen_by_path_is_written_so(mobilenet, tmp_path):
    g = kc.Graph.from_model(mobilenet)
    base = "mobilenetv2_0.35_32"
    everything = g.param_counts()
    assert g.freeze_before("head") == [base, "pool"]
    top = ("block_16_project", "block_16_project_BN", "Conv_1", "Conv_1_bn")
    for inner in top:
        g.set_trainable(f"{base}/{inner}", True)
    counts = g.param_counts()
    assert 12_810 < counts["trainable"] < everything["trainable"]
    code = g.to_code()
    assert "trainable=" not in code
    flags = [line for line in after_model(code) if line]
    assert flags == ["mobilenetv2_0_35_32.trainable = False"] + [
        f'mobilenetv2_0_35_32.get_layer("{inner}").trainable = True' for inner in top]
    tidy(code, tmp_path)
    model = rebuild(code)
    assert keras_counts(model) == counts
    assert model.get_layer(base).get_layer("Conv_1").trainable
    assert not model.get_layer(base).get_layer("block_15_add").trainable

    g.set_trainable(base, True)  # everything trains again: nothing to say
    assert [line for line in after_model(g.to_code()) if line] == []
    assert keras_counts(rebuild(g.to_code())) == everything


def nested_twice():
    """A model inside a model inside the drawing: paths two deep."""
    x = keras.Input((4,), name="x")
    inner = keras.Model(x, keras.layers.Dense(3, name="d2")(keras.layers.Dense(3, name="d")(x)),
                        name="inner")
    y = keras.Input((4,), name="y")
    h = inner(y)
    for name in ("e", "f", "g"):
        h = keras.layers.Dense(2, name=name)(h)
    middle = keras.Model(y, h, name="middle")
    z = keras.Input((4,), name="z")
    return keras.Model(z, keras.layers.Dense(1, name="out")(middle(z)))


def test_paths_any_depth_model_flag_first(tmp_path):
    g = kc.Graph.from_model(nested_twice())
    g.set_trainable("middle", False)
    g.set_trainable("middle/inner/d", True)
    code = g.to_code()
    flags = [line for line in after_model(code) if line]
    assert flags == ["middle.trainable = False",  # the model's flag, then the few inside
                     'middle.get_layer("inner").get_layer("d").trainable = True']
    tidy(code, tmp_path)
    assert keras_counts(rebuild(code)) == g.param_counts() == {
        "total": 50, "trainable": 15 + 3, "non_trainable": 12 + 8 + 6 + 6}
    g.set_trainable("middle/e", True)  # a frozen layer among trainable ones: just that one
    g.set_trainable("middle/f", True)
    g.set_trainable("middle/g", True)
    g.set_trainable("middle/inner/d2", True)
    g.set_trainable("middle/inner/d", False)
    code = g.to_code()
    assert [line for line in after_model(code) if line] == [
        'middle.get_layer("inner").get_layer("d").trainable = False']
    assert keras_counts(rebuild(code)) == g.param_counts()


def lora_model(alpha=None, frozen=False):
    features = keras.Input((4,), name="features")
    adapted = keras.layers.Dense(3, name="adapted")
    model = keras.Model(features, keras.layers.Dense(2, name="head")(adapted(features)))
    if frozen:
        adapted.trainable = False
    adapted.enable_lora(4, lora_alpha=alpha)
    return model


@pytest.mark.parametrize(("alpha", "frozen", "call"), [
    (None, False, "adapted.enable_lora(4)"),
    (8, False, "adapted.enable_lora(4, lora_alpha=8)"),
    (None, True, "adapted.enable_lora(4)")])
def test_lora_is_enabled_after_the_model_is_made(alpha, frozen, call, tmp_path):
    g = kc.Graph.from_model(lora_model(alpha, frozen))  # kerascanvas imports a LoRA layer
    assert g.layers["adapted"]["config"]["lora_rank"] == 4
    code = g.to_code()
    assert "lora_rank" not in code and "lora_alpha=8," not in code
    assert [line for line in after_model(code) if line] == (
        ["adapted.trainable = False"] if frozen else []) + [call]
    tidy(code, tmp_path)
    model = rebuild(code)
    assert model.get_layer("adapted").lora_enabled
    assert keras_counts(model) == g.param_counts() == keras_counts(lora_model(alpha, frozen))


def data(n=24, seed=0):
    rng = np.random.default_rng(seed)
    return rng.random((n, 4), dtype=np.float32), rng.integers(0, 2, n)


def run_code(code, x, y, **more):
    namespace = {"x_train": x, "y_train": y, **more}
    exec(compile(code, "<kerascanvas>", "exec"), namespace)  # noqa: S102 - the test runs it
    return namespace


def test_training_writes_the_last_run_and_the_code_trains(tmp_path):
    g = chain()
    code = g.to_code(training=True)  # no run yet: said, and the panel's defaults
    assert "# No training run on this graph yet" in code
    assert 'loss="sparse_categorical_crossentropy"' in code
    tidy(code, tmp_path)
    run_code(code, *data())

    g.set_trainable("a", False)
    canvas = kc.Canvas(g)
    x, y = data()
    canvas.set_data(x, y)
    canvas.fit(epochs=2, block=True, learning_rate=1e-3, batch_size=8, metrics=["accuracy"],
               validation_split=0.25)
    code = g.to_code(training=True)
    assert code.startswith(g.to_code())  # the model's code, then the training
    tail = "\n".join(after_model(code))
    assert "a.trainable = False" in tail
    assert "optimizer=keras.optimizers.Adam(learning_rate=0.001)" in tail
    assert "loss=keras.losses.SparseCategoricalCrossentropy()" in tail
    assert 'metrics=["accuracy"]' in tail
    assert ("model.fit(x_train, y_train, epochs=2, batch_size=8, validation_split=0.25)"
            in tail)
    assert "x_train, y_train stand for the data given to set_data" in tail
    assert tail.index("a.trainable = False") < tail.index("model.compile(")
    tidy(code, tmp_path)
    namespace = run_code(code, x, y)
    model = namespace["model"]
    assert keras_counts(model) == g.param_counts()
    assert float(keras.ops.convert_to_numpy(model.optimizer.learning_rate)) == pytest.approx(1e-3)
    assert len(model.history.history["val_loss"]) == 2

    # the second stage: another run, lower learning rate, validation data of its own
    g.set_trainable("a", True)
    canvas.set_data(x, y, validation_data=data(8, seed=1))
    canvas.fit(epochs=1, block=True, optimizer="sgd", learning_rate=1e-4, batch_size=4)
    code = g.to_code(training=True)
    assert "a.trainable" not in code
    assert "optimizer=keras.optimizers.SGD(learning_rate=0.0001)" in code
    assert "validation_data=(x_val, y_val)" in code and "x_val, y_val for its" in code
    tidy(code, tmp_path)
    x_val, y_val = data(8, seed=1)
    model = run_code(code, x, y, x_val=x_val, y_val=y_val)["model"]
    assert keras_counts(model) == g.param_counts()
    assert "val_loss" in model.history.history


def test_the_data_names_are_never_a_layers():
    g = kc.Graph()
    g.add_input((4,), name="x_train")
    g.add_layer("Dense", units=2, activation="softmax", name="y_train")
    g.connect("x_train", "y_train")
    code = g.to_code(training=True)
    x, y = data()
    namespace = run_code(code, x, y)
    assert namespace["x_train"] is x  # the code's own names took others
    assert namespace["model"].get_layer("y_train") is not None


def test_lora_from_the_canvas_in_the_order_it_was_done(tmp_path):
    g = chain()
    g.set_trainable("a", False)
    g.enable_lora("a", 2)  # frozen, then LoRA
    g.enable_lora("b", 2)
    g.set_trainable("b", False)
    g.set_trainable("b", True)  # LoRA, then frozen and unfrozen: its kernel trains again
    g.enable_lora("head", 2)
    g.set_trainable("head", False)  # LoRA, then frozen
    code = g.to_code()
    assert "lora_rank" not in code
    assert [line for line in after_model(code) if line] == [
        "a.trainable = False", "a.enable_lora(2)", "b.enable_lora(2)",
        "b.trainable = False  # and unfrozen: its kernel trains again", "b.trainable = True",
        "head.trainable = False", "head.enable_lora(2)"]
    tidy(code, tmp_path)
    features = keras.Input((4,))  # the same, done in Keras
    a, b, head = (keras.layers.Dense(n) for n in (3, 3, 2))
    model = keras.Model(features, head(b(a(features))))
    a.trainable = False
    a.enable_lora(2)
    b.enable_lora(2)
    b.trainable = False
    b.trainable = True
    head.enable_lora(2)
    head.trainable = False
    assert keras_counts(rebuild(code)) == g.param_counts() == keras_counts(model)

    g = kc.Graph.from_model(nested_twice())
    g.enable_lora("middle/inner/d2", 2)
    code = g.to_code()
    assert [line for line in after_model(code) if line] == [
        'middle.get_layer("inner").get_layer("d2").enable_lora(2)']
    tidy(code, tmp_path)
    assert keras_counts(rebuild(code)) == g.param_counts()
