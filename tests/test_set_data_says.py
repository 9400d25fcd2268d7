"""Training you can read (issue 43): set_data answers with what it got (samples, shapes per
sample, dtypes, classes, the validation data) and the Train panel's view carries it."""

import keras
import numpy as np
import pytest

import kerascanvas as kc
from kerascanvas.datasets import digits
from kerascanvas.errors import DataError


def canvas() -> kc.Canvas:
    x, _ = digits()
    return kc.Canvas(kc.Graph.from_model(keras.Sequential(
        [keras.Input(x.shape[1:]), keras.layers.Flatten(), keras.layers.Dense(10)])))


def test_set_data_says_what_it_got_and_the_panel_shows_it():
    x, y = digits()
    c = canvas()
    said = c.set_data(x, y)
    assert said == f"{len(x):,} samples · x (8, 8, 1) float32 · y {y.dtype}, 10 classes"
    assert repr(said) == f"Data set: {said}"  # a cell shows words, not a quoted string
    assert c.training["data"] == said
    # the palette offers an Input shaped like x (the front end names it "Input 8x8x1 (your data)")
    assert c.training["data_inputs"] == [{"name": None, "shape": [8, 8, 1], "dtype": "float32"}]
    said = c.set_data(x, y, validation_data=(x[:100], y[:100]))
    assert said.endswith(f"· validation: 100 samples · x (8, 8, 1) float32 · y {y.dtype}")
    c.fit(epochs=1, batch_size=256, block=True)
    assert c.training["data"] == said  # still said after a run
    assert c.training["data_inputs"][0]["shape"] == [8, 8, 1]


def test_several_inputs_by_name_and_one_hot_labels_say_no_classes():
    a, b = keras.Input((3,), name="a"), keras.Input((2,), name="b")
    model = keras.Model({"a": a, "b": b}, keras.layers.Dense(4)(keras.layers.Concatenate()([a, b])))
    c = kc.Canvas(kc.Graph.from_model(model))
    rng = np.random.default_rng(0)
    said = c.set_data({"a": rng.random((20, 3), "float32"), "b": rng.random((20, 2), "float32")},
                      np.eye(4, dtype="float32")[rng.integers(0, 4, 20)])
    assert said == "20 samples · x['a'] (3,) float32 · x['b'] (2,) float32 · y (4,) float32"
    assert c.training["data_inputs"] == [{"name": "a", "shape": [3], "dtype": "float32"},
                                         {"name": "b", "shape": [2], "dtype": "float32"}]


def test_a_refused_data_set_says_why_and_keeps_the_last_one():
    x, y = digits()
    c = canvas()
    said = c.set_data(x, y)
    with pytest.raises(DataError, match="same number of samples"):
        c.set_data(x, y[:10])
    assert c.training["data"] == said


@pytest.mark.parametrize("layers, fix, gives", [
    ([keras.layers.Conv2D(4, 3)], "a Flatten or a GlobalAveragePooling2D", "(None, 10)"),
    ([keras.layers.Reshape((64, 1)), keras.layers.Conv1D(4, 3)],
     "a Flatten or a GlobalAveragePooling1D", "(None, 10)"),
])
def test_a_head_that_kept_its_grid_is_told_what_fixes_it(layers, fix, gives):
    """A Dense wired straight onto a Conv2D gives (None, 6, 6, 10), which Keras accepts; with
    one label per sample the refusal says what was meant: a Flatten or a global pooling."""
    x, y = digits()
    model = keras.Sequential([keras.Input(x.shape[1:]), *layers,
                              keras.layers.Dense(10, activation="softmax", name="head")])
    c = kc.Canvas(kc.Graph.from_model(model))
    with pytest.raises(DataError, match=rf"put {fix} before head so it gives "
                                        rf"{gives.replace('(', '[(]').replace(')', '[)]')}"):
        c.set_data(x, y)
    # an output whose grid y matches gets no such hint
    with pytest.raises(DataError) as refused:
        c.set_data(x, np.zeros((len(x), 2, 2, 10), "float32"))
    assert "Flatten" not in str(refused.value)
