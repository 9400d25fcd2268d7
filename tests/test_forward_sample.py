"""Issue 40: the forward-pass player feeds a sample that means something for the model's inputs
and says what it fed (teaching/sample.py): token ids within the embedding's vocabulary, a padding
mask of ones, an image with a pattern, the training data's first sample when there is some."""

import keras
import numpy as np
import pytest
from support import intent, recorded_canvas

import kerascanvas as kc
from kerascanvas.teaching.sample import forward_sample


def text_model():
    ids = keras.Input((None,), dtype="int32", name="token_ids")
    mask = keras.Input((None,), dtype="int32", name="padding_mask")
    x = keras.layers.Embedding(37, 4, name="embed")(ids)
    y = keras.layers.GlobalAveragePooling1D(name="pool")(x, mask=mask)
    return keras.Model([ids, mask], keras.layers.Dense(2, name="head")(y))


def test_token_ids_stay_within_the_vocabulary_and_the_mask_is_ones():
    (ids, mask), fed = forward_sample(text_model())
    assert ids.dtype == np.int32 and ids.shape == (1, 8)
    assert ids.min() >= 1 and ids.max() < 37 and len(set(ids.ravel())) > 2
    assert (mask == 1).all()
    assert fed == {"token_ids": "token ids 1..36 (the vocabulary of 37), 8 long",
                   "padding_mask": "a mask of ones over all 8 positions"}


def test_the_vocabulary_is_found_inside_a_nested_model():
    inner = text_model()
    ids = keras.Input((5,), dtype="int32", name="ids")
    mask = keras.Input((5,), dtype="int32", name="mask")
    outer = keras.Model([ids, mask], inner([ids, mask]))
    (got, _), fed = forward_sample(outer)
    assert got.max() < 37 and got.shape == (1, 5)
    assert "vocabulary of 37" in fed["ids"]


def test_an_image_input_gets_a_pattern_not_noise():
    x = keras.Input((12, 10, 3), name="image")
    model = keras.Model(x, keras.layers.Conv2D(2, 3)(x))
    image, fed = forward_sample(model)
    assert image.shape == (1, 12, 10, 3) and 0 <= image.min() and image.max() == 1
    assert fed == {"image": "an image 12x10x3: a bright disc on a ramp"}


def test_training_data_comes_first_dicts_included():
    model = text_model()
    data = ({"padding_mask": np.ones((4, 6), "int32"),
             "token_ids": np.arange(24, dtype="int32").reshape(4, 6)}, np.zeros((4, 2)))
    (ids, mask), fed = forward_sample(model, data)
    assert ids.tolist() == [[0, 1, 2, 3, 4, 5]] and mask.shape == (1, 6)
    assert set(fed.values()) == {"the first sample of the training data"}


def test_the_player_says_what_each_input_was_fed():
    pytest.importorskip("keras_hub")
    from test_keras_hub import gpt2

    canvas = recorded_canvas(kc.Graph.from_model(gpt2(), trust_custom=True))
    try:
        reply = intent(canvas, kind="forward_steps", id=1)
        assert reply["ok"], reply
        fed = {s["node"][0]: s["fed"] for s in reply["result"] if s["is_input"]}
        assert fed == {"token_ids": "token ids 1..49 (the vocabulary of 50), 8 long",
                       "padding_mask": "a mask of ones over all 8 positions"}
        assert all("fed" not in s for s in reply["result"] if not s["is_input"])
    finally:
        canvas.close()
